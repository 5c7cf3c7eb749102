/**
 * The Client in `'legacy'` mode and `-32042` URL elicitation required (spec 2025-11-25 client/elicitation.mdx
 * "URL Elicitation Required Error"): the listed URL-mode elicitations go to the `elicitation` callback; once
 * accepted, the request is sent again when `notifications/elicitation/complete` arrived (on the standalone
 * stream), or at once when no stream can bring it; declined, repeated or without a callback, the McpError is
 * thrown as the server sent it. Against the official v1 SDK server, and a fake one without a GET stream.
 */
import { McpServer as V1Server } from '@modelcontextprotocol/sdk/server/mcp.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport, type ClientOptions } from '../../src/client/index.ts'
import { McpError } from '../../src/index.ts'

const ELICITATION = {
  mode: 'url' as const,
  elicitationId: 'el-1',
  url: 'https://auth.example.com/connect?elicitation=el-1',
  message: 'Connect your Example account',
}

/**
 * The v1 server: `connect` throws `UrlElicitationRequiredError` until `state.connected` (or always, with
 * `state.stubborn`); `complete()` sends `notifications/elicitation/complete` for `el-1` (standalone stream).
 */
async function v1Server() {
  const server = new V1Server({ name: 'v1-server', version: '1.0.0' })
  const state = { connected: false, stubborn: false, events: [] as string[] }
  let calls = 0
  server.registerTool('connect', { inputSchema: {} }, () => {
    state.events.push(`call ${++calls}`)
    if (!state.connected || state.stubborn) throw new UrlElicitationRequiredError([ELICITATION])
    return { content: [{ type: 'text', text: 'connected' }] }
  })
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() })
  await server.connect(transport)
  const complete = () => server.server.createElicitationCompletionNotifier('el-1')()
  const fetch = (request: Request) => transport.handleRequest(request)
  return { fetch, state, complete }
}

function legacyClient(fetch: (r: Request) => Promise<Response>, options: Partial<ClientOptions> = {}) {
  return new Client({
    transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
    versionNegotiation: 'legacy',
    ...options,
  })
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('legacy -32042 against the official v1 server', () => {
  it('asks through the elicitation callback, waits for notifications/elicitation/complete, then retries', async () => {
    const { fetch, state, complete } = await v1Server()
    const asked: unknown[] = []
    const client = legacyClient(fetch, {
      elicitation: (params, ctx) => {
        asked.push({ params, key: ctx.key, method: ctx.method, target: ctx.target })
        state.events.push('accepted')
        setTimeout(() => {
          state.connected = true // the user finishes in the browser, later
          state.events.push('completed')
          void complete()
        }, 50)
        return { action: 'accept' }
      },
    })
    const result = await client.callTool('connect', {})
    expect(result.content).toEqual([{ type: 'text', text: 'connected' }])
    expect(asked).toEqual([
      { params: ELICITATION, key: 'url-elicitation-el-1', method: 'tools/call', target: 'connect' },
    ])
    // without the wait, the retry would come right after 'accepted' and fail again
    expect(state.events).toEqual(['call 1', 'accepted', 'completed', 'call 2'])
    await client.close()
  })

  it('a completion that arrives before the callback returns: the retry does not wait', async () => {
    const { fetch, state, complete } = await v1Server()
    const client = legacyClient(fetch, {
      requestTimeoutMs: 10_000,
      elicitation: async () => {
        state.connected = true
        await complete()
        await sleep(20)
        return { action: 'accept' }
      },
    })
    const started = performance.now()
    expect((await client.callTool('connect', {})).content).toEqual([{ type: 'text', text: 'connected' }])
    expect(performance.now() - started).toBeLessThan(2_000)
    await client.close()
  })

  it('a completion that never comes: retried after the request timeout (bounded wait)', async () => {
    const { fetch, state } = await v1Server()
    const client = legacyClient(fetch, {
      requestTimeoutMs: 200,
      elicitation: () => {
        state.connected = true // done, but the server never says so
        return { action: 'accept' }
      },
    })
    const started = performance.now()
    expect((await client.callTool('connect', {})).content).toEqual([{ type: 'text', text: 'connected' }])
    expect(performance.now() - started).toBeGreaterThanOrEqual(190)
    expect(state.events).toEqual(['call 1', 'call 2'])
    await client.close()
  })

  it('declined or cancelled: the -32042 McpError is thrown as the server sent it, no retry', async () => {
    for (const action of ['decline', 'cancel'] as const) {
      const { fetch, state } = await v1Server()
      const client = legacyClient(fetch, { elicitation: () => ({ action }) })
      const error: unknown = await client.callTool('connect', {}).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(McpError)
      expect((error as McpError).code).toBe(-32042)
      expect((error as McpError).data).toEqual({ elicitations: [ELICITATION] })
      expect(state.events).toEqual(['call 1'])
      await client.close()
    }
  })

  it('a second -32042 for the same elicitation is thrown (one retry per elicitation set)', async () => {
    const { fetch, state, complete } = await v1Server()
    state.stubborn = true
    let asked = 0
    const client = legacyClient(fetch, {
      elicitation: () => {
        asked++
        setTimeout(() => void complete(), 10)
        return { action: 'accept' }
      },
    })
    const error: unknown = await client.callTool('connect', {}).catch((e: unknown) => e)
    expect((error as McpError).code).toBe(-32042)
    expect(asked).toBe(1)
    expect(state.events).toEqual(['call 1', 'call 2'])
    await client.close()
  })
})

/**
 * A 2025-era server without a GET stream (405): `tools/call` answers -32042 (a new elicitation id each time
 * when `fresh`) until `state.connected`.
 */
function fakeServer(fresh = false) {
  const state = { connected: false, calls: 0, gets: 0 }
  const fetch = async (request: Request): Promise<Response> => {
    if (request.method === 'GET') {
      state.gets++
      return new Response(null, { status: 405 })
    }
    if (request.method === 'DELETE') return new Response(null, { status: 200 })
    const body = (await request.json()) as { id?: unknown; method?: string }
    if (body.method === 'initialize')
      return Response.json(
        { jsonrpc: '2.0', id: body.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: {} } },
        { headers: { 'mcp-session-id': 'sid-1' } },
      )
    if (body.id === undefined || body.method === undefined) return new Response(null, { status: 202 })
    state.calls++
    if (state.connected) return Response.json({ jsonrpc: '2.0', id: body.id, result: { content: [] } })
    const elicitation = fresh ? { ...ELICITATION, elicitationId: `el-${state.calls}` } : ELICITATION
    return Response.json({
      jsonrpc: '2.0',
      id: body.id,
      error: {
        code: -32042,
        message: 'This request requires more information.',
        data: { elicitations: [elicitation] },
      },
    })
  }
  return { fetch, state }
}

describe('legacy -32042 without a GET stream', () => {
  it('retries as soon as the callback accepted (nothing could bring the completion)', async () => {
    const { fetch, state } = fakeServer()
    const client = legacyClient(fetch, {
      requestTimeoutMs: 10_000,
      elicitation: () => {
        state.connected = true
        return { action: 'accept' }
      },
    })
    const started = performance.now()
    expect((await client.callTool('connect', {})).content).toEqual([])
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(state).toEqual({ connected: true, calls: 2, gets: 1 })
  })

  it('without an elicitation callback the -32042 is thrown at once', async () => {
    const { fetch, state } = fakeServer()
    const error: unknown = await legacyClient(fetch)
      .callTool('connect', {})
      .catch((e: unknown) => e)
    expect((error as McpError).code).toBe(-32042)
    expect(state.calls).toBe(1)
  })

  it('new elicitations each time: at most 3 rounds, then the -32042 is thrown', async () => {
    const { fetch, state } = fakeServer(true)
    const ids: string[] = []
    const client = legacyClient(fetch, {
      elicitation: (params) => {
        ids.push(String((params as Record<string, unknown>).elicitationId))
        return { action: 'accept' }
      },
    })
    const error: unknown = await client.callTool('connect', {}).catch((e: unknown) => e)
    expect((error as McpError).code).toBe(-32042)
    expect(ids).toEqual(['el-1', 'el-2', 'el-3'])
    expect(state.calls).toBe(4)
  })

  it('an error that lists no valid URL-mode elicitation is thrown as is', async () => {
    const fetch = async (request: Request): Promise<Response> => {
      if (request.method === 'GET') return new Response(null, { status: 405 })
      const body = (await request.json()) as { id?: unknown; method?: string }
      if (body.method === 'initialize')
        return Response.json({
          jsonrpc: '2.0',
          id: body.id,
          result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: {} },
        })
      if (body.id === undefined) return new Response(null, { status: 202 })
      const data = { elicitations: [{ mode: 'form', message: 'x', requestedSchema: {} }] }
      return Response.json({ jsonrpc: '2.0', id: body.id, error: { code: -32042, message: 'needs input', data } })
    }
    let asked = 0
    const client = legacyClient(fetch, { elicitation: () => (asked++, { action: 'accept' }) })
    await expect(client.callTool('connect', {})).rejects.toMatchObject({ code: -32042, message: 'needs input' })
    expect(asked).toBe(0)
  })
})
