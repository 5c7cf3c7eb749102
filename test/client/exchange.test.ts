/**
 * One request's life in the client (src/client/exchange.ts): progress keeps a long call alive within its
 * limits, and an abort or a timeout really stops the request — the connection closes, nothing runs after the
 * call settled, and nothing is kept alive after a GC — on a call's stream and on a 2025 session's GET stream.
 */
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterEach, describe, expect, it } from 'vitest'
import { Client, RequestTimeoutError, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'

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

// shared/cases/robustness.md R11
// concurrent: each test has its own server and client, and mostly waits on timers
describe.concurrent('progress keeps a long call alive', () => {
  it('requestTimeoutMs 1000, a 2.5 s tool reporting progress every 200 ms: done (a progressToken is sent)', async ({
    expect,
  }) => {
    const { bodies, transport } = slowServer(2500, 200)
    const client = new Client({ transport, versionNegotiation: 'modern', requestTimeoutMs: 1000 })
    const result = await client.callTool('slow', {})
    expect(result.content).toEqual([{ type: 'text', text: 'done' }])
    expect(bodies[0].params._meta?.progressToken).toEqual(expect.any(String))
  })

  it('resetTimeoutOnProgress: false keeps the old limit (and sends no progressToken)', async ({ expect }) => {
    const { bodies, transport } = slowServer(2500, 200)
    const client = new Client({ transport, versionNegotiation: 'modern', requestTimeoutMs: 1000 })
    const error = await client.callTool('slow', {}, { resetTimeoutOnProgress: false }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RequestTimeoutError)
    expect((error as RequestTimeoutError).timeoutMs).toBe(1000)
    expect(bodies[0].params._meta?.progressToken).toBeUndefined()
  })

  it('maxTotalTimeoutMs caps the call however much progress comes', async ({ expect }) => {
    const { transport } = slowServer(2500, 200)
    const client = new Client({ transport, versionNegotiation: 'modern', requestTimeoutMs: 1000 })
    const started = Date.now()
    const error = await client.callTool('slow', {}, { maxTotalTimeoutMs: 1500 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RequestTimeoutError)
    expect((error as RequestTimeoutError).timeoutMs).toBe(1500)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400)
    expect(Date.now() - started).toBeLessThan(2400)
  })

  it('the Client-wide defaults: resetTimeoutOnProgress false, maxTotalTimeoutMs; a call may override them', async ({
    expect,
  }) => {
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

  it('a maxTotalTimeoutMs that is no positive integer is a RangeError', async ({ expect }) => {
    const { transport } = slowServer(0, 1)
    const client = new Client({ transport, versionNegotiation: 'modern' })
    await expect(client.callTool('slow', {}, { maxTotalTimeoutMs: 0 })).rejects.toBeInstanceOf(RangeError)
    await expect(client.callTool('slow', {}, { maxTotalTimeoutMs: 1.5 })).rejects.toBeInstanceOf(RangeError)
  })
})

/** `gc()`, exposed for this process (`--expose-gc` set at run time). */
/** Close `http`, ending the connections it still holds (a close waits for them otherwise). */
function closeServer(http: HttpServer | undefined): Promise<void> {
  if (!http) return Promise.resolve()
  return new Promise<void>((r) => {
    http.close(() => r())
    http.closeAllConnections()
  })
}

function forceGc(): () => void {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
}

// shared/cases/robustness.md R12
describe('an abort or a timeout really stops the request, after a GC too', () => {
  let http: HttpServer | undefined
  afterEach(() => closeServer(http))

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

describe('an abort while the response headers are awaited, after a GC', () => {
  let http: HttpServer | undefined
  afterEach(() => closeServer(http))

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

describe('the GET stream (2025 sessions), aborted while its headers are awaited, after a GC', () => {
  let http: HttpServer | undefined
  afterEach(() => closeServer(http))

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
