/**
 * Dependency injection for handler parameters: values the model must never supply (stock levels,
 * prices, identities, a human's confirmation) are filled by resolver functions the server runs before
 * the handler. A resolver may ask a question — `elicit` (the user), `sample` (the client's model) or
 * `listRoots` (the client's roots) — and the SDK carries it over multi-round-trip requests
 * (spec: basic/patterns/mrtr.mdx), recording each answer in the sealed `requestState`, pinned to the
 * exact question the client saw. Semantics: the Python SDK's, as studied in the project's shared reference
 * (`python-sdk-semantics.md` §C).
 *
 * Layout: `needs.ts` (what `use` may declare), `questions.ts` and `forms.ts` (what a resolver may ask),
 * `resolver.ts` (`resolver()` and its compile-time checks), `plan.ts` (registration), `run.ts` and
 * `answers.ts` (one round, and the state carried between rounds), `errors.ts`.
 *
 * This file: what a resolver or a handler's `use` may declare: `arg()`, `context()`, `outcome(resolver)`, and the
 * {@link Resolver} shape that `resolver()` (in `resolver.ts`) builds. Each need is tagged with a
 * registry symbol, so needs made by another copy of the SDK are still recognised.
 * @module
 */
import { InvalidSignatureError } from '../errors.ts'

/** Tags every need with its kind (a registry symbol: needs from another copy of the SDK still match). */
export const KIND = Symbol.for('edge-mcp.need')
/**
 * Where a resolver carries the planner of the graphs it is in (`planResolvers`, whose plans carry the
 * round runner): only code that makes resolvers reaches them, so a server without any bundles neither.
 */
export const PLANNER = Symbol.for('edge-mcp.planner')

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
/** What a handler's `use` may hold: resolvers and outcomes of resolvers, by parameter name. */
export type Uses = Record<string, AnyResolver | OutcomeNeed>
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
      return { [KIND]: 'arg', name }
    },
  }
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

/** The kind of a need, or undefined for anything that is not one. */
export function kindOf(need: unknown): 'arg' | 'context' | 'outcome' | 'resolver' | undefined {
  return typeof need === 'object' && need !== null
    ? ((need as Record<symbol, unknown>)[KIND] as 'arg' | undefined)
    : undefined
}
/** True for a resolver made by `resolver()`. */
export function isResolver(x: unknown): x is AnyResolver {
  return kindOf(x) === 'resolver'
}
