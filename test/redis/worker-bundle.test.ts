/**
 * `edge-mcp/redis` costs nothing to an app that does not import it, and brings nothing of Node or of a Redis
 * library to one that does. Bundled with esbuild (the bundler wrangler uses; its metafile lists every module
 * that went in), minified as `wrangler deploy --minify` does:
 * - the demo Worker (worker/index.ts) and the one-tool Worker of bench/bundle.ts take no module under
 *   src/redis/, and come out byte for byte the same when every src/redis/ module is replaced by an empty one;
 * - `edge-mcp/redis` itself (every export kept) imports no `node:` module and bundles no Redis library
 *   (redis, @redis/*, ioredis): from node_modules, only edge-mcp's own dependencies.
 */
import { build, type Metafile, type Plugin } from 'esbuild'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '../..')
const REDIS_DIR = join(ROOT, 'src/redis') + '/'
const DEPENDENCIES = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: object })
  .dependencies

/** Replaces every module under src/redis/ by an empty one. */
const emptyRedis: Plugin = {
  name: 'empty-redis',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]redis[\\/].*\.ts$/ }, () => ({ contents: '', loader: 'ts' }))
  },
}

/** Bundle `entry` as a Worker script (ESM, minified, workerd conditions); `node:` and `cloudflare:` stay imports. */
async function bundle(entry: string, plugins: Plugin[] = []): Promise<{ code: string; metafile: Metafile }> {
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    write: false,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    external: ['node:*', 'cloudflare:*'],
    metafile: true,
    logLevel: 'silent',
    plugins,
  })
  return { code: result.outputFiles[0].text, metafile: result.metafile }
}

const inputs = (metafile: Metafile) => Object.keys(metafile.inputs).map((p) => relative(ROOT, join(ROOT, p)))
const redisInputs = (metafile: Metafile) => inputs(metafile).filter((p) => join(ROOT, p).startsWith(REDIS_DIR))

describe('a Worker that does not import edge-mcp/redis', () => {
  it.each(['worker/index.ts', 'bench/workers/edge-mcp.ts', 'bench/workers/edge-mcp-tasks.ts'])(
    '%s bundles no module of src/redis/, and the same bytes without them',
    async (entry) => {
      const normal = await bundle(entry)
      expect(inputs(normal.metafile).length).toBeGreaterThan(10)
      expect(redisInputs(normal.metafile)).toEqual([])
      const without = await bundle(entry, [emptyRedis])
      expect(without.code.length).toBe(normal.code.length)
      expect(without.code === normal.code).toBe(true)
    },
    60_000,
  )

  it('tells: a Worker that does use src/redis/ bundles it, and differs with it emptied', async () => {
    const entry = 'test-results/worker-bundle/uses-redis.ts'
    mkdirSync(join(ROOT, 'test-results/worker-bundle'), { recursive: true })
    writeFileSync(
      join(ROOT, entry),
      "export { default } from '../../bench/workers/edge-mcp.ts'\nexport { redisTasks } from '../../src/redis/tasks.ts'\n",
    )
    const normal = await bundle(entry)
    expect(redisInputs(normal.metafile)).toContain('src/redis/tasks.ts')
    const without = await bundle(entry, [emptyRedis])
    expect(without.code.length).toBeLessThan(normal.code.length)
  }, 60_000)
})

describe('edge-mcp/redis bundled on its own', () => {
  it("imports no node: module and bundles no Redis library, only edge-mcp's dependencies", async () => {
    // every export kept: `export *` from the entry
    const { metafile } = await bundle('src/redis/index.ts')
    const output = Object.values(metafile.outputs)[0]
    expect(output.imports.filter((i) => i.external).map((i) => i.path)).toEqual([])
    const all = inputs(metafile)
    expect(all).toContain('src/redis/index.ts')
    // from node_modules, only edge-mcp's own dependencies (valibot, …): no Redis library, nothing else
    const packages = new Set(all.flatMap((p) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(p)?.[1] ?? []))
    expect([...packages].filter((name) => !(name in DEPENDENCIES))).toEqual([])
    for (const library of ['redis', 'ioredis', '@redis/client']) expect(packages).not.toContain(library)
  }, 60_000)
})
