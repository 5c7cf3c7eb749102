/**
 * The demo Worker under `wrangler dev` for `npm run load` (bench/load.ts): started on a free loopback port
 * with bench/workers/load.toml (worker/index.ts without the web demo's assets, so nothing has to be built)
 * and a fresh random `REQUEST_STATE_KEYS`; stopped by killing its process group. And the memory (RSS) of
 * its workerd process(es), found by walking the wrangler child's process tree in /proc (Linux only).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT, freePort, wranglerEnv } from '../test/workerd.ts'

/** A running `wrangler dev`. */
export interface DevServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string
  /** The wrangler process (leader of its own process group). */
  pid: number
  /** What wrangler printed so far. */
  output(): string
  /** SIGTERM the group, then SIGKILL after 5 s; resolves once it is gone. Safe to call twice. */
  stop(): Promise<void>
  /** SIGKILL the whole group now, synchronously (for `process.on('exit')`). */
  kill(): void
}

/** 32 random bytes as unpadded base64url: one `REQUEST_STATE_KEYS` key. */
function randomKey(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')
}

/**
 * Start the demo Worker; resolves once `server/discover` on /mcp answers 200.
 * @throws Error with wrangler's output when it exits or does not answer within `startTimeoutMs`.
 */
export async function startDevServer(startTimeoutMs = 90_000, signal?: AbortSignal): Promise<DevServer> {
  const port = await freePort()
  // Local Durable Objects persist each object as a SQLite file — one per 2025-era question and per
  // 2025-era request (its cancellation) — so the run's state goes to a fresh directory, in memory when
  // /dev/shm is there, removed by stop(); never to the worktree's .wrangler/.
  const state = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'edge-mcp-load-'))
  const args = ['dev', '--config', join(ROOT, 'bench/workers/load.toml'), '--ip', '127.0.0.1', '--port', String(port)]
  args.push('--inspector-port', '0', '--log-level', 'warn', '--persist-to', state)
  args.push('--var', `REQUEST_STATE_KEYS:${randomKey()}`)
  const child = spawn(join(ROOT, 'node_modules/.bin/wrangler'), args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: wranglerEnv(),
  })
  let log = ''
  child.stdout.on('data', (d) => (log = (log + d).slice(-20_000)))
  child.stderr.on('data', (d) => (log = (log + d).slice(-20_000)))
  const pid = child.pid!
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const signalGroup = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig)
    } catch {
      // already gone
    }
  }
  const kill = () => {
    signalGroup('SIGKILL')
    rmSync(state, { recursive: true, force: true })
  }
  process.once('exit', kill)
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      signalGroup('SIGTERM')
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000).unref())])
    }
    kill() // workerd may outlive wrangler: the whole group goes
    process.removeListener('exit', kill)
    rmSync(state, { recursive: true, force: true })
  }
  const url = `http://127.0.0.1:${port}/mcp`
  const deadline = Date.now() + startTimeoutMs
  while (Date.now() < deadline && !signal?.aborted) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop()
      throw new Error(`wrangler dev exited (${child.exitCode ?? child.signalCode}):\n${log}`)
    }
    try {
      const res = await fetch(url, {
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
      await res.arrayBuffer()
      if (res.ok) return { url, pid, output: () => log, stop, kill }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250))
  }
  await stop()
  throw new Error(
    signal?.aborted
      ? 'stopped while wrangler dev started'
      : `wrangler dev did not answer within ${startTimeoutMs} ms:\n${log}`,
  )
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

/** Every descendant of `root` (not `root` itself) with its command name, from /proc/<pid>/stat. */
export function descendants(root: number): Array<{ pid: number; comm: string }> {
  const children = new Map<number, Array<{ pid: number; comm: string }>>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue // exited meanwhile
    }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split at the last ')'
    const close = stat.lastIndexOf(')')
    const comm = stat.slice(stat.indexOf('(') + 1, close)
    const ppid = Number(stat.slice(close + 2).split(' ')[1])
    const list = children.get(ppid) ?? []
    list.push({ pid: Number(entry), comm })
    children.set(ppid, list)
  }
  const found: Array<{ pid: number; comm: string }> = []
  const queue = [root]
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child)
      queue.push(child.pid)
    }
  }
  return found
}

/** Memory of the workerd processes under `root`: summed VmRSS and VmHWM (peak RSS), in **bytes**. */
export interface WorkerdMemory {
  pids: number[]
  /** VmRSS of each process, in the order of `pids`, in **bytes**. */
  eachBytes: number[]
  rssBytes: number
  peakBytes: number
}

/** The workerd processes under wrangler `root`; undefined when none is found (or /proc is not there). */
export function workerdMemory(root: number): WorkerdMemory | undefined {
  let procs: Array<{ pid: number; comm: string }>
  try {
    procs = descendants(root).filter((p) => p.comm.startsWith('workerd'))
  } catch {
    return undefined
  }
  const memory: WorkerdMemory = { pids: [], eachBytes: [], rssBytes: 0, peakBytes: 0 }
  for (const { pid } of procs) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8')
      const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0)
      memory.pids.push(pid)
      memory.eachBytes.push(kib('VmRSS') * 1024)
      memory.rssBytes += kib('VmRSS') * 1024
      memory.peakBytes += kib('VmHWM') * 1024
    } catch {
      // exited meanwhile
    }
  }
  return memory.pids.length ? memory : undefined
}
