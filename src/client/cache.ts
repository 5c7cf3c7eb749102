/**
 * The client's optional response cache for `server/discover`, the list methods and `resources/read`,
 * honouring the server's `ttlMs` and `cacheScope` (spec: server/utilities/caching.mdx).
 * @module
 */
import { CACHEABLE_METHODS } from '../protocol/constants.ts'
import { encodeBase64UrlCompact } from '../encoding/base64url.ts'
import { canonicalJson, digestBytes16 } from '../encoding/canonical.ts'

/** The cached methods each server notification makes stale (spec: caching.mdx "Interaction with Notifications"). */
export const STALE_AFTER: ReadonlyMap<string, readonly string[]> = new Map([
  ['notifications/tools/list_changed', ['tools/list']],
  ['notifications/prompts/list_changed', ['prompts/list']],
  ['notifications/resources/list_changed', ['resources/list', 'resources/templates/list']],
  ['notifications/resources/updated', ['resources/read']],
])

/**
 * A result of a cacheable method with its cache hints made usable (spec: caching.mdx): a missing `ttlMs`
 * is 0, a negative one 0, one that is no integer (1.5, NaN, a string) 0 (not cached); a `cacheScope` other
 * than `'public'` or `'private'` is `'private'`. Other methods' results, and input-required ones, are
 * returned as they are; hints that are already right return the same object.
 */
export function withUsableHints(method: string, result: Record<string, unknown>): Record<string, unknown> {
  if (!CACHEABLE_METHODS.has(method) || result.resultType === 'input_required') return result
  const { ttlMs, cacheScope } = result
  const ttlOk = typeof ttlMs === 'number' && Number.isSafeInteger(ttlMs) && ttlMs >= 0
  const scopeOk = cacheScope === 'public' || cacheScope === 'private'
  if (ttlOk && scopeOk) return result
  return { ...result, ttlMs: ttlOk ? ttlMs : 0, cacheScope: scopeOk ? cacheScope : 'private' }
}

/** One cached result. */
export interface CacheEntry {
  /** The raw result as the server sent it. */
  value: Record<string, unknown>
  /** When it stops being fresh, in **milliseconds** on the cache's clock (`now()`); fresh while `now() < expiresAt`. */
  expiresAt: number
  /** The `ttlMs` it was stored with (a store may use it as its own expiry, e.g. a KV `expirationTtl`). */
  ttlMs: number
}

/**
 * Where cached results live. Keys are opaque strings (at most ~120 characters, no secrets: identities are
 * hashed). The client checks `expiresAt` itself, so a store may keep expired entries; it may also drop
 * any entry at any time. Methods may be synchronous or return promises; a store that throws is treated
 * as a miss (and the client warns through `onWarning`).
 */
export interface ResponseCacheStore {
  get(key: string): CacheEntry | undefined | Promise<CacheEntry | undefined>
  set(key: string, entry: CacheEntry): void | Promise<void>
  /** Delete every entry whose key starts with `prefix`. */
  deletePrefix(prefix: string): void | Promise<void>
}

/** Options of the client's response cache (`new Client({ cache: { … } })`). */
export interface ResponseCacheOptions {
  /** Where entries live. Default: an {@link InMemoryCacheStore} of `maxEntries` entries, private to the Client. */
  store?: ResponseCacheStore
  /** Bound of the default in-memory store, in entries (least recently used go first). Default 500. */
  maxEntries?: number
  /** The clock, in **milliseconds**. Default `Date.now`; tests inject a fake. */
  now?: () => number
  /**
   * Who the requests are made as (e.g. the OAuth subject, or the access token itself: it is hashed before
   * it reaches a key), read before each lookup. `private` results are keyed by it, so they are served
   * only to the same principal. Without it (or when it returns undefined), `private` results are cached
   * for this Client instance only: give it when one Client switches credentials.
   */
  principal?: string | (() => string | undefined | Promise<string | undefined>)
}

/**
 * A bounded in-memory store: least recently used entries are evicted past `maxEntries`. Values are
 * copied in and out (`structuredClone`), so callers cannot change what is cached.
 * @throws RangeError when `maxEntries` is not a positive integer.
 */
export class InMemoryCacheStore implements ResponseCacheStore {
  readonly maxEntries: number
  readonly #entries = new Map<string, CacheEntry>()

  constructor(options: { maxEntries?: number } = {}) {
    const max = options.maxEntries ?? 500
    if (!(Number.isSafeInteger(max) && max > 0))
      throw new RangeError(`maxEntries must be a positive integer, got ${String(max)}`)
    this.maxEntries = max
  }

  /** How many entries are held (expired ones included until they are read or evicted). */
  get size(): number {
    return this.#entries.size
  }

  get(key: string): CacheEntry | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    this.#entries.delete(key) // most recently used goes last
    this.#entries.set(key, entry)
    return { ...entry, value: structuredClone(entry.value) }
  }

  set(key: string, entry: CacheEntry): void {
    this.#entries.delete(key)
    this.#entries.set(key, { ...entry, value: structuredClone(entry.value) })
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.maxEntries) break
      this.#entries.delete(oldest)
    }
  }

  deletePrefix(prefix: string): void {
    for (const key of [...this.#entries.keys()]) if (key.startsWith(prefix)) this.#entries.delete(key)
  }
}

/** What identifies the server side of a key: the endpoint, the protocol version and the declared capabilities. */
export interface CacheServerIdentity {
  /** The endpoint URL; undefined when the transport has none (then entries are private to the Client). */
  url: string | undefined
  protocolVersion: string
  capabilities: unknown
}

/** base64url(SHA-256(utf8(text))[0..16]), as ../encoding/canonical.ts's `digest16`, without the tables of its encoder. */
const digest16 = async (text: string): Promise<string> => encodeBase64UrlCompact(await digestBytes16(text))

/** The two keys a request may be cached under. */
export interface CacheKeys {
  public: string
  private: string
}

/**
 * The cache logic behind `Client`: keys, freshness, what may be stored. Keys are
 * `server/method/params/scope`, each part a 22-character SHA-256 digest (method in clear), so
 * invalidation is a prefix delete.
 * @internal
 */
export class ResponseCache {
  readonly #store: ResponseCacheStore
  readonly #now: () => number
  readonly #principal: ResponseCacheOptions['principal']
  readonly #instance = encodeBase64UrlCompact(crypto.getRandomValues(new Uint8Array(16)))
  readonly #identity: CacheServerIdentity
  #serverTag: Promise<string> | undefined

  /** @throws RangeError when `maxEntries` is not a positive integer. */
  constructor(options: ResponseCacheOptions, identity: CacheServerIdentity) {
    this.#store =
      options.store ??
      new InMemoryCacheStore(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries })
    this.#now = options.now ?? Date.now
    this.#principal = options.principal
    this.#identity = identity
  }

  #server(): Promise<string> {
    const { url, protocolVersion, capabilities } = this.#identity
    // without a URL, nothing tells two servers apart: keep every entry to this instance
    this.#serverTag ??= digest16(
      canonicalJson(['edge-mcp/cache/v1', url ?? `instance:${this.#instance}`, protocolVersion, capabilities]),
    )
    return this.#serverTag
  }

  /** The key prefix of this server's entries, of one method, or of one request's params. */
  async prefix(method?: string, params?: Record<string, unknown>): Promise<string> {
    let prefix = `${await this.#server()}/`
    if (method !== undefined) prefix += `${method}/`
    if (method !== undefined && params !== undefined) prefix += `${await digest16(canonicalJson(params))}/`
    return prefix
  }

  /** The keys of a request (`params` without `_meta`). */
  async keys(method: string, params: Record<string, unknown>): Promise<CacheKeys> {
    const base = await this.prefix(method, params)
    const principal = typeof this.#principal === 'function' ? await this.#principal() : this.#principal
    const who = principal === undefined ? `instance:${this.#instance}` : `principal:${principal}`
    return { public: `${base}public`, private: `${base}private-${await digest16(who)}` }
  }

  /** A fresh entry under either key (the private one first), or undefined. */
  async get(keys: CacheKeys): Promise<Record<string, unknown> | undefined> {
    for (const key of [keys.private, keys.public]) {
      const entry = await this.#store.get(key)
      if (entry === undefined) continue
      if (this.#now() < entry.expiresAt) return entry.value
      await this.#store.deletePrefix(key)
    }
    return undefined
  }

  /**
   * Store a result received just now, if it may be: a complete result with a positive integer `ttlMs`;
   * under the public key when `cacheScope` is `'public'`, else under the private one.
   * @returns whether it was stored.
   */
  async put(keys: CacheKeys, value: Record<string, unknown>): Promise<boolean> {
    const ttlMs = value.ttlMs
    if (value.resultType !== 'complete' || typeof ttlMs !== 'number' || !Number.isSafeInteger(ttlMs) || ttlMs <= 0)
      return false
    const key = value.cacheScope === 'public' ? keys.public : keys.private
    await this.#store.set(key, { value, expiresAt: this.#now() + ttlMs, ttlMs })
    return true
  }

  /**
   * Answer a request through the cache: a fresh entry answers without `send`; otherwise the result is
   * parsed, then stored if its hints allow. Errors are never stored; a store that fails counts as a miss
   * (reported to `warn`).
   * @throws what `send` or `parse` throw, or the signal's reason once aborted.
   */
  async through<T>(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
    send: () => Promise<Record<string, unknown>>,
    parse: (result: Record<string, unknown>) => T,
    warn: (message: string) => void,
  ): Promise<T> {
    signal?.throwIfAborted()
    const keys = await this.keys(method, params)
    const hit = await this.get(keys).catch((error: unknown) => warn(`response cache: get failed: ${String(error)}`))
    if (hit) return parse(hit)
    const result = await send()
    const parsed = parse(result)
    await this.put(keys, result).catch((error: unknown) => warn(`response cache: set failed: ${String(error)}`))
    return parsed
  }

  /** Delete every entry with this prefix. */
  async deletePrefix(prefix: string): Promise<void> {
    await this.#store.deletePrefix(prefix)
  }
}

/**
 * Drop the entries of `cache` a server notification makes stale (see `Client.invalidateCacheFor`).
 * @returns whether the notification is one that makes entries stale.
 */
export async function invalidateFor(
  cache: ResponseCache | undefined,
  notification: { method: string; params?: Record<string, unknown> | undefined },
): Promise<boolean> {
  const methods = STALE_AFTER.get(notification.method)
  if (!methods) return false
  const uri = notification.params?.uri
  for (const method of cache ? methods : []) {
    const params = method === 'resources/read' && typeof uri === 'string' ? { uri } : undefined
    await cache!.deletePrefix(await cache!.prefix(method, params))
  }
  return true
}
