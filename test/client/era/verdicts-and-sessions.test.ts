/**
 * The Client in both eras: a probe that met a network blip does
 * not leave a modern-only server stuck in legacy, nor is that tentative verdict stored; a stale remembered
 * verdict is re-checked for every request in flight, not only the first; close() while a request is in
 * flight starts no new session; the server never reads the text of a callback's own error or wrong answer;
 * a long request the server polls (SEP-1699: its stream held open and closed again and again) is followed
 * to its end.
 */
import { McpServer as V1Server } from '@modelcontextprotocol/sdk/server/mcp.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { describe, expect, it } from 'vitest'
import { Client, HttpError, StreamableHttpClientTransport, type EraStore } from '../../../src/client/index.ts'
import { createFetchHandler, McpServer } from '../../../src/server/index.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const URL_ = 'http://x/mcp'
type Wire = { id?: number; method?: string; error?: { code: number; message: string } }
const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
const initResult = (id: unknown, sid: string) =>
  json(
    { jsonrpc: '2.0', id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's' } } },
    200,
    { 'mcp-session-id': sid },
  )

/** An EraStore over a Map. */
function mapStore(entries: [string, 'modern' | 'legacy'][] = []): EraStore & { map: Map<string, unknown> } {
  const map = new Map<string, { era: 'modern' | 'legacy'; checkedAt: number }>(
    entries.map(([url, era]) => [url, { era, checkedAt: Date.now() }]),
  )
  return { map, get: (u) => map.get(u), set: (u, v) => void map.set(u, v), delete: (u) => void map.delete(u) }
}

describe('verdicts', () => {
  it('a network blip on the probe does not leave a modern-only server stuck in legacy, and is not stored', async () => {
    const mcp = new McpServer({ name: 'm', version: '1' }, { legacy: 'reject' })
    mcp.tool('echo', {}, () => 'echo')
    const handler = createFetchHandler(mcp)
    const log: string[] = []
    let n = 0
    const fetch = async (r: Request) => {
      const body = r.method === 'POST' ? ((await r.clone().json()) as Wire) : {}
      log.push(`${r.method} ${body.method ?? ''}`.trim())
      if (n++ === 0) throw new TypeError('fetch failed') // one blip, on the probe
      return handler(r)
    }
    const store = mapStore()
    const client = new Client({ transport: new StreamableHttpClientTransport(URL_, { fetch }), eraStore: store })
    expect((await client.listTools()).map((t) => t.name)).toEqual(['echo'])
    expect(client.era).toBe('modern')
    // the tentative 2025 try was refused (-32022): the verdict was dropped and the server probed again
    expect(log).toEqual(['POST server/discover', 'POST initialize', 'POST server/discover', 'POST tools/list'])
    expect(store.map.get(URL_)).toMatchObject({ era: 'modern' })

    // a tentative legacy verdict that works is used, but not remembered for other clients
    const legacyStore = mapStore()
    const v1 = new V1Server({ name: 'v1', version: '1' })
    v1.registerTool('count', { inputSchema: {} }, () => ({ content: [] }))
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() })
    await v1.connect(transport)
    let first = true
    const blip = (r: Request) => {
      if (first) return ((first = false), Promise.reject(new TypeError('fetch failed')))
      return transport.handleRequest(r)
    }
    const legacy = new Client({
      transport: new StreamableHttpClientTransport(URL_, { fetch: blip }),
      eraStore: legacyStore,
    })
    await legacy.listTools()
    expect(legacy.era).toBe('legacy')
    expect(legacyStore.map.size).toBe(0)
    await legacy.close()
  })

  it('a stale remembered verdict is re-checked for every request in flight, not only the first', async () => {
    const server = new V1Server({ name: 'v1', version: '1' })
    server.registerTool('count', { inputSchema: {} }, () => ({ content: [] }))
    server.registerPrompt('p', {}, () => ({ messages: [] }))
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() })
    await server.connect(transport)
    const store = mapStore([[URL_, 'modern']])
    const client = new Client({
      transport: new StreamableHttpClientTransport(URL_, { fetch: (r) => transport.handleRequest(r) }),
      eraStore: store,
    })
    const [tools, prompts] = await Promise.all([client.listTools(), client.listPrompts()])
    expect(tools.map((t) => t.name)).toEqual(['count'])
    expect(prompts.map((p) => p.name)).toEqual(['p'])
    expect(store.map.get(URL_)).toMatchObject({ era: 'legacy' })
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
