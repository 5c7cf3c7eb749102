/**
 * Finishing a handler's result on its way out: an `InputRequiredResult` is checked (spec:
 * basic/patterns/mrtr.mdx), a complete result gets `resultType` and its cache hints (spec:
 * server/utilities/caching.mdx), and every result gets `_meta` serverInfo. Sealing its `requestState`
 * is the boundary's (`sealing.ts`), between the check and the serverInfo.
 * @module
 */
import { INPUT_REQUIRED_METHODS, META } from '../protocol/constants.ts'
import { capabilitiesNeededBy } from '../protocol/envelope.ts'
import { parse } from '../protocol/check.ts'
import { InputRequiredResult } from '../protocol/checks.gen.ts'
import type { Implementation } from '../protocol/schemas/index.ts'
import { CACHEABLE_METHODS, withCacheHints, type CacheOptions } from './cache.ts'
import type { RequestContext, RequestParams, ResultObject } from './context.ts'
import { HandlerResultError } from './errors.ts'

/**
 * A handler's return value, checked to be an object.
 * @throws HandlerResultError (a server bug: -32603, logged) for anything else.
 */
export function checkedResult(method: string, result: unknown): ResultObject {
  if (typeof result !== 'object' || result === null)
    throw new HandlerResultError(`handler for ${method} returned a non-object result`)
  return result as ResultObject
}

/**
 * An `InputRequiredResult` as it may be sent: only on `tools/call`, `prompts/get` and `resources/read`;
 * valid (its `requestState` any JSON value, sealed later); with `inputRequests` or a `requestState`; an empty `inputRequests` and any cache hints dropped
 * (it is never cacheable, spec: caching.mdx); asking only for what this request's client declared.
 * @throws HandlerResultError (a server bug: -32603, logged) for a misplaced or invalid result.
 * @throws McpError -32021 (HTTP 400) when an input request needs a capability the client did not declare.
 */
export function inputRequiredResult(method: string, result: ResultObject, ctx: RequestContext): ResultObject {
  if (!INPUT_REQUIRED_METHODS.has(method))
    throw new HandlerResultError(
      `handler for ${method} returned an InputRequiredResult; only tools/call, prompts/get and resources/read may`,
    )
  // any JSON state is sealed into a string token after this check; the schema sees a stand-in string
  const state = result.requestState
  const checkable = state === undefined || typeof state === 'string' ? result : { ...result, requestState: '' }
  const [issue, output] = parse(InputRequiredResult(), checkable)
  if (issue !== undefined)
    throw new HandlerResultError(`handler for ${method} returned an invalid InputRequiredResult: ${issue}`)
  const requests = output.inputRequests
  const hasRequests = requests !== undefined && Object.keys(requests).length > 0
  if (!hasRequests && output.requestState === undefined) {
    throw new HandlerResultError(
      `handler for ${method} returned an InputRequiredResult with neither inputRequests nor requestState`,
    )
  }
  let out = result
  // copy only when something must go: most results are sent as the handler built them
  if ((requests && !hasRequests) || out.ttlMs !== undefined || out.cacheScope !== undefined) {
    out = { ...result }
    if (!hasRequests) delete out.inputRequests
    delete out.ttlMs
    delete out.cacheScope
  }
  // Only ask for what this request's client declared (spec: mrtr.mdx); otherwise -32021.
  if (hasRequests) ctx.requireCapabilities(...Object.values(requests).flatMap(capabilitiesNeededBy))
  return out
}

/**
 * A complete result as sent: `resultType: 'complete'` unless it has one, on cacheable methods its cache
 * hints (`ttlMs` in milliseconds, `cacheScope`) — `{ ttlMs: 0, cacheScope: 'private' }` when the request
 * was a retry (it carried `requestState` or `inputResponses`) — and `_meta` serverInfo (one copy of the
 * result on other methods).
 * @param params - the request's params, with a null `requestState` already removed.
 * @throws HandlerResultError (a server bug: -32603, logged) for cache hints the spec forbids.
 */
export function completeResult(
  method: string,
  result: ResultObject,
  params: RequestParams,
  cache: CacheOptions | undefined,
  info: Implementation,
): ResultObject {
  const stamp = typeof result.resultType === 'string' ? undefined : 'complete'
  if (!CACHEABLE_METHODS.has(method)) return withServerInfo(result, info, stamp)
  let out = stamp ? withProp(result, 'resultType', stamp) : result
  if (out.resultType === 'complete') {
    // a result reached through rounds is never cacheable (spec: mrtr.mdx "Caching")
    const retry = params.requestState !== undefined || params.inputResponses !== undefined
    out = withCacheHints(out, method, cache, retry)
  }
  return withServerInfo(out, info)
}

/**
 * The result with `_meta` serverInfo (spec: `io.modelcontextprotocol/serverInfo`), unless it has one, and
 * with `resultType` when given: `{ _meta, resultType, ...result }`, in one copy.
 */
export function withServerInfo(result: ResultObject, info: Implementation, resultType?: string): ResultObject {
  const meta = (result._meta ?? {}) as Record<string, unknown>
  if (meta[META.serverInfo] !== undefined)
    return resultType === undefined ? result : withProp(result, 'resultType', resultType)
  const stamped = withProp(meta, META.serverInfo, info)
  if (resultType === undefined) return withProp(result, '_meta', stamped)
  const out: ResultObject = { _meta: stamped, resultType, ...result }
  out._meta = stamped
  out.resultType = resultType
  return out
}

/**
 * `{ ...obj, [key]: value }` (own enumerable properties copied, `key` set last-wins), built with the
 * key before the spread: V8 takes a slow path for a property added after a spread. Only the key's
 * position among the properties differs.
 */
export function withProp<T extends Record<string, unknown>>(obj: T, key: string, value: unknown): T {
  const out: Record<string, unknown> = { [key]: value, ...obj }
  out[key] = value
  return out as T
}

/** The fields of a 2026-07-28 result that a 2025-era client has no schema for. */
const MODERN_ONLY_RESULT_FIELDS = ['resultType', 'inputRequests', 'requestState', 'ttlMs', 'cacheScope'] as const

/**
 * A complete result as a 2025-era client receives it: without `resultType`, `inputRequests`,
 * `requestState`, the cache hints (`ttlMs`, `cacheScope`) and `_meta` serverInfo. Copies only when
 * something must go. An `InputRequiredResult` is the caller's to refuse first (it cannot be delivered
 * without a session).
 */
export function legacyResult(result: ResultObject): ResultObject {
  const meta = result._meta as Record<string, unknown> | undefined
  const hasServerInfo = typeof meta === 'object' && meta !== null && META.serverInfo in meta
  if (!hasServerInfo && !MODERN_ONLY_RESULT_FIELDS.some((key) => key in result)) return result
  const out: ResultObject = { ...result }
  for (const key of MODERN_ONLY_RESULT_FIELDS) delete out[key]
  if (hasServerInfo) {
    const rest: Record<string, unknown> = { ...meta }
    delete rest[META.serverInfo]
    if (Object.keys(rest).length > 0) out._meta = rest
    else delete out._meta
  }
  return out
}
