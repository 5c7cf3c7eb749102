/**
 * The stateless legacy lane: 2025-era clients (no `_meta` envelope,
 * `initialize` first) served from the same registrations, every reply valid under the 2025-11-25 schema.
 */
import { describe, expect, it } from 'vitest'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'
import { createConformanceServer } from '../conformance/server.ts'
import { post } from '../helpers.ts'
import { LEGACY_HEADERS, expectLegacyResult, initializeAt, legacyCall } from '../legacy-wire.ts'
import { schemaErrors2025 } from '../spec-schema.ts'

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

const conformance = createFetchHandler(createConformanceServer())

describe('legacy lane: initialize', () => {
  it('echoes each supported 2025 version and offers 2025-11-25 for any other', async () => {
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      const result = expectLegacyResult(await initializeAt(conformance, version), 'InitializeResult')
      expect(result.protocolVersion).toBe(version)
      expect(result.serverInfo).toEqual({ name: 'edge-mcp-conformance', version: '1.0.0' })
    }
    for (const version of ['2024-11-05', '2026-07-28', 'nope']) {
      const result = expectLegacyResult(await initializeAt(conformance, version), 'InitializeResult')
      expect(result.protocolVersion).toBe('2025-11-25')
    }
  })

  it('announces the capabilities without what needs a push channel, and the instructions', async () => {
    const mcp = new McpServer({ name: 's', version: '1' }, { instructions: 'Be brief.' })
    mcp.tool('t', { description: 'd' }, () => 'ok')
    mcp.resource('r', 'test://r', { description: 'd' }, () => 'text')
    const result = expectLegacyResult(await initializeAt(createFetchHandler(mcp), '2025-11-25'), 'InitializeResult')
    expect(result.instructions).toBe('Be brief.')
    expect(result.capabilities).toEqual({ logging: {}, tools: {}, resources: {} })
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
      const result = expectLegacyResult(await legacyCall(conformance, method, params), 'EmptyResult')
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
      const res = await legacyCall(conformance, method, params)
      expect([res.status, res.body.error?.code], method).toEqual([200, -32602])
      expect(res.body.error.message).toContain(says)
      expect(schemaErrors2025('JSONRPCErrorResponse', res.body)).toEqual([])
    }
  })

  it('the lists', async () => {
    const tools = expectLegacyResult(await legacyCall(conformance, 'tools/list', {}), 'ListToolsResult')
    expect(tools.tools.map((t) => t.name)).toContain('test_simple_text')
    const prompts = expectLegacyResult(await legacyCall(conformance, 'prompts/list'), 'ListPromptsResult')
    expect(prompts.prompts.length).toBeGreaterThan(0)
    const resources = expectLegacyResult(await legacyCall(conformance, 'resources/list'), 'ListResourcesResult')
    expect(resources.resources.length).toBeGreaterThan(0)
    const templates = expectLegacyResult(
      await legacyCall(conformance, 'resources/templates/list'),
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
        await legacyCall(conformance, 'tools/call', { name, arguments: {} }),
        'CallToolResult',
      )
      expect(result.isError, name).toBeFalsy()
    }
    const failed = expectLegacyResult(
      await legacyCall(conformance, 'tools/call', { name: 'test_error_handling', arguments: {} }),
      'CallToolResult',
    )
    expect(failed.isError).toBe(true)
  })

  it('prompts/get, resources/read and completion/complete', async () => {
    const simple = expectLegacyResult(
      await legacyCall(conformance, 'prompts/get', { name: 'test_simple_prompt' }),
      'GetPromptResult',
    )
    expect(simple.messages.length).toBeGreaterThan(0)
    for (const [name, args] of [
      ['test_prompt_with_embedded_resource', { resourceUri: 'test://static-text' }],
      ['test_prompt_with_image', {}],
    ] as const)
      expectLegacyResult(await legacyCall(conformance, 'prompts/get', { name, arguments: args }), 'GetPromptResult')
    const withArgs = expectLegacyResult(
      await legacyCall(conformance, 'prompts/get', {
        name: 'test_prompt_with_arguments',
        arguments: { arg1: 'a', arg2: 'b' },
      }),
      'GetPromptResult',
    )
    expect(JSON.stringify(withArgs.messages)).toContain('a')
    for (const uri of ['test://static-text', 'test://static-binary', 'test://template/42/data'])
      expectLegacyResult(await legacyCall(conformance, 'resources/read', { uri }), 'ReadResourceResult')
    const completion = expectLegacyResult(
      await legacyCall(conformance, 'completion/complete', {
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
      const res = await legacyCall(conformance, method, {})
      expect([res.status, res.body.error.code], method).toEqual([200, -32601])
      expect(schemaErrors2025('JSONRPCErrorResponse', res.body)).toEqual([])
    }
  })

  it('progress and log notifications go on the POST’s SSE stream', async () => {
    const progress = await legacyCall(conformance, 'tools/call', {
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

    const logging = await legacyCall(conformance, 'tools/call', { name: 'test_tool_with_logging', arguments: {} })
    const logged = sseMessages(logging.text).filter((m) => m.method === 'notifications/message')
    expect(logged.length).toBeGreaterThan(0)
    for (const note of logged) expect(schemaErrors2025('LoggingMessageNotification', note)).toEqual([])
  })
})

describe('legacy lane without a session: a question fails at once with -32021', () => {
  // no Mcp-Session-Id: the client declared nothing this request can see, so it cannot be asked anything
  it('tools/call: an InputRequiredResult, a resolver and a capability check each get -32021 in-band', async () => {
    const names = expectLegacyResult(await legacyCall(conformance, 'tools/list'), 'ListToolsResult').tools.map(
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
      const res = await legacyCall(conformance, 'tools/call', { name, arguments: { prompt: 'Hi', message: 'Hi' } })
      expect(Date.now() - started, name).toBeLessThan(2_000)
      expect([res.status, res.body.error?.code], name).toEqual([200, -32021])
      expect(schemaErrors2025('JSONRPCErrorResponse', res.body), name).toEqual([])
    }
  })

  it('prompts/get: -32021 with HTTP 200', async () => {
    const res = await legacyCall(conformance, 'prompts/get', {
      name: 'test_input_required_result_prompt',
      arguments: {},
    })
    expect([res.status, res.body.error.code]).toEqual([200, -32021])
    expect(res.body.error.message).toMatch(/elicitation/)
    expect(schemaErrors2025('JSONRPCErrorResponse', res.body)).toEqual([])
  })
})
