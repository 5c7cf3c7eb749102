/**
 * `x-mcp-header`: tool arguments mirrored into `Mcp-Param-{Name}` request headers
 * (spec: basic/transports/streamable-http.mdx "Custom headers").
 * @module
 */
import { decodeHeaderValue, encodeHeaderValue, isVisibleAscii } from './headers.ts'

/** One argument mirrored into a header: where it lives in the arguments and the header's name part. */
export interface HeaderParam {
  /** The chain of `properties` keys leading to the argument. */
  path: string[]
  /** The `{Name}` of `Mcp-Param-{Name}`. */
  name: string
  type: 'string' | 'integer' | 'boolean'
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const ANNOTATION = 'x-mcp-header'
/** The deepest `inputSchema` searched for annotations, in nested objects and arrays: deeper is invalid. */
export const MAX_SCHEMA_DEPTH = 256

/**
 * Find the `x-mcp-header` annotations of a tool's `inputSchema` and check them (bounded: a schema nested
 * deeper than {@link MAX_SCHEMA_DEPTH} is invalid, as the spec asks validators to bound their work).
 * @returns the mirrored parameters, or the reason the tool definition is invalid.
 */
export function headerParamsOf(inputSchema: unknown): { params: HeaderParam[] } | { invalid: string } {
  const params: HeaderParam[] = []
  const seen = new Set<string>()
  const walk = (schema: unknown, path: string[], reachable: boolean, depth = 0): string | undefined => {
    if (typeof schema !== 'object' || schema === null) return undefined
    if (depth > MAX_SCHEMA_DEPTH) return `inputSchema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`
    const node = schema as Record<string, unknown>
    if (ANNOTATION in node) {
      const name = node[ANNOTATION]
      if (!reachable || path.length === 0) return `'${ANNOTATION}' on a value not reachable through properties alone`
      if (typeof name !== 'string' || !TOKEN.test(name))
        return `'${ANNOTATION}' value ${JSON.stringify(name)} is not an HTTP token`
      if (seen.has(name.toLowerCase())) return `'${ANNOTATION}' value '${name}' is not unique`
      const type = node.type
      if (type !== 'string' && type !== 'integer' && type !== 'boolean')
        return `'${ANNOTATION}' '${name}' is on a ${JSON.stringify(type)} property (allowed: string, integer, boolean)`
      seen.add(name.toLowerCase())
      params.push({ path, name, type })
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === ANNOTATION) continue
      if (key === 'properties' && typeof value === 'object' && value !== null) {
        for (const [prop, sub] of Object.entries(value)) {
          const problem = walk(sub, [...path, prop], reachable, depth + 2)
          if (problem) return problem
        }
      } else if (typeof value === 'object' && value !== null) {
        const children = Array.isArray(value) ? value : [value]
        for (const child of children) {
          const problem = walk(child, path, false, depth + (Array.isArray(value) ? 2 : 1)) // items, anyOf, $defs, … are not reachable
          if (problem) return problem
        }
      }
    }
    return undefined
  }
  const problem = walk(inputSchema, [], true)
  return problem ? { invalid: problem } : { params }
}

/** The argument at `path`, or undefined when absent (or null: no header). */
export function valueAt(args: Record<string, unknown> | undefined, path: readonly string[]): unknown {
  let current: unknown = args
  for (const key of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key)) return undefined
    current = (current as Record<string, unknown>)[key]
  }
  return current === null ? undefined : current
}

/** Whether an argument can be mirrored into a header: a string, a boolean or a finite number. */
export function isParamValue(value: unknown): value is string | number | boolean {
  return (
    typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
  )
}

/**
 * The header value for an argument (strings encoded when not safe ASCII; an integer in plain decimal, never with
 * an exponent: `1e21` is `1000000000000000000000`); undefined when it is no {@link isParamValue}.
 */
export function formatParamValue(value: unknown): string | undefined {
  if (!isParamValue(value)) return undefined
  if (typeof value === 'string') return encodeHeaderValue(value)
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  return Number.isInteger(value) ? BigInt(value).toString() : String(value)
}

/** A decimal number as a header may carry it: `42`, `-7`, `42.0`, `1e21`. */
const DECIMAL = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/

/**
 * True when a received header value matches the argument (decoded; integers compared numerically, as the spec
 * asks — streamable-http.mdx "Server Validation": `42.0` and `42` are equal, `42.5` and `42` are not). A raw
 * value with a char outside tab and visible ASCII never matches, whatever it would decode to.
 */
export function paramMatches(header: string, value: unknown, type: HeaderParam['type']): boolean {
  if (!isVisibleAscii(header)) return false
  const decoded = decodeHeaderValue(header)
  if (decoded === undefined) return false
  switch (type) {
    case 'string':
      return decoded === value
    case 'boolean':
      return decoded === (value === true ? 'true' : value === false ? 'false' : undefined)
    case 'integer':
      return DECIMAL.test(decoded.trim()) && Number(decoded) === value
  }
}
