/**
 * Cache hints (spec: server/utilities/caching.mdx): what the server stamps (server default, per list
 * method, per resource, handler overrides, never on MRTR results), every result checked against
 * schema.json. The client's response cache is in test/client/cache.test.ts.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { schemaErrors } from '../spec-schema.ts'
import { UriTemplate, type InputRequiredResult } from '../../src/index.ts'
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
import { call, recordingLogger } from '../helpers.ts'

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
