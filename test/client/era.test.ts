/**
 * The Client's era negotiation (src/client/era.ts): `'auto'` by default; the verdict of the
 * `server/discover` probe (-32020 / -32021 count as modern; a result must name a version this client speaks,
 * and `{}` is a 2025 server's answer to any method it does not know; -32022 naming only 2025 versions is a
 * 2025 server; a probe that cannot reach the server gives a tentative legacy verdict, neither kept nor
 * stuck), `discover()` in both eras, and the optional `eraStore` — a remembered verdict skips the probe, an
 * old or wrong one is probed again (for every request in flight, never in a loop, never by running a
 * tools/call twice), a broken store only warns.
 */
import { McpServer as V1Server } from '@modelcontextprotocol/sdk/server/mcp.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport, type EraStore, type EraVerdict } from '../../src/client/index.ts'
import { createFetchHandler, McpServer } from '../../src/server/index.ts'
import { recordedDemo as demo } from '../fixtures/demo.ts'
import { jsonReply as reply, initResult, v1Server as v1 } from '../fixtures/v1-server.ts'

const URL_ = 'http://localhost/mcp'
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })

/**
 * A stateless 2025-era server: `server/discover` is -32601; initialize, the initialized notification,
 * tools/list (a 2025 result, whatever the request looked like).
 */
function legacyAnswer(body: Record<string, unknown>): Response {
  if (body.method === 'initialize')
    return json(200, {
      jsonrpc: '2.0',
      id: body.id,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'old', version: '1.2' },
        instructions: 'Be kind.',
      },
    })
  if (!('id' in body)) return new Response(null, { status: 202 })
  if (body.method === 'tools/list') return json(200, { jsonrpc: '2.0', id: body.id, result: { tools: [] } })
  return json(200, { jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found' } })
}

/** A 2026-07-28 server: discover and tools/list. */
function modernAnswer(body: Record<string, unknown>): Response {
  if (body.method === 'server/discover')
    return json(200, {
      jsonrpc: '2.0',
      id: body.id,
      result: {
        resultType: 'complete',
        supportedVersions: ['2026-07-28'],
        capabilities: {},
        ttlMs: 0,
        cacheScope: 'private',
      },
    })
  return json(200, {
    jsonrpc: '2.0',
    id: body.id,
    result: { resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'private' },
  })
}

/** A stateful 2025-era server: a request without a session (other than initialize) is 400 -32000. */
function statefulAnswer(body: Record<string, unknown>, headers: Headers): Response {
  if (body.method !== 'initialize' && !headers.has('mcp-session-id'))
    return json(400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'No valid session ID provided' } })
  const response = legacyAnswer(body)
  if (body.method === 'initialize') response.headers.set('mcp-session-id', 'session-1')
  return response
}

/** A server answering through `answer`; the methods it saw are kept. */
function fake(answer: (body: Record<string, unknown>, headers: Headers) => Response) {
  const seen: string[] = []
  const fetch = async (request: Request) => {
    if (request.method !== 'POST') return new Response(null, { status: 405 }) // no standalone stream
    const body = JSON.parse(await request.text()) as Record<string, unknown>
    seen.push(typeof body.method === 'string' ? body.method : 'response')
    return answer(body, request.headers)
  }
  return { transport: new StreamableHttpClientTransport(URL_, { fetch }), seen }
}

/** An EraStore over a Map, recording what was asked of it. */
class MapStore implements EraStore {
  readonly map = new Map<string, EraVerdict>()
  readonly log: string[] = []
  get(url: string) {
    this.log.push(`get ${url}`)
    return this.map.get(url)
  }
  set(url: string, verdict: EraVerdict) {
    this.log.push(`set ${url} ${verdict.era}`)
    this.map.set(url, verdict)
  }
  delete(url: string) {
    this.log.push(`delete ${url}`)
    this.map.delete(url)
  }
}

describe('the era, by default', () => {
  it("is 'auto': with no option, a legacy server is found by the probe and spoken to in a session", async () => {
    const { transport, seen } = fake(legacyAnswer)
    const client = new Client({ transport })
    expect(await client.listTools()).toEqual([])
    expect(client.protocolVersion).toBe('2025-11-25')
    expect(seen).toEqual(['server/discover', 'initialize', 'notifications/initialized', 'tools/list'])
  })

  it('discover() is the probe itself on a modern server (one request), and the initialize result on a legacy one', async () => {
    const modern = fake(modernAnswer)
    const found = await new Client({ transport: modern.transport }).discover()
    expect(found.supportedVersions).toEqual(['2026-07-28'])
    expect(modern.seen).toEqual(['server/discover'])

    const legacy = fake(legacyAnswer)
    const client = new Client({ transport: legacy.transport })
    const discovered = await client.discover()
    expect(discovered).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2025-11-25'],
      capabilities: { tools: { listChanged: true } },
      instructions: 'Be kind.',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'old', version: '1.2' } },
    })
    await client.discover() // answered from the session: nothing more on the wire
    expect(legacy.seen).toEqual(['server/discover', 'initialize', 'notifications/initialized'])
  })

  for (const code of [-32020, -32021]) {
    it(`a probe answered ${code} found a modern server: the request goes out with the envelope`, async () => {
      const { transport, seen } = fake((body) =>
        body.method === 'server/discover'
          ? json(400, { jsonrpc: '2.0', id: body.id, error: { code, message: 'modern complaint' } })
          : modernAnswer(body),
      )
      const client = new Client({ transport })
      expect(await client.listTools()).toEqual([])
      expect(seen).toEqual(['server/discover', 'tools/list'])
      expect(client.protocolVersion).toBe('2026-07-28')
    })
  }
})

describe('eraStore', () => {
  it('keeps the verdict by URL, and a second client skips the probe', async () => {
    const store = new MapStore()
    const first = fake(legacyAnswer)
    await new Client({ transport: first.transport, eraStore: store }).listTools()
    expect(store.map.get(URL_)?.era).toBe('legacy')
    expect(Math.abs(store.map.get(URL_)!.checkedAt - Date.now())).toBeLessThan(10_000)

    const second = fake(legacyAnswer)
    const client = new Client({ transport: second.transport, eraStore: store })
    expect(await client.listTools()).toEqual([])
    expect(second.seen).toEqual(['initialize', 'notifications/initialized', 'tools/list'])
  })

  it('a verdict older than 24 hours is probed again', async () => {
    const store = new MapStore()
    store.map.set(URL_, { era: 'legacy', checkedAt: Date.now() - 25 * 60 * 60 * 1000 })
    const { transport, seen } = fake(modernAnswer)
    await new Client({ transport, eraStore: store }).listTools()
    expect(seen).toEqual(['server/discover', 'tools/list'])
    expect(store.map.get(URL_)?.era).toBe('modern')
  })

  for (const [kind, answer] of [
    ['stateful: 400 -32000', statefulAnswer],
    ['stateless: a result without resultType', legacyAnswer],
  ] as const)
    it(`a remembered verdict the server no longer fits (modern, now a 2025 server, ${kind}) is forgotten, probed and replaced`, async () => {
      const store = new MapStore()
      store.map.set(URL_, { era: 'modern', checkedAt: Date.now() })
      const { transport, seen } = fake(answer)
      const client = new Client({ transport, eraStore: store })
      expect(await client.listTools()).toEqual([])
      expect(seen).toEqual(['tools/list', 'server/discover', 'initialize', 'notifications/initialized', 'tools/list'])
      // the store is not read again once a verdict from it proved wrong (a delete may not take effect at once)
      expect(store.log).toEqual([`get ${URL_}`, `delete ${URL_}`, `set ${URL_} legacy`])
      expect(client.protocolVersion).toBe('2025-11-25')
    })

  it('a remembered legacy verdict the server no longer fits (initialize refused with -32022) is probed again', async () => {
    const store = new MapStore()
    store.map.set(URL_, { era: 'legacy', checkedAt: Date.now() })
    const { transport, seen } = fake((body) =>
      body.method === 'initialize'
        ? json(400, {
            jsonrpc: '2.0',
            id: body.id,
            error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'] } },
          })
        : modernAnswer(body),
    )
    const client = new Client({ transport, eraStore: store })
    expect(await client.listTools()).toEqual([])
    expect(seen).toEqual(['initialize', 'server/discover', 'tools/list'])
    expect(store.map.get(URL_)?.era).toBe('modern')
  })

  it('a confirmed era is not doubted later: an unknown method is the error it is', async () => {
    const store = new MapStore()
    store.map.set(URL_, { era: 'modern', checkedAt: Date.now() })
    const { transport, seen } = fake((body) =>
      body.method === 'completion/complete'
        ? json(200, { jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found' } })
        : modernAnswer(body),
    )
    const client = new Client({ transport, eraStore: store })
    await client.listTools()
    await expect(client.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' })).rejects.toMatchObject({
      code: -32601,
    })
    expect(seen).toEqual(['tools/list', 'completion/complete'])
    expect(store.map.get(URL_)?.era).toBe('modern')
  })

  it('a store that throws is a warning, not a failure: the client probes', async () => {
    const warnings: string[] = []
    const broken: EraStore = {
      get: () => Promise.reject(new Error('quota')),
      set: () => {
        throw new Error('read-only')
      },
      delete: () => undefined,
    }
    const { transport, seen } = fake(modernAnswer)
    const client = new Client({ transport, eraStore: broken, onWarning: (m) => warnings.push(m) })
    expect(await client.listTools()).toEqual([])
    expect(seen).toEqual(['server/discover', 'tools/list'])
    expect(warnings).toEqual(['era store: get failed: Error: quota', 'era store: set failed: Error: read-only'])
  })

  it('pinned eras never probe nor touch the store', async () => {
    const store = new MapStore()
    const { transport, seen } = fake(modernAnswer)
    await new Client({ transport, versionNegotiation: 'modern', eraStore: store }).listTools()
    expect(seen).toEqual(['tools/list'])
    expect(store.log).toEqual([])
  })
})

// The cases below share these: a JSON reply, a 2025 initialize result, the official v1 server (test/fixtures/v1-server.ts), a Map store.

const X_URL = 'http://x/mcp'
/** A JSON-RPC message as the fake servers read it. */
type Wire = { id?: number; method?: string }

/** An EraStore over a Map. */
function mapStore(entries: [string, 'modern' | 'legacy'][] = []): EraStore & { map: Map<string, unknown> } {
  const map = new Map<string, { era: 'modern' | 'legacy'; checkedAt: number }>(
    entries.map(([url, era]) => [url, { era, checkedAt: Date.now() }]),
  )
  return { map, get: (u) => map.get(u), set: (u, v) => void map.set(u, v), delete: (u) => void map.delete(u) }
}

/** A fake server: `answer` decides each response; the requests it saw (their JSON-RPC methods) are kept. */
function probeFake(answer: (body: Record<string, unknown>) => Response | undefined) {
  const seen: string[] = []
  const fetch = async (request: Request) => {
    if (request.method !== 'POST') return new Response(null, { status: 405 }) // no standalone stream
    const body = JSON.parse(await request.text()) as Record<string, unknown>
    seen.push(typeof body.method === 'string' ? body.method : '(answer)')
    return answer(body) ?? conformanceLegacy(body)
  }
  return { transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }), seen }
}

/** A 2025-11-25 server like the conformance suite's mocks: initialize, tools/list, and `{}` for anything else. */
function conformanceLegacy(body: Record<string, unknown>): Response {
  if (!('id' in body)) return new Response(null, { status: 202 })
  if (body.method === 'initialize')
    return reply({
      jsonrpc: '2.0',
      id: body.id,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'old-server', version: '1.2.3' },
        instructions: 'Be brief.',
      },
    })
  if (body.method === 'tools/list')
    return reply({ jsonrpc: '2.0', id: body.id, result: { tools: [{ name: 'add', inputSchema: { type: 'object' } }] } })
  return reply({ jsonrpc: '2.0', id: body.id, result: {} })
}

describe("Client versionNegotiation: 'auto', a probe answered with a result", () => {
  it('`{}` (what some 2025 servers answer to any method they do not know) is a legacy server', async () => {
    const { transport, seen } = probeFake(() => undefined)
    const client = new Client({ transport, versionNegotiation: 'auto' })
    expect((await client.listTools()).map((t) => t.name)).toEqual(['add'])
    expect(client.protocolVersion).toBe('2025-11-25')
    expect(seen).toEqual(['server/discover', 'initialize', 'notifications/initialized', 'tools/list'])
  })

  it('a discover result naming no version this client speaks (only 2025 ones) is a legacy server', async () => {
    const { transport, seen } = probeFake((body) =>
      body.method === 'server/discover'
        ? reply({ jsonrpc: '2.0', id: body.id, result: { supportedVersions: ['2025-11-25'], capabilities: {} } })
        : undefined,
    )
    const client = new Client({ transport, versionNegotiation: 'auto' })
    expect((await client.listTools()).map((t) => t.name)).toEqual(['add'])
    expect(client.protocolVersion).toBe('2025-11-25')
    expect(seen.slice(0, 2)).toEqual(['server/discover', 'initialize'])
  })

  it('a discover result naming 2026-07-28 is a modern server: no initialize', async () => {
    const { transport, seen } = probeFake((body) =>
      reply({
        jsonrpc: '2.0',
        id: body.id,
        result:
          body.method === 'server/discover'
            ? { supportedVersions: ['2027-01-01', '2026-07-28'], capabilities: {} }
            : { tools: [], ttlMs: 0, cacheScope: 'private' },
      }),
    )
    const client = new Client({ transport, versionNegotiation: 'auto' })
    expect(await client.listTools()).toEqual([])
    expect(client.protocolVersion).toBe('2026-07-28')
    expect(seen).toEqual(['server/discover', 'tools/list'])
  })
})

describe('Client.discover() on a 2025 server', () => {
  for (const versionNegotiation of ['legacy', 'auto'] as const) {
    it(`${versionNegotiation}: answered from initialize (version, capabilities, instructions, serverInfo), no server/discover in the session`, async () => {
      const { transport, seen } = probeFake((body) =>
        body.method === 'server/discover' && versionNegotiation === 'auto' && seen.length === 1
          ? reply({ jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found' } })
          : undefined,
      )
      const client = new Client({ transport, versionNegotiation })
      const discovered = await client.discover()
      expect(discovered).toEqual({
        resultType: 'complete',
        supportedVersions: ['2025-11-25'],
        capabilities: { tools: { listChanged: true } },
        instructions: 'Be brief.',
        ttlMs: 0,
        cacheScope: 'private',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'old-server', version: '1.2.3' } },
      })
      await client.discover() // again: still nothing on the wire
      expect(seen).toEqual([
        ...(versionNegotiation === 'auto' ? ['server/discover'] : []), // the probe
        'initialize',
        'notifications/initialized',
      ])
    })
  }
})

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
        return reply({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: `run ${++runs}` }] } })
      if (m.method === 'initialize') return initResult(m.id)
      if (!('id' in m)) return new Response(null, { status: 202 })
      return reply({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } })
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

describe('verdicts from a -32022 or an unreachable probe', () => {
  it('-32022 naming only 2025 versions is a 2025 server: initialize follows', async () => {
    const seen: string[] = []
    const fetch = async (r: Request) => {
      if (r.method !== 'POST') return new Response(null, { status: 405 })
      const m = JSON.parse(await r.text()) as { id?: number; method?: string }
      seen.push(m.method ?? 'answer')
      if (m.method === 'server/discover')
        return reply(
          {
            jsonrpc: '2.0',
            id: m.id,
            error: { code: -32022, message: 'Unsupported', data: { supported: ['2025-11-25', '2025-06-18'] } },
          },
          400,
        )
      if (m.method === 'initialize') return initResult(m.id)
      if (m.id === undefined) return new Response(null, { status: 202 })
      return reply({ jsonrpc: '2.0', id: m.id, result: { tools: [] } })
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
      return reply({ jsonrpc: '2.0', id: m.id, result: { tools: [] } })
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
    const client = new Client({ transport: new StreamableHttpClientTransport(X_URL, { fetch }), eraStore: store })
    expect((await client.listTools()).map((t) => t.name)).toEqual(['echo'])
    expect(client.era).toBe('modern')
    // the tentative 2025 try was refused (-32022): the verdict was dropped and the server probed again
    expect(log).toEqual(['POST server/discover', 'POST initialize', 'POST server/discover', 'POST tools/list'])
    expect(store.map.get(X_URL)).toMatchObject({ era: 'modern' })

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
      transport: new StreamableHttpClientTransport(X_URL, { fetch: blip }),
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
    const store = mapStore([[X_URL, 'modern']])
    const client = new Client({
      transport: new StreamableHttpClientTransport(X_URL, { fetch: (r) => transport.handleRequest(r) }),
      eraStore: store,
    })
    const [tools, prompts] = await Promise.all([client.listTools(), client.listPrompts()])
    expect(tools.map((t) => t.name)).toEqual(['count'])
    expect(prompts.map((p) => p.name)).toEqual(['p'])
    expect(store.map.get(X_URL)).toMatchObject({ era: 'legacy' })
    await client.close()
  })
})

describe("Client versionNegotiation: 'auto' (probe with server/discover)", () => {
  /** A fake server: `answer` decides each response; the requests it saw are kept. */
  function fake(answer: (body: Record<string, unknown>, n: number) => Response) {
    const seen: Record<string, unknown>[] = []
    const fetch = async (request: Request) => {
      if (request.method !== 'POST') return new Response(null, { status: 405 }) // no standalone stream
      const body = JSON.parse(await request.text()) as Record<string, unknown>
      seen.push(body)
      return answer(body, seen.length)
    }
    return { transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }), seen }
  }
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })

  it('a server that answers server/discover is modern: requests carry the envelope', async () => {
    const { fetch, seen } = demo()
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'auto',
    })
    expect((await client.listTools()).length).toBeGreaterThan(0)
    expect(client.protocolVersion).toBe('2026-07-28')
    expect(seen.map((s) => s.body.method)).toEqual(['server/discover', 'tools/list'])
    expect(JSON.stringify(seen[1].body)).toContain('io.modelcontextprotocol/protocolVersion')
  })

  for (const [what, reply] of [
    [
      '-32601 (a stateless 2025 server)',
      () => json(200, { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }),
    ],
    [
      '400 with -32000 "no session" (a stateful 2025 server)',
      () =>
        json(400, {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32000, message: 'Bad Request: No valid session ID provided' },
        }),
    ],
    ['404 with a non-JSON body', () => new Response('Not Found', { status: 404 })],
    ['405', () => new Response(null, { status: 405 })],
  ] as const) {
    it(`a probe answered ${what} is a legacy server: initialize follows`, async () => {
      const { transport, seen } = fake((body) => {
        if (body.method === 'server/discover') return reply()
        if (body.method === 'initialize')
          return json(200, {
            jsonrpc: '2.0',
            id: body.id,
            result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'old', version: '1' } },
          })
        if (!('id' in body)) return new Response(null, { status: 202 })
        return json(200, { jsonrpc: '2.0', id: body.id, result: { tools: [] } })
      })
      const client = new Client({ transport, versionNegotiation: 'auto' })
      expect(await client.listTools()).toEqual([])
      expect(client.protocolVersion).toBe('2025-06-18')
      expect(seen.map((s) => s.method)).toEqual([
        'server/discover',
        'initialize',
        'notifications/initialized',
        'tools/list',
      ])
    })
  }

  it('no evidence (a 503, then a 401 without auth) is reported and the next request probes again', async () => {
    const { transport, seen } = fake((body, n) => {
      if (n === 1) return new Response('down', { status: 503 })
      if (n === 2) return new Response('no', { status: 401 })
      if (body.method === 'server/discover')
        return json(200, {
          jsonrpc: '2.0',
          id: body.id,
          result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: {} },
        })
      return json(200, {
        jsonrpc: '2.0',
        id: body.id,
        result: { resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'private' },
      })
    })
    const client = new Client({ transport, versionNegotiation: 'auto' })
    await expect(client.listTools()).rejects.toMatchObject({ status: 503 })
    await expect(client.listTools()).rejects.toMatchObject({ status: 401 })
    expect(await client.listTools()).toEqual([])
    expect(seen.map((s) => s.method)).toEqual(['server/discover', 'server/discover', 'server/discover', 'tools/list'])
  })

  it('a modern error without a version in common (-32022) is not a reason to fall back', async () => {
    const { transport, seen } = fake((body) =>
      json(400, {
        jsonrpc: '2.0',
        id: body.id,
        error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2027-01-01'] } },
      }),
    )
    const client = new Client({ transport, versionNegotiation: 'auto' })
    await expect(client.listTools()).rejects.toMatchObject({ code: -32022 })
    expect(seen.map((s) => s.method)).toEqual(['server/discover'])
  })

  it('an invalid versionNegotiation is a RangeError', () => {
    expect(
      () => new Client({ transport: fake(() => new Response()).transport, versionNegotiation: 'both' as never }),
    ).toThrow(RangeError)
  })
})
