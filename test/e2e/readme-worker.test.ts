/**
 * The README's "Deploy to Workers" runs as written: its `src/worker.ts` and `wrangler.toml` blocks are
 * copied into test-results/readme-worker/ and started with `wrangler dev` (local workerd), the package
 * reached as `edge-mcp/...` (self-reference to dist/, as an installed package would be). A `Client` lists
 * and calls its tool at /mcp; any other path is 404; a Host outside `ALLOWED_HOSTS` gets the 403 the README
 * warns about. Needs `npm run build` first (npm test does).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { readMarkdown } from '../markdown.ts'
import { freePort, ROOT, wranglerEnv, stopGroup } from '../workerd.ts'

const DIR = join(ROOT, 'test-results/readme-worker')
const readme = readMarkdown(join(ROOT, 'README.md'), ROOT)

/** The lines of the README's `## Deploy to Workers` section: [first, next ## heading). */
function section(title: string): [number, number] {
  const start = readme.headings.find((h) => h.depth === 2 && h.text === title)
  if (!start) throw new Error(`README.md has no "## ${title}"`)
  const next = readme.headings.find((h) => h.depth === 2 && h.line > start.line)
  return [start.line, next?.line ?? Infinity]
}
const [from, to] = section('Deploy to Workers')
const blocks = readme.blocks.filter((b) => b.line > from && b.line < to)
const worker = blocks.find((b) => b.lang === 'ts')
const config = blocks.find((b) => b.lang === 'toml')

/** A POST to /mcp with the given Host header (fetch may not set Host): [status, body]. */
function postWithHost(port: number, host: string): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (text += d))
        res.on('end', () => resolve([res.statusCode ?? 0, text]))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

describe("the README's Worker, under wrangler dev", () => {
  let child: ChildProcess | undefined
  let port: number
  let log = ''
  const url = () => `http://127.0.0.1:${port}/mcp`

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist/server/index.js')))
      throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
    if (!worker || !config) throw new Error('README.md "Deploy to Workers" needs a ```ts and a ```toml block')
    rmSync(DIR, { recursive: true, force: true })
    mkdirSync(join(DIR, 'src'), { recursive: true })
    writeFileSync(join(DIR, 'src/worker.ts'), worker.body + '\n')
    writeFileSync(join(DIR, 'wrangler.toml'), config.body + '\n')
    port = await freePort()
    const args = ['dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', '0', '--log-level', 'warn']
    child = spawn(join(ROOT, 'node_modules/.bin/wrangler'), args, {
      cwd: DIR,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: wranglerEnv(),
    })
    child.stdout!.on('data', (d) => (log += d))
    child.stderr!.on('data', (d) => (log += d))
    const deadline = Date.now() + 100_000
    for (;;) {
      if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${log}`)
      if (Date.now() > deadline) throw new Error(`wrangler dev did not serve ${url()} within 100 s:\n${log}`)
      try {
        const res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2000) })
        if (res.status === 404) break // up: the Worker answers every other path with 404
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250))
    }
  }, 120_000)

  afterAll(() => stopGroup(child))

  it('serves its tool at /mcp to a Client', async () => {
    const client = new Client({ transport: new StreamableHttpClientTransport(url()) })
    expect((await client.listTools()).map((t) => t.name)).toEqual(['greet'])
    const result = await client.callTool('greet', { name: 'Ada' })
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }])
    await client.close()
  })

  it('answers any other path with 404', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/anything`)
    expect(res.status).toBe(404)
    expect(await res.text()).toBe('Not found')
  })

  it('refuses a Host outside ALLOWED_HOSTS with the 403 the README warns about, and names the fix', async () => {
    const [status, body] = await postWithHost(port, 'hello-mcp.example.workers.dev')
    expect(status).toBe(403)
    expect(JSON.parse(body)).toMatchObject({
      error: {
        code: -32600,
        message:
          "Forbidden: host hello-mcp.example.workers.dev is not in this server's allowedHosts (DNS-rebinding protection); add it there to serve it",
      },
    })
    expect(await postWithHost(port, `127.0.0.1:${port}`)).toEqual([200, expect.stringContaining('"result"')])
    const commands = readme.blocks.filter((b) => b.line > from && b.line < to && b.lang === 'sh').map((b) => b.body)
    expect(commands.join('\n')).toMatch(/npx wrangler deploy --var ALLOWED_HOSTS:\S+/)
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(
      "403 `Forbidden: host … is not in this server's allowedHosts`",
    )
  })
})
