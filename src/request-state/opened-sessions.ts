/**
 * The session ids a policy has opened and found valid (see `RequestStateSecurity.openSession`), so that
 * the next request carrying one is not decrypted again. Bounded: at most {@link SESSION_CACHE_SIZE} ids,
 * the first kept dropped first (no reordering on use: a `Map` delete and re-insert per request costs
 * about a microsecond), ids longer than 4096 characters never kept, an expired one dropped when presented.
 * @module
 */

/** Session ids a policy keeps opened. */
export const SESSION_CACHE_SIZE = 2048
/** The longest id kept, in characters (the server mints none longer: `MAX_SESSION_ID_LENGTH`). */
const MAX_KEPT_LENGTH = 4096

/** What an opened id holds. */
export interface OpenedSession {
  /** The audience it was opened for (another audience's key would not open it). */
  readonly audience: string | undefined
  /** Its claims, parsed and checked: never handed out. */
  readonly claims: Record<string, unknown>
  /** The principal its tag matched (undefined: opened without one). */
  principal: string | undefined
  /** When it expires, in seconds since the epoch: the earlier of its `exp` and `iat` + the policy's lifetime. */
  readonly expires: number
}

/** The opened ids of one policy (so of one key ring), by exact token. */
export class OpenedSessions {
  readonly #kept = new Map<string, OpenedSession>()

  /** The id opened for `audience`, if kept and not expired at `nowSeconds` (an expired one is dropped). */
  get(token: string, audience: string | undefined, nowSeconds: number): OpenedSession | undefined {
    const opened = this.#kept.get(token)
    if (opened === undefined || opened.audience !== audience) return undefined
    if (nowSeconds < opened.expires) return opened
    this.#kept.delete(token)
    return undefined
  }

  /** Keep an id just opened and found valid (the first kept dropped past {@link SESSION_CACHE_SIZE}). */
  keep(token: string, opened: OpenedSession): void {
    if (token.length > MAX_KEPT_LENGTH) return
    this.#kept.set(token, opened)
    if (this.#kept.size > SESSION_CACHE_SIZE) this.#kept.delete(this.#kept.keys().next().value!)
  }
}
