/**
 * The fixture server for the official MCP conformance suite (`@modelcontextprotocol/conformance`): every
 * tool, resource and prompt the server scenarios call, of the 2026-07-28 and the 2025-11-25 requirement
 * sets, written with the SDK's public API the way a user would: `McpServer`, resolvers where a scenario is
 * about multi-round questions, `InputRequiredResult`s elsewhere. The same server serves both eras: a
 * 2025-era client in a session is asked each question as a server-to-client request.
 *
 * Web APIs only, so it runs on Node (test/conformance/server.ts) and on workerd (test/conformance/worker.ts).
 */
import { UriTemplate } from '../../src/index.ts'
import * as v from 'valibot'
import {
  McpServer,
  acceptedContent,
  elicit,
  elicitForm,
  formSchema,
  inMemoryTasks,
  inputRequired,
  listRoots,
  resolver,
  sample,
  withJsonSchema,
  type McpServerOptions,
} from '../../src/server/index.ts'
import type { InputRequest, RequestedSchema } from '../../src/index.ts'
import { addQuestionTools } from './questions.ts'
import { addTaskTools } from './tasks.ts'

/** A 1×1 red PNG pixel. */
export const TEST_IMAGE_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='
/** A minimal WAV file. */
export const TEST_AUDIO_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA='

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const nameForm: RequestedSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
const confirmForm: RequestedSchema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }

// resolvers: the SDK asks, records each answer in the sealed requestState, and injects the values
const Name = formSchema({ name: v.string() })
const Color = formSchema({ color: v.string() })
const step1 = resolver({}, function step1() {
  return elicit('Step 1: What is your name?', Name)
})
const step2 = resolver({ who: step1 }, function step2() {
  return elicit('Step 2: What is your favorite color?', Color)
})
const user_name = resolver({}, function user_name() {
  return elicit('What is your name?', Name)
})
const greeting = resolver({}, function greeting() {
  return sample('Generate a greeting', { maxTokens: 50 })
})
const client_roots = resolver({}, function client_roots() {
  return listRoots()
})

/**
 * Every fixture the server scenarios call.
 * @param options - more server options, merged over the fixture's (`cache`, `logger`, `tasks`: in memory):
 *   the Worker passes `legacyQuestions: { mailbox: durableObjectMailbox() }`.
 */
/** The conformance suite's JSON Schema 2020-12 tool input (json-schema-2020-12 scenario), as it sends it. */
const CONTACT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
}

export function createConformanceServer(options: McpServerOptions = {}): McpServer {
  const mcp = new McpServer(
    { name: 'edge-mcp-conformance', version: '1.0.0' },
    {
      cache: { ttlMs: 300_000, cacheScope: 'public' },
      logger: { warn: () => {}, error: (m, e) => console.error(m, e ?? '') },
      tasks: inMemoryTasks(),
      ...options,
    },
  )

  // ----------------------------------------------------------------------------------------- tools
  // Diagnostic hooks of server-stateless (SEP-2575): change a list while a listen stream is open; the
  // McpServer announces the change on the notification bus, and every listen stream that asked hears it.
  let toolToggle = false
  mcp.tool('test_trigger_tool_change', { description: 'Adds or removes the tool test_toggled_tool' }, () => {
    toolToggle = !toolToggle
    if (toolToggle) mcp.tool('test_toggled_tool', { description: 'Comes and goes' }, () => 'here')
    else mcp.removeTool('test_toggled_tool')
    return toolToggle ? 'added test_toggled_tool' : 'removed test_toggled_tool'
  })
  let promptToggle = false
  mcp.tool('test_trigger_prompt_change', { description: 'Adds or removes the prompt test_toggled_prompt' }, () => {
    promptToggle = !promptToggle
    if (promptToggle) mcp.prompt('test_toggled_prompt', { description: 'Comes and goes' }, () => 'here')
    else mcp.removePrompt('test_toggled_prompt')
    return promptToggle ? 'added test_toggled_prompt' : 'removed test_toggled_prompt'
  })

  // SEP-1613 / SEP-2106: a 2020-12 inputSchema is listed as written ($schema, $defs, $anchor, if/then/else)
  mcp.tool(
    'json_schema_2020_12_tool',
    { description: 'Tool with JSON Schema 2020-12 features', input: withJsonSchema(v.looseObject({}), CONTACT_SCHEMA) },
    () => 'ok',
  )
  mcp.tool(
    'test_simple_text',
    { description: 'Tests simple text content response' },
    () => 'This is a simple text response for testing.',
  )
  mcp.tool('test_image_content', { description: 'Tests image content response' }, () => ({
    content: [{ type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' }],
  }))
  mcp.tool('test_audio_content', { description: 'Tests audio content response' }, () => ({
    content: [{ type: 'audio', data: TEST_AUDIO_BASE64, mimeType: 'audio/wav' }],
  }))
  mcp.tool('test_embedded_resource', { description: 'Tests embedded resource content response' }, () => ({
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  }))
  mcp.tool(
    'test_multiple_content_types',
    { description: 'Tests response with multiple content types (text, image, resource)' },
    () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  )
  mcp.tool(
    'test_tool_with_logging',
    { description: 'Tests tool that emits log messages during execution' },
    async (_args, ctx) => {
      for (const [i, text] of [
        'Tool execution started',
        'Tool processing data',
        'Tool execution completed',
      ].entries()) {
        if (i > 0) await sleep(50)
        ctx.log('info', text)
      }
      return 'Tool with logging executed successfully'
    },
  )
  mcp.tool(
    'test_tool_with_progress',
    { description: 'Tests tool that reports progress notifications' },
    async (_args, ctx) => {
      for (const [i, progress] of [0, 50, 100].entries()) {
        if (i > 0) await sleep(50)
        ctx.sendProgress(progress, 100, `Completed step ${progress} of 100`)
      }
      return String(ctx.envelope.progressToken ?? 'no progress token')
    },
  )
  mcp.tool('test_error_handling', { description: 'Tests error response handling' }, () => {
    throw new Error('This tool intentionally returns an error for testing')
  })
  mcp.tool('test_missing_capability', { description: 'Needs the client to declare sampling' }, (_args, ctx) => {
    ctx.requireCapabilities('sampling') // -32021 (HTTP 400) when the client did not declare it
    return 'Success'
  })
  mcp.tool('test_logging_tool', { description: 'Logs only when the request asked for a logLevel' }, (_args, ctx) => {
    ctx.log('info', 'Diagnostic trace logging activated')
    return 'Logging evaluated'
  })
  mcp.tool(
    'test_streaming_elicitation',
    { description: 'Asks through an InputRequiredResult, never a server-to-client request' },
    (_args, ctx) => {
      const answer = acceptedContent(ctx.inputResponses?.confirm)
      if (answer) return 'Streaming complete'
      return inputRequired({ confirm: elicitForm('Please confirm', confirmForm) })
    },
  )

  mcp.tool(
    'test_param_headers',
    {
      description: 'Mirrors its region argument into the Mcp-Param-Region header',
      input: { region: v.string() },
      headers: { region: 'Region' },
    },
    ({ region }) => `Routed to ${region}`,
  )

  // ------------------------------------------------------------------ multi-round-trip requests
  mcp.tool('test_input_required_result_elicitation', { description: 'MRTR: one elicitation' }, (_args, ctx) => {
    // answers without state: the key alone says what was asked; anything else is asked again
    const answer = acceptedContent(ctx.inputResponses?.user_name)
    if (answer && typeof answer.name === 'string') return `Hello, ${answer.name}!`
    return inputRequired({ user_name: elicitForm('What is your name?', nameForm) })
  })
  mcp.tool('test_input_required_result_sampling', { description: 'MRTR: one sampling request' }, (_args, ctx) => {
    const answer = ctx.inputResponses?.capital_question
    if (answer && 'role' in answer) {
      const blocks: unknown[] = Array.isArray(answer.content) ? answer.content : [answer.content]
      const content = blocks[0] as { type?: string; text?: string } | undefined
      return `Sampling result: ${content?.type === 'text' ? content.text : 'no text'}`
    }
    const question: InputRequest = {
      method: 'sampling/createMessage',
      params: {
        messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
        maxTokens: 100,
      },
    }
    return inputRequired({ capital_question: question })
  })
  mcp.tool(
    'test_input_required_result_list_roots',
    { description: 'MRTR: one roots/list request', use: { roots: client_roots } },
    ({ roots }) => `Found ${roots.roots.length} root(s): ${roots.roots.map((r) => r.uri).join(', ')}`,
  )
  mcp.tool(
    'test_input_required_result_request_state',
    { description: 'MRTR: inputRequests plus requestState' },
    (_args, ctx) => {
      // ctx.requestState is the plaintext minted last round, sealed on the wire and verified on the way back
      const answer = acceptedContent(ctx.inputResponses?.confirm)
      if (ctx.requestState === 'request-state-v1' && answer?.ok === true) return 'state-ok: requestState validated'
      return inputRequired({ confirm: elicitForm('Please confirm', confirmForm) }, 'request-state-v1')
    },
  )
  mcp.tool('test_input_required_result_tampered_state', { description: 'MRTR: sealed requestState' }, (_args, ctx) => {
    // a tampered token never reaches this handler: the server answers -32602 "Invalid or expired requestState"
    const answer = acceptedContent(ctx.inputResponses?.confirm)
    if (ctx.requestState === 'tamper-test-v1' && answer) return 'integrity-ok: state verified'
    return inputRequired({ confirm: elicitForm('Please confirm', confirmForm) }, 'tamper-test-v1')
  })
  mcp.tool(
    'test_input_required_result_multiple_inputs',
    {
      description: 'MRTR: elicitation, sampling and roots in one round',
      use: { who: user_name, hello: greeting, roots: client_roots },
    },
    ({ who, hello, roots }) => {
      const text = Array.isArray(hello.content) ? '' : hello.content.type === 'text' ? hello.content.text : ''
      return `Name: ${who.name}; Greeting: ${text}; Roots: ${roots.roots.length}`
    },
  )
  mcp.tool(
    'test_input_required_result_multi_round',
    { description: 'MRTR: two rounds of questions', use: { who: step1, likes: step2 } },
    ({ who, likes }) => {
      return `Multi-round complete for ${who.name} who likes ${likes.color}`
    },
  )
  mcp.tool(
    'test_input_required_result_capabilities',
    { description: 'MRTR: asks only what the client can answer' },
    (_args, ctx) => {
      if (ctx.inputResponses && Object.keys(ctx.inputResponses).length > 0) {
        return `capabilities-ok: received ${Object.keys(ctx.inputResponses).join(',')}`
      }
      const requests: Record<string, InputRequest> = {}
      if (ctx.clientCapabilities.elicitation)
        requests.elicit_input = elicitForm('Elicitation input', {
          type: 'object',
          properties: { value: { type: 'string' } },
          required: ['value'],
        })
      if (ctx.clientCapabilities.sampling) {
        requests.sample_input = {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: 'Sample request' } }], maxTokens: 50 },
        }
      }
      if (Object.keys(requests).length === 0) return 'No supported capabilities declared'
      return inputRequired(requests)
    },
  )

  // the 2025-11-25 question scenarios: sampling and elicitation (SEP-1034 defaults, SEP-1330 enums)
  addQuestionTools(mcp)

  // the tasks extension's scenarios (tasks-*): task tools, questions inside a task, MRTR before a task
  addTaskTools(mcp)

  // --------------------------------------------------------------------------------- resources
  mcp.resource(
    'static-text',
    'test://static-text',
    { title: 'Static Text Resource', description: 'A static text resource for testing', mimeType: 'text/plain' },
    () => 'This is the content of the static text resource.',
  )
  mcp.resource(
    'static-binary',
    'test://static-binary',
    {
      title: 'Static Binary Resource',
      description: 'A static binary resource (image) for testing',
      mimeType: 'image/png',
    },
    () => ({
      contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: TEST_IMAGE_BASE64 }],
    }),
  )
  mcp.resourceTemplate(
    'template',
    new UriTemplate('test://template/{id}/data'),
    {
      title: 'Resource Template',
      description: 'A resource template with parameter substitution',
      mimeType: 'application/json',
    },
    ({ id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
  )

  // ----------------------------------------------------------------------------------- prompts
  mcp.prompt(
    'test_simple_prompt',
    { title: 'Simple Test Prompt', description: 'A simple prompt without arguments' },
    () => 'This is a simple prompt for testing.',
  )
  mcp.prompt(
    'test_prompt_with_arguments',
    {
      title: 'Prompt With Arguments',
      description: 'A prompt with required arguments',
      arguments: {
        arg1: v.pipe(v.string(), v.description('First test argument')),
        arg2: v.pipe(v.string(), v.description('Second test argument')),
      },
      complete: { arg1: (value) => ['paris', 'park', 'party', 'test'].filter((s) => s.startsWith(value)) },
    },
    ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
  )
  mcp.prompt(
    'test_prompt_with_embedded_resource',
    {
      title: 'Prompt With Embedded Resource',
      description: 'A prompt that includes an embedded resource',
      arguments: { resourceUri: v.pipe(v.string(), v.description('URI of the resource to embed')) },
    },
    ({ resourceUri }) => [
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
        },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  )
  mcp.prompt(
    'test_prompt_with_image',
    { title: 'Prompt With Image', description: 'A prompt that includes image content' },
    () => [
      { role: 'user', content: { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  )
  mcp.prompt(
    'test_input_required_result_prompt',
    { description: 'MRTR: a prompt that asks for context' },
    (_args, ctx) => {
      const answer = acceptedContent(ctx.inputResponses?.user_context)
      if (answer && typeof answer.context === 'string') return `Prompt with context: ${answer.context}`
      return inputRequired({
        user_context: elicitForm('What context should the prompt use?', {
          type: 'object',
          properties: { context: { type: 'string' } },
          required: ['context'],
        }),
      })
    },
  )
  return mcp
}
