/**
 * The transformations the wire schemas apply before they check (valibot's `transform` in
 * ./schemas/), in a module without valibot: the client's generated checks (src/client/checks.gen.ts)
 * import them from here, so both sides run the same function.
 * @module
 */

/**
 * An `ElicitResult` without a `content` that means nothing: `null`, or any content of a decline or cancel
 * (spec: client/elicitation.mdx "Response Actions"). A copy of the answer's own properties when one is
 * dropped (a `__proto__` key stays a plain property), else the value itself.
 */
export function withoutIgnoredContent(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, 'content'))
    return value
  const answer = value as Record<string, unknown>
  if (answer.content !== null && answer.action !== 'decline' && answer.action !== 'cancel') return value
  const rest = { ...answer } // own properties only (a `__proto__` key stays a plain property)
  delete rest.content
  return rest
}
