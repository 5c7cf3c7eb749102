/**
 * Declaring a resolver — `resolver(needs, fn)` — and the types that check a handler's `use` against its
 * arguments at compile time: what each need injects, and which arguments each resolver needs.
 * @module
 */
import type { CreateMessageResult, ListRootsResult } from '../../protocol/schemas/index.ts'
import type { RequestContext } from '../context.ts'
import { InvalidSignatureError } from '../errors.ts'
import { planResolvers } from './plan.ts'
import { KIND, PLANNER, type ArgNeed, type ContextNeed, type Need, type OutcomeNeed, type Resolver } from './needs.ts'
import type { ElicitQuestion, RootsQuestion, SampleQuestion, UrlQuestion } from './questions.ts'

type UnionToIntersection<U> = (U extends unknown ? (k: U) => void : never) extends (k: infer I) => void ? I : never

/**
 * The value a question resolves to.
 * @internal not in the public API: type machinery of `resolver()`
 */
export type Answered<R> =
  R extends ElicitQuestion<infer T>
    ? T
    : R extends UrlQuestion
      ? true
      : R extends SampleQuestion
        ? CreateMessageResult
        : R extends RootsQuestion
          ? ListRootsResult
          : R

/** The full outcome of a resolver. */
export type Outcome<T> = { action: 'accept'; value: T } | { action: 'decline' } | { action: 'cancel' }

/**
 * The value a need injects.
 * @internal not in the public API: type machinery of `resolver()`
 */
export type NeedValue<N> =
  N extends ArgNeed<infer T, string>
    ? T
    : N extends ContextNeed
      ? RequestContext
      : N extends OutcomeNeed<infer R>
        ? Outcome<ResolvedOf<R>>
        : N extends Resolver<infer O, unknown>
          ? O
          : never
/**
 * The values of a needs map.
 * @internal not in the public API: type machinery of `resolver()`
 */
export type NeedValues<N> = { [K in keyof N]: NeedValue<N[K]> }
/**
 * The value a resolver injects.
 * @internal not in the public API: type machinery of `resolver()`
 */
export type ResolvedOf<R> = R extends Resolver<infer O, unknown> ? O : never

/**
 * The argument an `arg()` need under key `K` reads: its own key, or the name given to `.from(name)`.
 * `Name` is `never` for the own key, or `string` where optional properties may hold `undefined`
 * (without exactOptionalPropertyTypes, the inference of `__name?: never` falls back to the constraint).
 */
type ArgName<K, Name> = [Name] extends [never] ? K & string : string extends Name ? K & string : Name
/** The handler arguments a single need requires (by name and type). */
export type ArgsOfNeed<K, N> =
  N extends ArgNeed<infer T, infer Name>
    ? undefined extends T
      ? { [P in ArgName<K, Name>]?: T }
      : { [P in ArgName<K, Name>]: T }
    : N extends OutcomeNeed<infer R>
      ? ArgsOfResolver<R>
      : N extends Resolver<unknown, infer A>
        ? A
        : unknown
/** The handler arguments a resolver (and everything it depends on) requires. */
export type ArgsOfResolver<R> = R extends Resolver<unknown, infer A> ? A : unknown
/** The handler arguments a needs map requires. */
export type ArgsOfNeeds<N> = [keyof N] extends [never]
  ? unknown
  : UnionToIntersection<{ [K in keyof N]: ArgsOfNeed<K, N[K]> }[keyof N]>

export type { Uses } from './needs.ts'

/**
 * Compile-time check of a handler's `use` against its arguments `A`: each resolver's argument needs
 * must be satisfied by `A` (by name and type), and no resolved name may shadow an argument.
 * @internal not in the public API: type machinery of `resolver()`
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
  const made = { [KIND]: 'resolver' as const, name, needs, fn: fn as (values: Record<string, unknown>) => unknown }
  // the planner travels with the resolver (not enumerable: the resolver's own shape stays as it was)
  return Object.defineProperty(made, PLANNER, { value: planResolvers })
}
