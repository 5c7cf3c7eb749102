/**
 * Era negotiation, server side (`src/server/era.ts`): which era each message speaks, and how a message whose
 * headers disagree with its era is answered. A request carrying the 2026 envelope's protocolVersion claim is
 * modern whatever else it carries; any other message is 2025-era, within the session its `Mcp-Session-Id`
 * opens (spec 2026-07-28 basic/versioning.mdx: serve both eras on one endpoint).
 */
import { describe, expect, it } from 'vitest'
import { McpServer, Server, createFetchHandler } from '../../src/server/index.ts'
import { createConformanceServer } from '../conformance/server.ts'
import { callTool, initialize, makeServer, toolText } from '../fixtures/asker.ts'
import { post, req, std } from '../helpers.ts'
import { answer, expectLegacyResult, initializeAt, legacyCall, legacyPost, sseReader } from '../legacy-wire.ts'

describe('initialize', () => {
  const conformance = createFetchHandler(createConformanceServer())

  it('answers an initialize carrying the 2026 envelope with 404 + -32601, as a modern-only server', async () => {
    const res = await post(
      conformance,
      req('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }),
      std('initialize'),
    )
    expect([res.status, res.body.error.code]).toEqual([404, -32601])
  })

  it("with legacy: 'reject', keeps today's answers (-32022 to initialize, -32602 to the rest)", async () => {
    const handler = createFetchHandler(new McpServer({ name: 's', version: '1' }, { legacy: 'reject' }))
    const init = await initializeAt(handler, '2025-11-25')
    expect([init.status, init.body.error.code]).toEqual([400, -32022])
    expect(init.body.error.data).toEqual({ supported: ['2026-07-28'], requested: '2025-11-25' })
    const list = await legacyCall(handler, 'tools/list')
    expect([list.status, list.body.error.code]).toEqual([400, -32602])
    const ping = await legacyCall(handler, 'ping')
    expect([ping.status, ping.body.error.code]).toEqual([400, -32602])
  })
})

describe('a request without the 2026 envelope is 2025-era: what its handler sees, and the version header', () => {
  const server = new Server({ name: 'low', version: '1' })
  server.setRequestHandler('tools/list', (_params, ctx) => ({
    tools: [],
    _meta: { seen: { protocolVersion: ctx.protocolVersion, clientCapabilities: ctx.clientCapabilities } },
    ttlMs: 1000,
    cacheScope: 'public',
  }))
  const handler = createFetchHandler(server)

  it('the header’s version (2025-03-26 without one) and no client capabilities; no cache hints', async () => {
    for (const [header, seen] of [
      ['2025-11-25', '2025-11-25'],
      ['2025-06-18', '2025-06-18'],
      [null, '2025-03-26'],
    ] as const) {
      const result = expectLegacyResult(await legacyCall(handler, 'tools/list', {}, header), 'ListToolsResult')
      expect(result._meta).toEqual({ seen: { protocolVersion: seen, clientCapabilities: {} } })
    }
  })

  it('an unsupported MCP-Protocol-Version header is HTTP 400', async () => {
    const res = await legacyCall(handler, 'tools/list', {}, '1999-01-01')
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe(-32600)
    expect(res.body.error.message).toContain('1999-01-01')
  })

  it('a 2026 header without an envelope is a modern client’s mistake: -32602 (HTTP 400)', async () => {
    const res = await legacyCall(handler, 'tools/list', {}, '2026-07-28')
    expect([res.status, res.body.error.code]).toEqual([400, -32602])
  })

  it('GET and DELETE get 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await handler(
        new Request('http://localhost/mcp', { method, headers: { accept: 'text/event-stream' } }),
      )
      expect(res.status, method).toBe(405)
    }
  })

  it('Server.handleRequest without HTTP: a legacy request is served as 2025-03-26', async () => {
    const handled = await server.handleRequest({ jsonrpc: '2.0', id: 1, method: 'ping' })
    expect(handled).toEqual({ status: 200, response: { jsonrpc: '2.0', id: 1, result: {} } })
  })
})

describe('a 2026 MCP-Protocol-Version in a 2025 session names the mismatch, whatever the message', () => {
  const MODERN = '2026-07-28'
  const mismatch = `Bad Request: MCP-Protocol-Version '${MODERN}' differs from the session's '2025-11-25'`
  const readError = async (res: Response) => ((await res.json()) as { error: { code: number; message: string } }).error

  // shared/cases/robustness.md R17
  it('an answer, a notification and a request: 400 -32600 naming both versions; the question still waits', async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    const call = callTool('greet')
    const stream = sseReader(await legacyPost(handler, call, session))
    const q = await stream.next()
    const wrong = { ...session, 'mcp-protocol-version': MODERN }
    const ok = { action: 'accept', content: { name: 'x' } }
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: call.id } }
    for (const body of [answer(q.id, ok), cancel, callTool('greet')]) {
      const res = await legacyPost(handler, body, wrong)
      expect(res.status).toBe(400)
      expect(await readError(res)).toEqual({ code: -32600, message: mismatch })
    }
    expect((await legacyPost(handler, answer(q.id, ok), session)).status).toBe(202)
    expect(toolText(await stream.next())).toBe('Hello, x!')
  })

  it('an id that is no session of this server: a 2026 message ignores it, an answer gets 404', async () => {
    const { handler } = makeServer()
    const stray = { 'mcp-session-id': 's1.stray', 'mcp-protocol-version': MODERN }
    // spec 2026-07-28 streamable-http.mdx: an Mcp-Session-Id on a request is ignored
    const note = { jsonrpc: '2.0', method: 'notifications/initialized' }
    expect((await legacyPost(handler, note, stray)).status).toBe(202)
    const request = await legacyPost(handler, callTool('greet'), stray)
    expect([request.status, (await readError(request)).code]).toEqual([400, -32602]) // no envelope, as without the id
    const res = await legacyPost(handler, answer('q1.x', {}), stray) // answers are 2025-only: the id is checked
    expect([res.status, (await readError(res)).code]).toEqual([404, -32001])
  })
})

describe('a request carrying the 2026 envelope is modern, whatever session it names', () => {
  it('a 2026 request with the id of an open 2025 session is served as 2026 (200, resultType), not as the session', async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    const res = await post(handler, req('tools/list'), {
      ...std('tools/list'),
      'mcp-session-id': session['mcp-session-id'],
    })
    expect(res.status, res.text).toBe(200)
    expect(res.body.result).toMatchObject({ resultType: 'complete' })
    expect(res.body.result.tools?.map((t: { name: string }) => t.name)).toContain('greet')
  })
})

// shared/cases/robustness.md R16
describe('2025-11-25 `_meta` keys (related-task) are not the 2026 envelope: only its protocolVersion claim is', () => {
  const TASK = { 'io.modelcontextprotocol/related-task': { taskId: 't1' } }

  it('a request and its answer carrying related-task in a 2025 session are served as 2025', async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    const res = await legacyPost(handler, callTool('greet', TASK), session)
    expect(res.status).toBe(200)
    const stream = sseReader(res)
    const q = await stream.next()
    expect(q.method).toBe('elicitation/create')
    const accepted = { action: 'accept', content: { name: 'x' }, _meta: TASK }
    expect((await legacyPost(handler, answer(q.id, accepted), session)).status).toBe(202)
    expect(toolText(await stream.next())).toBe('Hello, x!')
  })

  it('a notifications/cancelled carrying related-task cancels the request of its session', async () => {
    const { handler } = makeServer({ timeoutMs: 2000 })
    const session = await initialize(handler)
    const call = callTool('greet')
    const stream = sseReader(await legacyPost(handler, call, session))
    const q = await stream.next()
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: call.id, _meta: TASK } }
    expect((await legacyPost(handler, cancel, session)).status).toBe(202)
    // withdrawn because of the cancel, well before the question's 2 s timeout
    expect(await stream.next()).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: q.id, reason: 'the request was cancelled' },
    })
    await expect(stream.next()).rejects.toThrow('stream ended')
  })
})
