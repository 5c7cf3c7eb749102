/**
 * Start and kill the fleet test's instances: test/fleet/server.ts under Node (tsx), Deno or Bun, each a
 * process group of its own on a free loopback port, so that `kill()` (SIGKILL to the group) takes the
 * runtime and anything it started down at once, as a crashed machine would.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { ensureTool } from '../tools.ts'
import { freePort, ROOT } from '../workerd.ts'

export type Runtime = 'node' | 'deno' | 'bun'

/** One running instance. */
export interface Instance {
  readonly name: string
  readonly runtime: Runtime
  readonly port: number
  /** `http://127.0.0.1:PORT` */
  readonly base: string
  /** What it printed (for failure messages). */
  log(): string
  /** Whether the process is still running. */
  readonly alive: boolean
  /** SIGKILL the process group; resolves once the process has exited. */
  kill(): Promise<void>
}

const SERVER = join(ROOT, 'test/fleet/server.ts')
/** Every process this module started that may still run: killed when the test process exits. */
const started = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of started) killGroup(child)
})

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL')
  } catch {
    // already gone
  }
}

/** The command that runs test/fleet/server.ts under `runtime`. */
async function command(runtime: Runtime): Promise<[string, string[]]> {
  if (runtime === 'node') return [join(ROOT, 'node_modules/.bin/tsx'), [SERVER]]
  if (runtime === 'deno')
    return [
      await ensureTool('deno'),
      ['run', '--unstable-no-legacy-abort', '--allow-net', '--allow-env', '--allow-read', '--allow-sys', SERVER],
    ]
  return [await ensureTool('bun'), [SERVER]]
}

/**
 * Start test/fleet/server.ts under `runtime` with `env` (PORT and INSTANCE are set here); resolves once it
 * printed that it listens.
 * @throws Error with its output when it exits or does not listen within 60 s.
 */
export async function startInstance(name: string, runtime: Runtime, env: Record<string, string>): Promise<Instance> {
  const [bin, args] = await command(runtime)
  const port = await freePort()
  const child = spawn(bin, args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', ...env, PORT: String(port), INSTANCE: name },
  })
  started.add(child)
  let output = ''
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} (${runtime}) did not listen within 60 s:\n${output}`)),
      60_000,
    )
    const seen = (data: Buffer) => {
      output += data.toString()
      if (!output.includes(`listening ${port}`)) return
      clearTimeout(timer)
      resolve()
    }
    child.stdout.on('data', seen)
    child.stderr.on('data', (data: Buffer) => (output += data.toString()))
    void exited.then(() => (clearTimeout(timer), reject(new Error(`${name} (${runtime}) exited:\n${output}`))))
  })
  try {
    await ready
  } catch (error) {
    killGroup(child)
    throw error
  }
  return {
    name,
    runtime,
    port,
    base: `http://127.0.0.1:${port}`,
    log: () => output,
    get alive() {
      return child.exitCode === null && child.signalCode === null
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        killGroup(child)
        await exited
      }
      started.delete(child)
    },
  }
}
