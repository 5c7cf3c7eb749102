/**
 * The questions a resolver may return instead of a value — `elicit` (the user), `elicit.url`, `sample`
 * (the client's model), `listRoots` (the client's roots) — and how each is put on the wire as an
 * `InputRequest` (spec: basic/patterns/mrtr.mdx).
 * @module
 */
import type { CreateMessageRequestParams, InputRequest } from '../../protocol/schemas/index.ts'
import { InvalidSignatureError } from '../errors.ts'
import { isFormSchema, type FormSchema } from './forms.ts'

/** Tags every question with its kind (a registry symbol, like the needs' `KIND`). */
export const QUESTION = Symbol.for('edge-mcp.question')

/** Ask the user to fill a form (`elicitation/create`, mode `form`). */
export interface ElicitQuestion<T = Record<string, unknown>> {
  readonly [QUESTION]: 'elicit'
  readonly message: string
  readonly form: FormSchema<T>
}
/** Ask the user to visit a URL (`elicitation/create`, mode `url`). */
export interface UrlQuestion {
  readonly [QUESTION]: 'url'
  readonly message: string
  readonly url: string
}
/** Ask the client's model (`sampling/createMessage`). */
export interface SampleQuestion {
  readonly [QUESTION]: 'sample'
  readonly params: CreateMessageRequestParams
}
/** Ask for the client's roots (`roots/list`). */
export interface RootsQuestion {
  readonly [QUESTION]: 'roots'
}
/** What a resolver returns to ask instead of answer. */
export type Question = ElicitQuestion | UrlQuestion | SampleQuestion | RootsQuestion

/**
 * Ask the user: return `elicit(message, form)` from a resolver, with a `formSchema(...)` made at module
 * level. The consumer receives the validated content; a decline or cancel fails the call unless the
 * consumer asked for `outcome(resolver)`. An answer that does not fit the form is asked again, at most
 * twice; then the call fails. `elicit.url(message, url)` asks in URL mode (the consumer gets `true` once
 * the user consented).
 * @throws InvalidSignatureError for a form not made by `formSchema`, or a URL that is not absolute http(s).
 */
export const elicit: {
  <T>(message: string, form: FormSchema<T>): ElicitQuestion<T>
  url(message: string, url: string): UrlQuestion
} = Object.assign(
  <T>(message: string, form: FormSchema<T>): ElicitQuestion<T> => {
    if (!isFormSchema(form))
      throw new InvalidSignatureError('elicit() takes a form made with formSchema(), checked once at start-up')
    return { [QUESTION]: 'elicit', message, form }
  },
  {
    url(message: string, url: string): UrlQuestion {
      let parsed: URL
      try {
        parsed = new URL(url)
      } catch {
        throw new InvalidSignatureError(`elicit.url() needs an absolute URL, got '${url}'`)
      }
      if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
        throw new InvalidSignatureError(`elicit.url() needs an http(s) URL, got '${url}'`)
      return { [QUESTION]: 'url', message, url }
    },
  },
)

/**
 * Ask the client's model: return `sample(...)` from a resolver; the consumer receives the
 * `CreateMessageResult`. A string is one user message.
 * @example sample(`Suggest one ${genre} book title. Answer with the title only.`, { maxTokens: 50 })
 */
export function sample(
  request: string | CreateMessageRequestParams,
  options: Partial<CreateMessageRequestParams> = {},
): SampleQuestion {
  const params: CreateMessageRequestParams =
    typeof request === 'string'
      ? { maxTokens: 256, ...options, messages: [{ role: 'user', content: { type: 'text', text: request } }] }
      : { ...request, ...options }
  return { [QUESTION]: 'sample', params }
}

/** Ask for the client's roots: return `listRoots()` from a resolver; the consumer receives `ListRootsResult`. */
export function listRoots(): RootsQuestion {
  return { [QUESTION]: 'roots' }
}

/** The question a resolver returned, or undefined when it returned a value. */
export function questionOf(x: unknown): Question | undefined {
  return typeof x === 'object' && x !== null && QUESTION in x ? (x as Question) : undefined
}

/** The `InputRequest` that puts a question on the wire. */
export function render(question: Question): InputRequest {
  switch (question[QUESTION]) {
    case 'elicit':
      return {
        method: 'elicitation/create',
        params: { mode: 'form', message: question.message, requestedSchema: question.form.requestedSchema },
      }
    case 'url':
      return { method: 'elicitation/create', params: { mode: 'url', message: question.message, url: question.url } }
    case 'sample':
      return { method: 'sampling/createMessage', params: question.params }
    case 'roots':
      return { method: 'roots/list' }
  }
}
