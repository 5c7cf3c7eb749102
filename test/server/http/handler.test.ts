/**
 * The Streamable HTTP endpoint: cases H3–H8 of shared/cases/http-transport.md (H1/H2, CORS, are in
 * server/http/policy.test.ts), against the fetch handler and the Hono adapter; robustness against malformed input.
 */
import { describe, expect, it } from 'vitest'
import { McpServer, Server, createFetchHandler } from '../../../src/server/index.ts'
import { createDemoServer } from '../../../worker/server.ts'
import { adapters, env, json, post, recordingLogger, req, std, type WireResponse } from '../../helpers.ts'

const demo = createDemoServer()

for (const [label, handler] of adapters(demo)) {
  describe(`HTTP endpoint via ${label}`, () => {
    const list = () => req('tools/list')

    it('H3 negotiates Accept and Content-Type', async () => {
      const json = await post(handler, list(), std('tools/list'))
      expect(json.status).toBe(200)
      expect(json.headers.get('content-type')).toBe('application/json')
      const onlyJson = await post(handler, list(), { ...std('tools/list'), accept: 'application/json' })
      expect(onlyJson.headers.get('content-type')).toBe('application/json')
      const sse = await post(handler, list(), { ...std('tools/list'), accept: 'text/event-stream' })
      expect(sse.status).toBe(200)
      expect(sse.headers.get('content-type')).toBe('text/event-stream')
      expect(sse.text).toMatch(/^event: message\ndata: \{.*"tools":/)
      expect((await post(handler, list(), { ...std('tools/list'), accept: '*/*' })).status).toBe(200)
      expect(
        (await post(handler, list(), { ...std('tools/list'), accept: 'application/json;q=0.5, text/event-stream;q=0' }))
          .status,
      ).toBe(200)
      const html = await post(handler, list(), { ...std('tools/list'), accept: 'text/html' })
      expect(html.status).toBe(406)
      expect(html.body.error.code).toBe(-32600)
      const text = await post(handler, list(), { ...std('tools/list'), 'content-type': 'text/plain' })
      expect(text.status).toBe(415)
      expect(
        (await post(handler, list(), { ...std('tools/list'), 'content-type': 'application/json; charset=utf-8' }))
          .status,
      ).toBe(200)
    })

    it('H4 accepts notifications with 202 and validates ids', async () => {
      const note = await post(
        handler,
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } },
        { 'content-type': 'application/json' },
      )
      expect(note.status).toBe(202)
      expect(note.text).toBe('')
      for (const id of [null, {}, true, [1]]) {
        const res = await post(
          handler,
          { jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: env() } },
          std('tools/list'),
        )
        expect(res.status, JSON.stringify(id)).toBe(400)
        expect(res.body.error.code).toBe(-32600)
      }
      const odd = await post(
        handler,
        { jsonrpc: '2.0', id: 'req-é-7', method: 'tools/list', params: { _meta: env() } },
        std('tools/list'),
      )
      expect(odd.body.id).toBe('req-é-7')
      const num = await post(
        handler,
        { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: env() } },
        std('tools/list'),
      )
      const str = await post(
        handler,
        { jsonrpc: '2.0', id: '7', method: 'tools/list', params: { _meta: env() } },
        std('tools/list'),
      )
      expect(num.body.id).toBe(7)
      expect(str.body.id).toBe('7')
    })

    it('H5 answers framing errors with 400 and the right code', async () => {
      const batch = await post(handler, [list()], std('tools/list'))
      expect([batch.status, batch.body.error.code, Array.isArray(batch.body)]).toEqual([400, -32600, false])
      const empty = await post(handler, [], std('tools/list'))
      expect([empty.status, empty.body.error.code]).toEqual([400, -32600])
      for (const body of ['{"jsonrpc":"2.0","id":2,"method":', '']) {
        const res = await post(handler, body, std('tools/list'))
        // "id null" in the case file: MCP forbids a null id, so the unreadable id is omitted (schema: id?: RequestId)
        expect([res.status, res.body.error.code, 'id' in res.body]).toEqual([400, -32700, false])
      }
      const v1 = await post(handler, { jsonrpc: '1.0', id: 5, method: 'tools/list' }, std('tools/list'))
      expect([v1.status, v1.body.error.code, v1.body.id]).toEqual([400, -32600, 5])
      const noMethod = await post(handler, { jsonrpc: '2.0', id: 6 }, std('tools/list'))
      expect([noMethod.status, noMethod.body.error.code, noMethod.body.id]).toEqual([400, -32600, 6])
      const unknown = await post(handler, req('nope/nope'), std('nope/nope'))
      expect([unknown.status, unknown.body.error.code]).toEqual([404, -32601])
      const noEnvelope = await post(
        handler,
        { jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} },
        std('tools/list'),
      )
      expect([noEnvelope.status, noEnvelope.body.error.code]).toEqual([400, -32602])
      const response = await post(handler, { jsonrpc: '2.0', id: 9, result: {} }, std('tools/list'))
      expect([response.status, response.body.error.code]).toEqual([400, -32600])
      const badUtf8 = await handler(
        new Request('http://x/mcp', {
          method: 'POST',
          headers: std('tools/list'),
          body: new Uint8Array([0x7b, 0xff, 0x7d]),
        }),
      )
      expect(badUtf8.status).toBe(400)
      // a body cut inside a multi-byte character is refused, and leaves nothing behind for the next body
      const cut = new TextEncoder()
        .encode('{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"x":"€')
        .slice(0, -1)
      const truncated = await handler(
        new Request('http://x/mcp', { method: 'POST', headers: std('tools/list'), body: cut }),
      )
      expect([truncated.status, ((await truncated.json()) as { error: { code: number } }).error.code]).toEqual([
        400, -32700,
      ])
      const next = await post(handler, list(), std('tools/list'))
      expect([next.status, Array.isArray(next.body.result.tools)]).toEqual([200, true])
    })

    it('H6 caps the body at 4 MiB, counted in bytes while streaming', async () => {
      const pad = (bytes: number) => {
        const base = JSON.stringify(req('tools/list', { pad: '' }))
        return base.replace('"pad":""', `"pad":"${'é'.repeat((bytes - base.length) / 2)}"`)
      }
      const limit = 4 * 1024 * 1024
      const under = pad(limit - (limit % 2 === 0 ? 2 : 1) - 0)
      expect(new TextEncoder().encode(under).length).toBeLessThan(limit)
      expect((await post(handler, under, std('tools/list'))).status).toBe(200)
      const over = pad(limit + 2)
      expect(over.length).toBeLessThan(limit) // characters under the cap, bytes over it
      const declared = await handler(
        new Request('http://x/mcp', {
          method: 'POST',
          headers: { ...std('tools/list'), 'content-length': String(limit + 1) },
          body: '{}',
        }),
      )
      expect(declared.status).toBe(413)
      const chunks = new TextEncoder().encode(over)
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < chunks.length; i += 65536) controller.enqueue(chunks.subarray(i, i + 65536))
          controller.close()
        },
      })
      const streamed = await handler(
        new Request('http://x/mcp', {
          method: 'POST',
          headers: std('tools/list'),
          body: stream,
          duplex: 'half',
        } as RequestInit),
      )
      expect(streamed.status).toBe(413)
      expect((await json<WireResponse>(streamed)).error.code).toBe(-32600)
    })

    it('H7 answers version and header errors with 400', async () => {
      const old = await post(
        handler,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: { _meta: { ...env(), 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } },
        },
        {
          ...std('tools/list'),
          'mcp-protocol-version': '1900-01-01',
        },
      )
      expect(old.status).toBe(400)
      expect(old.body.error).toEqual({
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: ['2026-07-28'], requested: '1900-01-01' },
      })
      const versionMismatch = await post(handler, list(), {
        ...std('tools/list'),
        'mcp-protocol-version': '2025-11-25',
      })
      expect([versionMismatch.status, versionMismatch.body.error.code]).toEqual([400, -32020])
      const noVersion = await post(handler, list(), { 'content-type': 'application/json', 'mcp-method': 'tools/list' })
      expect([noVersion.status, noVersion.body.error.code]).toEqual([400, -32020])
      const methodMismatch = await post(handler, list(), std('tools/call'))
      expect([methodMismatch.status, methodMismatch.body.error.code]).toEqual([400, -32020])
      const nameMismatch = await post(handler, req('tools/call', { name: 'b', arguments: {} }), std('tools/call', 'a'))
      expect(nameMismatch.status).toBe(400)
      expect(nameMismatch.body.error).toEqual({
        code: -32020,
        message: "Header mismatch: Mcp-Name header value 'a' does not match body value 'b'",
      })
      const noName = await post(handler, req('tools/call', { name: 'b', arguments: {} }), std('tools/call'))
      expect([noName.status, noName.body.error.code]).toEqual([400, -32020])
      // a non-ASCII name travels base64-encoded and is decoded before comparing
      const encoded = await post(
        handler,
        req('tools/call', { name: 'réserver', arguments: {} }),
        std('tools/call', '=?base64?csOpc2VydmVy?='),
      )
      expect(encoded.body.error).toEqual({ code: -32602, message: 'Unknown tool: réserver' })
      const capability = await post(
        handler,
        req('tools/call', { name: 'order_book', arguments: { title: 'Neuromancer' } }, {}),
        std('tools/call', 'order_book'),
      )
      expect(capability.status).toBe(400)
      expect(capability.body.error.data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } })
    })

    it('H8 answers GET and DELETE with 405 and Allow: POST', async () => {
      for (const method of ['GET', 'DELETE', 'PUT']) {
        const res = await handler(new Request('http://x/mcp', { method }))
        expect(res.status).toBe(405)
        expect(res.headers.get('allow')).toContain('POST')
      }
    })

    it("with legacy: 'reject', answers legacy initialize with -32022 naming the supported versions", async () => {
      const rejecting = new McpServer({ name: 'modern-only', version: '1' }, { legacy: 'reject' })
      const [[, viaFetch], [, viaAdapter]] = adapters(rejecting)
      const res = await post(
        label === 'fetch handler' ? viaFetch : viaAdapter,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        },
        {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      )
      expect(res.status).toBe(400)
      expect(res.body.error.data).toEqual({ supported: ['2026-07-28'], requested: '2025-11-25' })
    })
  })
}

describe('client mistakes', () => {
  it('never answers 500 to a barrage of client mistakes, and keeps serving', async () => {
    const log = recordingLogger()
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: log.logger })
    const [[, handler]] = adapters(mcp) as [[string, (r: Request) => Promise<Response>]]
    const bodies: unknown[] = [
      'null',
      '1',
      '"x"',
      '{}',
      '[]',
      '[[]]',
      '{"jsonrpc":"2.0"}',
      '{"jsonrpc":"2.0","id":1,"method":5}',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: env(), name: 5 } },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: env(), name: 'x', arguments: 'str' } },
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': 5 } },
      },
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: 'x' } },
      { jsonrpc: '2.0', id: 1, method: '__proto__', params: { _meta: env() } },
      { jsonrpc: '2.0', id: 1, method: 'constructor', params: { _meta: env() } },
      '\u0000\u0001',
      '{"a":' + '['.repeat(5000),
    ]
    for (const body of bodies) {
      const res = await post(handler, body, { 'content-type': 'application/json' })
      expect(res.status, String(JSON.stringify(body)).slice(0, 80)).toBeGreaterThanOrEqual(200)
      expect(res.status).toBeLessThan(500)
      if (res.status !== 202) expect(res.body.jsonrpc).toBe('2.0')
    }
    expect(log.error).toEqual([])
    const ok = await post(handler, req('server/discover'), std('server/discover'))
    expect(ok.status).toBe(200)
  })
})

describe('notifications need no standard headers', () => {
  it('202 for a notification with an envelope but no standard headers', async () => {
    const res = await post(
      createFetchHandler(createDemoServer()),
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: env(), requestId: 1 } },
      { 'content-type': 'application/json' },
    )
    expect(res.status).toBe(202)
  })
})

describe('Content-Type charset', () => {
  it('refuses a body declared in another charset (415)', async () => {
    const handler = createFetchHandler(createDemoServer())
    expect(
      (
        await post(handler, req('tools/list'), {
          ...std('tools/list'),
          'content-type': 'application/json; charset=utf-16',
        })
      ).status,
    ).toBe(415)
    expect(
      (
        await post(handler, req('tools/list'), {
          ...std('tools/list'),
          'content-type': 'application/json; charset="UTF-8"',
        })
      ).status,
    ).toBe(200)
  })
})

describe('authenticate', () => {
  it('is called as a method of the options object (its `this`), on every request', async () => {
    class Auth {
      readonly token = 'Bearer ok'
      calls = 0
      authenticate(request: Request) {
        this.calls++
        if (request.headers.get('authorization') !== this.token) throw new Error('bad token')
        return { clientId: 'c1' }
      }
    }
    const auth = new Auth()
    const handler = createFetchHandler(createDemoServer(), auth)
    const ok = await post(
      handler,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: env() } },
      { ...std('tools/list'), authorization: 'Bearer ok' },
    )
    expect(ok.status).toBe(200)
    const refused = await post(
      handler,
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: env() } },
      { ...std('tools/list'), authorization: 'Bearer nope' },
    )
    expect(refused.status).toBe(401)
    expect(auth.calls).toBe(2)
  })
})

describe('a result JSON cannot hold (a server bug)', () => {
  for (const accept of ['application/json', 'application/json, text/event-stream']) {
    it(`is -32603 for the same id, logged, never an HTTP 500 (Accept: ${accept})`, async () => {
      const { logger, error } = recordingLogger()
      const server = new Server({ name: 's', version: '1' }, { logger })
      server.setRequestHandler('tools/list', () => ({ tools: [], count: 1n }))
      const body = req('tools/list')
      const res = await createFetchHandler(server)(
        new Request('http://localhost/mcp', {
          method: 'POST',
          headers: { ...std('tools/list'), accept },
          body: JSON.stringify(body),
        }),
      )
      expect(res.status).toBe(200)
      const text = await res.text()
      expect(JSON.parse(text.startsWith('event:') ? text.split('data: ')[1] : text)).toEqual({
        jsonrpc: '2.0',
        id: body.id,
        error: { code: -32603, message: 'Internal error' },
      })
      expect(error.join('\n')).toMatch(/could not be serialized as JSON/)
    })
  }
})
