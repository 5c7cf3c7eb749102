/**
 * Bugs the fuzzer (test/fuzz/, `npm run fuzz`) found, each pinned with the input that showed it.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { McpServer, createFetchHandler } from '../src/server/index.ts'
import { call, env, post, std } from './helpers.ts'

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
