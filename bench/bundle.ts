/**
 * Benchmark: the deployable size of an equivalent one-tool Worker (`echo {text: string}`) per SDK, as
 * `wrangler deploy --dry-run --minify` bundles it (the project's wrangler 4.86.0; no account needed): bytes of the bundled
 * script, and the same gzipped (zlib, default level 6). Each entry is in `bench/workers/`; each gets a
 * generated `wrangler.toml` with `no_nodejs_compat` (both bundle and import nothing from `node:`).
 * Target: edge-mcp ≤ 1/3 of the official SDK, gzipped.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'
import { fmt, met, x } from './measure.ts'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))

interface Bundle {
  bytes: number
  gzipped: number
}

/** Bundle one entry with wrangler into a temporary folder; throws with wrangler's output on failure. */
async function bundle(entry: string): Promise<Bundle> {
  const dir = await mkdtemp(join(tmpdir(), 'edge-mcp-bundle-'))
  try {
    const config = join(dir, 'wrangler.toml')
    const main = join(root, 'bench', 'workers', entry)
    await writeFile(
      config,
      `name = "bench"\nmain = ${JSON.stringify(main)}\ncompatibility_date = "2026-04-01"\ncompatibility_flags = ["no_nodejs_compat"]\n`,
    )
    const out = join(dir, 'out')
    try {
      await run(
        join(root, 'node_modules', '.bin', 'wrangler'),
        ['deploy', '--dry-run', '--minify', '--outdir', out, '--config', config],
        {
          cwd: root,
          env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' },
          timeout: 120_000,
        },
      )
    } catch (error) {
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
      throw new Error(`wrangler could not bundle bench/workers/${entry}:\n${stdout}${stderr}`)
    }
    const scripts = (await readdir(out)).filter((f) => f.endsWith('.js'))
    if (scripts.length !== 1)
      throw new Error(
        `wrangler bundled bench/workers/${entry} into ${scripts.length} scripts (${scripts.join(', ')}), expected 1`,
      )
    const code = await readFile(join(out, scripts[0]))
    if (/\bfrom\s*["']node:|require\(["']node:/.test(code.toString('utf8')))
      throw new Error(`bench/workers/${entry} bundled a node: import`)
    return { bytes: code.length, gzipped: gzipSync(code).length }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

const kib = (n: number) => `${fmt(n)} (${(n / 1024).toFixed(1)} KiB)`

/** Sizes of the three Workers and the table lines. */
export async function benchBundle(): Promise<{ ours: Bundle; theirs: Bundle; lines: string[] }> {
  const [ours, hono, theirs] = (await Promise.all(['edge-mcp.ts', 'edge-mcp-hono.ts', 'official.ts'].map(bundle))) as [
    Bundle,
    Bundle,
    Bundle,
  ]
  const ratio = ours.gzipped / theirs.gzipped
  const lines = [
    '### One-tool Worker bundle',
    '',
    '| one-tool Worker, `wrangler deploy --dry-run --minify` | bytes | gzipped bytes |',
    '| --- | ---: | ---: |',
    `| edge-mcp (\`createFetchHandler\`) | ${kib(ours.bytes)} | ${kib(ours.gzipped)} |`,
    `| edge-mcp (\`edge-mcp/hono\`, info) | ${kib(hono.bytes)} | ${kib(hono.gzipped)} |`,
    `| official SDK 2.4.0 (\`createMcpHandler\`) | ${kib(theirs.bytes)} | ${kib(theirs.gzipped)} |`,
    `| **ratio** edge-mcp ÷ official (target ≤ 0.33) | ${x(ours.bytes / theirs.bytes)} | **${x(ratio)}** ${met(ratio <= 1 / 3)} |`,
  ]
  return { ours, theirs, lines }
}
