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
 * @module
 */
export { InvalidSignatureError, ResolutionError } from './errors.ts'
export {
  arg,
  context,
  outcome,
  type AnyResolver,
  type ArgBuilder,
  type ArgNeed,
  type ContextNeed,
  type Need,
  type OutcomeNeed,
  type Resolver,
} from './needs.ts'
export { formSchema, type FormSchema } from './forms.ts'
export { elicit, listRoots, sample, type Question } from './questions.ts'
export {
  resolver,
  type Answered,
  type CheckedUses,
  type NeedValue,
  type NeedValues,
  type Outcome,
  type ResolvedOf,
  type Uses,
} from './resolver.ts'
export { planResolvers, type ResolverPlan } from './plan.ts'
export { MAX_REASKS, resolveRound, type Resolution, type RoundInput } from './run.ts'
