/**
 * A resource template's `list` callback: its instances in `resources/list` after the static resources
 * (spec: server/resources.mdx "Listing Resources"), paged with them, checked, in both protocol eras and
 * over stdio, with the server's cache hints for the list.
 */
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../../src/client/index.ts'
import { McpError, UriTemplate } from '../../../src/index.ts'
import { McpServer, createFetchHandler, type McpServerOptions } from '../../../src/server/index.ts'
import { call, recordingLogger, req } from '../../helpers.ts'
import { expectLegacyResult, initializeAt, legacyCall } from '../../legacy-wire.ts'
import { schemaErrors, schemaErrors2025 } from '../../spec-schema.ts'
import { initialize, pipe } from '../../stdio-harness.ts'

type Listed = { uri: string; name: string; [key: string]: unknown }

/** Two static resources, a `users` template listing three profiles, a `notes` template without `list`. */
function profiles(options: McpServerOptions = {}) {
  const calls: string[] = []
  const mcp = new McpServer({ name: 's', version: '1' }, options)
  mcp.resource('readme', 'docs://readme', {}, () => '# Hi')
  mcp.resource('faq', 'docs://faq', {}, () => '# FAQ')
  mcp.resourceTemplate('notes', new UriTemplate('notes://{id}'), { description: 'A note' }, ({ id }) => `note ${id}`)
  mcp.resourceTemplate(
    'profile',
    new UriTemplate('users://{id}/profile'),
    {
      description: 'A user profile',
      mimeType: 'application/json',
      list: (ctx) => {
        calls.push(ctx.method)
        return {
          resources: [
            { uri: 'users://ada/profile', name: 'Ada' },
            { uri: 'users://alan/profile', name: 'Alan', description: 'Turing', mimeType: 'text/plain' },
            { uri: 'users://grace/profile', name: 'Grace', title: 'Grace Hopper', size: 12 },
          ],
        }
      },
    },
    ({ id }) => JSON.stringify({ id }),
  )
  return { mcp, calls, handler: createFetchHandler(mcp) }
}

const PROFILES: Listed[] = [
  { uri: 'users://ada/profile', name: 'Ada', description: 'A user profile', mimeType: 'application/json' },
  { uri: 'users://alan/profile', name: 'Alan', description: 'Turing', mimeType: 'text/plain' },
  {
    uri: 'users://grace/profile',
    name: 'Grace',
    title: 'Grace Hopper',
    size: 12,
    description: 'A user profile',
    mimeType: 'application/json',
  },
]
const STATICS: Listed[] = [
  { uri: 'docs://readme', name: 'readme' },
  { uri: 'docs://faq', name: 'faq' },
]

describe("a resource template's list callback", () => {
  it('2026-07-28: lists the instances after the static resources, the template filling unset fields', async () => {
    const { handler, calls } = profiles()
    const { status, body } = await call(handler, 'resources/list')
    expect(status).toBe(200)
    expect(schemaErrors('ListResourcesResultResponse', body)).toEqual([])
    expect(body.result.resources).toEqual([...STATICS, ...PROFILES])
    expect(body.result.nextCursor).toBeUndefined()
    expect(calls).toEqual(['resources/list']) // called with the list request's context
    // the instances stay out of resources/templates/list, and read through their template
    const templates = (await call(handler, 'resources/templates/list')).body.result.resourceTemplates as Listed[]
    expect(templates.map((t) => t.name)).toEqual(['notes', 'profile'])
    const read = (await call(handler, 'resources/read', { uri: 'users://ada/profile' })).body.result
    expect(read.contents).toEqual([{ uri: 'users://ada/profile', mimeType: 'application/json', text: '{"id":"ada"}' }])
  })

  it('takes Resource[] as well as { resources }, sync or async; the Client lists them', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.resourceTemplate('a', new UriTemplate('a://{x}'), { list: () => [{ uri: 'a://1', name: 'one' }] }, ({ x }) => x)
    mcp.resourceTemplate(
      'b',
      new UriTemplate('b://{x}'),
      { list: () => Promise.resolve({ resources: [{ uri: 'b://2', name: 'two' }] }) },
      ({ x }) => x,
    )
    mcp.resourceTemplate('c', new UriTemplate('c://{x}'), { list: () => Promise.resolve([]) }, ({ x }) => x)
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: createFetchHandler(mcp) }),
    })
    expect(await client.listResources()).toEqual([
      { uri: 'a://1', name: 'one' },
      { uri: 'b://2', name: 'two' },
    ])
    expect(() => mcp.resourceTemplate('d', new UriTemplate('d://{x}'), { list: [] as never }, () => 'x')).toThrow(
      new TypeError("Resource template 'd': list must be a function"),
    )
  })

  it('pages with the static resources: stable cursors, a callback called only by pages that reach it', async () => {
    const { handler, calls } = profiles({ pageSize: 2 })
    const pages: Listed[][] = []
    const cursors: string[] = []
    const callsPerPage: number[] = []
    let cursor: string | undefined
    do {
      const before = calls.length
      const { body } = await call(handler, 'resources/list', cursor === undefined ? {} : { cursor })
      expect(schemaErrors('ListResourcesResultResponse', body)).toEqual([])
      pages.push(body.result.resources as Listed[])
      callsPerPage.push(calls.length - before)
      cursor = body.result.nextCursor
      if (cursor !== undefined) cursors.push(cursor)
    } while (cursor !== undefined)
    expect(pages).toEqual([STATICS, PROFILES.slice(0, 2), PROFILES.slice(2)])
    // page 1 holds the two statics; the callback is called to learn that a next page exists
    expect(callsPerPage).toEqual([1, 1, 1])
    // the same cursor gives the same page again
    const again = (await call(handler, 'resources/list', { cursor: cursors[0] })).body.result
    expect(again).toMatchObject({ resources: PROFILES.slice(0, 2), nextCursor: cursors[1] })
    // a cursor of another list is refused, as for every list
    const toolsCursor = Buffer.from('edge-mcp/cursor/v1 resourceTemplates 2').toString('base64url')
    expect((await call(handler, 'resources/list', { cursor: toolsCursor })).body.error).toEqual({
      code: -32602,
      message: 'Invalid cursor',
    })
  })

  it('calls no callback for a page that ends before the instances and knows a next page follows', async () => {
    const { handler, calls } = profiles({ pageSize: 1 })
    const first = (await call(handler, 'resources/list')).body.result
    expect(first.resources).toEqual([STATICS[0]])
    expect(typeof first.nextCursor).toBe('string')
    expect(calls).toEqual([])
    const second = (await call(handler, 'resources/list', { cursor: first.nextCursor })).body.result
    expect(second.resources).toEqual([STATICS[1]])
    expect(calls).toHaveLength(1) // to learn that a next page exists
    const third = (await call(handler, 'resources/list', { cursor: second.nextCursor })).body.result
    expect(third.resources).toEqual([PROFILES[0]])
  })

  it('an invalid entry, a return of another shape or a throw is -32603, logged; an McpError is answered as is', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [[{ uri: 'other://x', name: 'x' }], /entry 0: "other:\/\/x" does not match u:\/\/\{id\}/],
      [[{ uri: 'u://1', name: 'ok' }, { uri: 'u://2' }], /entry 1 is not a valid Resource: .*name/],
      [[{ uri: 'u://1', name: 'ok', size: 'big' }], /entry 0 is not a valid Resource: .*size/],
      [{ items: [] }, /returned neither Resource\[\] nor \{ resources: Resource\[\] \}/],
      ['u://1', /returned neither/],
    ]
    for (const [returned, reason] of cases) {
      const log = recordingLogger()
      const mcp = new McpServer({ name: 's', version: '1' }, { logger: log.logger })
      mcp.resource('readme', 'docs://readme', {}, () => '# Hi')
      mcp.resourceTemplate('u', new UriTemplate('u://{id}'), { list: () => returned as never }, ({ id }) => id)
      const { status, body } = await call(createFetchHandler(mcp), 'resources/list')
      expect([status, body.error], JSON.stringify(returned)).toEqual([200, { code: -32603, message: 'Internal error' }])
      expect(schemaErrors('JSONRPCErrorResponse', body)).toEqual([])
      expect(log.error).toHaveLength(1)
      expect(log.error[0]).toMatch(/^handler for resources\/list failed resource template 'u': list /)
      expect(log.error[0]).toMatch(reason)
    }
    const log = recordingLogger()
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: log.logger })
    mcp.resourceTemplate(
      'boom',
      new UriTemplate('u://{id}'),
      {
        list: () => {
          throw new Error('database down')
        },
      },
      ({ id }) => id,
    )
    mcp.resourceTemplate(
      'refuses',
      new UriTemplate('v://{id}'),
      {
        list: () => {
          throw new McpError(-32001, 'Try later')
        },
      },
      ({ id }) => id,
    )
    const handler = createFetchHandler(mcp)
    expect((await call(handler, 'resources/list')).body.error).toEqual({ code: -32603, message: 'Internal error' })
    expect(log.error).toEqual(['handler for resources/list failed database down'])
    mcp.removeResourceTemplate('boom')
    expect((await call(handler, 'resources/list')).body.error).toEqual({ code: -32001, message: 'Try later' })
  })

  it("keeps the server's cache hints for resources/list, whatever the callback returns beside its resources", async () => {
    const cheeky = (mcp: McpServer) =>
      mcp.resourceTemplate(
        'u',
        new UriTemplate('u://{id}'),
        // cache hints and a cursor beside the resources are not the list's: ignored
        {
          list: () =>
            ({
              resources: [{ uri: 'u://1', name: 'one' }],
              ttlMs: 86_400_000,
              cacheScope: 'public',
              nextCursor: 'x',
            }) as never,
        },
        ({ id }) => id,
      )
    const plain = new McpServer({ name: 's', version: '1' })
    cheeky(plain)
    const byDefault = (await call(createFetchHandler(plain), 'resources/list')).body.result
    expect(byDefault).toEqual({
      resultType: 'complete',
      resources: [{ uri: 'u://1', name: 'one' }],
      ttlMs: 0,
      cacheScope: 'private',
      _meta: byDefault._meta,
    })
    const configured = new McpServer(
      { name: 's', version: '1' },
      { cache: { ttlMs: 60_000, cacheScope: 'public', methods: { 'resources/list': { cacheScope: 'private' } } } },
    )
    cheeky(configured)
    const hinted = (await call(createFetchHandler(configured), 'resources/list')).body.result
    expect([hinted.ttlMs, hinted.cacheScope, hinted.nextCursor]).toEqual([60_000, 'private', undefined])
  })

  it('2025-11-25: after initialize, resources/list without the envelope lists and pages the instances', async () => {
    const { handler } = profiles({ pageSize: 4 })
    expectLegacyResult(await initializeAt(handler, '2025-11-25'), 'InitializeResult')
    const first = expectLegacyResult(await legacyCall(handler, 'resources/list', {}), 'ListResourcesResult')
    expect(first.resources).toEqual([...STATICS, ...PROFILES.slice(0, 2)])
    const cursor = (first as unknown as { nextCursor: string }).nextCursor
    expect(typeof cursor).toBe('string')
    const second = expectLegacyResult(await legacyCall(handler, 'resources/list', { cursor }), 'ListResourcesResult')
    expect(second.resources).toEqual(PROFILES.slice(2))
    expect(second).not.toHaveProperty('nextCursor')
    // an invalid entry is the same -32603 on the legacy lane
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: recordingLogger().logger })
    mcp.resourceTemplate('u', new UriTemplate('u://{id}'), { list: () => [{ uri: 'x://1', name: 'x' }] }, () => '')
    const broken = await legacyCall(createFetchHandler(mcp), 'resources/list')
    expect(schemaErrors2025('JSONRPCErrorResponse', broken.body)).toEqual([])
    expect(broken.body.error).toEqual({ code: -32603, message: 'Internal error' })
  })

  it('over stdio, in both eras', async () => {
    const { mcp } = profiles()
    const p = pipe(mcp)
    const modern = req('resources/list')
    await p.send(modern)
    const listed = await p.next((m) => m.id === modern.id)
    expect(schemaErrors('ListResourcesResultResponse', listed)).toEqual([])
    expect(listed.result.resources).toEqual([...STATICS, ...PROFILES])
    const legacy = pipe(profiles().mcp)
    await legacy.send(initialize)
    await legacy.next((m) => m.id === 0)
    await legacy.send({ jsonrpc: '2.0', id: 1, method: 'resources/list', params: {} })
    const old = await legacy.next((m) => m.id === 1)
    expect(schemaErrors2025('JSONRPCResultResponse', old)).toEqual([])
    expect(schemaErrors2025('ListResourcesResult', old.result)).toEqual([])
    expect(old.result.resources).toEqual([...STATICS, ...PROFILES])
    for (const open of [p, legacy]) {
      await open.end()
      await open.connection.closed
    }
  })
})
