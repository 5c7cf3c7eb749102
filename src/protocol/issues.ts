/**
 * Human-readable valibot issues.
 * @module
 */
import type * as v from 'valibot'
import { describe, type Issue } from './check.ts'

/** A valibot issue in the shape of ./check.ts's (message, path keys, a union's issues of its options). */
const asIssue = (issue: v.BaseIssue<unknown>): Issue => ({
  message: issue.message,
  path: (issue.path ?? []).map((p) => p.key as string | number),
  ...(issue.type === 'union' && issue.issues ? { union: issue.issues.map(asIssue) } : {}),
})

/**
 * "field 'a.b': message" for a valibot issue with a path, else the message alone. A union of object
 * shapes (e.g. an `InputResponse`) is explained by the alternative that got furthest — the sub-issue with
 * the longest path — not by the union's own "Expected Object but received Object" (./check.ts `describe`).
 */
export function describeIssue(issue: v.BaseIssue<unknown>): string {
  return describe(asIssue(issue))
}
