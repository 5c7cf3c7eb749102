/**
 * Human-readable valibot issues.
 * @module
 */
import type * as v from 'valibot'

/** "field 'a.b': message" for a valibot issue with a path, else the message alone. */
export function describeIssue(issue: v.BaseIssue<unknown>): string {
  const path = issue.path?.map((p) => String(p.key)).join('.')
  return path ? `field '${path}': ${issue.message}` : issue.message
}
