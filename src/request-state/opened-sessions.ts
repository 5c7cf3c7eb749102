/**
 * The session ids a policy has opened and found valid (see `RequestStateSecurity.openSession`), so that
 * the next request carrying one is not decrypted again. Bounded in count and in size: at most
 * {@link SESSION_CACHE_SIZE} ids and {@link SESSION_CACHE_CHARS} characters (each id with what its client
 * declared, kept as JSON text: parsed, a client's `experimental` capabilities could weigh thirty times
 * their text), the first kept dropped first (no reordering on use: a `Map` delete and re-insert per request
 * costs about a microsecond), ids longer than 4096 characters never kept, an expired one dropped when presented.
 * @module
 */

/** Session ids a policy keeps opened. */
export const SESSION_CACHE_SIZE = 2048
/** The characters a policy keeps in all (ids and the JSON text of what their clients declared): 2 MiB. */
export const SESSION_CACHE_CHARS = 2 * 1024 * 1024
/** The longest id kept, in characters (the server mints none longer: `MAX_SESSION_ID_LENGTH`). */
const MAX_KEPT_LENGTH = 4096

/** What an opened id holds. */
export interface OpenedSession {
  /** The audience it was opened for (another audience's key would not open it). */
  readonly audience: string | undefined
  /** Its claims but `caps` and `ci`, parsed and checked: never handed out. */
  readonly claims: Record<string, unknown>
  /** The JSON text of its `caps` and `ci` claims (what the client declared), parsed anew for each request. */
  readonly declared: string
  /** The principal its tag matched (undefined: opened without one). */
  principal: string | undefined
  /** When it expires, in seconds since the epoch: the earlier of its `exp` and `iat` + the policy's lifetime. */
  readonly expires: number
}

/** The opened ids of one policy (so of one key ring), by exact token. */
export class OpenedSessions {
  readonly #kept = new Map<string, OpenedSession>()
  #chars = 0

  /** The id opened for `audience`, if kept and not expired at `nowSeconds` (an expired one is dropped). */
  get(token: string, audience: string | undefined, nowSeconds: number): OpenedSession | undefined {
    const opened = this.#kept.get(token)
    if (opened === undefined || opened.audience !== audience) return undefined
    if (nowSeconds < opened.expires) return opened
    this.#drop(token, opened)
    return undefined
  }

  /**
   * Keep an id just opened and found valid, with its claims (the first kept dropped past either bound).
   * Its `caps` and `ci` claims are kept as JSON text (`declared`), the others as they are.
   */
  keep(
    token: string,
    claims: Record<string, unknown>,
    opened: Pick<OpenedSession, 'audience' | 'principal' | 'expires'>,
  ): void {
    if (token.length > MAX_KEPT_LENGTH || this.#kept.has(token)) return
    const { caps, ci, ...rest } = claims
    this.#add(token, { ...opened, claims: rest, declared: JSON.stringify(ci === undefined ? [caps] : [caps, ci]) })
  }

  #add(token: string, opened: OpenedSession): void {
    this.#kept.set(token, opened)
    this.#chars += token.length + opened.declared.length
    for (const [first, kept] of this.#kept) {
      if (this.#kept.size <= SESSION_CACHE_SIZE && this.#chars <= SESSION_CACHE_CHARS) break
      this.#drop(first, kept)
    }
  }

  /** The characters kept (ids and declared JSON text), for tests. */
  get chars(): number {
    return this.#chars
  }

  #drop(token: string, opened: OpenedSession): void {
    this.#kept.delete(token)
    this.#chars -= token.length + opened.declared.length
  }
}
