/**
 * Deno, Bun and TypeScript 7 (the native compiler, beside the repository's TypeScript 5) for the tests
 * that run them, installed on first use rather than by `npm install`: they are ~250 MB that a user who
 * only runs `npm install && npm start` does not need. The pinned versions below are installed from the
 * npm registry (`deno`, `bun`, `typescript` packages; the npm cache is used when it has them) into
 * node_modules/.cache/edge-mcp-tools, once, whichever test asks first; `npm ci` clears them.
 *
 * @example
 * const deno = await ensureTool('deno') // an absolute path to the executable
 * await run(deno, ['run', 'script.ts'])
 * await run(await ensureTool('typescript'), ['-p', 'app']) // TypeScript 7's `tsc`
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** The tools the tests run, and the exact version of each (the one place they are pinned). */
export const TOOL_VERSIONS = { deno: '2.9.6', bun: '1.4.5', typescript: '7.0.2' } as const

export type Tool = keyof typeof TOOL_VERSIONS

/** The executable of each tool's package (TypeScript 7's is `tsc`, as TypeScript 5's). */
const BIN: Record<Tool, string> = { deno: 'deno', bun: 'bun', typescript: 'tsc' }

/** Where the tools are installed: a small npm project of its own, under the repository's node_modules. */
export const TOOLS_DIR = join(import.meta.dirname, '..', 'node_modules/.cache/edge-mcp-tools')

const LOCK = join(TOOLS_DIR, '.install-lock')
/** A lock older than this whose owner cannot be found is taken over (an install is far shorter). */
const STALE_LOCK_MS = 10 * 60_000
const pending = new Map<Tool, Promise<string>>()

/**
 * The absolute path of the pinned `deno`, `bun` or TypeScript 7 `tsc` executable, installing it first when it is missing,
 * at another version, or does not run. Safe to call from parallel vitest workers (one installs, the
 * others wait on a lock in TOOLS_DIR). Takes a few seconds from the npm cache, longer from the
 * registry: call it from a test or hook with a timeout to match (e.g. 180 s).
 * @throws Error when `npm install` fails (e.g. offline with an empty cache) or the installed tool does
 * not report the pinned version; the message has npm's output and the command to run by hand.
 */
export function ensureTool(name: Tool): Promise<string> {
  let result = pending.get(name)
  if (!result) {
    result = locate(name)
    pending.set(name, result)
    result.catch(() => pending.delete(name)) // a failure is not remembered: the next call tries again
  }
  return result
}

async function locate(name: Tool): Promise<string> {
  const bin = join(TOOLS_DIR, 'node_modules', '.bin', BIN[name])
  if (await works(name, bin)) return bin
  await withLock(async () => {
    if (await works(name, bin)) return // another worker installed it while this one waited
    await install(name)
  })
  if (await works(name, bin)) return bin
  throw new Error(`${name} ${TOOL_VERSIONS[name]} was installed in ${TOOLS_DIR} but ${bin} does not run`)
}

/** Whether `bin` exists, is the pinned version, and runs. */
async function works(name: Tool, bin: string): Promise<boolean> {
  const manifest = join(TOOLS_DIR, 'node_modules', name, 'package.json')
  if (!existsSync(bin) || !existsSync(manifest)) return false
  if ((JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version !== TOOL_VERSIONS[name]) return false
  try {
    const { stdout } = await run(bin, ['--version'], { timeout: 30_000 })
    return stdout.includes(TOOL_VERSIONS[name])
  } catch {
    return false
  }
}

/**
 * `npm install` of the pinned tool into TOOLS_DIR. The folder's own package.json lists what is installed
 * there (so installing one tool keeps the other, which `--no-save` would prune) and allows the tools'
 * install scripts (they put the platform binary in place).
 */
async function install(name: Tool): Promise<void> {
  const manifest = join(TOOLS_DIR, 'package.json')
  if (!existsSync(manifest)) {
    const allowScripts = Object.fromEntries(Object.keys(TOOL_VERSIONS).map((tool) => [tool, true]))
    const pkg = { name: 'edge-mcp-tools', private: true, description: 'see test/tools.ts', allowScripts }
    writeFileSync(manifest, JSON.stringify(pkg, null, 2) + '\n')
  }
  const spec = `${name}@${TOOL_VERSIONS[name]}`
  const args = ['install', '--prefix', TOOLS_DIR, '--save-exact', '--prefer-offline', '--no-audit', '--no-fund', spec]
  try {
    await run('npm', args, { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 })
  } catch (error) {
    const { stderr = '', message } = error as { stderr?: string; message: string }
    throw new Error(`installing ${spec} for the tests failed (npm ${args.join(' ')}):\n${stderr || message}`)
  }
}

/** Runs `task` holding the install lock: a folder (mkdir is atomic) with the owner's pid inside. */
async function withLock(task: () => Promise<void>): Promise<void> {
  mkdirSync(TOOLS_DIR, { recursive: true })
  for (;;) {
    try {
      mkdirSync(LOCK)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      if (lockIsStale()) rmSync(LOCK, { recursive: true, force: true })
      else await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }
  try {
    writeFileSync(join(LOCK, 'pid'), String(process.pid))
    await task()
  } finally {
    rmSync(LOCK, { recursive: true, force: true })
  }
}

/** A lock whose owner process is gone, or (owner unknown) that is older than STALE_LOCK_MS. */
function lockIsStale(): boolean {
  try {
    const pid = Number(readFileSync(join(LOCK, 'pid'), 'utf8'))
    process.kill(pid, 0)
    return false
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true // the owner died mid-install
    try {
      return Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS
    } catch {
      return false // released meanwhile: the next mkdir takes it
    }
  }
}
