/**
 * The quiet-request switch to SSE (`keepAliveMs`, src/server/http/sse.ts) starts timing when the handler starts:
 * an error from the server's own checks — a 2025 session that does not open (404), another protocol version
 * (400), a requestState that does not open (frozen -32602, in-band) — keeps its HTTP status and plain JSON even when
 * `keepAliveMs` is tiny and the checks' crypto is slow under concurrency.
 */
import { describe, expect, it } from 'vitest'
import {
  McpServer,
  RequestStateSecurity,
  createFetchHandler,
  elicitForm,
  inputRequired,
} from '../../../src/server/index.ts'
import { encodeBase64Url } from '../../../src/encoding/base64url.ts'
import { env, std } from '../../helpers.ts'
import { initializeLegacy, legacyPost } from '../../legacy-wire.ts'

const KEY = encodeBase64Url(new Uint8Array(32).fill(9))

function handler() {
  const mcp = new McpServer(
    { name: 's', version: '1' },
    { requestStateSecurity: new RequestStateSecurity({ keys: [KEY] }) },
  )
  mcp.tool('t', {}, () => 't')
  mcp.tool('ask', {}, () => inputRequired({ q: elicitForm('Q?', { type: 'object', properties: {} }) }, 'state'))
  return createFetchHandler(mcp, { keepAliveMs: 1 })
}

/** Each response's `status content-type`, for 60 concurrent requests. */
async function tally(send: () => Promise<Response>): Promise<string[]> {
  const responses = await Promise.all(Array.from({ length: 60 }, send))
  return [
    ...new Set(
      await Promise.all(responses.map(async (r) => (await r.text(), `${r.status} ${r.headers.get('content-type')}`))),
    ),
  ]
}

describe('keepAliveMs 1: a check that fails keeps its HTTP status', () => {
  it('2025 lane: a session id that does not open is 404, another version header is 400', async () => {
    const h = handler()
    const headers = await initializeLegacy(h, {})
    const bad = { ...headers, 'mcp-session-id': headers['mcp-session-id'].slice(0, -4) + 'AAAA' }
    const list = { jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} }
    expect(await tally(() => legacyPost(h, list, bad))).toEqual(['404 application/json'])
    const other = { ...headers, 'mcp-protocol-version': '2025-06-18' }
    expect(await tally(() => legacyPost(h, list, other))).toEqual(['400 application/json'])
  })

  it('2026 lane: a requestState that does not open is the frozen error as plain JSON', async () => {
    const h = handler()
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'ask', arguments: {}, requestState: 'x'.repeat(200), _meta: env() },
    })
    const send = () =>
      h(new Request('http://localhost/mcp', { method: 'POST', headers: std('tools/call', 'ask'), body }))
    expect(await tally(send)).toEqual(['200 application/json']) // in-band, as JSON (not an SSE stream)
  })
})
