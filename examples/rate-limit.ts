/**
 * Rate limiting per principal, as server middleware.
 *
 * Each principal (the verified client id, issuer and subject by default — see `RequestCall.principal`;
 * `anonymous` without auth) gets `limit` requests per `windowMs`. A request over the limit is answered with
 * JSON-RPC error -32000 "Rate limited" (HTTP 429), `data.retryAfterMs` saying when to try again; the
 * handler does not run. Only `tools/call`, `prompts/get` and `resources/read` count, each request once:
 * every round of a multi-round call counts too, because a later round's sealed `requestState` can be
 * replayed until it expires (`ttlSeconds`, 600 s by default), and each replay runs the handler again.
 *
 * The counts live in this process's memory (on Workers: one isolate). For a fleet, keep them where every
 * instance meets — a Durable Object, or Redis with `INCR` and `PEXPIRE` — behind the same `count` shape.
 *
 * @example
 * const mcp = new McpServer({ name: 'shop', version: '1.0.0' })
 * mcp.use(rateLimit({ limit: 60, windowMs: 60_000 }))
 */
import { McpError } from '../src/index.ts'
import type { RequestMiddleware } from '../src/server/index.ts'

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  /** Requests allowed per window, per principal (a positive integer). */
  limit: number
  /** The window, in milliseconds (fixed windows, aligned to the first request of each). */
  windowMs: number
  /** Clock in milliseconds (tests inject one). Default `Date.now`. */
  now?: () => number
}

const COUNTED = new Set(['tools/call', 'prompts/get', 'resources/read'])

/**
 * A request middleware allowing `limit` calls per `windowMs` per principal.
 * @throws RangeError for a `limit` or `windowMs` that is not a positive integer.
 */
export function rateLimit({ limit, windowMs, now = Date.now }: RateLimitOptions): RequestMiddleware {
  if (!(Number.isInteger(limit) && limit > 0)) throw new RangeError(`limit must be a positive integer, got ${limit}`)
  if (!(Number.isInteger(windowMs) && windowMs > 0))
    throw new RangeError(`windowMs must be a positive integer of ms, got ${windowMs}`)
  const windows = new Map<string, { start: number; count: number }>()
  return (call, next) => {
    if (!COUNTED.has(call.method)) return next()
    const at = now()
    const key = call.principal ?? 'anonymous'
    let window = windows.get(key)
    if (!window || at - window.start >= windowMs) {
      window = { start: at, count: 0 }
      windows.set(key, window)
      if (windows.size > 10_000) for (const [k, w] of windows) if (at - w.start >= windowMs) windows.delete(k)
    }
    if (++window.count > limit) {
      const retryAfterMs = window.start + windowMs - at
      // -32000: the first of JSON-RPC's implementation-defined server errors
      throw new McpError(-32000, 'Rate limited', { retryAfterMs }, 429)
    }
    return next()
  }
}
