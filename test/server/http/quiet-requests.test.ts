/**
 * Cancellation of a quiet handler (one that sends nothing until it ends) when the client goes away, on
 * Node (the fetch handler behind `node:http` and behind `@hono/node-server`), for 2026-07-28 and 2025-era
 * requests, with and without `text/event-stream` in `Accept`; and the representation a quiet request gets:
 * plain JSON when it finishes within `keepAliveMs`, else (when the client accepts SSE) an SSE stream that
 * opens with a keep-alive. The switch starts timing when the handler starts: an error from the server's own
 * checks (a 2025 session that does not open, another protocol version, a requestState that does not open)
 * keeps its HTTP status and plain JSON even when `keepAliveMs` is tiny and the checks' crypto is slow under
 * concurrency. workerd's side is in test/e2e/workerd.test.ts.
 */
import type { AddressInfo } from 'node:net'
import type { Server as HttpServer } from 'node:http'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import * as v from 'valibot'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHonoHandler } from '../../../src/hono/index.ts'
import { encodeBase64Url } from '../../../src/encoding/base64url.ts'
import {
  McpServer,
  RequestStateSecurity,
  createFetchHandler,
  elicitForm,
  inputRequired,
  type FetchHandler,
} from '../../../src/server/index.ts'
import { serveOnNode } from '../../conformance/server.ts'
import { env, std } from '../../helpers.ts'
import { SSE_ACCEPT, initializeLegacy, legacyPost } from '../../legacy-wire.ts'

const KEEP_ALIVE_MS = 200
/** The Node servers, in the order `beforeAll` starts them. */
const ADAPTERS = ['node:http bridge', '@hono/node-server', 'edge-mcp/hono on @hono/node-server']
/** Generous: on Node the close is seen at once; this only guards against a hang. */
const ABORT_BOUND_MS = 5_000

/** A server whose `quiet` tool sends nothing and waits `ms` ms or until its signal aborts, reporting which. */
function quietServer() {
  const outcomes: string[] = []
  const waiters: (() => void)[] = []
  const starters: (() => void)[] = []
  const mcp = new McpServer({ name: 'quiet', version: '1' })
  mcp.tool('quiet', { input: { ms: v.optional(v.number(), 20_000) } }, async ({ ms }, ctx) => {
    starters.splice(0).forEach((s) => s())
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      ctx.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
    })
    outcomes.push(ctx.signal.aborted ? 'aborted' : 'done')
    waiters.splice(0).forEach((w) => w())
    return ctx.signal.aborted ? 'aborted' : 'done'
  })
  mcp.tool('fast', {}, () => 'fast')
  /** The next outcome (resolves once a handler ends), or 'timeout' after `ms`. */
  const next = (ms: number) =>
    new Promise<string>((resolve) => {
      const n = outcomes.length
      const timer = setTimeout(() => resolve('timeout'), ms)
      waiters.push(() => (clearTimeout(timer), resolve(outcomes[n])))
    })
  /** Resolves when the next `quiet` handler starts. */
  const started = () => new Promise<void>((resolve) => starters.push(resolve))
  return { mcp, next, started }
}

const modern = (args: Record<string, unknown> = {}) => ({
  body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'quiet', arguments: args, _meta: env() } },
  headers: std('tools/call', 'quiet'),
})

/** A 2025-era `initialize`; the session headers for later requests. */
async function legacySession(url: string): Promise<Record<string, string>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: SSE_ACCEPT },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  })
  expect(res.headers.get('content-type')).toBe('application/json')
  await res.text()
  return {
    'content-type': 'application/json',
    'mcp-session-id': res.headers.get('mcp-session-id')!,
    'mcp-protocol-version': '2025-11-25',
  }
}

describe('a quiet handler on Node: the client going away aborts its signal', () => {
  const { mcp, next, started } = quietServer()
  const handler = createFetchHandler(mcp, { keepAliveMs: KEEP_ALIVE_MS })
  const servers: { name: string; url: string; close: () => void }[] = []
  beforeAll(async () => {
    const own = await serveOnNode(handler)
    servers.push({ name: 'node:http (test/conformance/server.ts)', url: own.url, close: () => own.server.close() })
    const hono = await listen((request) => handler(request))
    servers.push({ name: '@hono/node-server', ...hono })
    const app = new Hono()
    app.all('/mcp', createHonoHandler(mcp, { keepAliveMs: KEEP_ALIVE_MS }))
    const viaHono = await listen(app.fetch)
    servers.push({ name: 'edge-mcp/hono on @hono/node-server', ...viaHono })
  })
  afterAll(() => servers.forEach((s) => s.close()))

  for (const adapter of [0, 1, 2])
    for (const lane of ['2026-07-28', '2025-11-25'] as const)
      for (const accept of [SSE_ACCEPT, 'application/json'])
        // before the keep-alive (JSON still pending) and after it (the SSE stream is open)
        for (const abortAfterMs of [0, KEEP_ALIVE_MS * 2])
          it(`${ADAPTERS[adapter]}, ${lane}, Accept: ${accept}, client aborts ${abortAfterMs} ms after the handler started`, async () => {
            const { url } = servers[adapter]
            const call =
              lane === '2026-07-28'
                ? modern()
                : {
                    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'quiet', arguments: {} } },
                    headers: await legacySession(url),
                  }
            const running = started()
            const client = new AbortController()
            const response = fetch(url, {
              method: 'POST',
              signal: client.signal,
              headers: { ...call.headers, accept },
              body: JSON.stringify(call.body),
            }).then((res) => res.text())
            await running // a request aborted before it arrives has no handler to abort
            const outcome = next(ABORT_BOUND_MS)
            await new Promise((resolve) => setTimeout(resolve, abortAfterMs))
            client.abort()
            await expect(response).rejects.toThrow()
            expect(await outcome).toBe('aborted')
          })
})

describe('what a quiet request is answered with', () => {
  const { mcp } = quietServer()
  const handler: FetchHandler = createFetchHandler(mcp, { keepAliveMs: KEEP_ALIVE_MS })
  const call = (name: string, args: Record<string, unknown>, accept = SSE_ACCEPT) =>
    handler(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: { ...std('tools/call', name), accept },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name, arguments: args, _meta: env() },
        }),
      }),
    )

  it('a handler that finishes within keepAliveMs gets plain JSON (the fast path)', async () => {
    const res = await call('fast', {})
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(await res.json()).toMatchObject({ id: 7, result: { content: [{ text: 'fast' }] } })
  })

  it('a quiet handler still running at keepAliveMs gets SSE: a keep-alive first, then the response', async () => {
    const res = await call('quiet', { ms: KEEP_ALIVE_MS * 2.5 })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const text = await res.text()
    expect(text.startsWith(': keep-alive\n\n')).toBe(true)
    const events = text.split('\n\n').filter((e) => e.startsWith('event: message'))
    expect(events).toHaveLength(1)
    expect(JSON.parse(events[0].split('data: ')[1])).toMatchObject({ id: 7, result: { content: [{ text: 'done' }] } })
  })

  it('without text/event-stream in Accept, a slow quiet handler is still answered with plain JSON', async () => {
    const res = await call('quiet', { ms: KEEP_ALIVE_MS * 2 }, 'application/json')
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(await res.json()).toMatchObject({ id: 7, result: { content: [{ text: 'done' }] } })
  })

  it('initialize is never switched to SSE for being slow: its Mcp-Session-Id needs a plain reply', async () => {
    const { mcp } = quietServer()
    // 1 ms: sealing the session id (Web Crypto) takes longer than that
    const h = createFetchHandler(mcp, { keepAliveMs: 1 })
    for (let i = 0; i < 5; i++) {
      const res = await h(
        new Request('http://localhost/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: SSE_ACCEPT },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
          }),
        }),
      )
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(res.headers.get('mcp-session-id')).toMatch(/^s1\./)
    }
  })

  it("cancelling the quiet stream's body (what workerd does at its next write) aborts the signal", async () => {
    const { mcp, next } = quietServer()
    const h = createFetchHandler(mcp, { keepAliveMs: KEEP_ALIVE_MS })
    const outcome = next(ABORT_BOUND_MS)
    const res = await h(new Request('http://localhost/mcp', { method: 'POST', ...withBody(modern()) }))
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const reader = res.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(': keep-alive\n\n')
    await reader.cancel()
    expect(await outcome).toBe('aborted')
  })
})

/** Serve `fetch` with `@hono/node-server` on a free loopback port. */
async function listen(fetch: (request: Request) => Response | Promise<Response>) {
  const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }) as HttpServer
  await new Promise((resolve) => server.once('listening', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/mcp`, close: () => server.close() }
}

function withBody(call: { body: unknown; headers: Record<string, string> }) {
  return { headers: call.headers, body: JSON.stringify(call.body) }
}

const KEY = encodeBase64Url(new Uint8Array(32).fill(9))

function checkingHandler() {
  const mcp = new McpServer(
    { name: 's', version: '1' },
    { requestStateSecurity: new RequestStateSecurity({ keys: [KEY] }) },
  )
  mcp.tool('t', {}, () => 't')
  mcp.tool('ask', {}, () => inputRequired({ q: elicitForm('Q?', { type: 'object', properties: {} }) }, 'state'))
  return createFetchHandler(mcp, { keepAliveMs: 1 })
}

/** Each response's `status content-type`, for 60 concurrent requests. */
async function tally(send: () => Promise<Response>): Promise<string[]> {
  const responses = await Promise.all(Array.from({ length: 60 }, send))
  return [
    ...new Set(
      await Promise.all(responses.map(async (r) => (await r.text(), `${r.status} ${r.headers.get('content-type')}`))),
    ),
  ]
}

describe('keepAliveMs 1: a check that fails keeps its HTTP status', () => {
  it('2025 lane: a session id that does not open is 404, another version header is 400', async () => {
    const h = checkingHandler()
    const headers = await initializeLegacy(h, {})
    const bad = { ...headers, 'mcp-session-id': headers['mcp-session-id'].slice(0, -4) + 'AAAA' }
    const list = { jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} }
    expect(await tally(() => legacyPost(h, list, bad))).toEqual(['404 application/json'])
    const other = { ...headers, 'mcp-protocol-version': '2025-06-18' }
    expect(await tally(() => legacyPost(h, list, other))).toEqual(['400 application/json'])
  })

  it('2026 lane: a requestState that does not open is the frozen error as plain JSON', async () => {
    const h = checkingHandler()
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'ask', arguments: {}, requestState: 'x'.repeat(200), _meta: env() },
    })
    const send = () =>
      h(new Request('http://localhost/mcp', { method: 'POST', headers: std('tools/call', 'ask'), body }))
    expect(await tally(send)).toEqual(['200 application/json']) // in-band, as JSON (not an SSE stream)
  })
})
