/**
 * Fixture tools of the server scenarios where the server asks the client something (2025-11-25 requirement
 * set: tools-call-sampling, tools-call-elicitation, elicitation-sep1034-defaults, elicitation-sep1330-enums),
 * written once, 2026-style: a resolver's question (`sample`, `elicit`) or an `InputRequiredResult`
 * (`inputRequired` + `elicitForm`). A 2026-07-28 client answers by retrying with `inputResponses`; for a
 * 2025-era client in a session the server sends each question as a server-to-client request
 * (`sampling/createMessage`, `elicitation/create`) on the POST's SSE stream and runs the handler again with
 * the answers. A client that did not declare the capability gets -32021 from the SDK.
 */
import * as v from 'valibot'
import {
  arg,
  elicit,
  elicitForm,
  formSchema,
  inputRequired,
  outcome,
  resolver,
  sample,
  type McpServer,
} from '../../src/server/index.ts'
import type { InputResponse } from '../../src/protocol/schemas/index.ts'
import type { CreateMessageResult, ElicitResult, RequestedSchema } from '../../src/index.ts'

/** The form of `test_elicitation` (scenario tools-call-elicitation). */
const UserInfo = formSchema({
  username: v.pipe(v.string(), v.description("User's response")),
  email: v.pipe(v.string(), v.description("User's email address")),
})

/** A default for every primitive field type (SEP-1034). */
const defaultsForm: RequestedSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', default: true },
  },
}

/** The five enum field variants (SEP-1330): untitled, titled and legacy-titled single select; two multi selects. */
const enumsForm: RequestedSchema = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
    titledMulti: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
}

// resolvers: the SDK asks, checks the answer, and injects it
const llm_reply = resolver({ prompt: arg<string>() }, function llm_reply({ prompt }) {
  return sample(prompt, { maxTokens: 100 })
})
const user_info = resolver({ message: arg<string>() }, function user_info({ message }) {
  return elicit(message, UserInfo)
})

/** The text of a sampling result's first text block ('' when it has none). */
function textOf(result: CreateMessageResult): string {
  const blocks = Array.isArray(result.content) ? result.content : [result.content]
  const text = blocks.find((b) => b.type === 'text')
  return text?.type === 'text' ? text.text : ''
}

/** "Elicitation completed: action=…, content={…}" for an elicitation answer, or undefined for none. */
function completed(response: InputResponse | undefined): string | undefined {
  if (!response || !('action' in response)) return undefined
  const { action, content } = response as ElicitResult
  return `Elicitation completed: action=${action}, content=${JSON.stringify(content ?? {})}`
}

/** Add `test_sampling`, `test_elicitation`, `test_elicitation_sep1034_defaults` and `test_elicitation_sep1330_enums`. */
export function addQuestionTools(mcp: McpServer): void {
  mcp.tool(
    'test_sampling',
    {
      description: "Asks the client's model (sampling/createMessage) to answer the prompt",
      input: { prompt: v.pipe(v.string(), v.description('The prompt to send to the LLM')) },
      use: { reply: llm_reply },
    },
    ({ reply }) => `LLM response: ${textOf(reply)}`,
  )
  mcp.tool(
    'test_elicitation',
    {
      description: 'Asks the user (elicitation/create) for a username and an email address',
      input: { message: v.pipe(v.string(), v.description('The message to show the user')) },
      use: { answer: outcome(user_info) },
    },
    ({ answer }) =>
      `User response: action=${answer.action}, content=${JSON.stringify(answer.action === 'accept' ? answer.value : {})}`,
  )
  mcp.tool(
    'test_elicitation_sep1034_defaults',
    { description: 'Asks the user for a form whose fields all have defaults (SEP-1034)' },
    (_args, ctx) =>
      completed(ctx.inputResponses?.defaults) ??
      inputRequired({ defaults: elicitForm('Please review your details', defaultsForm) }),
  )
  mcp.tool(
    'test_elicitation_sep1330_enums',
    { description: 'Asks the user for a form with every enum variant (SEP-1330)' },
    (_args, ctx) =>
      completed(ctx.inputResponses?.choices) ??
      inputRequired({ choices: elicitForm('Please make your choices', enumsForm) }),
  )
}
