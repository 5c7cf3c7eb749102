/**
 * The Client in both eras under stress: a remembered era that proved
 * wrong is probed again once, never in a loop and never by running a tools/call twice; close() during
 * initialize revives nothing; one caller's abort does not fail the others sharing the probe or initialize;
 * a session that expires under concurrent requests is replaced once; the server's requests are answered
 * with the right JSON-RPC codes; a probe that cannot reach the server gives a tentative legacy verdict;
 * -32022 naming only 2025 versions is a 2025 server; listen reopens an ended GET stream and unsubscribes
 * only in the session that subscribed. Fake servers are fetch functions; `v1()` is the official v1 server.
 */
import { McpServer as V1Server } from '@modelcontextprotocol/sdk/server/mcp.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { describe, expect, it } from 'vitest'
import {
  Client,
  listen,
  StreamableHttpClientTransport,
  SubscriptionDroppedError,
  type EraStore,
} from '../../src/client/index.ts'
import { McpError } from '../../src/protocol/errors.ts'

/** A JSON-RPC message as the fake servers read it. */
type Wire = { id?: number; method?: string; params?: { arguments?: { i?: number } }; error: { code: number } }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
const initResult = (id: unknown, sid?: string) =>
  json(
    {
      jsonrpc: '2.0',
      id,
      result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } },
    },
    200,
    sid ? { 'mcp-session-id': sid } : {},
  )

async function v1(delayInitMs = 0) {
  const server = new V1Server({ name: 'v1', version: '1' })
  server.registerTool('count', { inputSchema: {} }, () => ({ content: [{ type: 'text', text: 'counted' }] }))
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() })
  await server.connect(transport)
  const log: string[] = []
  const fetch = async (r: Request) => {
    const m =
      r.method === 'POST' ? ((JSON.parse(await r.clone().text()) as { method?: string }).method ?? 'answer') : ''
    log.push(`${r.method} ${m}`.trim())
    if (m === 'initialize') await sleep(delayInitMs)
    return transport.handleRequest(r)
  }
  return { fetch, log }
}

describe('era store', () => {
  it('a store whose delete does not take effect (throws, or eventually consistent) does not loop the request', async () => {
    let sent = 0
    const s = await v1()
    const fetch = (r: Request) => (++sent > 50 ? Promise.reject(new Error('guard: 50 requests')) : s.fetch(r))
    const eraStore: EraStore = {
      get: () => ({ era: 'modern', checkedAt: Date.now() }),
      set: () => {},
      delete: () => {},
    }
    const client = new Client({ transport: new StreamableHttpClientTransport('http://x/mcp', { fetch }), eraStore })
    await client.listTools().catch(() => {})
    expect(sent).toBeLessThan(10) // was unbounded
    await client.close()
  })

  it('a tools/call the server ran (a result without resultType) is not sent again under a stale modern verdict', async () => {
    let runs = 0
    const fetch = async (r: Request) => {
      if (r.method !== 'POST') return new Response(null, { status: 405 })
      const m = JSON.parse(await r.text()) as Wire
      if (m.method === 'tools/call')
        return json({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: `run ${++runs}` }] } })
      if (m.method === 'initialize') return initResult(m.id)
      if (!('id' in m)) return new Response(null, { status: 202 })
      return json({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } })
    }
    const map = new Map([['http://x/mcp', { era: 'modern' as const, checkedAt: Date.now() }]])
    const eraStore: EraStore = {
      get: (u) => map.get(u),
      set: (u, v) => void map.set(u, v as never),
      delete: (u) => void map.delete(u),
    }
    const client = new Client({ transport: new StreamableHttpClientTransport('http://x/mcp', { fetch }), eraStore })
    await client.callTool('charge').catch(() => {})
    expect(runs).toBe(1) // it ran: never sent again
  })
})

describe('close() and concurrency', () => {
  it('close() during initialize leaves no session: no GET stream, no requests afterwards', async () => {
    const s = await v1(200)
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: s.fetch }),
      versionNegotiation: 'legacy',
    })
    const call = client.listTools().catch(() => 'rejected')
    await sleep(50)
    await client.close()
    await call
    await sleep(100)
    expect(s.log).not.toContain('GET')
    expect(s.log).toContain('DELETE') // the session the server made meanwhile is ended
  })

  it("one caller's abort does not fail another caller's request that shares the probe / initialize", async () => {
    const s = await v1(200)
    const client = new Client({ transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: s.fetch }) })
    const ac = new AbortController()
    const a = client.listTools({ signal: ac.signal }).catch(() => 'A aborted')
    const b = client.listTools().then(
      (t) => t.length,
      (e: Error) => e.name,
    )
    await sleep(20)
    ac.abort()
    await a
    expect(await b).toBe(1)
    await client.close()
  })

  it('a session that expires under three requests in flight is replaced by one new session, not three', async () => {
    const live = new Set<string>()
    let n = 0
    const fetch = async (r: Request) => {
      const sid = r.headers.get('mcp-session-id')
      if (r.method === 'GET') return new Response(null, { status: 405 })
      if (r.method === 'DELETE') return (live.delete(sid!), new Response(null, { status: 204 }))
      const m = JSON.parse(await r.text()) as Wire
      if (m.method === 'initialize') {
        const id = `s${++n}`
        live.add(id)
        return initResult(m.id, id)
      }
      if (!sid || !live.has(sid)) {
        await sleep((m.params?.arguments?.i ?? 0) * 60)
        return new Response('gone', { status: 404 })
      }
      if (!('id' in m)) return new Response(null, { status: 202 })
      await sleep(20)
      return json({ jsonrpc: '2.0', id: m.id, result: { content: [], tools: [] } })
    }
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch }),
      versionNegotiation: 'legacy',
    })
    await client.listTools()
    live.clear()
    await Promise.all([0, 1, 2].map((i) => client.callTool('t', { i })))
    await client.close()
    expect(n).toBe(2)
    expect([...live]).toEqual([])
  })
})

describe('the server’s requests', () => {
  it("a callback's McpError goes back with its own code, not -32601; malformed params are -32602, not given to the callback", async () => {
    const answers: { code: number }[] = []
    const given: unknown[] = []
    const fetch = async (r: Request) => {
      if (r.method === 'GET') return new Response(null, { status: 405 })
      if (r.method === 'DELETE') return new Response(null, { status: 204 })
      const m = JSON.parse(await r.text()) as Wire
      if (m.method === 'initialize') return initResult(m.id, 's1')
      if (!('method' in m)) return (answers.push(m.error), new Response(null, { status: 202 }))
      if (!('id' in m)) return new Response(null, { status: 202 })
      const ask = (id: string, params: unknown) =>
        `data: ${JSON.stringify({ jsonrpc: '2.0', id, method: 'elicitation/create', params })}\n\n`
      return new Response(
        ask('q1', { message: 'x', requestedSchema: { type: 'object', properties: {} } }) +
          ask('q2', { mode: 'url', url: 42 }) +
          `data: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [] } })}\n\n`,
        { headers: { 'content-type': 'text/event-stream' } },
      )
    }
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch }),
      versionNegotiation: 'legacy',
      elicitation: (p) => {
        given.push(p)
        throw new McpError(-32602, 'bad schema')
      },
    })
    await client.callTool('t')
    await sleep(50)
    expect(answers[0]?.code).toBe(-32602)
    expect(given).toHaveLength(1) // { mode: 'url', url: 42 } is answered -32602, not given to the callback
    await client.close()
  })
})

describe('verdicts at the edges', () => {
  it('-32022 naming only 2025 versions is a 2025 server: initialize follows', async () => {
    const seen: string[] = []
    const fetch = async (r: Request) => {
      if (r.method !== 'POST') return new Response(null, { status: 405 })
      const m = JSON.parse(await r.text()) as { id?: number; method?: string }
      seen.push(m.method ?? 'answer')
      if (m.method === 'server/discover')
        return json(
          {
            jsonrpc: '2.0',
            id: m.id,
            error: { code: -32022, message: 'Unsupported', data: { supported: ['2025-11-25', '2025-06-18'] } },
          },
          400,
        )
      if (m.method === 'initialize') return initResult(m.id)
      if (m.id === undefined) return new Response(null, { status: 202 })
      return json({ jsonrpc: '2.0', id: m.id, result: { tools: [] } })
    }
    const client = new Client({ transport: new StreamableHttpClientTransport('http://x/mcp', { fetch }) })
    expect(await client.listTools()).toEqual([])
    expect(client.era).toBe('legacy')
    expect(seen).toEqual(['server/discover', 'initialize', 'notifications/initialized', 'tools/list'])
  })

  it('a probe that cannot reach the server tries a 2025 session (a browser refusing the 2026 headers); unreachable twice is no verdict', async () => {
    // like a browser whose CORS preflight fails for the 2026 headers: only the probe is refused
    const fetch = async (r: Request) => {
      if (r.headers.has('mcp-method') && r.headers.get('mcp-method') === 'server/discover')
        throw new TypeError('Failed to fetch')
      if (r.method !== 'POST') return new Response(null, { status: 405 })
      const m = JSON.parse(await r.text()) as { id?: number; method?: string }
      if (m.method === 'initialize') return initResult(m.id)
      if (m.id === undefined) return new Response(null, { status: 202 })
      return json({ jsonrpc: '2.0', id: m.id, result: { tools: [] } })
    }
    const client = new Client({ transport: new StreamableHttpClientTransport('http://x/mcp', { fetch }) })
    expect(await client.listTools()).toEqual([])
    expect(client.era).toBe('legacy')

    let calls = 0
    const down = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', {
        fetch: () => (calls++, Promise.reject(new TypeError('fetch failed'))),
      }),
    })
    await expect(down.listTools()).rejects.toMatchObject({ name: 'NetworkError' })
    expect(down.era).toBeUndefined() // no verdict: the next request probes again
    expect(calls).toBe(2) // the probe, then initialize
  })
})

describe('listen over a 2025 session, at the edges', () => {
  it('an ended GET stream is opened again by the next listen; an unsubscribe never goes to a closed session', async () => {
    const log: string[] = []
    let gets = 0
    const fetch = async (r: Request) => {
      const sid = r.headers.get('mcp-session-id') ?? '-'
      if (r.method === 'GET') {
        gets++
        log.push(`GET ${sid}`)
        return new Response(gets === 1 ? '' : ': open\n\n', { headers: { 'content-type': 'text/event-stream' } })
      }
      if (r.method === 'DELETE') return (log.push(`DELETE ${sid}`), new Response(null, { status: 204 }))
      const m = JSON.parse(await r.text()) as { id?: number; method?: string }
      log.push(`POST ${m.method ?? 'answer'} ${sid}`)
      if (m.method === 'initialize')
        return json(
          {
            jsonrpc: '2.0',
            id: m.id,
            result: {
              protocolVersion: '2025-11-25',
              capabilities: { resources: { subscribe: true } },
              serverInfo: { name: 's', version: '1' },
            },
          },
          200,
          { 'mcp-session-id': 's1' },
        )
      if (m.id === undefined) return new Response(null, { status: 202 })
      return json({ jsonrpc: '2.0', id: m.id, result: {} })
    }
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch }),
      versionNegotiation: 'legacy',
      onWarning: () => {},
    })
    const sub = await listen(client, { resourceSubscriptions: ['file:///a'] })
    expect(gets).toBe(2) // the first GET stream ended at once; listen opened it again
    expect(sub.acknowledged).toEqual({ resourceSubscriptions: ['file:///a'] })
    await client.close()
    await expect(sub.ended).rejects.toBeInstanceOf(SubscriptionDroppedError)
    await sleep(20)
    expect(log.filter((l) => l.includes('unsubscribe'))).toEqual([])
    expect(log.at(-1)).toBe('DELETE s1')
  })
})

describe('the user’s time', () => {
  it('answering a question does not count against the request timeout, on the request’s stream or the GET stream', async () => {
    const server = new V1Server({ name: 'v1', version: '1' })
    const ask = { message: 'Nights?', requestedSchema: { type: 'object' as const, properties: {} } }
    server.registerTool('on_post', { inputSchema: {} }, async (_args, extra) => {
      const answer = await server.server.elicitInput(ask, { relatedRequestId: extra.requestId })
      return { content: [{ type: 'text', text: answer.action }] }
    })
    server.registerTool('on_get', { inputSchema: {} }, async () => {
      const answer = await server.server.elicitInput(ask)
      return { content: [{ type: 'text', text: answer.action }] }
    })
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() })
    await server.connect(transport)
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: (r) => transport.handleRequest(r) }),
      requestTimeoutMs: 300,
      elicitation: async () => (await sleep(600), { action: 'accept', content: {} }), // a slow human
    })
    for (const tool of ['on_post', 'on_get'])
      expect((await client.callTool(tool)).content).toEqual([{ type: 'text', text: 'accept' }])
    await client.close()
  })
})
