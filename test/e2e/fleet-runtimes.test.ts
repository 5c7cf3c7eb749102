/**
 * The fleet recipes (docs/fleet.md) as a user copies them: every code block naming a file is that file of
 * examples/fleet/ byte for byte; the files, copied into a fresh app whose `node_modules/edge-mcp` is this
 * package (dist/, as installed), type-check with the app's own tsconfig.json; and under Node (tsx), Deno and
 * Bun, with node-redis and with ioredis (`REDIS_LIBRARY`; under Bun also Bun's own `RedisClient`), two
 * instances of the same recipe against one real redis-server (test/redis-server.ts) answer a 2025-era
 * client's question asked on one through the other (the official 1.x client's answer POST goes to the
 * instance that did not ask), and a listen stream on one hears an order placed on the other
 * (`resourceUpdated` through the Redis bus). Then both shut down gracefully on SIGTERM (`fleet.close()`).
 * The full three-runtime fleet is test/e2e/fleet.test.ts.
 * Loopback only. Needs `npm run build` first (npm test does).
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { spawn, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { typecheckApp } from '../app-typecheck.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client, listen, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { encodeBase64Url } from '../../src/encoding/base64url.ts'
import { readMarkdown } from '../markdown.ts'
import { startRedis, type RunningRedis } from '../redis-server.ts'
import { ensureTool } from '../tools.ts'
import { freePort, ROOT } from '../workerd.ts'

const RECIPES = join(ROOT, 'examples/fleet')
const DOC = join(ROOT, 'docs/fleet.md')
const APP = join(ROOT, 'test-results/fleet-runtimes/app')
const BIN = (name: string) => join(ROOT, 'node_modules/.bin', name)
const KEYS = encodeBase64Url(new Uint8Array(32).fill(7))

describe('docs/fleet.md', () => {
  it('shows every recipe file, each block byte-equal to the file it names', () => {
    const named = readMarkdown(DOC, ROOT).blocks.flatMap((b) =>
      b.attributes.file ? [{ file: b.attributes.file, body: `${b.body}\n` }] : [],
    )
    const files = readdirSync(RECIPES)
      .filter((f) => f !== 'globals.d.ts')
      .map((f) => `examples/fleet/${f}`)
      .sort()
    expect(named.map((b) => b.file).sort()).toEqual(files)
    for (const { file, body } of named) expect(body, file).toBe(readFileSync(join(ROOT, file), 'utf8'))
  })
})

describe('the fleet recipes in a fresh app', () => {
  let redis: RunningRedis

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist/redis/index.js')))
      throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
    rmSync(join(ROOT, 'test-results/fleet-runtimes'), { recursive: true, force: true })
    mkdirSync(join(APP, 'node_modules/@hono'), { recursive: true })
    cpSync(RECIPES, APP, { recursive: true })
    // what `npm install edge-mcp valibot @hono/node-server redis ioredis` (+ @types/node) puts there
    symlinkSync(ROOT, join(APP, 'node_modules/edge-mcp'), 'dir')
    for (const name of ['valibot', 'redis', '@redis', 'ioredis', '@types'])
      symlinkSync(join(ROOT, 'node_modules', name), join(APP, 'node_modules', name), 'dir')
    symlinkSync(join(ROOT, 'node_modules/@hono/node-server'), join(APP, 'node_modules/@hono/node-server'), 'dir')
    redis = await startRedis()
  })
  afterAll(async () => {
    await redis?.close()
  })

  it("type-check against the published declarations with the app's tsconfig.json", () => {
    const { files, program, diagnostics } = typecheckApp(APP)
    expect(files.sort()).toEqual(
      readdirSync(RECIPES)
        .filter((f) => f.endsWith('.ts'))
        .sort(),
    )
    expect(diagnostics).toBe('')
    expect(program.getSourceFiles().some((f) => f.fileName.endsWith('/dist/redis/index.d.ts'))).toBe(true)
  })

  /** Start one instance in the app directory; resolves once it answers HTTP. */
  async function start(command: string, args: string[], env: Record<string, string>) {
    const port = await freePort()
    const child: ChildProcess = spawn(command, args, {
      cwd: APP,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        NO_COLOR: '1',
        PORT: String(port),
        REDIS_URL: redis.url,
        REQUEST_STATE_KEYS: KEYS,
        ...env,
      },
    })
    let log = ''
    child.stdout!.on('data', (d) => (log += d))
    child.stderr!.on('data', (d) => (log += d))
    const kill = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    process.once('exit', kill)
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    const base = `http://127.0.0.1:${port}`
    const deadline = Date.now() + 30_000
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${command} exited (${child.exitCode}):\n${log}`)
      if (Date.now() > deadline) throw new Error(`${command} did not answer on ${base} within 30 s:\n${log}`)
      try {
        await fetch(`${base}/`, { signal: AbortSignal.timeout(2000) })
        break
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100))
    }
    return {
      url: `${base}/mcp`,
      log: () => log,
      /** SIGTERM (the recipe's graceful shutdown); resolves with the exit code, SIGKILL after 10 s. */
      async stop(): Promise<number | null> {
        child.kill('SIGTERM')
        const timer = setTimeout(kill, 10_000)
        const code = await exited
        clearTimeout(timer)
        process.removeListener('exit', kill)
        return code
      },
      kill,
    }
  }

  /**
   * Two instances; the official 1.x client (2025 era) talks to `a`, except that every JSON-RPC response it
   * POSTs (its answer to the server's question) goes to `b`. The question is asked on a's stream and its
   * answer reaches b: only the Redis mailbox carries it back to a.
   */
  async function crossInstanceQuestion(command: string, args: string[], library: string) {
    const env = { REDIS_LIBRARY: library }
    const [a, b] = await Promise.all([start(command, args, env), start(command, args, env)])
    try {
      const answersToB: string[] = []
      const routed = (input: string | URL | Request, init?: RequestInit) => {
        const body =
          typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string; result?: unknown }) : {}
        const isResponse = init?.method === 'POST' && body.method === undefined && 'result' in body
        if (isResponse) answersToB.push(init.body as string)
        return fetch(isResponse ? b.url : input, init)
      }
      const client = new V1Client({ name: 'v1', version: '1.0.0' }, { capabilities: { elicitation: {} } })
      const asked: string[] = []
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params.message)
        return { action: 'accept', content: { confirm: true } }
      })
      await client.connect(new StreamableHTTPClientTransport(new URL(a.url), { fetch: routed }))
      const result = await client.callTool({ name: 'order_book', arguments: { title: 'Neuromancer' } })
      expect(asked).toEqual(["'Neuromancer' is out of stock (2-3 weeks). Order anyway?"])
      expect(answersToB).toHaveLength(1)
      expect(result.content).toEqual([{ type: 'text', text: "Ordered 'Neuromancer'." }])
      const read = await client.readResource({ uri: 'bookshop://orders' })
      expect(read.contents[0]).toMatchObject({ uri: 'bookshop://orders' })
      await client.close()

      // and a listen stream on a hears an order placed on b (a 2026-07-28 client: no question, Dune is in stock)
      const ours = (url: string) =>
        new Client({
          transport: new StreamableHttpClientTransport(url),
          clientInfo: { name: 'ours', version: '1.0.0' },
        })
      const [onA, onB] = [ours(a.url), ours(b.url)]
      const updated: string[] = []
      const controller = new AbortController()
      await listen(
        onA,
        { resourceSubscriptions: ['bookshop://orders'] },
        { signal: controller.signal, onResourceUpdated: (uri) => updated.push(uri) },
      )
      expect(await onB.callTool('order_book', { title: 'Dune' })).toMatchObject({
        content: [{ type: 'text', text: "Ordered 'Dune'." }],
      })
      await expect.poll(() => updated).toEqual(['bookshop://orders'])
      controller.abort()
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- a:\n${a.log()}\n--- b:\n${b.log()}`, { cause: error })
    } finally {
      const codes = await Promise.all([a.stop(), b.stop()])
      expect(codes, `a:\n${a.log()}\nb:\n${b.log()}`).toEqual([0, 0])
      expect(a.log()).toContain('closed')
    }
  }

  const LIBRARIES = ['redis', 'ioredis'] as const

  it.each(LIBRARIES)(
    'Node (tsx node.ts) with %s: a question asked on one instance is answered through the other',
    {
      timeout: 60_000,
    },
    async (library) => {
      await crossInstanceQuestion(BIN('tsx'), ['node.ts'], library)
    },
  )

  it.each(LIBRARIES)(
    'Deno (deno run deno.ts) with %s: a question asked on one instance is answered through the other',
    {
      timeout: 120_000,
    },
    async (library) => {
      const deno = await ensureTool('deno')
      await crossInstanceQuestion(
        deno,
        ['run', '--unstable-no-legacy-abort', '--allow-net', '--allow-env', '--allow-read', 'deno.ts'],
        library,
      )
    },
  )

  it.each([...LIBRARIES, 'bun'])(
    'Bun (bun bun.ts) with %s: a question asked on one instance is answered through the other',
    {
      timeout: 120_000,
    },
    async (library) => {
      const bun = await ensureTool('bun')
      await crossInstanceQuestion(bun, ['bun.ts'], library)
    },
  )
})
