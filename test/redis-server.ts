/**
 * A real Redis for the tests: Debian's `redis-server` (installed by `.ci/run`, as Chromium is) started on a
 * free loopback port with nothing persisted (`--save '' --appendonly no`) in a folder of its own under
 * test-results/redis/, so that a test can stop it, start it again on the same port, and kill it, without
 * touching any other Redis on the machine.
 *
 * @example
 * const redis = await startRedis()
 * const client = await createClient({ url: redis.url }).connect()
 * await redis.stop()    // Redis unreachable
 * await redis.start()   // back on the same port, empty
 * await redis.close()   // at the end of the file
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import { createConnection } from 'node:net'
import { join } from 'node:path'
import { freePort, ROOT } from './workerd.ts'

/** A redis-server of the test's own. */
export interface RunningRedis {
  /** `redis://127.0.0.1:PORT` */
  readonly url: string
  readonly port: number
  /** Whether the server runs now. */
  readonly running: boolean
  /** Start it again on the same port (empty: nothing is persisted). Resolves once it accepts connections. */
  start(): Promise<void>
  /** Stop it (SIGTERM, then SIGKILL after 5 s). Resolves once the process has exited. */
  stop(): Promise<void>
  /** Stop it and remove its folder. */
  close(): Promise<void>
  /** What it printed (for failure messages). */
  output(): string
}

/** The `redis-server` binary: `REDIS_SERVER` or the one on PATH. */
const BINARY = process.env.REDIS_SERVER ?? 'redis-server'

/**
 * Start a redis-server on a free loopback port.
 * @throws Error naming the binary and how to install it when it cannot be started.
 */
export async function startRedis(): Promise<RunningRedis> {
  const port = await freePort()
  const dir = join(ROOT, 'test-results/redis', String(port))
  mkdirSync(dir, { recursive: true })
  let child: ChildProcess | undefined
  let log = ''
  const start = async (): Promise<void> => {
    const proc = spawn(
      BINARY,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--daemonize',
        'no',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    child = proc
    proc.stdout.on('data', (d: Buffer) => (log += d.toString()))
    proc.stderr.on('data', (d: Buffer) => (log += d.toString()))
    const failed = new Promise<never>((_, reject) => {
      proc.once('error', (error) =>
        reject(new Error(`cannot start ${BINARY} (apt-get install -y redis-server): ${error.message}`)),
      )
      proc.once('exit', (code) => reject(new Error(`${BINARY} exited with ${code} at start:\n${log}`)))
    })
    await Promise.race([waitForPort(port, 10_000), failed])
  }
  const stop = async (): Promise<void> => {
    const proc = child
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
    proc.kill('SIGTERM')
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000)
    await exited
    clearTimeout(timer)
  }
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null
    },
    start,
    stop,
    async close() {
      await stop()
      rmSync(dir, { recursive: true, force: true })
    },
    output: () => log,
  }
}

/** Resolve once something accepts TCP connections on the loopback port, or reject after `ms`. */
async function waitForPort(port: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' })
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (open) return
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${ms} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
