/**
 * The runtime recipes (docs/runtimes.md) as a user copies them: every code block naming a file is that file
 * of examples/runtimes/ byte for byte; the files, copied into a fresh app whose `node_modules/edge-mcp` is
 * this package (dist/, as installed), type-check with the app's own tsconfig.json; and each server — Node
 * (tsx + @hono/node-server), Deno, Bun and the Worker under `wrangler dev` — answers the client's round
 * trip (list tools, a call, a call that asks and is answered by the elicitation callback) on /mcp, and 404
 * anywhere else. Needs `npm run build` first (npm test does).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { typecheckApp } from '../app-typecheck.ts'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureTool } from '../tools.ts'
import { freePort, ROOT, wranglerEnv } from '../workerd.ts'

const run = promisify(execFile)
const RECIPES = join(ROOT, 'examples/runtimes')
const DOC = join(ROOT, 'docs/runtimes.md')
const APP = join(ROOT, 'test-results/runtimes/app')
const BIN = (name: string) => join(ROOT, 'node_modules/.bin', name)

/** What the client prints against any of the servers (docs/runtimes.md shows it too). */
const EXPECTED = [
  'tools: greet, order_book',
  'Hello, Ada!',
  "asked: 'Neuromancer' is out of stock (2-3 weeks). Order anyway?",
  "Ordered 'Neuromancer'.",
  '',
].join('\n')

/** The doc's fenced blocks: info string and body (the text between the fences, final newline included). */
function fences(markdown: string): Array<{ info: string; body: string }> {
  const blocks: Array<{ info: string; body: string }> = []
  const re = /^```(.*)\n([\s\S]*?)^```$/gm
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) blocks.push({ info: m[1], body: m[2] })
  return blocks
}

describe('docs/runtimes.md', () => {
  const doc = readFileSync(DOC, 'utf8')
  const named = fences(doc).flatMap(({ info, body }) => {
    const file = /\bfile=(\S+)/.exec(info)?.[1]
    return file ? [{ file, body }] : []
  })

  it('shows every recipe file, each block byte-equal to the file it names', () => {
    const shown = named.map((b) => b.file).sort()
    const files = readdirSync(RECIPES)
      .filter((f) => f !== 'globals.d.ts')
      .map((f) => `examples/runtimes/${f}`)
      .sort()
    expect(shown).toEqual(files)
    for (const { file, body } of named) expect(body, file).toBe(readFileSync(join(ROOT, file), 'utf8'))
  })

  it("shows the client's output exactly as the tests see it", () => {
    expect(fences(doc).filter((b) => b.info === 'text')).toContainEqual({ info: 'text', body: EXPECTED })
  })
})

describe('the recipes in a fresh app', () => {
  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist/server/index.js')))
      throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
    rmSync(join(ROOT, 'test-results/runtimes'), { recursive: true, force: true })
    mkdirSync(join(APP, 'node_modules/@hono'), { recursive: true })
    cpSync(RECIPES, APP, { recursive: true })
    // what `npm install edge-mcp valibot @hono/node-server` (+ @types/node) puts there
    symlinkSync(ROOT, join(APP, 'node_modules/edge-mcp'), 'dir')
    symlinkSync(join(ROOT, 'node_modules/valibot'), join(APP, 'node_modules/valibot'), 'dir')
    symlinkSync(join(ROOT, 'node_modules/@hono/node-server'), join(APP, 'node_modules/@hono/node-server'), 'dir')
    symlinkSync(join(ROOT, 'node_modules/@types'), join(APP, 'node_modules/@types'), 'dir')
  })

  it("type-check against the published declarations with the app's tsconfig.json", () => {
    const { files, program, diagnostics } = typecheckApp(APP)
    expect(files.sort()).toEqual(
      readdirSync(RECIPES)
        .filter((f) => f.endsWith('.ts'))
        .sort(),
    )
    expect(diagnostics).toBe('')
    // edge-mcp resolved to the built package, not the sources
    const server = program.getSourceFiles().find((f) => f.fileName.endsWith('/dist/server/index.d.ts'))
    expect(server).toBeDefined()
  })

  /** Start a server in the app directory; resolves with its base URL once it answers HTTP. */
  async function start(command: string, args: string[], port: number) {
    const child: ChildProcess = spawn(command, args, {
      cwd: APP,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...wranglerEnv(), PORT: String(port) },
    })
    let log = ''
    child.stdout!.on('data', (d) => (log += d))
    child.stderr!.on('data', (d) => (log += d))
    const killOnExit = () => stop('SIGKILL')
    const stop = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal)
      } catch {
        // already gone
      }
    }
    process.once('exit', killOnExit)
    const base = `http://127.0.0.1:${port}`
    const deadline = Date.now() + 90_000
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${command} exited (${child.exitCode}):\n${log}`)
      if (Date.now() > deadline) throw new Error(`${command} did not answer on ${base} within 90 s:\n${log}`)
      try {
        await fetch(`${base}/`, { signal: AbortSignal.timeout(2000) })
        break
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250))
    }
    return {
      base,
      log: () => log,
      async close() {
        const exited = new Promise((r) => child.once('exit', r))
        stop('SIGTERM')
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
        stop('SIGKILL')
        process.removeListener('exit', killOnExit)
      },
    }
  }

  /** The round trip every server must pass, with the client run by `client` (command and leading args). */
  async function roundTrip(server: { base: string }, client: [string, ...string[]]) {
    const [command, ...pre] = client
    const { stdout } = await run(command, [...pre, 'client.ts', `${server.base}/mcp`], {
      cwd: APP,
      timeout: 60_000,
      env: { ...process.env, NO_COLOR: '1' },
    })
    expect(stdout).toBe(EXPECTED)
    for (const path of ['/', '/mcp/', '/other'])
      expect((await fetch(`${server.base}${path}`, { method: 'POST' })).status, path).toBe(404)
  }

  it('Node: npx tsx node.ts', { timeout: 120_000 }, async () => {
    const server = await start(BIN('tsx'), ['node.ts'], await freePort())
    try {
      await roundTrip(server, [BIN('tsx')])
      expect(server.log()).toContain(`MCP server at ${server.base}/mcp`)
    } finally {
      await server.close()
    }
  })

  it('Deno: deno run --unstable-no-legacy-abort …, with no legacy-abort warning', { timeout: 180_000 }, async () => {
    const deno = await ensureTool('deno')
    const flags = ['run', '--unstable-no-legacy-abort', '--allow-net', '--allow-env', '--allow-read']
    const server = await start(deno, [...flags, 'deno.ts'], await freePort())
    try {
      await roundTrip(server, [deno, ...flags])
      expect(server.log()).not.toContain('legacy')
    } finally {
      await server.close()
    }
  })

  it('Bun: bun bun.ts', { timeout: 180_000 }, async () => {
    const bun = await ensureTool('bun')
    const server = await start(bun, ['bun.ts'], await freePort())
    try {
      await roundTrip(server, [bun])
      expect(server.log()).toContain(`MCP server at ${server.base}/mcp`)
    } finally {
      await server.close()
    }
  })

  it('Cloudflare Workers: npx wrangler dev with the recipe wrangler.toml', { timeout: 180_000 }, async () => {
    const port = await freePort()
    const server = await start(
      BIN('wrangler'),
      ['dev', '--port', String(port), '--inspector-port', '0', '--log-level', 'warn'],
      port,
    )
    try {
      await roundTrip(server, [BIN('tsx')])
      // a host outside ALLOWED_HOSTS (wrangler.toml [vars]) is refused
      const { request } = await import('node:http')
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`${server.base}/mcp`, { method: 'POST', headers: { host: 'evil.example' } })
        req.on('response', (res) => (res.resume(), resolve(res.statusCode!)))
        req.on('error', reject)
        req.end('{}')
      })
      expect(status).toBe(403)
    } finally {
      await server.close()
    }
  })
})
