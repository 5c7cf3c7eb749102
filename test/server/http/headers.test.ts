/**
 * The standard header values of a 2026-07-28 request (`Mcp-Name`, `Mcp-Param-*`, `Mcp-Method`,
 * `MCP-Protocol-Version`) are visible ASCII before anything else is checked, on every adapter; a mismatch
 * shows both values distinguishably. workerd's side is in test/e2e/workerd-header-ascii.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { encodeHeaderValue, isVisibleAscii, quoteValue } from '../../../src/protocol/headers.ts'
import { createFetchHandler } from '../../../src/server/index.ts'
import { adapters, env, post, req, std } from '../../helpers.ts'
import { CAPS, makeServer, textOf } from '../../fixtures/wire-server.ts'

// shared/cases/robustness.md R7
describe('header values are visible ASCII before anything else', () => {
  const latin1 = (s: string) => String.fromCharCode(...new TextEncoder().encode(s)) // raw UTF-8 bytes as a ByteString

  for (const [label, handler] of adapters(makeServer())) {
    it(`${label}: Mcp-Name caf\\xE9 (Latin-1) for the tool café is a mismatch; the base64 form is served`, async () => {
      const body = req('tools/call', { name: 'café', arguments: {} })
      const raw = await post(handler, body, std('tools/call', 'caf\xE9'))
      expect([raw.status, raw.body.error.code]).toEqual([400, -32020])
      expect(raw.body.error.message).toContain("'caf\\u00e9' is not visible ASCII")
      const ok = await post(
        handler,
        req('tools/call', { name: 'café', arguments: {} }),
        std('tools/call', encodeHeaderValue('café')),
      )
      expect([ok.status, textOf(ok)]).toEqual([200, 'served'])
    })

    it(`${label}: Mcp-Name books://Załączniki/shortlist as raw UTF-8 is a mismatch`, async () => {
      const uri = 'books://Załączniki/shortlist'
      const raw = await post(handler, req('resources/read', { uri }), std('resources/read', latin1(uri)))
      expect([raw.status, raw.body.error.code]).toEqual([400, -32020])
      const ok = await post(handler, req('resources/read', { uri }), std('resources/read', encodeHeaderValue(uri)))
      expect(ok.status).toBe(200)
    })

    it(`${label}: an Mcp-Param-* value with a byte over 0x7E is a mismatch even when it spells the argument`, async () => {
      const params = { name: 'find', arguments: { city: 'Kraków' } }
      const raw = await post(handler, req('tools/call', params, CAPS), {
        ...std('tools/call', 'find'),
        'mcp-param-city': latin1('Kraków'),
      })
      expect([raw.status, raw.body.error.code]).toEqual([400, -32020])
      expect(raw.body.error.message).toContain("'Krak\\u00c3\\u00b3w' is not visible ASCII")
      const latin = await post(handler, req('tools/call', { name: 'find', arguments: { city: 'é' } }, CAPS), {
        ...std('tools/call', 'find'),
        'mcp-param-city': '\xE9',
      })
      expect([latin.status, latin.body.error.code]).toEqual([400, -32020])
      const ok = await post(handler, req('tools/call', params, CAPS), {
        ...std('tools/call', 'find'),
        'mcp-param-city': encodeHeaderValue('Kraków'),
      })
      expect([ok.status, textOf(ok)]).toEqual([200, 'found Kraków'])
    })

    it(`${label}: Mcp-Method and MCP-Protocol-Version are checked raw too`, async () => {
      const method = await post(handler, req('tools/list'), { ...std('tools/list'), 'mcp-method': 'tools/list\xA0' })
      expect([method.status, method.body.error.code]).toEqual([400, -32020])
      const version = await post(handler, req('tools/list'), {
        ...std('tools/list'),
        'mcp-protocol-version': '2026-07-28\xFF',
      })
      expect([version.status, version.body.error.code]).toEqual([400, -32020])
    })
  }

  it('as workerd hands it over (raw UTF-8 decoded to text), Mcp-Name equal to the body URI is still a mismatch', async () => {
    const uri = 'books://Załączniki/shortlist'
    const request = new Request('http://localhost/mcp', {
      method: 'POST',
      headers: std('resources/read', 'placeholder'),
      body: JSON.stringify(req('resources/read', { uri })),
    })
    const headers = request.headers
    const decoded = { get: (name: string) => (name.toLowerCase() === 'mcp-name' ? uri : headers.get(name)) }
    Object.defineProperty(request, 'headers', { value: decoded }) // Node's Headers refuses chars over 0xFF
    const res = await createFetchHandler(makeServer())(request)
    const body = (await res.json()) as { error: { code: number; message: string } }
    expect([res.status, body.error.code]).toEqual([400, -32020])
    expect(body.error.message).toContain("'books://Za\\u0142\\u0105czniki/shortlist' is not visible ASCII")
  })

  it('tab and 0x20–0x7E are visible ASCII; DEL, controls and anything over 0x7E are not', () => {
    expect(isVisibleAscii('a\tb ~')).toBe(true)
    for (const bad of ['\x7F', '\x00', '\n', '\xE9', 'ł', '\uD800']) expect(isVisibleAscii(`a${bad}`)).toBe(false)
  })

  it('a mismatch shows the two values distinguishably (escaped, lone surrogates included)', async () => {
    const handler = createFetchHandler(makeServer())
    const nfd = await post(handler, req('tools/call', { name: 'cafe\u0301', arguments: {} }), {
      ...std('tools/call', encodeHeaderValue('café')),
    })
    expect(nfd.body.error.message).toBe(
      "Header mismatch: Mcp-Name header value 'caf\\u00e9' does not match body value 'cafe\\u0301'",
    )
    const lone = await post(
      handler,
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"\\ud800","_meta":${JSON.stringify(env(CAPS))}}}`,
      std('tools/call', encodeHeaderValue('\uFFFD')),
    )
    expect(lone.body.error.message).toBe(
      "Header mismatch: Mcp-Name header value '\\ufffd' does not match body value '\\ud800'",
    )
    expect(quoteValue("it's a\\b")).toBe("'it\\'s a\\\\b'")
  })
})
