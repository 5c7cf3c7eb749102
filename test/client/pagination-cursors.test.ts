/**
 * ../shared/cases/robustness.md R13: pagination cursors are opaque, only their presence means "more" — for every
 * list method of the Client: a cursor a server hands out twice, `nextCursor: null`, an empty-string cursor, and a
 * server whose cursors never end (stopped at MAX_LIST_PAGES with an error naming the method and the cap).
 */
import { describe, expect, it } from 'vitest'
import { Client, InvalidResultError } from '../../src/client/index.ts'
import { MAX_LIST_PAGES } from '../../src/client/pages.ts'
import { scriptedTransport } from '../helpers.ts'

/** Each list method: the Client call, its JSON-RPC method, its result field, and one item of page `i`. */
const LISTS = [
  ['listTools', 'tools/list', 'tools', (i: number) => ({ name: `t${i}`, inputSchema: { type: 'object' } })],
  ['listPrompts', 'prompts/list', 'prompts', (i: number) => ({ name: `p${i}` })],
  ['listResources', 'resources/list', 'resources', (i: number) => ({ uri: `mem://r${i}`, name: `r${i}` })],
  [
    'listResourceTemplates',
    'resources/templates/list',
    'resourceTemplates',
    (i: number) => ({ uriTemplate: `mem://t${i}/{id}`, name: `t${i}` }),
  ],
] as const

/**
 * A server answering page after page: `cursors[i]` is the `nextCursor` of page `i` (`undefined`: the member is
 * left out); past the end of `cursors` every page repeats the last one. Records the cursor of each request.
 */
function server(method: string, field: string, item: (i: number) => unknown, cursors: unknown[], hints = false) {
  const asked: unknown[] = []
  const transport = scriptedTransport((message) => {
    const m = message as { id: number; method: string; params: { cursor?: unknown } }
    if (m.method !== method) throw new Error(`unexpected ${m.method}`)
    const i = asked.length
    asked.push(m.params.cursor)
    const next = cursors[Math.min(i, cursors.length - 1)]
    const result: Record<string, unknown> = { resultType: 'complete', [field]: [item(i)] }
    if (next !== undefined) result.nextCursor = next
    if (hints) Object.assign(result, { ttlMs: 60_000, cacheScope: 'public' })
    return { jsonrpc: '2.0', id: m.id, result }
  })
  return { transport, asked }
}

const names = (items: unknown[]) => items.map((x) => (x as { name: string }).name)

describe.each(LISTS)('%s: cursors are opaque (R13)', (call, method, field, item) => {
  const list = (client: Client) => (client[call] as () => Promise<unknown[]>).call(client)

  it('a server that reuses one cursor string ("handle", "handle", absent): all three pages, in order', async () => {
    const { transport, asked } = server(method, field, item, ['handle', 'handle', undefined])
    const client = new Client({ transport, versionNegotiation: 'modern' })
    expect(names(await list(client))).toEqual(names([item(0), item(1), item(2)]))
    expect(asked).toEqual([undefined, 'handle', 'handle'])
  })

  it('the same with the response cache on and cache hints: the reused cursor is asked again, not read from the cache', async () => {
    const { transport, asked } = server(method, field, item, ['handle', 'handle', undefined], true)
    const client = new Client({ transport, versionNegotiation: 'modern', cache: true })
    expect(names(await list(client))).toEqual(names([item(0), item(1), item(2)]))
    expect(asked).toEqual([undefined, 'handle', 'handle'])
  })

  it('nextCursor null on the first page: the first page only ("no more", not a type error)', async () => {
    const { transport, asked } = server(method, field, item, [null])
    const client = new Client({ transport, versionNegotiation: 'modern' })
    expect(names(await list(client))).toEqual(names([item(0)]))
    expect(asked).toEqual([undefined])
  })

  it('an empty-string cursor on the first page, then none: two pages (an empty string is a cursor)', async () => {
    const { transport, asked } = server(method, field, item, ['', undefined])
    const client = new Client({ transport, versionNegotiation: 'modern' })
    expect(names(await list(client))).toEqual(names([item(0), item(1)]))
    expect(asked).toEqual([undefined, ''])
  })

  it(`a cursor forever: stops after ${MAX_LIST_PAGES} pages with an error naming the method and the cap`, async () => {
    const { transport, asked } = server(method, field, item, ['again'])
    const client = new Client({ transport, versionNegotiation: 'modern' })
    const error = await list(client).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidResultError)
    expect((error as Error).message).toContain(method)
    expect((error as Error).message).toContain(`${MAX_LIST_PAGES} pages`)
    expect(asked).toHaveLength(MAX_LIST_PAGES)
  })

  it('a nextCursor that is neither a string nor null is still an invalid result, naming the field', async () => {
    const { transport } = server(method, field, item, [42])
    const client = new Client({ transport, versionNegotiation: 'modern' })
    const error = await list(client).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidResultError)
    expect((error as Error).message).toContain('nextCursor')
  })
})
