/**
 * Ports and URLs as a user meets them: `npm start -- --port N` serves the demo on N (wrangler.toml's `[dev]`
 * holds the default 8787, so the user's `--port` is the only one given), and the command-line client finds
 * the server from `--url`, else `MCP_URL`, else the default; an unreachable server is one readable line.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, ROOT, wranglerEnv, stopGroup } from '../workerd.ts'

const run = promisify(execFile)
const TSX = join(ROOT, 'node_modules/.bin/tsx')

interface Outcome {
  code: number
  stdout: string
  stderr: string
}

/** Run the CLI client under Node (tsx); resolves with the exit code and output, whatever the code. */
async function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<Outcome> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...env }
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete childEnv[k]
  try {
    const { stdout, stderr } = await run(TSX, ['examples/cli-client.ts', ...args], {
      cwd: ROOT,
      env: childEnv,
      timeout: 60_000,
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

const DUNE = ['order_book', '{"title":"Dune"}']

describe('npm start -- --port N', () => {
  let child: ChildProcess
  let port: number
  let log = ''
  const base = () => `http://127.0.0.1:${port}`

  beforeAll(async () => {
    port = await freePort()
    child = spawn('npm', ['start', '--', '--port', String(port), '--inspector-port', '0', '--log-level', 'warn'], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: wranglerEnv(),
    })
    child.stdout!.on('data', (d) => (log += d))
    child.stderr!.on('data', (d) => (log += d))
    const deadline = Date.now() + 110_000
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${log}`)
      if (Date.now() > deadline) throw new Error(`npm start did not serve ${base()}/ within 110 s:\n${log}`)
      try {
        if ((await fetch(`${base()}/`, { signal: AbortSignal.timeout(2000) })).ok) return
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 500))
    }
  })

  afterAll(() => stopGroup(child))

  it('serves the web demo at / and MCP at /mcp on the given port', async () => {
    const page = await fetch(`${base()}/`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(log).not.toMatch(/--port.*(given|specified) (twice|more than once)/i)
    const { code, stdout } = await cli(['--url', `${base()}/mcp`, ...DUNE])
    expect(code).toBe(0)
    expect(stdout).toContain(`at ${base()}/mcp`)
    expect(stdout).toContain("← Ordered 'Dune'; it arrives tomorrow.")
  })

  it('the client takes the URL from MCP_URL when --url is not given', async () => {
    const { code, stdout } = await cli(DUNE, { MCP_URL: `${base()}/mcp` })
    expect(code).toBe(0)
    expect(stdout).toContain(`at ${base()}/mcp`)
    expect(stdout).toContain("← Ordered 'Dune'; it arrives tomorrow.")
  })

  it('--url wins over MCP_URL', async () => {
    const dead = await freePort()
    const { code, stdout } = await cli(['--url', `${base()}/mcp`, ...DUNE], {
      MCP_URL: `http://127.0.0.1:${dead}/mcp`,
    })
    expect(code).toBe(0)
    expect(stdout).toContain(`at ${base()}/mcp`)
    const reversed = await cli(['--url', `http://127.0.0.1:${dead}/mcp`, ...DUNE], { MCP_URL: `${base()}/mcp` })
    expect(reversed.code).toBe(1)
    expect(reversed.stderr).toContain(`http://127.0.0.1:${dead}/mcp`)
  })

  it('a URL with no MCP endpoint says so and names /mcp; an empty --answer sample= is refused', async () => {
    const wrongPath = await cli(['--url', `${base()}/nope`, ...DUNE])
    expect(wrongPath.code).toBe(1)
    expect(wrongPath.stderr).toMatch(
      /^✗ HttpError: HTTP 405.* no MCP endpoint at http:\/\/127\.0\.0\.1:\d+\/nope; is the path right\? The demo serves it at \/mcp\.$/m,
    )
    const empty = await cli(['--url', `${base()}/mcp`, '--answer', 'sample=', 'recommend_book', '{"genre":"sci-fi"}'])
    expect(empty.code).toBe(1)
    expect(empty.stdout + empty.stderr).toContain('--answer sample= is empty')
    expect(empty.stdout).not.toContain("Today's sci-fi pick")
  })
})

describe('the command-line client without a server', () => {
  it('a --url or MCP_URL that is not an http(s) URL, or an extra argument, is a usage error (exit 2)', async () => {
    const bad = await cli(['--url', 'not-a-url', ...DUNE])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--url must be an http(s) URL, got 'not-a-url'")
    const env = await cli(DUNE, { MCP_URL: 'garbage' })
    expect(env.code).toBe(2)
    expect(env.stderr).toContain("MCP_URL must be an http(s) URL, got 'garbage'")
    const extra = await cli([...DUNE, 'extra'])
    expect(extra.code).toBe(2)
    expect(extra.stderr).toContain("unexpected argument 'extra'")
  })

  it('exits 1 with one readable line naming the URL and the cause, and no stack trace', async () => {
    const dead = await freePort()
    const url = `http://127.0.0.1:${dead}/mcp`
    const { code, stdout, stderr } = await cli(['--url', url, ...DUNE])
    expect(code).toBe(1)
    const lines = stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(`Could not reach ${url}`)
    expect(lines[0]).toContain('ECONNREFUSED')
    expect(lines[0]).toContain('npm start')
    expect(stderr + stdout).not.toMatch(/^\s+at /m)
  })

  it('with neither --url nor MCP_URL it tries the default http://127.0.0.1:8787/mcp', async () => {
    // whether or not something listens on 8787, the client names the URL it used
    const { stdout, stderr } = await cli(['--decline', 'no_such_tool'], { MCP_URL: undefined })
    expect(stdout + stderr).toContain('http://127.0.0.1:8787/mcp')
  })

  it('--help lists the options and the MCP_URL variable, and exits 0', async () => {
    const { code, stdout } = await cli(['--help'])
    expect(code).toBe(0)
    for (const option of ['--url URL', 'MCP_URL', '--answer field=value', '--decline', 'http://127.0.0.1:8787/mcp'])
      expect(stdout).toContain(option)
  })
})
