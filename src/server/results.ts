/**
 * Small builders for results and input requests (spec: server/tools.mdx, basic/patterns/mrtr.mdx).
 * @module
 */
import type {
  CallToolResult,
  ElicitRequest,
  InputRequest,
  InputRequiredResult,
  InputResponse,
  RequestedSchema,
} from '../protocol/schemas/index.ts'
import type { RequestStateValue } from '../request-state/claims.ts'
import { checkedRequestedSchema, isFormSchema, type FormSchema } from './resolve/forms.ts'

/**
 * An `InputRequiredResult`: ask the client for input, then expect a retry.
 * @param inputRequests - keyed requests (`elicitForm`, `elicitUrl`, sampling, roots); keys are yours.
 * @param requestState - state for your next round, any JSON value (a string, or an object, array, number
 *   …); `McpServer` seals it on the wire, and the retry reads it back as `ctx.requestState`. A low-level
 *   `Server` without sealing sends it verbatim, so it must be a string there.
 * @example return inputRequired({ region: elicitForm('Which region?', schema) }, 'provision-v1')
 * @example return inputRequired({ ok: elicitForm('Deploy?', schema) }, { step: 2, plan: ['a', 'b'] })
 */
export function inputRequired(
  inputRequests?: Record<string, InputRequest>,
  requestState?: RequestStateValue,
): InputRequiredResult {
  const result: InputRequiredResult = { resultType: 'input_required' }
  if (inputRequests !== undefined) result.inputRequests = inputRequests
  // a non-string state is sealed into a string token before it is sent (see inputRequiredResult)
  if (requestState !== undefined) result.requestState = requestState as string
  return result
}

/** Hand-built `requestedSchema`s already checked (the same object is usually sent on every call). */
const checkedForms = new WeakMap<object, RequestedSchema>()

/**
 * A form-mode `elicitation/create` input request (spec: client/elicitation.mdx). `form` is a
 * `formSchema(…)`, or a `requestedSchema` written by hand: a flat object of the primitive fields the spec
 * allows, checked here as `formSchema` checks its schemas.
 * @throws InvalidSignatureError naming the field that is not a form field (a `pattern`, a `format` other than
 *   email, uri, date or date-time, a nested object, …); inside a tool it becomes an `isError` result.
 */
export function elicitForm(message: string, form: RequestedSchema | FormSchema<unknown>): ElicitRequest {
  let requestedSchema: RequestedSchema
  if (isFormSchema(form)) requestedSchema = form.requestedSchema
  else {
    const known = checkedForms.get(form)
    requestedSchema = known ?? checkedRequestedSchema(form as Record<string, unknown>)
    if (!known) checkedForms.set(form, requestedSchema)
  }
  return { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } }
}

/** A URL-mode `elicitation/create` input request: the user completes it out of band, then the client retries. */
export function elicitUrl(message: string, url: string): ElicitRequest {
  return { method: 'elicitation/create', params: { mode: 'url', message, url } }
}

/** The `content` of an accepted elicitation answer, or undefined for a decline, cancel, or anything else. */
export function acceptedContent(
  response: InputResponse | undefined,
): Record<string, string | number | boolean | string[]> | undefined {
  if (response && 'action' in response && response.action === 'accept' && response.content) {
    return response.content as Record<string, string | number | boolean | string[]>
  }
  return undefined
}

/** A `CallToolResult` with one text block. */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] }
}

/** A `CallToolResult` with `isError: true` and one text block: a tool failure the model can read. */
export function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}

/**
 * True when a result object is an `InputRequiredResult`.
 * @internal not in the public API: the server's own check; a client reads `resultType`
 */
export function isInputRequired(result: unknown): result is InputRequiredResult {
  return (
    typeof result === 'object' &&
    result !== null &&
    (result as { resultType?: unknown }).resultType === 'input_required'
  )
}
