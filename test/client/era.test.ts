/**
 * The Client's era negotiation: `'auto'` by default; the verdict of the `server/discover` probe
 * (-32020 / -32021 count as modern), `discover()` in both eras, and the optional `eraStore` — a remembered
 * verdict skips the probe, an old or wrong one is probed again, a broken store only warns.
 */
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport, type EraStore, type EraVerdict } from '../../src/client/index.ts'

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
