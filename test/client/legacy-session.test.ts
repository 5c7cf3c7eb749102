/**
 * The Client in a 2025 session, under concurrency and at its edges: close() during initialize, or while a
 * request is in flight, revives nothing and starts no new session; one caller's abort does not fail the
 * others sharing the probe or initialize; a session that expires under concurrent requests is replaced once;
 * the server's requests are answered with the right JSON-RPC codes, and the server never reads the text of a
 * callback's own error or of a wrong answer; listen reopens an ended GET stream and unsubscribes only in the
 * session that subscribed; answering a question does not count against the request timeout; a long request
 * the server polls (SEP-1699) is followed to its end. Fake servers are fetch functions; `v1()` is the
 * official v1 server. The era cases (probe, verdicts, eraStore) are in test/client/era.test.ts.
 */
import { McpServer as V1Server } from '@modelcontextprotocol/sdk/server/mcp.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { describe, expect, it } from 'vitest'
import {
  Client,
  listen,
  StreamableHttpClientTransport,
  HttpError,
  SubscriptionDroppedError,
} from '../../src/client/index.ts'
import { McpError } from '../../src/protocol/errors.ts'
import { jsonReply as json, initResult, v1Server as v1 } from '../fixtures/v1-server.ts'

/** A JSON-RPC message as the fake servers read it. */
type Wire = {
  id?: number
  method?: string
  params?: { arguments?: { i?: number } }
  error: { code: number; message: string }
}

const URL_ = 'http://x/mcp'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

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

describe('listen over a 2025 session: an ended GET stream, an unsubscribe after its session closed', () => {
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

describe('a 2025 session', () => {
  it('close() while a request is in flight starts no new session', async () => {
    const live = new Set<string>()
    const log: string[] = []
    let n = 0
    const fetch = async (r: Request) => {
      const sid = r.headers.get('mcp-session-id') ?? '-'
      if (r.method === 'GET') return new Response(null, { status: 405 })
      if (r.method === 'DELETE')
        return (live.delete(sid), log.push(`DELETE ${sid}`), new Response(null, { status: 204 }))
      const m = (await r.json()) as Wire
      log.push(`POST ${m.method ?? 'answer'} ${sid}`)
      if (m.method === 'initialize') return (live.add(`s${++n}`), initResult(m.id, `s${n}`))
      if (m.id === undefined) return new Response(null, { status: 202 })
      if (m.method === 'tools/call') await sleep(100) // arrives after the DELETE
      if (!live.has(sid)) return new Response('gone', { status: 404 })
      return json({ jsonrpc: '2.0', id: m.id, result: { tools: [], content: [] } })
    }
    const client = new Client({
      transport: new StreamableHttpClientTransport(URL_, { fetch }),
      versionNegotiation: 'legacy',
    })
    await client.listTools()
    const call = client.callTool('t').catch((e: unknown) => e)
    await sleep(20)
    await client.close()
    expect(await call).toMatchObject({ name: 'AbortError' })
    expect(n).toBe(1)
    expect(live.size).toBe(0)
    expect(log.filter((l) => l.startsWith('POST initialize'))).toHaveLength(1)
  })

  it("the server never reads the text of a callback's own error or of a wrong answer", async () => {
    const seen: { code: number; message: string }[] = []
    const fetch = async (r: Request) => {
      if (r.method !== 'POST') return new Response(null, { status: r.method === 'GET' ? 405 : 204 })
      const m = (await r.json()) as Wire
      if (m.method === 'initialize') return initResult(m.id, 's1')
      if (m.method === undefined && m.error) return (seen.push(m.error), new Response(null, { status: 202 }))
      if (m.id === undefined) return new Response(null, { status: 202 })
      const ask = (id: string) =>
        `data: ${JSON.stringify({ jsonrpc: '2.0', id, method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } })}\n\n`
      const done = `data: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [] } })}\n\n`
      return new Response(ask('a') + ask('b') + done, { headers: { 'content-type': 'text/event-stream' } })
    }
    let call = 0
    const client = new Client({
      transport: new StreamableHttpClientTransport(URL_, { fetch }),
      versionNegotiation: 'legacy',
      sampling: () => {
        if (call++ === 0) return { role: 'assistant', content: 'PRIVATE: the record says …', model: 'm' } as never
        throw new HttpError(500, 'billing DB at 10.0.0.7: password=hunter2 rejected')
      },
    })
    await client.callTool('t')
    await sleep(50)
    expect(seen).toEqual([
      { code: -32603, message: 'Internal error: the client could not answer sampling/createMessage' },
      { code: -32603, message: 'Internal error: the client could not answer sampling/createMessage' },
    ])
    await client.close()
  })

  it('a long request the server polls (its stream held open, then closed, many times) is followed to its end', async () => {
    const enc = new TextEncoder()
    let polls = 0
    let pending: number | undefined
    /** A stream that sends `text` at once and closes after `ms`. */
    const held = (text: string, ms: number) =>
      new Response(
        new ReadableStream<Uint8Array>({
          start: async (c) => {
            c.enqueue(enc.encode(text))
            await sleep(ms)
            c.close()
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      )
    const fetch = async (r: Request) => {
      if (r.method === 'GET') {
        if (r.headers.get('last-event-id') === null) return new Response(null, { status: 405 })
        // eight silent polls (each held open longer than the retry), then the response
        if (++polls <= 8) return held(`id: e-${polls}\nretry: 100\ndata: \n\n`, 150)
        return held(`data: ${JSON.stringify({ jsonrpc: '2.0', id: pending, result: { content: [] } })}\n\n`, 0)
      }
      if (r.method === 'DELETE') return new Response(null, { status: 204 })
      const m = (await r.json()) as Wire
      if (m.method === 'initialize') return initResult(m.id, 's1')
      if (m.id === undefined) return new Response(null, { status: 202 })
      pending = m.id
      return held('id: e-0\nretry: 100\ndata: \n\n', 0) // primes, then closes: the client polls
    }
    const client = new Client({
      transport: new StreamableHttpClientTransport(URL_, { fetch }),
      versionNegotiation: 'legacy',
    })
    expect((await client.callTool('slow')).content).toEqual([])
    expect(polls).toBe(9)
    await client.close()
  })
})

describe('cancelling a request of a 2025 session', () => {
  /**
   * A fake 2025 server without tools whose `tools/call` never answers (its response ends only when the client closes it),
   * whose `initialize` is answered after `initMs`: the notifications it got, with their session ids.
   */
  function hanging(initMs = 0) {
    const calls: number[] = [] // the ids of the tools/call requests
    const notifications: Array<{
      sid: string | null
      method?: string | undefined
      params?: Record<string, unknown> | undefined
    }> = []
    const fetch = async (r: Request) => {
      if (r.method === 'GET') return new Response(null, { status: 405 })
      if (r.method === 'DELETE') return new Response(null, { status: 204 })
      const m = JSON.parse(await r.text()) as { id?: number; method?: string; params?: Record<string, unknown> }
      if (m.method === 'initialize') return (await sleep(initMs), initResult(m.id, 's1'))
      if (m.method === 'tools/list') return json({ jsonrpc: '2.0', id: m.id, result: { tools: [] } })
      if (m.method === 'tools/call') calls.push(m.id!)
      if (m.id === undefined) {
        notifications.push({ sid: r.headers.get('mcp-session-id'), method: m.method, params: m.params })
        return new Response(null, { status: 202 })
      }
      return new Promise<Response>((_, reject) =>
        r.signal.addEventListener('abort', () => reject(r.signal.reason as Error), { once: true }),
      )
    }
    return { fetch, notifications, calls }
  }
  const cancels = (s: ReturnType<typeof hanging>) =>
    s.notifications.filter((n) => n.method === 'notifications/cancelled')

  it('aborting a call sends notifications/cancelled naming it, in its session, at once', async () => {
    const s = hanging()
    const client = new Client({
      transport: new StreamableHttpClientTransport(URL_, { fetch: s.fetch }),
      versionNegotiation: 'legacy',
    })
    await client.listTools() // the session is open
    const ac = new AbortController()
    const call = client.callTool('slow', {}, { signal: ac.signal })
    await sleep(20)
    expect(cancels(s)).toEqual([])
    ac.abort(new Error('the user pressed stop'))
    await expect(call).rejects.toThrow('the user pressed stop')
    await sleep(0)
    expect(cancels(s)).toEqual([
      {
        sid: 's1',
        method: 'notifications/cancelled',
        params: { requestId: s.calls[0], reason: 'the user pressed stop' },
      },
    ])
    await client.close()
  }, 10_000)

  it('a call that times out is cancelled too; an initialize that is aborted is not (spec: it must not be)', async () => {
    const s = hanging(100)
    const client = new Client({
      transport: new StreamableHttpClientTransport(URL_, { fetch: s.fetch }),
      versionNegotiation: 'legacy',
    })
    const ac = new AbortController()
    const first = client.listTools({ signal: ac.signal })
    await sleep(20)
    ac.abort() // during initialize: it goes on (shared), this caller stops waiting; nothing to cancel
    await expect(first).rejects.toThrow()
    const timedOut = client.callTool('slow', {}, { timeoutMs: 200 })
    await expect(timedOut).rejects.toThrow(/200/)
    await sleep(0)
    const sent = cancels(s)
    expect(sent).toHaveLength(1)
    expect(sent[0].sid).toBe('s1')
    expect(String(sent[0].params?.reason)).toMatch(/tools\/call/)
    await client.close()
  }, 10_000)
})
