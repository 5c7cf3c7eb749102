/**
 * Bugs the fuzzer (test/fuzz/, `npm run fuzz`) found, each pinned with the input that showed it.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { MAX_SCHEMA_DEPTH, headerParamsOf } from '../../src/protocol/param-headers.ts'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'
import { call, env, post, requestId, std } from '../helpers.ts'

describe('fuzz finding 1: a 2025-era tools/call is not held to 2026 Mcp-Param-* headers', () => {
  const mcp = new McpServer({ name: 'r1', version: '1' })
  mcp.tool('find', { input: { city: v.string() }, headers: { city: 'City' } }, ({ city }) => `found ${city}`)
  const handler = createFetchHandler(mcp)
  const legacy = (params: Record<string, unknown>, headers: Record<string, string> = {}) =>
    post(
      handler,
      { jsonrpc: '2.0', id: 18, method: 'tools/call', params },
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    )

  it('the fuzz input: arguments null and Mcp-Param-City "undefined" is a tool error (bad arguments), not -32020', async () => {
    const res = await legacy({ name: 'find', arguments: null }, { 'mcp-name': 'find', 'mcp-param-city': 'undefined' })
    expect(res.status).toBe(200)
    expect(res.body.error).toBeUndefined()
    expect(res.body.result.isError).toBe(true)
  })

  it('a 2025 client (no Mcp-Param-City, as 2025 has none) gets the result, with or without a version header', async () => {
    for (const headers of [{}, { 'mcp-protocol-version': '2025-11-25' }]) {
      const res = await legacy({ name: 'find', arguments: { city: 'Oslo' } }, headers)
      expect([res.status, res.body.result?.content?.[0]?.text]).toEqual([200, 'found Oslo'])
    }
  })

  it('a stray Mcp-Param-City on a 2025 request is ignored', async () => {
    const res = await legacy({ name: 'find', arguments: { city: 'Oslo' } }, { 'mcp-param-city': 'Rome' })
    expect(res.body.result?.content?.[0]?.text).toBe('found Oslo')
  })

  it('a 2026 request still needs the header (-32020, HTTP 400)', async () => {
    const missing = await call(handler, 'tools/call', { name: 'find', arguments: { city: 'Oslo' } })
    expect([missing.status, missing.body.error.code]).toEqual([400, -32020])
    const body = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'find', arguments: { city: 'Oslo' } } }
    const withEnvelope = await post(
      handler,
      { ...body, params: { ...body.params, _meta: env() } },
      {
        ...std('tools/call', 'find'),
        'mcp-param-city': 'Oslo',
      },
    )
    expect(withEnvelope.body.result.content[0].text).toBe('found Oslo')
  })
})

describe('fuzz finding 2: a tools/list whose inputSchema is nested thousands of levels deep', () => {
  const deep = (levels: number) => {
    let node: unknown = { type: 'string' }
    for (let i = 0; i < levels; i++) node = { a: node }
    return node
  }
  const serve = (tools: unknown[]) =>
    new StreamableHttpClientTransport('http://x/mcp', {
      fetch: async (r) =>
        Response.json({ jsonrpc: '2.0', id: await requestId(r), result: { resultType: 'complete', tools } }),
    })

  it('the input (3,000 levels under properties.x): the tool is dropped with a warning, not a raw RangeError', async () => {
    const warnings: string[] = []
    const tools = [
      { name: 'deep', inputSchema: { type: 'object', properties: { x: deep(3000) } } },
      { name: 'flat', inputSchema: { type: 'object' } },
    ]
    const client = new Client({
      transport: serve(tools),
      versionNegotiation: 'modern',
      onWarning: (m) => warnings.push(m),
    })
    expect((await client.listTools()).map((t) => t.name)).toEqual(['flat'])
    expect(warnings.join('\n')).toMatch(/deep.*nested deeper than 256 levels/)
  })

  it('the bound itself: 256 levels are searched (an annotation there is found), 257 are invalid', () => {
    let at256: unknown = { type: 'string', 'x-mcp-header': 'Deep' }
    for (let i = 0; i < 127; i++) at256 = { type: 'object', properties: { p: at256 } } // 2 levels each
    expect(headerParamsOf({ type: 'object', properties: { p: at256 } })).toMatchObject({ params: [{ name: 'Deep' }] })
    expect(headerParamsOf({ type: 'object', properties: { p: { wrap: at256 } } })).toEqual({
      invalid: `inputSchema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`,
    })
  })
})
