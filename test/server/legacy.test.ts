/**
 * The stateless legacy lane: 2025-era clients (no `_meta` envelope,
 * `initialize` first) served from the same registrations, every reply valid under the 2025-11-25 schema.
 */
import { describe, expect, it } from 'vitest'
import { McpServer, Server, createFetchHandler, type FetchHandler } from '../../src/server/index.ts'
import { createConformanceServer } from '../conformance/server.ts'
import { post, req, std, type Posted } from '../helpers.ts'
import { schemaErrors2025 } from '../spec-schema.ts'

const LEGACY_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
/** The fields a 2025-era client has no schema for. */
const MODERN_ONLY = ['resultType', 'inputRequests', 'requestState', 'ttlMs', 'cacheScope']

let nextId = 1
/** A 2025-era request: no envelope; `MCP-Protocol-Version` as a 2025 client sends it after `initialize`. */
function legacy(
  handler: FetchHandler,
  method: string,
  params?: Record<string, unknown>,
  version: string | null = '2025-11-25',
): Promise<Posted> {
  const headers: Record<string, string> = { ...LEGACY_HEADERS }
  if (version !== null) headers['mcp-protocol-version'] = version
  const body: Record<string, unknown> = { jsonrpc: '2.0', id: nextId++, method }
  if (params !== undefined) body.params = params
  return post(handler, body, headers)
}

function initialize(handler: FetchHandler, protocolVersion: string): Promise<Posted> {
  return legacy(
    handler,
    'initialize',
    { protocolVersion, capabilities: {}, clientInfo: { name: 'legacy-client', version: '1.0.0' } },
    null,
  )
}

/** A legacy result as the assertions read it (what its fields hold is for them to check). */
interface LegacyResult {
  protocolVersion?: string
  serverInfo?: unknown
  capabilities?: unknown
  instructions?: string
  tools: Array<{ name: string }>
  prompts: unknown[]
  resources: unknown[]
  resourceTemplates: unknown[]
  messages: unknown[]
  completion: { values: string[] }
  content: Array<{ type: string; text: string }>
  isError?: boolean
  _meta?: unknown
}

/** A JSON-RPC message off an SSE stream. */
interface StreamedMessage {
  method?: string
  params: { progressToken?: unknown }
  result?: unknown
}

/** The JSON-RPC messages of an SSE body, in order. */
function sseMessages(text: string): StreamedMessage[] {
  return text
    .split('\n\n')
    .flatMap((event) => event.split('\n').filter((line) => line.startsWith('data: ')))
    .map((line) => JSON.parse(line.slice(6)) as StreamedMessage)
}

/** Assert a legacy success: HTTP 200, a valid 2025 response whose result is a valid `def`, no 2026-only field. */
function expectLegacyResult(res: Posted, def: string): LegacyResult {
  expect(res.status, res.text).toBe(200)
  expect(schemaErrors2025('JSONRPCResultResponse', res.body), res.text).toEqual([])
  const result = res.body.result as unknown as LegacyResult
  expect(schemaErrors2025(def, result), res.text).toEqual([])
  for (const key of MODERN_ONLY) expect(result, `${def} carries ${key}`).not.toHaveProperty(key)
  expect(JSON.stringify(result)).not.toContain('io.modelcontextprotocol/serverInfo')
  return result
}

const conformance = createFetchHandler(createConformanceServer())

describe('legacy lane: initialize', () => {
  it('echoes each supported 2025 version and offers 2025-11-25 for any other', async () => {
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      const result = expectLegacyResult(await initialize(conformance, version), 'InitializeResult')
      expect(result.protocolVersion).toBe(version)
      expect(result.serverInfo).toEqual({ name: 'edge-mcp-conformance', version: '1.0.0' })
    }
    for (const version of ['2024-11-05', '2026-07-28', 'nope']) {
      const result = expectLegacyResult(await initialize(conformance, version), 'InitializeResult')
      expect(result.protocolVersion).toBe('2025-11-25')
    }
  })

  it('announces the capabilities without what needs a push channel, and the instructions', async () => {
    const mcp = new McpServer({ name: 's', version: '1' }, { instructions: 'Be brief.' })
    mcp.tool('t', { description: 'd' }, () => 'ok')
    mcp.resource('r', 'test://r', { description: 'd' }, () => 'text')
    const result = expectLegacyResult(await initialize(createFetchHandler(mcp), '2025-11-25'), 'InitializeResult')
    expect(result.instructions).toBe('Be brief.')
    expect(result.capabilities).toEqual({ logging: {}, tools: {}, resources: {} })
  })

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
    const init = await initialize(handler, '2025-11-25')
    expect([init.status, init.body.error.code]).toEqual([400, -32022])
    expect(init.body.error.data).toEqual({ supported: ['2026-07-28'], requested: '2025-11-25' })
    const list = await legacy(handler, 'tools/list')
    expect([list.status, list.body.error.code]).toEqual([400, -32602])
    const ping = await legacy(handler, 'ping')
    expect([ping.status, ping.body.error.code]).toEqual([400, -32602])
  })
})

describe('legacy lane: every reply is 2025-11-25', () => {
  it('ping, logging/setLevel, resources/subscribe and unsubscribe answer {}', async () => {
    for (const [method, params] of [
      ['ping', undefined],
      ['logging/setLevel', { level: 'debug' }],
      ['resources/subscribe', { uri: 'test://static-text' }],
      ['resources/unsubscribe', { uri: 'test://static-text' }],
    ] as const) {
      const result = expectLegacyResult(await legacy(conformance, method, params), 'EmptyResult')
      expect(result, method).toEqual({})
    }
  })

  it('-32602 (in-band, HTTP 200) for a bad level or a missing uri', async () => {
    for (const [method, params, says] of [
      ['logging/setLevel', { level: 'loud' }, 'level must be one of debug'],
      ['logging/setLevel', {}, 'got none'],
      ['resources/subscribe', {}, 'needs a string uri'],
      ['resources/unsubscribe', { uri: 7 }, 'needs a string uri'],
    ] as const) {
      const res = await legacy(conformance, method, params)
      expect([res.status, res.body.error?.code], method).toEqual([200, -32602])
      expect(res.body.error.message).toContain(says)
      expect(schemaErrors2025('JSONRPCErrorResponse', res.body)).toEqual([])
    }
  })

  it('the lists', async () => {
    const tools = expectLegacyResult(await legacy(conformance, 'tools/list', {}), 'ListToolsResult')
    expect(tools.tools.map((t) => t.name)).toContain('test_simple_text')
    const prompts = expectLegacyResult(await legacy(conformance, 'prompts/list'), 'ListPromptsResult')
    expect(prompts.prompts.length).toBeGreaterThan(0)
    const resources = expectLegacyResult(await legacy(conformance, 'resources/list'), 'ListResourcesResult')
    expect(resources.resources.length).toBeGreaterThan(0)
    const templates = expectLegacyResult(
      await legacy(conformance, 'resources/templates/list'),
      'ListResourceTemplatesResult',
    )
    expect(templates.resourceTemplates.length).toBeGreaterThan(0)
  })

  it('tools/call, with every content type and a tool error', async () => {
    for (const name of [
      'test_simple_text',
      'test_image_content',
      'test_audio_content',
      'test_embedded_resource',
      'test_multiple_content_types',
    ]) {
      const result = expectLegacyResult(
        await legacy(conformance, 'tools/call', { name, arguments: {} }),
        'CallToolResult',
      )
      expect(result.isError, name).toBeFalsy()
    }
    const failed = expectLegacyResult(
      await legacy(conformance, 'tools/call', { name: 'test_error_handling', arguments: {} }),
      'CallToolResult',
    )
    expect(failed.isError).toBe(true)
  })

  it('prompts/get, resources/read and completion/complete', async () => {
    const simple = expectLegacyResult(
      await legacy(conformance, 'prompts/get', { name: 'test_simple_prompt' }),
      'GetPromptResult',
    )
    expect(simple.messages.length).toBeGreaterThan(0)
    for (const [name, args] of [
      ['test_prompt_with_embedded_resource', { resourceUri: 'test://static-text' }],
      ['test_prompt_with_image', {}],
    ] as const)
      expectLegacyResult(await legacy(conformance, 'prompts/get', { name, arguments: args }), 'GetPromptResult')
    const withArgs = expectLegacyResult(
      await legacy(conformance, 'prompts/get', {
        name: 'test_prompt_with_arguments',
        arguments: { arg1: 'a', arg2: 'b' },
      }),
      'GetPromptResult',
    )
    expect(JSON.stringify(withArgs.messages)).toContain('a')
    for (const uri of ['test://static-text', 'test://static-binary', 'test://template/42/data'])
      expectLegacyResult(await legacy(conformance, 'resources/read', { uri }), 'ReadResourceResult')
    const completion = expectLegacyResult(
      await legacy(conformance, 'completion/complete', {
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'par' },
      }),
      'CompleteResult',
    )
    expect(completion.completion.values).toEqual(['paris', 'park', 'party'])
  })

  it('notifications, notifications/initialized included, get 202', async () => {
    for (const method of ['notifications/initialized', 'notifications/cancelled', 'notifications/roots/list_changed']) {
      const res = await post(conformance, { jsonrpc: '2.0', method, params: {} }, LEGACY_HEADERS)
      expect([res.status, res.text], method).toEqual([202, ''])
    }
  })

  it('unknown and 2026-only methods: -32601 with HTTP 200 (a 2025 client reads 404 as an expired session)', async () => {
    for (const method of ['nope/nope', 'server/discover', 'subscriptions/listen']) {
      const res = await legacy(conformance, method, {})
      expect([res.status, res.body.error.code], method).toEqual([200, -32601])
      expect(schemaErrors2025('JSONRPCErrorResponse', res.body)).toEqual([])
    }
  })

  it('progress and log notifications go on the POST’s SSE stream', async () => {
    const progress = await legacy(conformance, 'tools/call', {
      name: 'test_tool_with_progress',
      arguments: {},
      _meta: { progressToken: 'p1' },
    })
    expect(progress.headers.get('content-type')).toBe('text/event-stream')
    const messages = sseMessages(progress.text)
    const notes = messages.filter((m) => m.method === 'notifications/progress')
    expect(notes.length).toBeGreaterThan(0)
    for (const note of notes) {
      expect(note.params.progressToken).toBe('p1')
      expect(schemaErrors2025('ProgressNotification', note)).toEqual([])
    }
    const final = messages.at(-1)!
    expect(schemaErrors2025('CallToolResult', final.result)).toEqual([])
    expect(final.result).not.toHaveProperty('resultType')

    const logging = await legacy(conformance, 'tools/call', { name: 'test_tool_with_logging', arguments: {} })
    const logged = sseMessages(logging.text).filter((m) => m.method === 'notifications/message')
    expect(logged.length).toBeGreaterThan(0)
    for (const note of logged) expect(schemaErrors2025('LoggingMessageNotification', note)).toEqual([])
  })
})

describe('legacy lane without a session: a question fails at once with -32021', () => {
  // no Mcp-Session-Id: the client declared nothing this request can see, so it cannot be asked anything
  it('tools/call: an InputRequiredResult, a resolver and a capability check each get -32021 in-band', async () => {
    const names = expectLegacyResult(await legacy(conformance, 'tools/list'), 'ListToolsResult').tools.map(
      (t) => t.name,
    )
    const resolved = names.filter((n) => /multi_round|resolver|elicitation$/.test(n))
    expect(resolved.length).toBeGreaterThan(0)
    for (const name of [
      'test_input_required_result_elicitation',
      'test_input_required_result_sampling',
      'test_missing_capability',
      'test_sampling',
      'test_elicitation_sep1034_defaults',
      'test_elicitation_sep1330_enums',
      ...resolved,
    ]) {
      const started = Date.now()
      // test_sampling and test_elicitation take a prompt and a message; the other tools ignore both
      const res = await legacy(conformance, 'tools/call', { name, arguments: { prompt: 'Hi', message: 'Hi' } })
      expect(Date.now() - started, name).toBeLessThan(2_000)
      expect([res.status, res.body.error?.code], name).toEqual([200, -32021])
      expect(schemaErrors2025('JSONRPCErrorResponse', res.body), name).toEqual([])
    }
  })

  it('prompts/get: -32021 with HTTP 200', async () => {
    const res = await legacy(conformance, 'prompts/get', { name: 'test_input_required_result_prompt', arguments: {} })
    expect([res.status, res.body.error.code]).toEqual([200, -32021])
    expect(res.body.error.message).toMatch(/elicitation/)
    expect(schemaErrors2025('JSONRPCErrorResponse', res.body)).toEqual([])
  })
})

describe('legacy lane: what handlers see, and the version header', () => {
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
      const result = expectLegacyResult(await legacy(handler, 'tools/list', {}, header), 'ListToolsResult')
      expect(result._meta).toEqual({ seen: { protocolVersion: seen, clientCapabilities: {} } })
    }
  })

  it('an unsupported MCP-Protocol-Version header is HTTP 400', async () => {
    const res = await legacy(handler, 'tools/list', {}, '1999-01-01')
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe(-32600)
    expect(res.body.error.message).toContain('1999-01-01')
  })

  it('a 2026 header without an envelope is a modern client’s mistake: -32602 (HTTP 400), as before', async () => {
    const res = await legacy(handler, 'tools/list', {}, '2026-07-28')
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
