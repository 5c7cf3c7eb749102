/**
 * The Miniflare harness of the cross-isolate tests (test/e2e/crossiso.test.ts, test/e2e/crossiso-bus.test.ts):
 * the demo Worker wrapped by test/workers/crossiso.ts is bundled once by `wrangler deploy --dry-run`
 * (test/workers/crossiso.toml, the same esbuild step `wrangler dev` and `wrangler deploy` run) and run by
 * Miniflare's API as several Workers in one workerd process, each its own isolate and each on its own
 * loopback socket (real HTTP from Node, SSE included). Each Worker gets its own Durable Object bindings;
 * all share one `REQUEST_STATE_KEYS` key drawn at random per run. Why Miniflare and not several
 * `wrangler dev` processes bound through the local dev registry: one process and one start-up, no
 * registry shared with other `wrangler dev` runs on the machine (names could clash), no port races.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Miniflare, type WorkerOptions } from 'miniflare'
import { encodeBase64Url } from '../src/encoding/base64url.ts'
import { ROOT } from './workerd.ts'

const CONFIG = join(ROOT, 'test/workers/crossiso.toml')
/** A Durable Object binding in Miniflare's options: the class, and the Worker defining it if another. */
export type DurableObjectBinding = { className: string; scriptName?: string; useSQLite?: boolean }

/** Workers running, by name: each one's base URL; `dispose` stops them all. */
export interface CrossIsolate<Name extends string> {
  base: Record<Name, string>
  dispose(): Promise<void>
}

/** Bundle the Worker with wrangler into `dir`. */
async function bundle(dir: string): Promise<string> {
  await promisify(execFile)(
    join(ROOT, 'node_modules/.bin/wrangler'),
    ['deploy', '--dry-run', '--config', CONFIG, '--outdir', dir],
    {
      cwd: ROOT,
      timeout: 90_000,
      env: {
        ...process.env,
        CI: 'true',
        WRANGLER_LOG: 'warn',
        WRANGLER_LOG_PATH: dir,
        WRANGLER_SEND_METRICS: 'false',
        WRANGLER_SEND_ERROR_REPORTS: 'false',
      },
    },
  )
  return join(dir, 'crossiso.js')
}

/**
 * Start one Worker per entry of `workers` (its Durable Object bindings; none for an empty object), with
 * `WORKER_NAME` set to its name.
 */
export async function startCrossIsolate<Name extends string>(
  workers: Record<Name, Record<string, DurableObjectBinding>>,
): Promise<CrossIsolate<Name>> {
  const dir = await mkdtemp(join(tmpdir(), 'edge-mcp-crossiso-'))
  let mf: Miniflare | undefined
  const dispose = async () => {
    try {
      await mf?.dispose() // stops the workerd process (throws if it never started; the bundle goes anyway)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }
  try {
    const scriptPath = await bundle(dir)
    const toml = await readFile(CONFIG, 'utf8')
    const compatibilityDate = /^compatibility_date = "(.+)"$/m.exec(toml)![1]
    const compatibilityFlags = JSON.parse(/^compatibility_flags = (\[.*\])$/m.exec(toml)![1]) as string[]
    const keys = encodeBase64Url(crypto.getRandomValues(new Uint8Array(32)))
    const names = Object.keys(workers) as Name[]
    const options = (name: Name): WorkerOptions => ({
      name,
      modules: true,
      scriptPath,
      modulesRoot: dir, // module names are relative to it
      compatibilityDate,
      compatibilityFlags,
      bindings: { REQUEST_STATE_KEYS: keys, ALLOWED_HOSTS: '127.0.0.1', WORKER_NAME: name },
      durableObjects: workers[name],
      unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
    })
    mf = new Miniflare({ cf: false, workers: names.map(options) })
    await mf.ready
    const base = {} as Record<Name, string>
    for (const name of names) base[name] = (await mf.unsafeGetDirectURL(name)).href
    return { base, dispose }
  } catch (error) {
    await dispose().catch(() => {})
    throw error
  }
}
