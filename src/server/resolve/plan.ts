/**
 * Planning a handler's resolvers at registration: check the graph (arguments exist, needs are of a known
 * kind, no cycles, no resolved name shadows an argument) and give each resolver a stable wire key.
 * @module
 */
import { InvalidSignatureError } from '../errors.ts'
import { kindOf, type AnyResolver, type ArgNeed, type Need, type OutcomeNeed, type Uses } from './needs.ts'
import { resolveRound, type ResolverPlan } from './run.ts'

export type { ResolverPlan } from './run.ts'

/**
 * Check a handler's resolver graph and assign stable question keys.
 * @param owner - e.g. `tool 'order_book'`, for messages.
 * @param argNames - the handler's argument names, or undefined when they cannot be known.
 * @throws InvalidSignatureError naming the culprit: an unknown argument, a need of the wrong kind, a
 *   cycle (naming the resolvers in it), or a resolved name that collides with an argument.
 */
export function planResolvers(owner: string, argNames: ReadonlySet<string> | undefined, use: Uses): ResolverPlan {
  const planner = new Planner(owner, argNames)
  const uses: Array<readonly [string, AnyResolver | OutcomeNeed]> = []
  for (const [param, need] of Object.entries(use)) {
    if (argNames?.has(param))
      throw new InvalidSignatureError(`${owner}: '${param}' is both an argument and a resolved parameter`)
    const kind = kindOf(need)
    if (kind === 'resolver') planner.visit(need as AnyResolver, [])
    else if (kind === 'outcome') planner.visit((need as OutcomeNeed).resolver, [])
    else throw new InvalidSignatureError(`${owner}: use.${param} must be a resolver or outcome(resolver)`)
    uses.push([param, need])
  }
  return { uses, keys: planner.keys, resolvedNames: new Set(uses.map(([p]) => p)), run: resolveRound }
}

/** A depth-first walk of one handler's resolver graph: each resolver checked once, keyed after its dependencies. */
class Planner {
  /** Resolver → its wire key, in the order the walk finished them. */
  readonly keys = new Map<AnyResolver, string>()
  readonly #owner: string
  readonly #argNames: ReadonlySet<string> | undefined
  readonly #taken = new Set<string>()
  readonly #done = new Set<AnyResolver>()

  constructor(owner: string, argNames: ReadonlySet<string> | undefined) {
    this.#owner = owner
    this.#argNames = argNames
  }

  /**
   * Check `r` and everything it depends on, then key it.
   * @param stack - the resolvers depending on `r` on this path (a cycle returns to one of them).
   */
  visit(r: AnyResolver, stack: AnyResolver[]): void {
    if (stack.includes(r)) {
      const cycle = [...stack.slice(stack.indexOf(r)), r].map((x) => x.name).join(' → ')
      throw new InvalidSignatureError(`${this.#owner}: resolver '${r.name}' has a cyclic dependency (${cycle})`)
    }
    if (this.#done.has(r)) return
    for (const [param, need] of Object.entries(r.needs)) this.#checkNeed(r, param, need, stack)
    this.#done.add(r)
    let key = r.name
    for (let i = 1; this.#taken.has(key); i++) key = `${r.name}#${i}`
    this.#taken.add(key)
    this.keys.set(r, key)
  }

  /** One need of `r`: an argument the handler declares, the context, or a resolver (visited in turn). */
  #checkNeed(r: AnyResolver, param: string, need: Need, stack: AnyResolver[]): void {
    const owner = this.#owner
    switch (kindOf(need)) {
      case 'arg': {
        const argName = (need as ArgNeed).name ?? param
        if (this.#argNames && !this.#argNames.has(argName)) {
          throw new InvalidSignatureError(
            `${owner}: resolver '${r.name}' parameter '${param}' needs argument '${argName}', which ${owner} does not declare`,
          )
        }
        break
      }
      case 'context':
        break
      case 'resolver':
        this.visit(need as AnyResolver, [...stack, r])
        break
      case 'outcome':
        this.visit((need as OutcomeNeed).resolver, [...stack, r])
        break
      default:
        throw new InvalidSignatureError(
          `${owner}: resolver '${r.name}' parameter '${param}' cannot be resolved: expected arg(), context(), a resolver or outcome(resolver)`,
        )
    }
  }
}
