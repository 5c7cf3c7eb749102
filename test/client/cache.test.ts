/**
 * The client's response cache (spec: server/utilities/caching.mdx): hits, expiry, scopes, invalidation,
 * pages, the store's bound; missing or odd hints cache nothing. Server requests are counted to prove hits.
 */
import { describe, expect, it } from 'vitest'
import {
  Client,
  InMemoryCacheStore,
  StreamableHttpClientTransport,
  type ClientOptions,
} from '../../src/client/index.ts'
import { UriTemplate, McpError } from '../../src/index.ts'
import { McpServer, createFetchHandler, inputRequired, type FetchHandler } from '../../src/server/index.ts'
import { scriptedTransport } from '../helpers.ts'

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

/** A Client over HTTP to `handler`, counting the requests that reach it by `Mcp-Method`. */
function counted(
  handler: FetchHandler,
  options: Omit<ClientOptions, 'transport'> = {},
  url = 'http://x/mcp',
  authorization?: string,
) {
  const counts: Record<string, number> = {}
  const transport = new StreamableHttpClientTransport(url, {
    ...(authorization ? { headers: { authorization } } : {}),
    fetch: (r) => {
      const method = r.headers.get('mcp-method')!
      counts[method] = (counts[method] ?? 0) + 1
      return handler(r)
    },
  })
  return { client: new Client({ transport, versionNegotiation: 'modern', ...options }), counts }
}

function clock(start = 1_000_000) {
  const c = { t: start, now: () => c.t }
  return c
}

function bookshop(cache = { ttlMs: 60_000, cacheScope: 'public' as const }) {
  const mcp = new McpServer(
    { name: 's', version: '1' },
    { cache: { ...cache, methods: { 'tools/list': { ttlMs: 10_000 } } } },
  )
  let reads = 0
  mcp.tool('t', {}, () => 'x')
  mcp.prompt('p', {}, () => 'x')
  mcp.resource('readme', 'docs://readme', {}, () => `readme #${++reads}`)
  mcp.resourceTemplate('doc', new UriTemplate('docs://{name}'), { cache: { ttlMs: 5000 } }, ({ name }) => `doc ${name}`)
  mcp.resourceTemplate('ask', new UriTemplate('ask://{kind}'), {}, (_args, ctx) =>
    ctx.inputResponses
      ? 'answered'
      : inputRequired({
          q: {
            method: 'elicitation/create',
            params: { message: 'ok?', requestedSchema: { type: 'object', properties: {} } },
          },
        }),
  )
  mcp.resource('fresh', 'docs://fresh', { cache: { ttlMs: 0 } }, () => 'never cached')
  return mcp
}

describe('client: response cache', () => {
  it('is off by default', async () => {
    const { client, counts } = counted(createFetchHandler(bookshop()))
    await client.listTools()
    await client.listTools()
    expect(counts['tools/list']).toBe(2)
  })

  it('hits until ttlMs has passed (fake clock), per method and params', async () => {
    const c = clock()
    const { client, counts } = counted(createFetchHandler(bookshop()), { cache: { now: c.now } })
    const discovered = await client.discover()
    expect(await client.discover()).toEqual(discovered)
    const tools = await client.listTools()
    await client.listPrompts()
    await client.listResources()
    await client.listResourceTemplates()
    expect((await client.readResource('docs://readme')).contents).toEqual([{ uri: 'docs://readme', text: 'readme #1' }])
    await client.readResource('docs://a')
    await client.readResource('docs://b') // other params: another entry
    c.t += 4999
    expect(await client.listTools()).toEqual(tools)
    await client.listPrompts()
    await client.listResources()
    await client.listResourceTemplates()
    expect((await client.readResource('docs://readme')).contents[0]).toMatchObject({ text: 'readme #1' })
    await client.readResource('docs://a')
    expect(counts).toEqual({
      'server/discover': 1,
      'tools/list': 1,
      'prompts/list': 1,
      'resources/list': 1,
      'resources/templates/list': 1,
      'resources/read': 3,
    })
    c.t += 1 // docs://a (5000 ms) is stale now: now >= received + ttlMs
    await client.readResource('docs://a')
    expect(counts['resources/read']).toBe(4)
    c.t += 5000 // tools/list (10 s) is stale, discover (60 s) is not
    await client.listTools()
    await client.discover()
    expect([counts['tools/list'], counts['server/discover']]).toEqual([2, 1])
    c.t += 50_000
    expect((await client.readResource('docs://readme')).contents[0]).toMatchObject({ text: 'readme #2' })
    await client.discover()
    expect([counts['resources/read'], counts['server/discover']]).toEqual([5, 2])
  })

  it('never caches ttlMs 0, errors or InputRequiredResults', async () => {
    const { client, counts } = counted(createFetchHandler(bookshop()), {
      cache: true,
      elicitation: () => ({ action: 'accept', content: {} }),
    })
    await client.readResource('docs://fresh')
    await client.readResource('docs://fresh')
    expect(counts['resources/read']).toBe(2)
    for (let i = 0; i < 2; i++)
      expect(await client.readResource('nope://x').catch((e: unknown) => (e as McpError).code)).toBe(-32602)
    expect(counts['resources/read']).toBe(4)
    expect((await client.readResource('ask://x', { manual: true })).resultType).toBe('input_required')
    expect((await client.readResource('ask://x', { manual: true })).resultType).toBe('input_required')
    expect(counts['resources/read']).toBe(6)
    // the zero-ttl server default: every call asks
    const zero = counted(createFetchHandler(new McpServer({ name: 's', version: '1' })), { cache: true })
    await zero.client.listTools()
    await zero.client.discover()
    await zero.client.listTools()
    await zero.client.discover()
    expect(zero.counts).toEqual({ 'tools/list': 2, 'server/discover': 2 })
  })

  it('never caches a result reached through rounds, even one claiming a public ttl', async () => {
    let sent = 0
    const transport = scriptedTransport((message) => {
      sent++
      const m = message as { id: number; params: Record<string, unknown> }
      const result = m.params.requestState
        ? { resultType: 'complete', contents: [{ uri: 'x://y', text: 'done' }], ttlMs: 60_000, cacheScope: 'public' }
        : { resultType: 'input_required', requestState: 'round-1', ttlMs: 60_000, cacheScope: 'public' } // a misbehaving server
      return { jsonrpc: '2.0', id: m.id, result }
    })
    const client = new Client({ transport, versionNegotiation: 'modern', cache: true, sleep: async () => {} })
    expect((await client.readResource('x://y')).contents).toEqual([{ uri: 'x://y', text: 'done' }])
    await client.readResource('x://y')
    expect(sent).toBe(4)
    // nor a first request seeded with state (a resumed flow)
    await client.readResource('x://y', { requestState: 'round-1' })
    await client.readResource('x://y', { requestState: 'round-1' })
    expect(sent).toBe(6)
  })

  it('serves private results only to the same principal; public ones to everyone sharing the store', async () => {
    const mcp = new McpServer({ name: 's', version: '1' }, { cache: { ttlMs: 60_000, cacheScope: 'public' } })
    mcp.resource(
      'me',
      'me://profile',
      { cache: { cacheScope: 'private' } },
      (ctx) => `profile of ${ctx.authInfo?.subject}`,
    )
    mcp.resource('readme', 'docs://readme', {}, () => 'shared')
    const handler = createFetchHandler(mcp, {
      authenticate: (r) => ({ clientId: 'c', subject: (r.headers.get('authorization') ?? '').replace('Bearer ', '') }),
    })
    const store = new InMemoryCacheStore()
    const alice = counted(handler, { cache: { store, principal: 'alice' } }, 'http://x/mcp', 'Bearer alice')
    const bob = counted(handler, { cache: { store, principal: () => 'bob' } }, 'http://x/mcp', 'Bearer bob')
    const text = async (c: Client, uri: string) => ((await c.readResource(uri)).contents[0] as { text: string }).text
    expect(await text(alice.client, 'me://profile')).toBe('profile of alice')
    expect(await text(alice.client, 'me://profile')).toBe('profile of alice')
    expect(await text(bob.client, 'me://profile')).toBe('profile of bob')
    expect(await text(bob.client, 'me://profile')).toBe('profile of bob')
    expect([alice.counts['resources/read'], bob.counts['resources/read']]).toEqual([1, 1])
    expect(await text(alice.client, 'docs://readme')).toBe('shared')
    expect(await text(bob.client, 'docs://readme')).toBe('shared') // public: served from alice's entry
    expect([alice.counts['resources/read'], bob.counts['resources/read']]).toEqual([2, 1])

    // without a principal, private entries belong to the Client instance
    const anon1 = counted(handler, { cache: { store } }, 'http://x/mcp', 'Bearer carol')
    const anon2 = counted(handler, { cache: { store } }, 'http://x/mcp', 'Bearer dave')
    expect(await text(anon1.client, 'me://profile')).toBe('profile of carol')
    expect(await text(anon2.client, 'me://profile')).toBe('profile of dave')
    expect(await text(anon1.client, 'me://profile')).toBe('profile of carol')
    expect(await text(anon2.client, 'docs://readme')).toBe('shared')
    expect([anon1.counts['resources/read'], anon2.counts['resources/read']]).toEqual([1, 1])

    // a principal function is read per request: one Client switching users keeps them apart
    let who = 'erin'
    const switching = counted(handler, { cache: { store, principal: () => who } }, 'http://x/mcp')
    await switching.client.readResource('me://profile')
    who = 'frank'
    await switching.client.readResource('me://profile')
    who = 'erin'
    await switching.client.readResource('me://profile')
    expect(switching.counts['resources/read']).toBe(2)

    // another server URL shares nothing, public included
    const other = counted(handler, { cache: { store, principal: 'alice' } }, 'http://other/mcp', 'Bearer alice')
    await other.client.readResource('docs://readme')
    await other.client.readResource('me://profile')
    expect(other.counts['resources/read']).toBe(2)
  })

  it('invalidates all, by method, and on list_changed / resources/updated notifications', async () => {
    const { client, counts } = counted(createFetchHandler(bookshop()), { cache: true })
    const warm = async () => {
      await client.discover()
      await client.listTools()
      await client.listPrompts()
      await client.listResources()
      await client.listResourceTemplates()
      await client.readResource('docs://a')
      await client.readResource('docs://b')
    }
    await warm()
    const before = { ...counts }
    await client.invalidateCache('tools/list')
    await warm()
    expect(counts).toEqual({ ...before, 'tools/list': 2 })
    expect(await client.invalidateCacheFor({ method: 'notifications/prompts/list_changed' })).toBe(true)
    expect(await client.invalidateCacheFor({ method: 'notifications/resources/list_changed' })).toBe(true)
    expect(
      await client.invalidateCacheFor({ method: 'notifications/resources/updated', params: { uri: 'docs://a' } }),
    ).toBe(true)
    await warm()
    expect(counts).toEqual({
      ...before,
      'tools/list': 2,
      'prompts/list': 2,
      'resources/list': 2,
      'resources/templates/list': 2,
      'resources/read': 3,
    })
    expect(await client.invalidateCacheFor({ method: 'notifications/tools/list_changed' })).toBe(true)
    expect(await client.invalidateCacheFor({ method: 'notifications/message' })).toBe(false)
    expect(await client.invalidateCacheFor({ method: 'toString' })).toBe(false)
    await warm()
    expect(counts['tools/list']).toBe(3)
    expect(counts['server/discover']).toBe(1)
    await client.invalidateCache()
    await warm()
    expect(counts).toEqual({
      'server/discover': 2,
      'tools/list': 4,
      'prompts/list': 3,
      'resources/list': 3,
      'resources/templates/list': 3,
      'resources/read': 5,
    })
  })

  it('caches pages separately and drops every page when a cursor fails', async () => {
    const c = clock()
    let cursorValid = true
    const requests: Array<string | undefined> = []
    const tool = (name: string) => ({ name, inputSchema: { type: 'object' } })
    const transport = scriptedTransport((message) => {
      const m = message as { id: number; params: { cursor?: string } }
      requests.push(m.params.cursor)
      if (m.params.cursor === undefined)
        return {
          jsonrpc: '2.0',
          id: m.id,
          result: {
            resultType: 'complete',
            tools: [tool('a')],
            nextCursor: 'p2',
            ttlMs: 60_000,
            cacheScope: 'public',
          },
        }
      if (!cursorValid) return { jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'Invalid cursor' } }
      return {
        jsonrpc: '2.0',
        id: m.id,
        result: { resultType: 'complete', tools: [tool('b')], ttlMs: 1000, cacheScope: 'public' },
      }
    })
    const client = new Client({ transport, versionNegotiation: 'modern', cache: { now: c.now } })
    expect((await client.listTools()).map((t) => t.name)).toEqual(['a', 'b'])
    expect((await client.listTools()).map((t) => t.name)).toEqual(['a', 'b'])
    expect(requests).toEqual([undefined, 'p2'])
    c.t += 1000 // page 2 is stale, page 1 fresh: only page 2 is asked again
    await client.listTools()
    expect(requests).toEqual([undefined, 'p2', 'p2'])
    c.t += 1000
    cursorValid = false
    expect(await client.listTools().catch((e: unknown) => (e as McpError).code)).toBe(-32602)
    cursorValid = true
    await client.listTools() // page 1 was dropped with the failed cursor
    expect(requests).toEqual([undefined, 'p2', 'p2', 'p2', undefined, 'p2'])
  })

  it('re-lists past the cache after -32020', async () => {
    let lists = 0
    const transport = scriptedTransport((message, options) => {
      const m = message as { id: number; method: string }
      if (m.method === 'tools/list') {
        const properties =
          lists++ === 0 ? { region: { type: 'string' } } : { region: { type: 'string', 'x-mcp-header': 'Region' } }
        return {
          jsonrpc: '2.0',
          id: m.id,
          result: {
            resultType: 'complete',
            tools: [{ name: 'deploy', inputSchema: { type: 'object', properties } }],
            ttlMs: 60_000,
            cacheScope: 'public',
          },
        }
      }
      if (options?.routing?.Region !== 'eu')
        return { jsonrpc: '2.0', id: m.id, error: { code: -32020, message: 'Header mismatch' } }
      return {
        jsonrpc: '2.0',
        id: m.id,
        result: { resultType: 'complete', content: [{ type: 'text', text: 'deployed' }] },
      }
    })
    const client = new Client({ transport, versionNegotiation: 'modern', cache: true })
    await client.listTools()
    expect((await client.callTool('deploy', { region: 'eu' })).content).toEqual([{ type: 'text', text: 'deployed' }])
    expect(lists).toBe(2)
  })

  it('bounds the in-memory store (least recently used first) and keeps cached values immutable', async () => {
    expect(() => new Client({ transport: scriptedTransport(() => undefined), cache: { maxEntries: 0 } })).toThrow(
      RangeError,
    )
    expect(() => new InMemoryCacheStore({ maxEntries: 1.5 })).toThrow(/maxEntries must be a positive integer/)
    const { client, counts } = counted(createFetchHandler(bookshop()), { cache: { maxEntries: 2 } })
    await client.readResource('docs://a')
    await client.readResource('docs://b')
    await client.readResource('docs://a') // hit; b is now the least recently used
    await client.readResource('docs://c') // evicts b
    await client.readResource('docs://a')
    expect(counts['resources/read']).toBe(3)
    await client.readResource('docs://b')
    expect(counts['resources/read']).toBe(4)
    const info = (d: { _meta?: Record<string, unknown> | undefined }) =>
      d._meta!['io.modelcontextprotocol/serverInfo'] as { name: string }
    info(await client.discover()).name = 'changed by the caller'
    expect(info(await client.discover()).name).toBe('s')
    expect(counts['server/discover']).toBe(1)
  })

  it('a failing store is a miss, with a warning', async () => {
    const warnings: string[] = []
    const store = {
      get: () => Promise.reject(new Error('kv down')),
      set: () => {
        throw new Error('kv full')
      },
      deletePrefix: () => {},
    }
    const { client, counts } = counted(createFetchHandler(bookshop()), {
      cache: { store },
      onWarning: (m) => warnings.push(m),
    })
    expect((await client.listTools()).map((t) => t.name)).toEqual(['t'])
    await client.listTools()
    expect(counts['tools/list']).toBe(2)
    expect(warnings).toEqual([
      'response cache: get failed: Error: kv down',
      'response cache: set failed: Error: kv full',
      'response cache: get failed: Error: kv down',
      'response cache: set failed: Error: kv full',
    ])
  })
})

// shared/cases/robustness.md R2
describe('missing or odd cache hints', () => {
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
