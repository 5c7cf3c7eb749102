/**
 * Cache hints (`ttlMs`, `cacheScope`) on the results of `server/discover`, the list methods and
 * `resources/read` (spec: server/utilities/caching.mdx): the options, their validation, and how a
 * result's hints are chosen.
 * @module
 */

/** Cache hints of a `CacheableResult` (spec: server/utilities/caching.mdx). */
export interface CacheHints {
  /** How long the result stays fresh, in **milliseconds** (integer ≥ 0; 0 = stale at once). */
  ttlMs: number
  /** `public`: shareable across users; `private`: same authorization context only. */
  cacheScope: 'public' | 'private'
}

import { CACHEABLE_METHODS, type CacheableMethod } from '../protocol/constants.ts'
import { HandlerResultError } from './errors.ts'

export { CACHEABLE_METHODS, type CacheableMethod }

/**
 * The server's cache settings: a default for every cacheable method (`ttlMs`, `cacheScope`) and, under
 * `methods`, overrides per method. Each field falls back on its own: a method entry without `cacheScope`
 * takes the server's. Unset fields end at `{ ttlMs: 0, cacheScope: 'private' }`.
 */
export interface CacheOptions extends Partial<CacheHints> {
  /** Per-method settings, e.g. `{ 'tools/list': { ttlMs: 300_000, cacheScope: 'public' } }`. */
  methods?: { [M in CacheableMethod]?: Partial<CacheHints> }
}

/** What a result gets when nothing says otherwise (the spec's and the TS SDK's safe default). */
export const DEFAULT_CACHE_HINTS: Readonly<CacheHints> = Object.freeze({ ttlMs: 0, cacheScope: 'private' })

/**
 * Check cache hints given at registration.
 * @param where - names the setting in the message, e.g. `resource 'docs://readme' cache`.
 * @throws RangeError when `ttlMs` is not an integer ≥ 0 (milliseconds) or `cacheScope` is neither
 *   `'public'` nor `'private'`.
 */
export function checkCacheHints(where: string, hints: unknown): asserts hints is Partial<CacheHints> | undefined {
  if (hints === undefined) return
  if (typeof hints !== 'object' || hints === null || Array.isArray(hints))
    throw new RangeError(`${where} must be an object { ttlMs?, cacheScope? }`)
  const { ttlMs, cacheScope } = hints as Record<string, unknown>
  if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && (ttlMs as number) >= 0)) {
    throw new RangeError(`${where}.ttlMs must be an integer >= 0 (milliseconds), got ${describe(ttlMs)}`)
  }
  if (cacheScope !== undefined && cacheScope !== 'public' && cacheScope !== 'private') {
    throw new RangeError(`${where}.cacheScope must be 'public' or 'private', got ${describe(cacheScope)}`)
  }
}

/**
 * Check a server's {@link CacheOptions}.
 * @throws RangeError for an invalid value (see {@link checkCacheHints}) or a `methods` key that is not a
 *   cacheable method.
 */
export function checkCacheOptions(options: CacheOptions | undefined): void {
  if (options === undefined) return
  checkCacheHints('cache', options)
  const methods: unknown = options.methods
  if (methods === undefined) return
  if (typeof methods !== 'object' || methods === null || Array.isArray(methods))
    throw new RangeError('cache.methods must be an object keyed by method')
  for (const [method, hints] of Object.entries(methods)) {
    if (!CACHEABLE_METHODS.has(method))
      throw new RangeError(
        `cache.methods: '${method}' is not a cacheable method (one of ${[...CACHEABLE_METHODS].join(', ')})`,
      )
    checkCacheHints(`cache.methods['${method}']`, hints)
  }
}

/** The server's hints for a method: `methods[method]`, else the server's, else the default — field by field. */
export function cacheHintsFor(options: CacheOptions | undefined, method: string): CacheHints {
  const own = options?.methods?.[method as CacheableMethod]
  return {
    ttlMs: own?.ttlMs ?? options?.ttlMs ?? DEFAULT_CACHE_HINTS.ttlMs,
    cacheScope: own?.cacheScope ?? options?.cacheScope ?? DEFAULT_CACHE_HINTS.cacheScope,
  }
}

/**
 * Fill the cache hints of a complete result: fields the result already has win (a handler's, or an
 * item's stamped by `McpServer`), the rest come from {@link cacheHintsFor}. A result reached through
 * rounds (its request carried `inputResponses` or `requestState`) is always `{ ttlMs: 0, cacheScope:
 * 'private' }` (spec: caching.mdx "Cache Key").
 * @throws Error when the result holds a `ttlMs` or `cacheScope` the spec forbids (a server bug: -32603).
 */
export function withCacheHints(
  result: Record<string, unknown>,
  method: string,
  options: CacheOptions | undefined,
  retry: boolean,
): Record<string, unknown> {
  if (retry) return { ...result, ...DEFAULT_CACHE_HINTS }
  try {
    checkCacheHints('the result', { ttlMs: result.ttlMs, cacheScope: result.cacheScope })
  } catch (error) {
    throw new HandlerResultError(`handler for ${method} returned invalid cache hints: ${(error as Error).message}`)
  }
  const hints = cacheHintsFor(options, method)
  return { ...result, ttlMs: result.ttlMs ?? hints.ttlMs, cacheScope: result.cacheScope ?? hints.cacheScope }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`
  return typeof value === 'number' || typeof value === 'boolean' || value === null ? String(value) : typeof value
}
