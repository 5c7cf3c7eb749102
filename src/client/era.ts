/**
 * Which protocol era a server speaks, found the way the 2026-07-28 spec describes (basic/versioning.mdx,
 * transports/streamable-http.mdx "Backwards compatibility"): probe with a 2026 request (`server/discover`)
 * and read the answer. The verdict is kept per server URL for the client's life, and optionally in an
 * {@link EraStore} so the next client (page load, process) skips the probe.
 * @module
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/constants.ts'
import { ErrorCode, McpError } from '../protocol/errors.ts'
import { isPlainObject } from '../protocol/jsonrpc.ts'
import { HttpError, InvalidResultError } from '../transport/errors.ts'

/** The two protocol eras: 2026-07-28 (`'modern'`) and 2025-11-25 / 2025-06-18 / 2025-03-26 (`'legacy'`). */
export type Era = 'modern' | 'legacy'

/** A remembered verdict: the era and when it was found (ms since the epoch). */
export interface EraVerdict {
  era: Era
  /** When the probe found it, in **milliseconds** since the epoch. */
  checkedAt: number
}

/**
 * Where `'auto'` clients remember each server's era between lives (e.g. over `localStorage` or a KV).
 * Keys are server URLs. Methods may be synchronous or return promises; a store that throws is ignored
 * (the client probes, and warns through `onWarning`).
 */
export interface EraStore {
  get(url: string): EraVerdict | undefined | Promise<EraVerdict | undefined>
  set(url: string, verdict: EraVerdict): void | Promise<void>
  delete(url: string): void | Promise<void>
}

/** How long a stored verdict is trusted before the server is probed again: 24 hours, in ms. */
export const ERA_VERDICT_MAX_AGE_MS = 24 * 60 * 60 * 1000

/** The errors a 2026-07-28 server sends about the request's own shape: a probe answered with one found a modern server. */
const MODERN_ERRORS = new Set<number>([ErrorCode.HeaderMismatch, ErrorCode.MissingRequiredClientCapability])

/**
 * The era of a server, from how it answered a `server/discover` probe: a result whose `supportedVersions`
 * names a version this client speaks (as the official TypeScript and Python SDKs decide), or -32020 /
 * -32021, is a modern server; any other result (e.g. the `{}` some 2025 servers give every method they do
 * not know), any other JSON-RPC error (e.g. -32601, a legacy server's -32000 "no session"), HTTP 400 / 404 /
 * 405 without one, or a body that is no JSON-RPC answer is a legacy one. (-32022 never reaches here when a
 * version is in common: the sender retried with it.)
 * @throws what the probe threw when it is no evidence of an era: -32022 without a version in common,
 *   401 / 403 (the transport's OAuth could not authorize), other HTTP failures (5xx), a network failure,
 *   a timeout or an abort.
 */
export async function probeEra(send: () => Promise<unknown>): Promise<Era> {
  try {
    const result = await send()
    const versions = isPlainObject(result) ? result.supportedVersions : undefined
    const spoken = Array.isArray(versions) && versions.some((v) => SUPPORTED_PROTOCOL_VERSIONS.includes(v as string))
    return spoken ? 'modern' : 'legacy'
  } catch (error) {
    if (error instanceof McpError) {
      if (MODERN_ERRORS.has(error.code)) return 'modern'
      if (error.code === ErrorCode.UnsupportedProtocolVersion) throw error
      return 'legacy'
    }
    if (error instanceof HttpError && [400, 404, 405].includes(error.status)) return 'legacy'
    if (error instanceof InvalidResultError) return 'legacy'
    throw error
  }
}

/**
 * One client's knowledge of its server's era: fixed (`'modern'`, `'legacy'`), or (`'auto'`) probed once —
 * concurrent first requests share the probe — and remembered. A probe that gives no verdict is reported
 * (thrown to the request that needed it) and made again by the next request.
 */
export class EraNegotiator {
  #era: Era | undefined
  #probing: Promise<Era> | undefined
  /** Whether the era came from the store (not from a probe made by this client). */
  #stored = false
  readonly #url: string | undefined
  readonly #store: EraStore | undefined
  readonly #now: () => number
  readonly #warn: (message: string) => void

  constructor(
    fixed: Era | undefined,
    options: { url?: string | undefined; store?: EraStore | undefined; now?: () => number; warn: (m: string) => void },
  ) {
    this.#era = fixed
    this.#url = options.url
    this.#store = options.url === undefined ? undefined : options.store
    this.#now = options.now ?? Date.now
    this.#warn = options.warn
  }

  /** The era, once known. */
  get era(): Era | undefined {
    return this.#era
  }

  /** The era, probing with `probe` (a `server/discover`) first when it is not known yet. */
  async resolve(probe: () => Promise<unknown>): Promise<Era> {
    if (this.#era !== undefined) return this.#era
    this.#probing ??= this.#find(probe).finally(() => (this.#probing = undefined))
    return this.#probing
  }

  async #find(probe: () => Promise<unknown>): Promise<Era> {
    const stored = await this.#recall()
    if (stored !== undefined) {
      this.#stored = true
      return (this.#era = stored)
    }
    const era = await probeEra(probe)
    this.#era = era
    if (this.#store)
      await Promise.resolve()
        .then(() => this.#store!.set(this.#url!, { era, checkedAt: this.#now() }))
        .catch((error: unknown) => this.#warn(`era store: set failed: ${String(error)}`))
    return era
  }

  async #recall(): Promise<Era | undefined> {
    if (!this.#store) return undefined
    try {
      const verdict = await this.#store.get(this.#url!)
      if (verdict === undefined || (verdict.era !== 'modern' && verdict.era !== 'legacy')) return undefined
      const age = this.#now() - verdict.checkedAt
      return age >= 0 && age < ERA_VERDICT_MAX_AGE_MS ? verdict.era : undefined
    } catch (error) {
      this.#warn(`era store: get failed: ${String(error)}`)
      return undefined
    }
  }

  /**
   * A request was answered: under a remembered modern verdict the answer must be a 2026-07-28 result
   * (`resultType`), else the verdict no longer holds (a stateless 2025 server answered). Then the era is
   * confirmed: a later failure is just a failure.
   * @returns the result.
   * @throws InvalidResultError when a remembered modern verdict got a 2025-era result (see {@link forgetIfStale}).
   */
  confirm(result: Record<string, unknown>): Record<string, unknown> {
    if (this.#stored && this.#era === 'modern' && typeof result.resultType !== 'string')
      throw new InvalidResultError('The server answered without resultType: it is no 2026-07-28 server')
    this.#stored = false
    return result
  }

  /**
   * A request failed under a remembered verdict the way a server of the other era would fail it (see
   * {@link probeEra}): forget the verdict (here and in the store) so that the caller can probe again.
   * @returns whether it was forgotten — only a verdict from the store, and only once.
   */
  async forgetIfStale(error: unknown): Promise<boolean> {
    if (!this.#stored || !isEraMismatch(error)) return false
    this.#stored = false
    this.#era = undefined
    await Promise.resolve()
      .then(() => this.#store!.delete(this.#url!))
      .catch((e: unknown) => this.#warn(`era store: delete failed: ${String(e)}`))
    return true
  }
}

/**
 * An error a server of the other era answers with: -32601 (a legacy server asked for a 2026 method),
 * -32000 (a legacy server's "no session"), -32022 (a modern-only server asked to `initialize`), HTTP 400 /
 * 404 / 405, or no JSON-RPC at all.
 */
function isEraMismatch(error: unknown): boolean {
  if (error instanceof McpError)
    return [ErrorCode.MethodNotFound, ErrorCode.UnsupportedProtocolVersion, -32000].includes(error.code)
  if (error instanceof HttpError) return [400, 404, 405].includes(error.status)
  return error instanceof InvalidResultError
}
