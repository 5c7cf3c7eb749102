/**
 * Dependency injection for handler parameters: values the model must never supply (stock levels,
 * prices, identities, a human's confirmation) are filled by resolver functions the server runs before
 * the handler. A resolver may ask a question — `elicit` (the user), `sample` (the client's model) or
 * `listRoots` (the client's roots) — and the SDK carries it over multi-round-trip requests
 * (spec: basic/patterns/mrtr.mdx), recording each answer in the sealed `requestState`, pinned to the
 * exact question the client saw. Semantics: python-sdk-semantics.md §C.
 * @module
 */
import * as v from 'valibot'
import { toJsonSchema } from '@valibot/to-json-schema'
import {
  REQUIRED_CAPABILITY_DATA,
  capabilitiesNeededBy,
  hasCapability,
  type RequiredCapability,
} from '../protocol/envelope.ts'
import { missingCapabilityError, ServerError } from '../protocol/errors.ts'
import { describeIssue } from '../protocol/issues.ts'
import {
  CreateMessageResult,
  ElicitResult,
  ListRootsResult,
  RequestedSchema,
  type CreateMessageRequestParams,
  type InputRequest,
  type InputRequiredResult,
  type InputResponses,
} from '../protocol/schemas.ts'
import { canonicalJson, digest16 } from '../encoding/canonical.ts'
import type { RequestContext } from './context.ts'

// ------------------------------------------------------------------------------------------ errors

/** A resolver graph or a form schema that cannot work, found when it is declared or registered. */
export class InvalidSignatureError extends ServerError {
  constructor(message: string, options?: ErrorOptions) {
    super('InvalidSignatureError', 'ERR_INVALID_SIGNATURE', message, options)
  }
}

/** A resolver could not produce a value (decline, cancel, a wrong answer): the call ends as a tool error. */
export class ResolutionError extends ServerError {
  constructor(message: string, options?: ErrorOptions) {
    super('ResolutionError', 'ERR_RESOLUTION', message, options)
  }
}

// ------------------------------------------------------------------------------------------ needs

const KIND = Symbol.for('edge-mcp.need')

/** A need for a handler argument, by the need's key (or the `name` given). */
export interface ArgNeed<T = unknown, Name extends string = never> {
  readonly [KIND]: 'arg'
  readonly name: string | undefined
  /** Type-only: the argument's type. */
  readonly __type?: T
  readonly __name?: Name
}

/** A need for the request context (headers, auth info, env bindings, signal, capabilities). */
export interface ContextNeed {
  readonly [KIND]: 'context'
}

/** A need for a resolver's full outcome (accept / decline / cancel) instead of its value. */
export interface OutcomeNeed<R extends AnyResolver = AnyResolver> {
  readonly [KIND]: 'outcome'
  readonly resolver: R
}

/** A resolver: a function of its needs whose value (or answered question) is injected. */
export interface Resolver<Out = unknown, Args = unknown> {
  readonly [KIND]: 'resolver'
  /** The wire key stem of its question and the name used in errors. */
  readonly name: string
  readonly needs: Readonly<Record<string, Need>>
  readonly fn: (values: Record<string, unknown>) => unknown
  /** Type-only. */
  readonly __out?: Out
  readonly __args?: Args
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- variance hole for "any resolver"
export type AnyResolver = Resolver<any, any>
/** Anything a resolver or a handler's `use` may declare. */
export type Need = ArgNeed<unknown, string> | ContextNeed | OutcomeNeed | AnyResolver

/** An {@link ArgNeed} by its own key, which can also name another argument with `.from(name)`. */
export interface ArgBuilder<T> extends ArgNeed<T, never> {
  /** Take the value of the argument called `name` instead of the need's own key. */
  from<Name extends string>(name: Name): ArgNeed<T, Name>
}

/**
 * A need for a handler argument, matched by the need's own key; `.from('other')` takes another argument.
 * The type parameter is the argument's type (`unknown` when omitted); an optional argument is
 * `arg<string | undefined>()`.
 * @example resolver({ title: arg<string>() }, ({ title }) => lookup(title))
 * @example resolver({ t: arg<string>().from('title') }, ({ t }) => lookup(t))
 */
export function arg<T = unknown>(): ArgBuilder<T> {
  return {
    [KIND]: 'arg',
    name: undefined,
    from<Name extends string>(name: Name): ArgNeed<T, Name> {
      return { [KIND]: 'arg', name } as ArgNeed<T, Name>
    },
  } as ArgBuilder<T>
}

/**
 * A need for the request context.
 * @example resolver({ ctx: context() }, ({ ctx }) => ctx.authInfo?.subject)
 */
export function context(): ContextNeed {
  return { [KIND]: 'context' }
}

/**
 * Receive a resolver's full outcome — `{ action: 'accept', value }`, `{ action: 'decline' }` or
 * `{ action: 'cancel' }` — instead of its value, to branch on a refusal instead of failing the call.
 */
export function outcome<R extends AnyResolver>(r: R): OutcomeNeed<R> {
  if (!isResolver(r)) throw new InvalidSignatureError('outcome() takes a resolver')
  return { [KIND]: 'outcome', resolver: r }
}

function kindOf(need: unknown): 'arg' | 'context' | 'outcome' | 'resolver' | undefined {
  return typeof need === 'object' && need !== null
    ? ((need as Record<symbol, unknown>)[KIND] as 'arg' | undefined)
    : undefined
}
function isResolver(x: unknown): x is AnyResolver {
  return kindOf(x) === 'resolver'
}

// ------------------------------------------------------------------------------------------ questions

const QUESTION = Symbol.for('edge-mcp.question')

/** A form schema for `elicit`: checked against the spec's form subset when it is made. */
export interface FormSchema<S extends v.GenericSchema = v.GenericSchema> {
  readonly valibot: S
  /** The `requestedSchema` sent to the client. */
  readonly requestedSchema: RequestedSchema
}

interface ElicitQuestion<S extends v.GenericSchema = v.GenericSchema> {
  readonly [QUESTION]: 'elicit'
  readonly message: string
  readonly form: FormSchema<S>
}
interface UrlQuestion {
  readonly [QUESTION]: 'url'
  readonly message: string
  readonly url: string
}
interface SampleQuestion {
  readonly [QUESTION]: 'sample'
  readonly params: CreateMessageRequestParams
}
interface RootsQuestion {
  readonly [QUESTION]: 'roots'
}
/** What a resolver returns to ask instead of answer. */
export type Question = ElicitQuestion | UrlQuestion | SampleQuestion | RootsQuestion

const FORMATS = new Set(['email', 'uri', 'date', 'date-time'])
const formCache = new WeakMap<object, FormSchema>()

/**
 * A form schema for {@link elicit}: a valibot object (or its entries) whose fields are the spec's
 * primitives — string (minLength, maxLength; formats email, uri, date, date-time), number, integer
 * (minimum, maximum), boolean, single-select enum (`v.picklist`) and multi-select enum
 * (`v.array(v.picklist(...))`). Call it at module level: a schema outside the subset throws at start-up.
 * @throws InvalidSignatureError naming the field that leaves the form subset.
 * @example const Backorder = formSchema({ confirm: v.pipe(v.boolean(), v.description('Order anyway and wait?')) })
 */
export function formSchema<S extends v.ObjectEntries | v.GenericSchema>(
  schema: S,
): FormSchema<S extends v.GenericSchema ? S : v.ObjectSchema<Extract<S, v.ObjectEntries>, undefined>> {
  const valibot = (
    typeof schema === 'object' && (schema as { kind?: unknown }).kind === 'schema'
      ? schema
      : v.object(schema as v.ObjectEntries)
  ) as v.GenericSchema
  const cached = formCache.get(valibot)
  if (cached) return cached as never
  let converted: Record<string, unknown>
  try {
    // 'throw': a check the client cannot see (v.check, v.transform, …) could never be satisfied by a form
    converted = toJsonSchema(valibot, { target: 'draft-2020-12', typeMode: 'input', errorMode: 'throw' }) as Record<
      string,
      unknown
    >
  } catch (error) {
    throw new InvalidSignatureError(
      `An elicitation form schema can hold only what JSON Schema forms express: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  const { $schema: _drop, ...json } = converted
  if (json.type !== 'object' || typeof json.properties !== 'object' || json.properties === null) {
    throw new InvalidSignatureError('An elicitation form schema must be an object of primitive fields')
  }
  const properties: Record<string, unknown> = {}
  for (const [field, prop] of Object.entries(json.properties as Record<string, Record<string, unknown>>)) {
    const normalized = normalizeField(prop)
    const problem = formFieldProblem(normalized)
    if (problem) throw new InvalidSignatureError(`Elicitation form field '${field}' ${problem}`)
    properties[field] = normalized
  }
  const parsed = v.safeParse(RequestedSchema, {
    type: 'object',
    properties,
    ...(Array.isArray(json.required) && json.required.length ? { required: json.required } : {}),
  })
  if (!parsed.success) throw new InvalidSignatureError(`Elicitation form schema: ${describeIssue(parsed.issues[0])}`)
  const requestedSchema = parsed.output
  const form: FormSchema = { valibot, requestedSchema }
  formCache.set(valibot, form)
  return form as never
}

/** Keywords a form field may carry (spec: client/elicitation.mdx `PrimitiveSchemaDefinition`). */
const FIELD_KEYWORDS = new Set([
  'type',
  'title',
  'description',
  'default',
  'minLength',
  'maxLength',
  'format',
  'minimum',
  'maximum',
  'enum',
  'enumNames',
  'oneOf',
  'items',
  'minItems',
  'maxItems',
])

/** A multi-select of untitled literals (`v.array(v.union([v.literal('x'), …]))`) becomes the spec's enum form. */
function normalizeField(prop: Record<string, unknown>): Record<string, unknown> {
  const items = prop.items as Record<string, unknown> | undefined
  if (prop.type === 'array' && items && Array.isArray(items.anyOf)) {
    const options = items.anyOf as Array<Record<string, unknown>>
    if (options.every((o) => typeof o.const === 'string' && o.title === undefined)) {
      return { ...prop, items: { type: 'string', enum: options.map((o) => o.const) } }
    }
  }
  return prop
}

function formFieldProblem(prop: Record<string, unknown>): string | undefined {
  const problem = fieldTypeProblem(prop)
  if (problem) return problem
  const extra = Object.keys(prop).filter((k) => !FIELD_KEYWORDS.has(k))
  if (extra.length) return `uses ${extra.map((k) => `'${k}'`).join(', ')}, which elicitation forms do not support`
  return undefined
}

function fieldTypeProblem(prop: Record<string, unknown>): string | undefined {
  const type = prop.type
  if (Array.isArray(prop.enum))
    return prop.enum.every((e) => typeof e === 'string') ? undefined : 'has a non-string enum value'
  if (Array.isArray(prop.oneOf)) return undefined
  switch (type) {
    case 'string':
      if (prop.format !== undefined && !FORMATS.has(String(prop.format)))
        return `has format '${String(prop.format)}' (allowed: email, uri, date, date-time)`
      return undefined
    case 'number':
    case 'integer':
    case 'boolean':
      return undefined
    case 'array': {
      const items = (prop.items ?? {}) as Record<string, unknown>
      if (Array.isArray(items.enum) || Array.isArray(items.anyOf)) return undefined
      return 'is an array that is not a multi-select enum'
    }
    default:
      return `has type ${JSON.stringify(type ?? 'unknown')}; a form field is a string, number, integer, boolean or enum`
  }
}

/**
 * Ask the user: return `elicit(message, form)` from a resolver, with a `formSchema(...)` made at module
 * level. The consumer receives the validated content; a decline or cancel fails the call unless the
 * consumer asked for `outcome(resolver)`. An answer that does not fit the form is asked again, at most
 * twice; then the call fails. `elicit.url(message, url)` asks in URL mode (the consumer gets `true` once
 * the user consented).
 * @throws InvalidSignatureError for a form not made by `formSchema`, or a URL that is not absolute http(s).
 */
export const elicit: {
  <S extends v.GenericSchema>(message: string, form: FormSchema<S>): ElicitQuestion<S>
  url(message: string, url: string): UrlQuestion
} = Object.assign(
  <S extends v.GenericSchema>(message: string, form: FormSchema<S>): ElicitQuestion<S> => {
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

function isFormSchema(x: unknown): x is FormSchema {
  return typeof x === 'object' && x !== null && 'requestedSchema' in x && 'valibot' in x
}

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

function questionOf(x: unknown): Question | undefined {
  return typeof x === 'object' && x !== null && QUESTION in x ? (x as Question) : undefined
}

// ------------------------------------------------------------------------------------------ types

type UnionToIntersection<U> = (U extends unknown ? (k: U) => void : never) extends (k: infer I) => void ? I : never

/** The value a question resolves to. */
export type Answered<R> =
  R extends ElicitQuestion<infer S>
    ? v.InferOutput<S>
    : R extends UrlQuestion
      ? true
      : R extends SampleQuestion
        ? CreateMessageResult
        : R extends RootsQuestion
          ? ListRootsResult
          : R

/** The full outcome of a resolver. */
export type Outcome<T> = { action: 'accept'; value: T } | { action: 'decline' } | { action: 'cancel' }

/** The value a need injects. */
export type NeedValue<N> =
  N extends ArgNeed<infer T, any>
    ? T
    : N extends ContextNeed
      ? RequestContext
      : N extends OutcomeNeed<infer R>
        ? Outcome<ResolvedOf<R>>
        : N extends Resolver<infer O, any>
          ? O
          : never
/** The values of a needs map. */
export type NeedValues<N> = { [K in keyof N]: NeedValue<N[K]> }
/** The value a resolver injects. */
export type ResolvedOf<R> = R extends Resolver<infer O, any> ? O : never

/** The handler arguments a single need requires (by name and type). */
export type ArgsOfNeed<K, N> =
  N extends ArgNeed<infer T, infer Name>
    ? undefined extends T
      ? { [P in [Name] extends [never] ? K & string : Name]?: T }
      : { [P in [Name] extends [never] ? K & string : Name]: T }
    : N extends OutcomeNeed<infer R>
      ? ArgsOfResolver<R>
      : N extends Resolver<any, infer A>
        ? A
        : unknown
/** The handler arguments a resolver (and everything it depends on) requires. */
export type ArgsOfResolver<R> = R extends Resolver<any, infer A> ? A : unknown
/** The handler arguments a needs map requires. */
export type ArgsOfNeeds<N> = [keyof N] extends [never]
  ? unknown
  : UnionToIntersection<{ [K in keyof N]: ArgsOfNeed<K, N[K]> }[keyof N]>

/** What a handler's `use` may hold: resolvers and outcomes of resolvers, by parameter name. */
export type Uses = Record<string, AnyResolver | OutcomeNeed>

/**
 * Compile-time check of a handler's `use` against its arguments `A`: each resolver's argument needs
 * must be satisfied by `A` (by name and type), and no resolved name may shadow an argument.
 */
export type CheckedUses<A, U> = {
  [K in keyof U]: K extends keyof A
    ? `'${K & string}' is both an argument and a resolved parameter`
    : A extends ArgsOfNeed<K, U[K]>
      ? U[K]
      : `resolver for '${K & string}' needs arguments this handler does not declare (or declares with other types)`
}

/**
 * Declare a resolver: `needs` maps names to `arg()`, `context()`, other resolvers or `outcome(r)`;
 * `fn` receives their values and returns a value, or a question (`elicit`, `elicit.url`, `sample`,
 * `listRoots`). Sync or async. It runs at most once per round of a call, whatever its consumers.
 *
 * @param options.name - the wire key stem and error name (default: `fn.name`; required for an anonymous
 *   function). Keys must be identical on every instance and every deploy that may serve a retry, so set
 *   it explicitly when your bundler minifies function names.
 * @throws InvalidSignatureError when there is no name, or it is not `[A-Za-z0-9_.:-]+`.
 * @example
 * const checkStock = resolver({ title: arg<string>() }, ({ title }) => ({ title, copies: INVENTORY[title] ?? 0 }))
 */
export function resolver<const N extends Record<string, Need>, R>(
  needs: N,
  fn: (values: NeedValues<N>) => R | Promise<R>,
  options: { name?: string } = {},
): Resolver<Answered<Awaited<R>>, ArgsOfNeeds<N>> {
  if (typeof needs !== 'object' || needs === null)
    throw new InvalidSignatureError('resolver() takes a needs object and a function')
  if (typeof fn !== 'function') throw new InvalidSignatureError('resolver() takes a function as its second argument')
  const name = options.name ?? fn.name
  if (!name) {
    throw new InvalidSignatureError(
      'resolver() needs a named function (function checkStock() {…}) or { name }: the name keys its question on the wire',
    )
  }
  if (!/^[A-Za-z0-9_.:-]+$/.test(name))
    throw new InvalidSignatureError(`Resolver name '${name}' must match [A-Za-z0-9_.:-]+`)
  return { [KIND]: 'resolver', name, needs, fn: fn as (values: Record<string, unknown>) => unknown } as Resolver<
    Answered<Awaited<R>>,
    ArgsOfNeeds<N>
  >
}

// ------------------------------------------------------------------------------------------ plan

/** A handler's resolver graph, checked and keyed at registration. */
export interface ResolverPlan {
  /** The handler's resolved parameters, in declaration order. */
  readonly uses: ReadonlyArray<readonly [string, AnyResolver | OutcomeNeed]>
  /** Resolver → its stable wire key (`name`, `name#1`, … in DFS order). */
  readonly keys: ReadonlyMap<AnyResolver, string>
  /** Names of the resolved parameters (removed from arguments, hidden from the schema). */
  readonly resolvedNames: ReadonlySet<string>
}

/**
 * Check a handler's resolver graph and assign stable question keys.
 * @param owner - e.g. `tool 'order_book'`, for messages.
 * @param argNames - the handler's argument names, or undefined when they cannot be known.
 * @throws InvalidSignatureError naming the culprit: an unknown argument, a need of the wrong kind, a
 *   cycle (naming the resolvers in it), or a resolved name that collides with an argument.
 */
export function planResolvers(owner: string, argNames: ReadonlySet<string> | undefined, use: Uses): ResolverPlan {
  const uses: Array<readonly [string, AnyResolver | OutcomeNeed]> = []
  const keys = new Map<AnyResolver, string>()
  const taken = new Set<string>()
  const done = new Set<AnyResolver>()
  const visit = (r: AnyResolver, stack: AnyResolver[]) => {
    if (stack.includes(r)) {
      const cycle = [...stack.slice(stack.indexOf(r)), r].map((x) => x.name).join(' → ')
      throw new InvalidSignatureError(`${owner}: resolver '${r.name}' has a cyclic dependency (${cycle})`)
    }
    if (done.has(r)) return
    for (const [param, need] of Object.entries(r.needs)) {
      switch (kindOf(need)) {
        case 'arg': {
          const argName = (need as ArgNeed).name ?? param
          if (argNames && !argNames.has(argName)) {
            throw new InvalidSignatureError(
              `${owner}: resolver '${r.name}' parameter '${param}' needs argument '${argName}', which ${owner} does not declare`,
            )
          }
          break
        }
        case 'context':
          break
        case 'resolver':
          visit(need as AnyResolver, [...stack, r])
          break
        case 'outcome':
          visit((need as OutcomeNeed).resolver, [...stack, r])
          break
        default:
          throw new InvalidSignatureError(
            `${owner}: resolver '${r.name}' parameter '${param}' cannot be resolved: expected arg(), context(), a resolver or outcome(resolver)`,
          )
      }
    }
    done.add(r)
    let key = r.name
    for (let i = 1; taken.has(key); i++) key = `${r.name}#${i}`
    taken.add(key)
    keys.set(r, key)
  }
  for (const [param, need] of Object.entries(use)) {
    if (argNames?.has(param))
      throw new InvalidSignatureError(`${owner}: '${param}' is both an argument and a resolved parameter`)
    const kind = kindOf(need)
    if (kind === 'resolver') visit(need as AnyResolver, [])
    else if (kind === 'outcome') visit((need as OutcomeNeed).resolver, [])
    else throw new InvalidSignatureError(`${owner}: use.${param} must be a resolver or outcome(resolver)`)
    uses.push([param, need])
  }
  return { uses, keys, resolvedNames: new Set(uses.map(([p]) => p)) }
}

// ------------------------------------------------------------------------------------------ run

/** One recorded answer in the state: its action, the raw answer, and the digest of the question. */
interface Recorded {
  action: 'accept' | 'decline' | 'cancel'
  data?: unknown
  q: string
}
interface ResolverState {
  v: 1
  outcomes: Record<string, Recorded>
  asked: Record<string, string>
  /** How often each question was asked again because its answer did not fit. */
  reasked?: Record<string, number>
}

/** How often a question whose answer does not fit its form is asked again before the call fails. */
export const MAX_REASKS = 2

type Result =
  { kind: 'value'; value: unknown } | { kind: 'refused'; action: 'decline' | 'cancel' } | { kind: 'pending' }

/** What one round of resolution produced. */
export type Resolution =
  { status: 'ready'; values: Record<string, unknown> } | { status: 'input_required'; result: InputRequiredResult }

/** Inputs of one round. */
export interface RoundInput {
  plan: ResolverPlan
  args: Record<string, unknown>
  ctx: RequestContext
  inputResponses: InputResponses | undefined
  /** The plaintext state of the previous round (already verified by the sealing boundary). */
  requestState: string | undefined
  /** Log-only notes (e.g. a discarded stale answer). */
  note?: (message: string) => void
}

/**
 * Run one round: every resolver at most once (independent ones concurrently); every question that is
 * ready goes out together, keyed in plan order; answers are taken only for the exact question asked last
 * round and recorded (validated) in the next state.
 * @throws ResolutionError for a refused question consumed as a plain value, a wrong-kind answer, or an
 *   answer that still does not fit its form after {@link MAX_REASKS} re-asks.
 * @throws McpError -32021 when a question needs a capability this request's client did not declare.
 */
export async function resolveRound(input: RoundInput): Promise<Resolution> {
  const { plan, args, ctx, inputResponses } = input
  const state = readState(input.requestState)
  const next: ResolverState = { v: 1, outcomes: {}, asked: {} }
  const pending = new Map<string, InputRequest>()
  const memo = new Map<AnyResolver, Promise<Result>>()

  const run = (r: AnyResolver): Promise<Result> => {
    let p = memo.get(r)
    if (!p) {
      p = evaluate(r)
      memo.set(r, p)
    }
    return p
  }

  /** Resolve a needs map concurrently; `blocked` when any dependency is still waiting for an answer. */
  const gather = async (
    needs: ReadonlyArray<readonly [string, Need]>,
  ): Promise<{ blocked: boolean; values: Record<string, unknown> }> => {
    const settled = await Promise.all(
      needs.map(async ([param, need]): Promise<{ param: string; blocked: boolean; value?: unknown }> => {
        switch (kindOf(need)) {
          case 'arg':
            return { param, blocked: false, value: args[(need as ArgNeed).name ?? param] }
          case 'context':
            return { param, blocked: false, value: ctx }
          default: {
            const wantsOutcome = kindOf(need) === 'outcome'
            const r = await run(wantsOutcome ? (need as OutcomeNeed).resolver : (need as AnyResolver))
            if (r.kind === 'pending') return { param, blocked: true }
            if (wantsOutcome)
              return {
                param,
                blocked: false,
                value: r.kind === 'value' ? { action: 'accept', value: r.value } : { action: r.action },
              }
            if (r.kind === 'refused')
              throw new ResolutionError(
                `Resolver for parameter '${param}' could not resolve: elicitation was ${r.action}`,
              )
            return { param, blocked: false, value: r.value }
          }
        }
      }),
    )
    const values: Record<string, unknown> = {}
    let blocked = false
    for (const s of settled) {
      if (s.blocked) blocked = true
      else values[s.param] = s.value
    }
    return { blocked, values }
  }

  const evaluate = async (r: AnyResolver): Promise<Result> => {
    const { blocked, values } = await gather(Object.entries(r.needs)) // siblings are still visited when one pends
    if (blocked) return { kind: 'pending' }
    const produced = await r.fn(values)
    const question = questionOf(produced)
    if (!question) return { kind: 'value', value: produced }
    return ask(r, question)
  }

  const ask = async (r: AnyResolver, question: Question): Promise<Result> => {
    const key = plan.keys.get(r)!
    const request = render(question)
    const q = await digest16(canonicalJson(request))
    // 1. a recorded answer to this exact question (only consulted because the resolver asked)
    const recorded = state.outcomes[key]
    if (recorded && recorded.q === q) {
      const restored = restore(question, recorded)
      if (restored) {
        next.outcomes[key] = recorded
        return restored
      }
    }
    // 2. a fresh answer, only to the exact question shown last round
    const answer = inputResponses?.[key]
    if (answer !== undefined) {
      if (state.asked[key] === q) {
        const taken = take(key, question, answer)
        if (taken) {
          next.outcomes[key] = { ...taken.recorded, q }
          return taken.result
        }
        const reasked = (state.reasked?.[key] ?? 0) + 1
        if (reasked > MAX_REASKS)
          throw new ResolutionError(
            `Resolver '${key}' received an accepted elicitation whose content does not match the requested schema`,
          )
        ;(next.reasked ??= {})[key] = reasked
      } else {
        const why =
          state.asked[key] === undefined
            ? 'it was never asked in a round this request carries the requestState of'
            : 'the question changed since it was asked'
        input.note?.(`Discarding the answer for resolver '${key}': ${why}`)
      }
    }
    // 3. ask (if this client can be asked)
    for (const n of capabilitiesNeededBy(request)) {
      if (!hasCapability(ctx.clientCapabilities, n)) {
        throw missingCapabilityError(
          REQUIRED_CAPABILITY_DATA[n],
          `Client did not declare the ${CAP_LABEL[n]} capability required by resolver '${key}'`,
        )
      }
    }
    pending.set(key, request)
    next.asked[key] = q
    return { kind: 'pending' }
  }

  const { blocked, values } = await gather(plan.uses)
  if (pending.size > 0 || blocked) {
    const inputRequests: Record<string, InputRequest> = {}
    for (const key of plan.keys.values()) if (pending.has(key)) inputRequests[key] = pending.get(key)! // plan order: deterministic
    return {
      status: 'input_required',
      result: { resultType: 'input_required', inputRequests, requestState: JSON.stringify(next) },
    }
  }
  return { status: 'ready', values }
}

function render(question: Question): InputRequest {
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

/** Rebuild a recorded outcome against the live question; undefined means "ask again". */
function restore(question: Question, recorded: Recorded): Result | undefined {
  if (recorded.action !== 'accept') {
    return question[QUESTION] === 'elicit' || question[QUESTION] === 'url'
      ? { kind: 'refused', action: recorded.action }
      : undefined
  }
  return accepted(question, recorded.data)?.result
}

/** Validate an accepted answer: the injected value, and the trimmed data to record (only known fields). */
function accepted(question: Question, data: unknown): { result: Result; data: unknown } | undefined {
  switch (question[QUESTION]) {
    case 'elicit': {
      const parsed = v.safeParse(question.form.valibot, data ?? {})
      return parsed.success ? { result: { kind: 'value', value: parsed.output }, data: parsed.output } : undefined
    }
    case 'url':
      return { result: { kind: 'value', value: true }, data: undefined }
    case 'sample': {
      if (!v.is(CreateMessageResult, data)) return undefined
      const { role, content, model, stopReason } = data
      const trimmed = stopReason === undefined ? { role, content, model } : { role, content, model, stopReason }
      return { result: { kind: 'value', value: trimmed }, data: trimmed }
    }
    case 'roots': {
      if (!v.is(ListRootsResult, data)) return undefined
      const trimmed = {
        roots: data.roots.map((r) => (r.name === undefined ? { uri: r.uri } : { uri: r.uri, name: r.name })),
      }
      return { result: { kind: 'value', value: trimmed }, data: trimmed }
    }
  }
}

/** Take a fresh answer: a result and what to record, or undefined to ask again (content that does not fit). */
function take(
  key: string,
  question: Question,
  answer: unknown,
): { result: Result; recorded: Omit<Recorded, 'q'> } | undefined {
  const kind = question[QUESTION]
  if (kind === 'elicit' || kind === 'url') {
    const parsed = v.safeParse(ElicitResult, answer)
    if (!parsed.success || !('action' in (answer as object)))
      throw new ResolutionError(`Resolver '${key}' received a non-elicitation response`)
    const action = parsed.output.action
    if (action !== 'accept') return { result: { kind: 'refused', action }, recorded: { action } }
    const ok = accepted(question, kind === 'url' ? undefined : parsed.output.content)
    if (!ok) return undefined // content missing or not matching the form: ask again
    return { result: ok.result, recorded: ok.data === undefined ? { action } : { action, data: ok.data } }
  }
  if (typeof answer === 'object' && answer !== null && 'action' in answer)
    throw new ResolutionError(`Resolver '${key}' received a response of the wrong kind`)
  const ok = accepted(question, answer)
  if (!ok)
    throw new ResolutionError(
      `Resolver '${key}' received a response of the wrong kind: ${describeShape(question, answer)}`,
    )
  return { result: ok.result, recorded: { action: 'accept', data: ok.data } }
}

function describeShape(question: Question, answer: unknown): string {
  const schema = question[QUESTION] === 'sample' ? CreateMessageResult : ListRootsResult
  const parsed = v.safeParse(schema, answer)
  return parsed.success ? 'ok' : describeIssue(parsed.issues[0])
}

function readState(plaintext: string | undefined): ResolverState {
  const empty: ResolverState = { v: 1, outcomes: {}, asked: {} }
  if (!plaintext) return empty
  try {
    const parsed = JSON.parse(plaintext) as Partial<ResolverState>
    if (
      parsed?.v !== 1 ||
      typeof parsed.outcomes !== 'object' ||
      typeof parsed.asked !== 'object' ||
      !parsed.outcomes ||
      !parsed.asked
    )
      return empty
    const outcomes: Record<string, Recorded> = {}
    for (const [k, rec] of Object.entries(parsed.outcomes)) {
      if (
        rec &&
        typeof rec.q === 'string' &&
        (rec.action === 'accept' || rec.action === 'decline' || rec.action === 'cancel')
      )
        outcomes[k] = rec
    }
    const asked: Record<string, string> = {}
    for (const [k, q] of Object.entries(parsed.asked)) if (typeof q === 'string') asked[k] = q
    const reasked: Record<string, number> = {}
    for (const [k, n] of Object.entries(parsed.reasked ?? {})) if (Number.isInteger(n) && n > 0) reasked[k] = n
    return { v: 1, outcomes, asked, reasked }
  } catch {
    return empty // tolerant: a state from another deploy means "no progress", not an error
  }
}

const CAP_LABEL: Record<RequiredCapability, string> = {
  'elicitation.form': 'form elicitation',
  'elicitation.url': 'URL elicitation',
  sampling: 'sampling',
  'sampling.tools': 'sampling.tools',
  'sampling.context': 'sampling.context',
  roots: 'roots',
}
