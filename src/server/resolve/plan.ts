/**
 * Planning a handler's resolvers at registration: check the graph (arguments exist, needs are of a known
 * kind, no cycles, no resolved name shadows an argument) and give each resolver a stable wire key.
 * @module
 */
import { InvalidSignatureError } from './errors.ts'
import { kindOf, type AnyResolver, type ArgNeed, type OutcomeNeed } from './needs.ts'
import type { Uses } from './resolver.ts'

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
