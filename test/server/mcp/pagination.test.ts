/** Pagination of the four list methods (spec: server/utilities/pagination.mdx): opaque cursors, fixed order. */
import { UriTemplate } from '../../../src/index.ts'
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../../src/client/index.ts'
import { McpServer, createFetchHandler } from '../../../src/server/index.ts'
import { createDemoServer } from '../../../worker/server.ts'
import { call } from '../../helpers.ts'

function server(pageSize?: number) {
  const mcp = new McpServer({ name: 's', version: '1' }, pageSize === undefined ? {} : { pageSize })
  for (let i = 0; i < 7; i++) {
    mcp.tool(`t${i}`, {}, () => 'ok')
    mcp.prompt(`p${i}`, {}, () => 'ok')
    mcp.resource(`r${i}`, `mem://r${i}`, {}, () => ({ contents: [{ uri: `mem://r${i}`, text: 'x' }] }))
    mcp.resourceTemplate(`tpl${i}`, new UriTemplate(`mem://t${i}/{id}`), {}, ({ id }) => ({
      contents: [{ uri: `mem://t${i}/${id}`, text: 'x' }],
    }))
  }
  return mcp
}

describe('list pagination', () => {
  it('pages of pageSize in registration order, with an opaque nextCursor until the last page', async () => {
    const handler = createFetchHandler(server(3))
    const names: string[][] = []
    const cursors: string[] = []
    let cursor: string | undefined
    do {
      const { body } = await call(handler, 'tools/list', cursor === undefined ? {} : { cursor })
      names.push(body.result.tools.map((t: { name: string }) => t.name))
      cursor = body.result.nextCursor
      if (cursor !== undefined) cursors.push(cursor)
    } while (cursor !== undefined)
    expect(names).toEqual([['t0', 't1', 't2'], ['t3', 't4', 't5'], ['t6']])
    expect(cursors).toHaveLength(2)
    for (const c of cursors) expect(c).toMatch(/^[A-Za-z0-9_-]+$/)
  })

  it('the Client walks every page of every list', async () => {
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: createFetchHandler(server(2)) }),
    })
    expect((await client.listTools()).map((t) => t.name)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6'])
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6'])
    expect((await client.listResources()).map((r) => r.uri)).toHaveLength(7)
    expect((await client.listResourceTemplates()).map((r) => r.name)).toEqual([
      'tpl0',
      'tpl1',
      'tpl2',
      'tpl3',
      'tpl4',
      'tpl5',
      'tpl6',
    ])
  })

  it('a cursor from another list, a forged or a garbage cursor is -32602 "Invalid cursor"', async () => {
    const handler = createFetchHandler(server(3))
    const toolsCursor = (await call(handler, 'tools/list', {})).body.result.nextCursor as string
    const forged = Buffer.from('edge-mcp/cursor/v1 tools 0').toString('base64url')
    for (const [method, cursor] of [
      ['prompts/list', toolsCursor],
      ['tools/list', forged],
      ['tools/list', 'garbage!'],
      ['tools/list', 5],
      ['tools/list', toolsCursor + 'A'],
    ] as const) {
      const { status, body } = await call(handler, method, { cursor })
      expect([status, body.error], `${method} ${String(cursor)}`).toEqual([
        200,
        { code: -32602, message: 'Invalid cursor' },
      ])
    }
  })

  it('defaults to 100 per page; a bad pageSize is refused at construction', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    for (let i = 0; i < 101; i++) mcp.tool(`t${i}`, {}, () => 'ok')
    const first = (await call(createFetchHandler(mcp), 'tools/list', {})).body.result
    expect(first.tools).toHaveLength(100)
    expect(typeof first.nextCursor).toBe('string')
    for (const pageSize of [0, -1, 1.5, Number.NaN])
      expect(() => new McpServer({ name: 's', version: '1' }, { pageSize })).toThrow(RangeError)
  })
  it('answers a cursor McpServer never issued with -32602 "Invalid cursor"', async () => {
    const handler = createFetchHandler(createDemoServer())
    for (const cursor of ['garbage', 5])
      expect((await call(handler, 'tools/list', { cursor })).body.error).toEqual({
        code: -32602,
        message: 'Invalid cursor',
      })
  })
})
