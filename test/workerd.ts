/** Start the demo Worker under `wrangler dev` (local workerd) on a free loopback port, for tests. */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

export const ROOT = join(import.meta.dirname, '..')

/** The environment `wrangler dev` runs with here: no prompts, metrics, error reports, remote fetches or colours. */
export function wranglerEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    CI: 'true',
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_SEND_ERROR_REPORTS: 'false',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    NO_COLOR: '1',
  }
}

/** A free loopback TCP port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

export interface RunningWorker {
  url: string
  port: number
  output: () => string
  stop: () => Promise<void>
}

const DISCOVER = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'server/discover',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
})

/** Options of {@link startWorker}. */
export interface StartOptions {
  /** `--var NAME:value` bindings. */
  vars?: Record<string, string>
  /** A wrangler config other than the root `wrangler.toml` (its Worker is probed with GET /). */
  config?: string
  /** A Worker script to run instead of the config's `main` (probed with `server/discover` on `/`). */
  script?: string
}

/**
 * Stops a detached child's whole process group: SIGTERM, then SIGKILL after at most 5 s. A no-op for
 * a child that already exited or was never started.
 */
export async function stopGroup(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return
  const exited = new Promise((r) => child.once('exit', r))
  try {
    process.kill(-child.pid!, 'SIGTERM')
  } catch {
    // already gone
  }
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
  try {
    process.kill(-child.pid!, 'SIGKILL')
  } catch {
    // already gone
  }
}

/**
 * Start `wrangler dev`; resolves once the Worker answers (`server/discover` on /mcp, or GET / for `config`).
 * A port taken between `freePort()` and wrangler's bind (another test process got it) is retried on a new one.
 */
export async function startWorker(options: StartOptions = {}): Promise<RunningWorker> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startWorkerOn(await freePort(), options)
    } catch (error) {
      if (attempt >= 3 || !/Address already in use/.test((error as Error).message)) throw error
    }
  }
}

async function startWorkerOn(port: number, options: StartOptions): Promise<RunningWorker> {
  const vars = options.vars ?? {}
  const args = ['dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', '0', '--log-level', 'warn']
  if (options.config) args.push('--config', options.config)
  else if (options.script) args.push('--config', join(ROOT, 'examples/wrangler.toml'))
  if (options.script) args.splice(1, 0, options.script)
  for (const [k, v] of Object.entries(vars)) args.push('--var', `${k}:${v}`)
  const child: ChildProcess = spawn(join(ROOT, 'node_modules/.bin/wrangler'), args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: wranglerEnv(),
  })
  let log = ''
  // a detached group outlives the test process unless killed: a timed-out hook or test must not leave it running
  const killOnExit = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  process.once('exit', killOnExit)
  child.once('exit', () => process.removeListener('exit', killOnExit))
  child.stdout!.on('data', (d) => (log += d))
  child.stderr!.on('data', (d) => (log += d))
  const url = options.script ? `http://127.0.0.1:${port}/` : `http://127.0.0.1:${port}/mcp`
  const stop = () => stopGroup(child)
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${log}`)
    try {
      const res = options.config
        ? await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(5000) })
        : await fetch(url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json',
              'mcp-protocol-version': '2026-07-28',
              'mcp-method': 'server/discover',
            },
            body: DISCOVER,
            signal: AbortSignal.timeout(2000),
          })
      // 401: up, and protected (OAUTH_ISSUER set)
      if (res.ok || res.status === 401) return { url, port, output: () => log, stop }
    } catch {
      // not listening yet: try again
    }
    await new Promise((r) => setTimeout(r, 250))
  }
  await stop()
  throw new Error(`wrangler dev did not answer within 90 s:\n${log}`)
}

/**
 * Bundle `test/workers/<name>.ts` as `wrangler deploy --dry-run` would deploy it, into a new temporary directory.
 * @returns the directory (remove it when done) and, for Miniflare, the bundled script's path and its modules root.
 */
export async function bundleTestWorker(
  name: string,
): Promise<{ dir: string; scriptPath: string; modulesRoot: string }> {
  const dir = await mkdtemp(join(tmpdir(), `edge-mcp-${name}-`))
  const config = join(dir, 'wrangler.toml')
  const main = join(ROOT, `test/workers/${name}.ts`)
  await writeFile(config, `name = "${name}"\nmain = ${JSON.stringify(main)}\ncompatibility_date = "2026-04-01"\n`)
  await promisify(execFile)(
    join(ROOT, 'node_modules/.bin/wrangler'),
    ['deploy', '--dry-run', '--config', config, '--outdir', join(dir, 'out')],
    {
      cwd: ROOT,
      timeout: 90_000,
      env: { ...process.env, CI: 'true', WRANGLER_LOG: 'warn', WRANGLER_LOG_PATH: dir, WRANGLER_SEND_METRICS: 'false' },
    },
  )
  return { dir, scriptPath: join(dir, `out/${name}.js`), modulesRoot: join(dir, 'out') }
}
