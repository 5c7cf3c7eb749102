/**
 * Human-readable valibot issues.
 * @module
 */
import type * as v from 'valibot'

/**
 * "field 'a.b': message" for a valibot issue with a path, else the message alone. A union of object
 * shapes (e.g. an `InputResponse`) is explained by the alternative that got furthest — the sub-issue with
 * the longest path — not by the union's own "Expected Object but received Object".
 */
export function describeIssue(issue: v.BaseIssue<unknown>): string {
  const keys = (i: v.BaseIssue<unknown>) => (i.path ?? []).map((p) => String(p.key))
  const path = keys(issue)
  let current = issue
  while (current.type === 'union' && current.issues?.length) {
    const deepest = current.issues.reduce((best, i) => (keys(i).length > keys(best).length ? i : best))
    if (keys(deepest).length === 0) break // alternatives of the value itself: the union's message says it best
    path.push(...keys(deepest))
    current = deepest
  }
  return path.length ? `field '${path.join('.')}': ${current.message}` : current.message
}
