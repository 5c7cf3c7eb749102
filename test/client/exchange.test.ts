/**
 * Robustness cases on the client side (/work/shared/cases/robustness.md): R2 (odd cache
 * hints), R3 (SSE events without JSON), R11 (progress keeps a call alive), R12 (an abort really stops
 * the request, after a GC too).
 */
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterEach, describe, expect, it } from 'vitest'
import { Client, listen, RequestTimeoutError, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'

const V = '2026-07-28'
const TOOL = { name: 'a', inputSchema: { type: 'object' } }

/** A transport whose server answers each method from `results` (by method), counting the requests. */
function scripted(results: Record<string, Record<string, unknown>>) {
  const sent: string[] = []
  const fetch = async (request: Request) => {
    const body = (await request.json()) as { id: number; method: string }
    sent.push(body.method)
    const result = results[body.method] ?? {}
    return Response.json({ jsonrpc: '2.0', id: body.id, result })
  }
  return { sent, transport: new StreamableHttpClientTransport('http://x/mcp', { fetch }) }
}

const DISCOVER = {
  resultType: 'complete',
  supportedVersions: [V],
  capabilities: { tools: {}, resources: {}, prompts: {} },
}

describe('R2: missing or odd cache hints', () => {
  const odd: Array<[string, Record<string, unknown>]> = [
    ['ttlMs missing', {}],
    ['ttlMs: -5', { ttlMs: -5, cacheScope: 'public' }],
    ['ttlMs: 1.5', { ttlMs: 1.5, cacheScope: 'public' }],
    ['cacheScope: "shared"', { cacheScope: 'shared' }],
    ['ttlMs: "60"', { ttlMs: '60', cacheScope: 'private' }],
  ]
  for (const [label, hints] of odd) {
    it(`every hinted method tolerates ${label}, and nothing is cached`, async () => {
      const { sent, transport } = scripted({
        'server/discover': { ...DISCOVER, ...hints },
        'tools/list': { resultType: 'complete', tools: [TOOL], ...hints },
        'prompts/list': { resultType: 'complete', prompts: [{ name: 'p' }], ...hints },
        'resources/list': { resultType: 'complete', resources: [{ uri: 'x://r', name: 'r' }], ...hints },
        'resources/templates/list': {
          resultType: 'complete',
          resourceTemplates: [{ uriTemplate: 'x://{id}', name: 't' }],
          ...hints,
        },
        'resources/read': { resultType: 'complete', contents: [{ uri: 'x://r', text: 'hi' }], ...hints },
      })
      const client = new Client({ transport, versionNegotiation: 'modern', cache: true })
      for (let i = 0; i < 2; i++) {
        const discovered = await client.discover()
        expect(discovered.ttlMs).toBe(0)
        expect(discovered.cacheScope).toBe(hints.cacheScope === 'public' ? 'public' : 'private')
        expect((await client.listTools()).map((t) => t.name)).toEqual(['a'])
        expect((await client.listPrompts()).map((p) => p.name)).toEqual(['p'])
        expect((await client.listResources()).map((r) => r.name)).toEqual(['r'])
        expect((await client.listResourceTemplates()).map((r) => r.name)).toEqual(['t'])
        expect((await client.readResource('x://r')).contents).toEqual([{ uri: 'x://r', text: 'hi' }])
      }
      // the cache held nothing: each method went to the server both times
      for (const method of ['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/read'])
        expect(sent.filter((m) => m === method)).toHaveLength(2)
    })
  }

  it('the case value: listTools returns [a] with no hints at all (no cache configured)', async () => {
    const { transport } = scripted({ 'tools/list': { resultType: 'complete', tools: [TOOL] } })
    const client = new Client({ transport, versionNegotiation: 'modern' })
    expect((await client.listTools()).map((t) => t.name)).toEqual(['a'])
  })

  it('a valid positive ttlMs is still cached', async () => {
    const { sent, transport } = scripted({
      'tools/list': { resultType: 'complete', tools: [TOOL], ttlMs: 60_000, cacheScope: 'private' },
    })
    const client = new Client({ transport, versionNegotiation: 'modern', cache: true })
    await client.listTools()
    await client.listTools()
    expect(sent).toEqual(['tools/list'])
  })
})

/** A transport whose every POST is answered by the SSE text `sse(id)`, streamed. */
function sseTransport(sse: (id: number, method: string) => string) {
  const fetch = async (request: Request) => {
    const body = (await request.json()) as { id: number; method: string }
    return new Response(sse(body.id, body.method), { headers: { 'content-type': 'text/event-stream' } })
  }
  return new StreamableHttpClientTransport('http://x/mcp', { fetch })
}

describe('R3: SSE events that carry no JSON are not messages', () => {
  it('callTool returns "hi" after an `event: ping` with empty data', async () => {
    const transport = sseTransport(
      (id) =>
        'event: ping\ndata:\n\n' +
        `event: message\ndata: {"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}]}}\n\n`,
    )
    const client = new Client({ transport, versionNegotiation: 'modern' })
    const result = await client.callTool('t', {})
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }])
  })

  it('a subscriptions/listen stream stays open across pings and later notifications arrive', async () => {
    const transport = sseTransport((id) => {
      const meta = `"_meta":{"io.modelcontextprotocol/subscriptionId":${id}}`
      return (
        `data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},${meta}}}\n\n` +
        'event: ping\ndata:\n\n' +
        'event: ping\ndata:\n\n' +
        `data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{${meta}}}\n\n` +
        'event: ping\ndata:\n\n' +
        `data: {"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete"}}\n\n`
      )
    })
    const client = new Client({ transport, versionNegotiation: 'modern' })
    const sub = await listen(client, { toolsListChanged: true })
    const got: string[] = []
    for await (const n of sub) got.push(n.method)
    expect(got).toContain('notifications/tools/list_changed')
    await expect(sub.ended).resolves.toBe('closed')
  })
})

/** A tool that runs `ms` milliseconds, reporting progress every `every` ms. */
function slowServer(ms: number, every: number) {
  const mcp = new McpServer({ name: 's', version: '1' })
  mcp.tool('slow', {}, async (_args, ctx) => {
    for (let t = every, i = 1; t <= ms; t += every, i++) {
      await new Promise((r) => setTimeout(r, every))
      ctx.sendProgress(i)
    }
    return 'done'
  })
  const handler = createFetchHandler(mcp)
  const bodies: Array<{ params: { _meta?: Record<string, unknown> } }> = []
  const fetch = async (request: Request) => {
    bodies.push((await request.clone().json()) as never)
    return handler(request)
  }
  return { bodies, transport: new StreamableHttpClientTransport('http://x/mcp', { fetch }) }
}

describe('R11: progress keeps a long call alive', () => {
  it('requestTimeoutMs 1000, a 2.5 s tool reporting progress every 200 ms: done (a progressToken is sent)', async () => {
    const { bodies, transport } = slowServer(2500, 200)
    const client = new Client({ transport, versionNegotiation: 'modern', requestTimeoutMs: 1000 })
    const result = await client.callTool('slow', {})
    expect(result.content).toEqual([{ type: 'text', text: 'done' }])
    expect(bodies[0].params._meta?.progressToken).toEqual(expect.any(String))
  })

  it('resetTimeoutOnProgress: false keeps the old limit (and sends no progressToken)', async () => {
    const { bodies, transport } = slowServer(2500, 200)
    const client = new Client({ transport, versionNegotiation: 'modern', requestTimeoutMs: 1000 })
    const error = await client.callTool('slow', {}, { resetTimeoutOnProgress: false }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RequestTimeoutError)
    expect((error as RequestTimeoutError).timeoutMs).toBe(1000)
    expect(bodies[0].params._meta?.progressToken).toBeUndefined()
  })

  it('maxTotalTimeoutMs caps the call however much progress comes', async () => {
    const { transport } = slowServer(2500, 200)
    const client = new Client({ transport, versionNegotiation: 'modern', requestTimeoutMs: 1000 })
    const started = Date.now()
    const error = await client.callTool('slow', {}, { maxTotalTimeoutMs: 1500 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RequestTimeoutError)
    expect((error as RequestTimeoutError).timeoutMs).toBe(1500)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400)
    expect(Date.now() - started).toBeLessThan(2400)
  })

  it('the Client-wide defaults: resetTimeoutOnProgress false, maxTotalTimeoutMs; a call may override them', async () => {
    const off = new Client({
      transport: slowServer(2500, 200).transport,
      versionNegotiation: 'modern',
      requestTimeoutMs: 1000,
      resetTimeoutOnProgress: false,
    })
    await expect(off.callTool('slow', {})).rejects.toMatchObject({ name: 'RequestTimeoutError', timeoutMs: 1000 })
    const capped = new Client({
      transport: slowServer(1000, 100).transport,
      versionNegotiation: 'modern',
      requestTimeoutMs: 300,
      maxTotalTimeoutMs: 500,
    })
    await expect(capped.callTool('slow', {})).rejects.toMatchObject({ name: 'RequestTimeoutError', timeoutMs: 500 })
    const result = await capped.callTool('slow', {}, { maxTotalTimeoutMs: 5000 })
    expect(result.content).toEqual([{ type: 'text', text: 'done' }])
    expect(() => new Client({ transport: off.options.transport, maxTotalTimeoutMs: -1 })).toThrow(RangeError)
  })

  it('a maxTotalTimeoutMs that is no positive integer is a RangeError', async () => {
    const { transport } = slowServer(0, 1)
    const client = new Client({ transport, versionNegotiation: 'modern' })
    await expect(client.callTool('slow', {}, { maxTotalTimeoutMs: 0 })).rejects.toBeInstanceOf(RangeError)
    await expect(client.callTool('slow', {}, { maxTotalTimeoutMs: 1.5 })).rejects.toBeInstanceOf(RangeError)
  })
})

/** `gc()`, exposed for this process (`--expose-gc` set at run time). */
function forceGc(): () => void {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
}

describe('R12: an abort or a timeout really stops the request, after a GC too', () => {
  let http: HttpServer | undefined
  afterEach(() => new Promise<void>((r) => (http ? http.close(() => r()) : r())))

  /** A real HTTP server whose tools/call streams progress every 20 ms for 10 s; `closed` settles when the client hangs up. */
  async function streaming(headersAfterMs = 0) {
    let closed!: () => void
    const hungUp = new Promise<void>((r) => (closed = r))
    http = createServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => (body += c.toString()))
      req.on('end', () => setTimeout(answer, headersAfterMs))
      const answer = () => {
        const { id, params } = JSON.parse(body) as { id: number; params: { _meta: { progressToken: string } } }
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        let i = 0
        const timer = setInterval(() => {
          const note = {
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: { progressToken: params._meta.progressToken, progress: ++i },
          }
          res.write(`data: ${JSON.stringify(note)}\n\n`)
        }, 20)
        res.on('close', () => {
          clearInterval(timer)
          closed()
        })
        void id
      }
    })
    await new Promise<void>((r) => http!.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
    return { url, hungUp }
  }

  for (const how of ['abort', 'timeout'] as const) {
    it(`${how}: the connection closes and onProgress never runs after the call settled`, async () => {
      const gc = forceGc()
      const { url, hungUp } = await streaming()
      const client = new Client({ transport: new StreamableHttpClientTransport(url), versionNegotiation: 'modern' })
      const controller = new AbortController()
      let settled = false
      let late = 0
      let seen = 0
      const call = client.callTool(
        'slow',
        {},
        {
          signal: controller.signal,
          ...(how === 'timeout' ? { timeoutMs: 300, resetTimeoutOnProgress: false } : {}),
          onProgress: () => {
            seen++
            if (settled) late++
          },
        },
      )
      while (seen < 2) await new Promise((r) => setTimeout(r, 10))
      gc()
      await new Promise((r) => setTimeout(r, 20))
      gc()
      if (how === 'abort') controller.abort()
      await expect(call).rejects.toThrow()
      settled = true
      const closedInTime = await Promise.race([
        hungUp.then(() => true),
        new Promise((r) => setTimeout(() => r(false), 1000)),
      ])
      expect(seen).toBeGreaterThan(0)
      expect(late).toBe(0)
      expect(closedInTime).toBe(true)
    })
  }
})

describe('R12: an abort while the response headers are awaited, after a GC', () => {
  let http: HttpServer | undefined
  afterEach(() => new Promise<void>((r) => (http ? http.close(() => r()) : r())))

  it('closes the connection (the server sees it) and no progress arrives', async () => {
    const gc = forceGc()
    let closed!: () => void
    const hungUp = new Promise<void>((r) => (closed = r))
    let received!: () => void
    const arrived = new Promise<void>((r) => (received = r))
    http = createServer((req, res) => {
      received()
      res.on('close', () => closed())
      setTimeout(() => {
        if (res.destroyed) return
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write(
          'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"progress-1","progress":1}}\n\n',
        )
      }, 500)
    })
    await new Promise<void>((r) => http!.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
    const client = new Client({ transport: new StreamableHttpClientTransport(url), versionNegotiation: 'modern' })
    const controller = new AbortController()
    let progress = 0
    const call = client.callTool('slow', {}, { signal: controller.signal, onProgress: () => progress++ })
    await arrived
    gc()
    await new Promise((r) => setTimeout(r, 20))
    gc()
    controller.abort()
    await expect(call).rejects.toThrow()
    const timer = new Promise((r) => setTimeout(() => r(false), 300))
    expect(await Promise.race([hungUp.then(() => true), timer])).toBe(true)
    await new Promise((r) => setTimeout(r, 400))
    expect(progress).toBe(0)
  })
})

describe('R12: the GET stream (2025 sessions), aborted while its headers are awaited, after a GC', () => {
  let http: HttpServer | undefined
  afterEach(() => new Promise<void>((r) => (http ? http.close(() => r()) : r())))

  it('closes the connection (the server sees it) and openStream rejects', async () => {
    const gc = forceGc()
    let closed!: () => void
    const hungUp = new Promise<void>((r) => (closed = r))
    let received!: () => void
    const arrived = new Promise<void>((r) => (received = r))
    http = createServer((_req, res) => {
      received()
      res.on('close', () => closed())
      setTimeout(() => {
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': hi\n\n')
      }, 2000)
    })
    await new Promise<void>((r) => http!.listen(0, '127.0.0.1', r))
    const transport = new StreamableHttpClientTransport(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`)
    const controller = new AbortController()
    const opened = transport.openStream({ session: { id: 's' }, signal: controller.signal })
    await arrived
    gc()
    await new Promise((r) => setTimeout(r, 20))
    gc()
    controller.abort()
    // within 1 s, long before the headers (2 s): the abort is honoured while they are awaited
    const late = new Promise((r) => setTimeout(() => r('still pending'), 1000))
    expect(
      await Promise.race([
        opened.then(
          () => 'opened',
          () => 'rejected',
        ),
        late,
      ]),
    ).toBe('rejected')
    const timer = new Promise((r) => setTimeout(() => r(false), 300))
    expect(await Promise.race([hungUp.then(() => true), timer])).toBe(true)
  })
})
