/**
 * Cache hints (spec: server/utilities/caching.mdx): what the server stamps (server default, per list
 * method, per resource, handler overrides, never on MRTR results), and the client's response cache
 * (hits, expiry, scopes, invalidation). Server requests are counted to prove hits.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { schemaErrors } from '../spec-schema.ts'
import { Client, InMemoryCacheStore, StreamableHttpClientTransport, type ClientOptions } from '../../src/client/index.ts'
import { UriTemplate, McpError, type InputRequiredResult } from '../../src/index.ts'
import {
  McpServer,
  Server,
  createFetchHandler,
  elicit,
  formSchema,
  inputRequired,
  resolver,
  type FetchHandler,
} from '../../src/server/index.ts'
import { call, recordingLogger, scriptedTransport } from '../helpers.ts'

const errorsOf = schemaErrors
const RESPONSE_DEF: Record<string, string> = {
  'server/discover': 'DiscoverResultResponse',
  'tools/list': 'ListToolsResultResponse',
  'prompts/list': 'ListPromptsResultResponse',
  'resources/list': 'ListResourcesResultResponse',
  'resources/templates/list': 'ListResourceTemplatesResultResponse',
  'resources/read': 'ReadResourceResultResponse',
}

/** POST one request and return its result after checking the whole response against schema.json. */
async function wire(
  handler: FetchHandler,
  method: string,
  params: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const res = await call(handler, method, params)
  expect(res.body.error).toBeUndefined()
  if (res.body.result.resultType === 'complete')
    expect(errorsOf(RESPONSE_DEF[method], res.body), JSON.stringify(res.body)).toEqual([])
  return res.body.result
}
const hints = (r: Record<string, unknown>) => ({ ttlMs: r.ttlMs, cacheScope: r.cacheScope })

describe('server: cache hints', () => {
  it('per resource, per list method and per server; a handler’s own values win; every result schema-valid', async () => {
    const mcp = new McpServer(
      { name: 's', version: '1' },
      {
        cache: {
          ttlMs: 60_000,
          cacheScope: 'public',
          methods: {
            'server/discover': { ttlMs: 3_600_000 },
            'tools/list': { ttlMs: 300_000 },
            'resources/list': { cacheScope: 'private' },
          },
        },
      },
    )
    mcp.tool('t', {}, () => 'x')
    mcp.prompt('p', {}, () => 'x')
    mcp.resource('readme', 'docs://readme', { cache: { ttlMs: 5000, cacheScope: 'private' } }, () => '# Hello')
    mcp.resource('logo', 'docs://logo', { cache: { ttlMs: 1000 } }, () => 'png')
    mcp.resourceTemplate('user', new UriTemplate('user://{id}'), { cache: { cacheScope: 'private' } }, ({ id }) => id)
    mcp.resourceTemplate(
      'own',
      new UriTemplate('own://{id}'),
      { cache: { ttlMs: 5000, cacheScope: 'private' } },
      ({ id }) => ({
        contents: [{ uri: `own://${id}`, text: id }],
        ttlMs: 42,
      }),
    )
    mcp.resourceTemplate('plain', new UriTemplate('plain://{id}'), {}, ({ id }) => id)
    const h = createFetchHandler(mcp)
    expect(hints(await wire(h, 'server/discover'))).toEqual({ ttlMs: 3_600_000, cacheScope: 'public' })
    expect(hints(await wire(h, 'tools/list'))).toEqual({ ttlMs: 300_000, cacheScope: 'public' })
    expect(hints(await wire(h, 'prompts/list'))).toEqual({ ttlMs: 60_000, cacheScope: 'public' })
    expect(hints(await wire(h, 'resources/list'))).toEqual({ ttlMs: 60_000, cacheScope: 'private' })
    expect(hints(await wire(h, 'resources/templates/list'))).toEqual({ ttlMs: 60_000, cacheScope: 'public' })
    expect(hints(await wire(h, 'resources/read', { uri: 'docs://readme' }))).toEqual({
      ttlMs: 5000,
      cacheScope: 'private',
    })
    expect(hints(await wire(h, 'resources/read', { uri: 'docs://logo' }))).toEqual({
      ttlMs: 1000,
      cacheScope: 'public',
    })
    expect(hints(await wire(h, 'resources/read', { uri: 'user://ada' }))).toEqual({
      ttlMs: 60_000,
      cacheScope: 'private',
    })
    expect(hints(await wire(h, 'resources/read', { uri: 'own://x' }))).toEqual({ ttlMs: 42, cacheScope: 'private' })
    expect(hints(await wire(h, 'resources/read', { uri: 'plain://x' }))).toEqual({
      ttlMs: 60_000,
      cacheScope: 'public',
    })
    // the list of resources does not take its items' read hints
    expect((await wire(h, 'resources/list')).resources).toEqual([
      { uri: 'docs://readme', name: 'readme' },
      { uri: 'docs://logo', name: 'logo' },
    ])
  })

  it('defaults to { ttlMs: 0, cacheScope: "private" } everywhere', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.resourceTemplate('plain', new UriTemplate('plain://{id}'), {}, ({ id }) => id)
    const h = createFetchHandler(mcp)
    for (const [method, params] of [
      ['server/discover', {}],
      ['tools/list', {}],
      ['resources/templates/list', {}],
      ['resources/read', { uri: 'plain://x' }],
    ] as const) {
      expect(hints(await wire(h, method, params)), method).toEqual({ ttlMs: 0, cacheScope: 'private' })
    }
  })

  it('a low-level handler’s hints win field by field; invalid ones are -32603 (logged)', async () => {
    const log = recordingLogger()
    const server = new Server(
      { name: 's', version: '1' },
      { cache: { ttlMs: 99, cacheScope: 'private' }, logger: log.logger },
    )
    server.setRequestHandler('tools/list', () => ({ tools: [], ttlMs: 10, cacheScope: 'public' }))
    server.setRequestHandler('prompts/list', () => ({ prompts: [], cacheScope: 'public' }))
    server.setRequestHandler('resources/list', () => ({ resources: [], ttlMs: -5 }))
    const h = createFetchHandler(server)
    expect(hints(await wire(h, 'tools/list'))).toEqual({ ttlMs: 10, cacheScope: 'public' })
    expect(hints(await wire(h, 'prompts/list'))).toEqual({ ttlMs: 99, cacheScope: 'public' })
    const bad = await call(h, 'resources/list')
    expect(bad.body.error).toEqual({ code: -32603, message: 'Internal error' })
    expect(log.error.join()).toMatch(
      /resources\/list returned invalid cache hints: the result\.ttlMs must be an integer >= 0 \(milliseconds\), got -5/,
    )
  })

  it('checks cache options at construction and registration', () => {
    const info = { name: 's', version: '1' }
    const bad: Array<[unknown, RegExp]> = [
      [{ ttlMs: -1 }, /^cache\.ttlMs must be an integer >= 0 \(milliseconds\), got -1$/],
      [{ ttlMs: 1.5 }, /cache\.ttlMs .* got 1\.5/],
      [{ ttlMs: '10' }, /cache\.ttlMs .* got '10'/],
      [{ ttlMs: Infinity }, /cache\.ttlMs .* got Infinity/],
      [{ cacheScope: 'shared' }, /^cache\.cacheScope must be 'public' or 'private', got 'shared'$/],
      [{ methods: { 'tools/call': { ttlMs: 1 } } }, /^cache\.methods: 'tools\/call' is not a cacheable method/],
      [
        { methods: { 'tools/list': { ttlMs: NaN } } },
        /^cache\.methods\['tools\/list'\]\.ttlMs must be an integer >= 0/,
      ],
      [{ methods: { 'resources/read': null } }, /cache\.methods\['resources\/read'\] must be an object/],
    ]
    for (const [cache, message] of bad) {
      expect(() => new McpServer(info, { cache: cache as never }), JSON.stringify(cache)).toThrow(message)
      expect(() => new Server(info, { cache: cache as never })).toThrow(RangeError)
    }
    const mcp = new McpServer(info)
    expect(() => mcp.resource('r', 'docs://r', { cache: { ttlMs: -1 } }, () => 'x')).toThrow(
      /^Resource 'docs:\/\/r': cache\.ttlMs must be an integer >= 0/,
    )
    expect(() =>
      mcp.resourceTemplate('t', new UriTemplate('t://{x}'), { cache: { cacheScope: 'everyone' as never } }, () => 'x'),
    ).toThrow(/^Resource template 't': cache\.cacheScope must be 'public' or 'private', got 'everyone'$/)
    expect(() => mcp.resource('r', 'docs://r', { cache: { ttlMs: 0, cacheScope: 'public' } }, () => 'x')).not.toThrow()
  })

  it('never on MRTR: an InputRequiredResult carries no hints, and a result after rounds is 0/private', async () => {
    const mcp = new McpServer({ name: 's', version: '1' }, { cache: { ttlMs: 60_000, cacheScope: 'public' } })
    const n = resolver({}, function n() {
      return elicit('How many?', formSchema({ n: v.number() }))
    })
    mcp.resourceTemplate(
      'ask',
      new UriTemplate('ask://{kind}'),
      { use: { n }, cache: { ttlMs: 60_000, cacheScope: 'public' } },
      ({ kind, n }) => `${n.n} ${kind}`,
    )
    const h = createFetchHandler(mcp)
    const irr = (await call(h, 'resources/read', { uri: 'ask://books' })).body.result as InputRequiredResult
    expect(irr.resultType).toBe('input_required')
    expect('ttlMs' in irr || 'cacheScope' in irr).toBe(false)
    expect(errorsOf('InputRequiredResult', irr)).toEqual([])
    const done = await wire(h, 'resources/read', {
      uri: 'ask://books',
      inputResponses: { [Object.keys(irr.inputRequests!)[0]]: { action: 'accept', content: { n: 2 } } },
      requestState: irr.requestState,
    })
    expect(done).toMatchObject({
      resultType: 'complete',
      contents: [{ text: '2 books' }],
      ttlMs: 0,
      cacheScope: 'private',
    })
    // a handler's own hints on an InputRequiredResult are dropped
    const server = new Server({ name: 's', version: '1' })
    server.setRequestHandler('resources/read', () => ({
      ...inputRequired(undefined, 'later'),
      ttlMs: 5,
      cacheScope: 'public',
    }))
    const raw = (await call(createFetchHandler(server), 'resources/read', { uri: 'x://y' })).body.result as object
    expect(raw).toMatchObject({ resultType: 'input_required', requestState: 'later' })
    expect('ttlMs' in raw || 'cacheScope' in raw).toBe(false)
  })
})

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
