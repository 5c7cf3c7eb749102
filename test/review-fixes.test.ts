/** Behaviours added after review: origin policy, capability enforcement, client error mapping, abort, SSE. */
import { describe, expect, it } from 'vitest'
import {
  Client,
  HttpError,
  InvalidInputResponseError,
  InvalidResultError,
  McpError,
  StreamableHttpClientTransport,
} from '../src/client/index.ts'
import {
  McpServer,
  RequestStateSecurity,
  Server,
  createFetchHandler,
  elicitForm,
  elicitUrl,
  inputRequired,
} from '../src/server/index.ts'
import { createDemoServer } from '../worker/server.ts'
import { call, env, post, recordingLogger, req, std } from './helpers.ts'

const ASK = { type: 'object' as const, properties: { v: { type: 'string' as const } } }

describe('Origin policy and CORS', () => {
  const mcp = createDemoServer()
  const strict = createFetchHandler(mcp)
  const open = createFetchHandler(mcp, { allowedOrigins: ['https://spa.example'] })

  it("allows requests without Origin and from the endpoint's own origin", async () => {
    expect((await post(strict, req('tools/list'), std('tools/list'))).status).toBe(200)
    expect((await post(strict, req('tools/list'), { ...std('tools/list'), origin: 'http://localhost' })).status).toBe(
      200,
    )
  })
  it('answers a disallowed origin with 403 and no CORS grant', async () => {
    const res = await post(strict, req('tools/list'), { ...std('tools/list'), origin: 'https://evil.example' })
    expect(res.status).toBe(403)
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    expect(res.body.error.code).toBe(-32600)
    const preflight = await strict(
      new Request('http://localhost/mcp', { method: 'OPTIONS', headers: { origin: 'https://evil.example' } }),
    )
    expect(preflight.status).toBe(403)
  })
  it('answers an allowed preflight with 204 and every requested header', async () => {
    const res = await open(
      new Request('http://localhost/mcp', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://spa.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers':
            'content-type, accept, authorization, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region',
        },
      }),
    )
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
    expect(res.headers.get('access-control-allow-origin')).toBe('https://spa.example')
    expect(res.headers.get('vary')).toContain('Origin')
    expect(res.headers.get('access-control-allow-methods')).toContain('POST')
    const allowed = res.headers.get('access-control-allow-headers')!.split(', ')
    for (const h of [
      'content-type',
      'accept',
      'authorization',
      'mcp-protocol-version',
      'mcp-method',
      'mcp-name',
      'mcp-param-region',
    ])
      expect(allowed).toContain(h)
    expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0)
  })
  it('puts CORS headers on results and on errors for an allowed origin', async () => {
    for (const [body, headers, status] of [
      [req('tools/list'), std('tools/list'), 200],
      ['{', std('tools/list'), 400],
      [req('nope'), std('nope'), 404],
    ] as const) {
      const res = await post(open, body, { ...headers, origin: 'https://spa.example' })
      expect(res.status).toBe(status)
      expect(res.headers.get('access-control-allow-origin')).toBe('https://spa.example')
      expect(res.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate')
    }
  })
})

describe('server-side checks of what a handler returns', () => {
  function serverReturning(result: Record<string, unknown>, security?: RequestStateSecurity) {
    const log = recordingLogger()
    const server = new Server({ name: 's', version: '1' }, { logger: log.logger })
    if (security) server.useRequestStateSecurity(security)
    server.setRequestHandler('tools/call', () => result)
    server.setRequestHandler('tools/list', () => ({ tools: [] }))
    return { handler: createFetchHandler(server), log }
  }
  it('answers -32021 when a handler asks for what the client did not declare', async () => {
    const cases: Array<[Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]> = [
      [{ s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } } }, {}, { sampling: {} }],
      [
        { s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5, tools: [] } } },
        { sampling: {} },
        { sampling: { tools: {} } },
      ],
      [{ r: { method: 'roots/list' } }, { elicitation: {} }, { roots: {} }],
      [{ u: elicitUrl('Connect', 'https://auth.example/x') }, { elicitation: {} }, { elicitation: { url: {} } }],
      [{ f: elicitForm('?', ASK) }, { elicitation: { url: {} } }, { elicitation: { form: {} } }],
    ]
    for (const [inputRequests, declared, required] of cases) {
      const { handler } = serverReturning(inputRequired(inputRequests as never, 'x'))
      const res = await call(handler, 'tools/call', { name: 't' }, declared)
      expect(res.status).toBe(400)
      expect(res.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: required } })
    }
    const { handler } = serverReturning(inputRequired({ f: elicitForm('?', ASK), r: { method: 'roots/list' } }, 'x'))
    const ok = await call(handler, 'tools/call', { name: 't' }, { elicitation: {}, roots: {} })
    expect(ok.body.result.resultType).toBe('input_required')
  })
  it('refuses an empty InputRequiredResult and drops an empty inputRequests', async () => {
    const empty = serverReturning({ resultType: 'input_required', inputRequests: {} })
    const res = await call(empty.handler, 'tools/call', { name: 't' })
    expect(res.body.error).toEqual({ code: -32603, message: 'Internal error' })
    expect(empty.log.error[0]).toMatch(/neither inputRequests nor requestState/)
    const stateOnly = serverReturning({ resultType: 'input_required', inputRequests: {}, requestState: 's' })
    const res2 = await call(stateOnly.handler, 'tools/call', { name: 't' })
    expect(res2.body.result).toEqual({ resultType: 'input_required', requestState: 's', _meta: expect.any(Object) })
  })
  it('never sends a non-string requestState, sealed or not', async () => {
    for (const security of [undefined, RequestStateSecurity.ephemeral()]) {
      const { handler } = serverReturning(
        { resultType: 'input_required', requestState: { secret: 'plaintext-secret' } },
        security,
      )
      const res = await call(handler, 'tools/call', { name: 't' })
      expect(res.body.error).toEqual({ code: -32603, message: 'Internal error' })
      expect(res.text).not.toContain('plaintext-secret')
    }
    const badCodec = new RequestStateSecurity({
      codec: { seal: async () => 42 as never, unseal: async () => new Uint8Array() },
    })
    const { handler } = serverReturning(inputRequired(undefined, 'x'), badCodec)
    expect((await call(handler, 'tools/call', { name: 't' })).body.error).toEqual({
      code: -32603,
      message: 'Internal error',
    })
  })
  it('stamps resultType and cache hints on list results', async () => {
    const { handler } = serverReturning({ resultType: undefined, content: [] })
    expect((await call(handler, 'tools/call', { name: 't' })).body.result.resultType).toBe('complete')
    const list = await call(handler, 'tools/list')
    expect(list.body.result).toMatchObject({ resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'private' })
  })
  it('answers arguments nested too deeply to bind with -32602, not an internal error', async () => {
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: recordingLogger().logger })
    mcp.tool('t', {}, () => inputRequired({ q: elicitForm('?', ASK) }, 'x'))
    let deep: unknown = 'leaf'
    for (let i = 0; i < 300; i++) deep = { d: deep }
    const handler = createFetchHandler(mcp)
    const first = await call(handler, 'tools/call', { name: 't', arguments: { deep } })
    expect(first.body.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('nested deeper than 256 levels'),
    })
    const retry = await call(handler, 'tools/call', { name: 't', arguments: { deep }, requestState: 'v1.AAAA' })
    expect(retry.body.error.code).toBe(-32602)
  })
})

describe('client error mapping', () => {
  const transportFor = (respond: (body: any) => Response | Promise<Response>) =>
    new StreamableHttpClientTransport('http://x/mcp', { fetch: async (r) => respond(await r.json()) })

  it("an error the server sent without an id (e.g. 413) is an McpError with the server's code", async () => {
    const handler = createFetchHandler(createDemoServer(), { maxBodyBytes: 600 })
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: handler }),
      elicitation: () => ({ action: 'decline' }),
    })
    const error = await client.callTool('reserve_book', { title: 'x'.repeat(1000) }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(McpError)
    expect((error as McpError).code).toBe(-32600)
    expect((error as McpError).message).toMatch(/Payload Too Large/)
  })
  it('401 and 403 are HttpError, with WWW-Authenticate kept', async () => {
    const client = new Client({
      transport: transportFor(() =>
        Response.json(
          { jsonrpc: '2.0', error: { code: -32600, message: 'Unauthorized' } },
          { status: 401, headers: { 'www-authenticate': 'Bearer realm="mcp"' } },
        ),
      ),
    })
    const error = await client.discover().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HttpError)
    expect((error as HttpError).status).toBe(401)
    expect((error as HttpError).wwwAuthenticate).toBe('Bearer realm="mcp"')
  })
  it('a malformed error object or a wrong id is InvalidResultError', async () => {
    const noCode = new Client({
      transport: transportFor((b) => Response.json({ jsonrpc: '2.0', id: b.id, error: { message: 'x' } })),
    })
    await expect(noCode.discover()).rejects.toBeInstanceOf(InvalidResultError)
    const wrongId = new Client({
      transport: transportFor((b) => Response.json({ jsonrpc: '2.0', id: b.id + 1, result: {} })),
    })
    await expect(wrongId.discover()).rejects.toThrow(/does not match request id/)
  })
  it('an InputRequiredResult with nothing in it fails at once', async () => {
    let calls = 0
    const client = new Client({
      transport: transportFor((b) => {
        calls++
        return Response.json({ jsonrpc: '2.0', id: b.id, result: { resultType: 'input_required', inputRequests: {} } })
      }),
    })
    await expect(client.callTool('x')).rejects.toBeInstanceOf(InvalidResultError)
    expect(calls).toBe(1)
  })
  it('a callback answer of the wrong shape is a local error naming the key; nothing is sent', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('ask', {}, () => inputRequired({ q: elicitForm('?', ASK) }, 's'))
    let sent = 0
    const handler = createFetchHandler(mcp)
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: (r) => (sent++, handler(r)) }),
      elicitation: () => ({ action: 'yes' }) as never,
    })
    const error = await client.callTool('ask').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidInputResponseError)
    expect((error as InvalidInputResponseError).key).toBe('q')
    expect(sent).toBe(1)
  })
  it('rejects a maxRounds that is not a non-negative integer', () => {
    const transport = transportFor(() => new Response())
    for (const maxRounds of [NaN, -1, 1.5]) expect(() => new Client({ transport, maxRounds })).toThrow(RangeError)
  })
})

describe('abort and byte-exact state', () => {
  function lowLevel(state: string) {
    const server = new Server({ name: 'plain', version: '1' })
    server.setRequestHandler('tools/call', (params) =>
      params.inputResponses
        ? { content: [{ type: 'text', text: `state=${String(params.requestState)}` }] }
        : inputRequired({ q: elicitForm('?', ASK) }, state),
    )
    return createFetchHandler(server)
  }
  it('echoes requestState byte-exact, whitespace and non-ASCII included', async () => {
    const state = '  spaced\tstate ✓ é ﬁ "q" \\ '
    const bodies: any[] = []
    const handler = lowLevel(state)
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', {
        fetch: async (r) => (bodies.push(await r.clone().text()), handler(r)),
      }),
      elicitation: () => ({ action: 'accept', content: { v: 'x' } }),
    })
    const result = await client.callTool('t')
    expect(result.content[0]).toEqual({ type: 'text', text: `state=${state}` })
    expect(JSON.parse(bodies[1]).params.requestState).toBe(state)
  })
  it('an aborted call runs no callback, and an abort mid-round rejects even if a callback ignores it', async () => {
    const handler = lowLevel('s')
    let ran = 0
    let started!: () => void
    const callbackStarted = new Promise<void>((r) => (started = r))
    const already = new AbortController()
    already.abort(new Error('user cancelled'))
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: handler }),
      elicitation: () => {
        ran++
        started()
        return new Promise(() => {}) // never answers, ignores the signal
      },
    })
    // the first request itself is aborted by fetch semantics in real transports; here the loop must not prompt
    await expect(client.callTool('t', {}, { signal: already.signal })).rejects.toThrow('user cancelled')
    expect(ran).toBe(0)
    const mid = new AbortController()
    const pending = client.callTool('t', {}, { signal: mid.signal })
    await callbackStarted
    expect(ran).toBe(1)
    mid.abort(new Error('gave up'))
    await expect(pending).rejects.toThrow('gave up')
  })
  it('sends a non-ASCII tool name base64-encoded in Mcp-Name', async () => {
    const headers: string[] = []
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', {
        fetch: async (r) => {
          headers.push(r.headers.get('mcp-name')!)
          return Response.json({ jsonrpc: '2.0', id: (await r.json()).id, result: { content: [] } })
        },
      }),
    })
    await client.callTool('réserver')
    expect(headers).toEqual(['=?base64?csOpc2VydmVy?='])
  })
})

describe('SSE responses', () => {
  const sseClient = (chunks: string[]) =>
    new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', {
        fetch: async (r) => {
          const id = (await r.json()).id
          const enc = new TextEncoder()
          const stream = new ReadableStream<Uint8Array>({
            start(c) {
              for (const chunk of chunks) c.enqueue(enc.encode(chunk.replaceAll('ID', String(id))))
              c.close()
            },
          })
          return new Response(stream, { headers: { 'content-type': 'text/event-stream' } })
        },
      }),
    })
  it('handles keep-alive comments, notifications and a CRLF split across chunks', async () => {
    const notes: string[] = []
    const client = sseClient([
      ': keep-alive\r',
      '\n\r\n',
      'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\r',
      '\n\r',
      '\n',
      'data: {"jsonrpc":"2.0","id":ID,',
      '\r\ndata: "result":{"resultType":"complete","content":[]}}\r\n\r\n',
    ])
    const result = await client.callTool('t', {}, { onNotification: (n) => notes.push(n.method) })
    expect(result.content).toEqual([])
    expect(notes).toEqual(['notifications/progress'])
  })
  it('surfaces an error event without an id, and bad JSON as InvalidResultError', async () => {
    const idless = sseClient(['data: {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}\n\n'])
    await expect(idless.callTool('t')).rejects.toMatchObject({ code: -32603 })
    const bad = sseClient(['data: {nope\n\n'])
    await expect(bad.callTool('t')).rejects.toBeInstanceOf(InvalidResultError)
    const ended = sseClient([': only a comment\n\n'])
    await expect(ended.callTool('t')).rejects.toBeInstanceOf(HttpError)
  })
})

describe('envelope edge: notifications need no headers', () => {
  it('202 for a notification with an envelope but no standard headers', async () => {
    const res = await post(
      createFetchHandler(createDemoServer()),
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: env(), requestId: 1 } },
      { 'content-type': 'application/json' },
    )
    expect(res.status).toBe(202)
  })
})

describe('second review round', () => {
  it('a request with no answer times out with RequestTimeoutError; a callback that never answers does not count', async () => {
    const { RequestTimeoutError } = await import('../src/client/index.ts')
    const hang = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: () => new Promise<Response>(() => {}) }),
      requestTimeoutMs: 50,
    })
    const started = Date.now()
    const error = await hang.discover().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RequestTimeoutError)
    expect((error as InstanceType<typeof RequestTimeoutError>).timeoutMs).toBe(50)
    expect(Date.now() - started).toBeLessThan(2000)
    expect(() => new Client({ transport: hang.options.transport, requestTimeoutMs: 0 })).toThrow(RangeError)
  })
  it('refuses arrays where the spec wants objects', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('t', {}, () => 'ran')
    const handler = createFetchHandler(mcp)
    const args = await call(handler, 'tools/call', { name: 't', arguments: ['zz', 'yy'] })
    expect(args.body.error).toEqual({ code: -32602, message: 'Invalid params: arguments must be an object' })
    const responses = await call(handler, 'tools/call', { name: 't', inputResponses: [{ action: 'accept' }] })
    expect(responses.body.error.code).toBe(-32602)
    for (const caps of [[], { elicitation: [] }, { sampling: { tools: [] } }]) {
      const res = await post(
        handler,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: { _meta: { ...env(), 'io.modelcontextprotocol/clientCapabilities': caps } },
        },
        std('tools/list'),
      )
      expect([res.status, res.body.error?.code], JSON.stringify(caps)).toEqual([400, -32602])
    }
  })
  it('answers a cursor McpServer never issued with -32602 "Invalid cursor"', async () => {
    const handler = createFetchHandler(createDemoServer())
    for (const cursor of ['garbage', 5])
      expect((await call(handler, 'tools/list', { cursor })).body.error).toEqual({
        code: -32602,
        message: 'Invalid cursor',
      })
  })
  it('routes prototype-named methods as unknown methods (404), not as tools/call', async () => {
    const handler = createFetchHandler(createDemoServer())
    for (const method of ['constructor', '__proto__', 'hasOwnProperty', 'toString']) {
      const res = await post(handler, req(method), std(method))
      expect([res.status, res.body.error.code], method).toEqual([404, -32601])
    }
  })
  it('accepts only canonical base64 in Mcp-Name', async () => {
    const { decodeHeaderValue } = await import('../src/protocol/headers.ts')
    expect(decodeHeaderValue('=?base64?ZWNobw==?=')).toBe('echo')
    for (const bad of ['=?base64?ZWNobw?=', '=?base64?YR==?=', '=?base64?77u/ZWNobw==?=']) {
      const decoded = decodeHeaderValue(bad)
      expect(decoded === undefined || decoded !== 'echo', bad).toBe(true)
    }
    expect(decodeHeaderValue('=?base64?77u/ZWNobw==?=')).toBe('\ufeffecho') // the BOM is kept, so it cannot pass as "echo"
  })
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
  it('refuses to send an invalid CallToolResult or a token it would itself reject', async () => {
    const log = recordingLogger()
    const mcp = new McpServer(
      { name: 's', version: '1' },
      {
        logger: log.logger,
        requestStateSecurity: new RequestStateSecurity({ keys: ['k'.repeat(32)], maxTokenLength: 200 }),
      },
    )
    mcp.tool('bad', {}, () => ({ content: 'nope' }) as never)
    mcp.tool('big', {}, () => inputRequired(undefined, 'x'.repeat(500)))
    const handler = createFetchHandler(mcp)
    expect((await call(handler, 'tools/call', { name: 'bad' })).body.error).toEqual({
      code: -32603,
      message: 'Internal error',
    })
    expect((await call(handler, 'tools/call', { name: 'big' })).body.error).toEqual({
      code: -32603,
      message: 'Internal error',
    })
    expect(log.error.join('\n')).toMatch(/invalid CallToolResult[\s\S]*over maxTokenLength/)
  })
  it('a "result" sent with a failure status is an HttpError', async () => {
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', {
        fetch: async (r) => Response.json({ jsonrpc: '2.0', id: (await r.json()).id, result: {} }, { status: 500 }),
      }),
    })
    await expect(client.discover()).rejects.toBeInstanceOf(HttpError)
  })
  it('the demo shop does not read the prototype', async () => {
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: createFetchHandler(createDemoServer()) }),
    })
    for (const title of ['constructor', '__proto__', 'toString']) {
      expect((await client.callTool('reserve_book', { title })).content[0]).toEqual({
        type: 'text',
        text: `'${title}' is out of stock.`,
      })
    }
  })
})
