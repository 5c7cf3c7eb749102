/**
 * Which protocol era a server speaks, found the way the 2026-07-28 spec describes (basic/versioning.mdx,
 * transports/streamable-http.mdx "Backwards compatibility"): probe with a 2026 request (`server/discover`)
 * and read the answer. The verdict is kept per server URL for the client's life, and optionally in an
 * {@link EraStore} so the next client (page load, process) skips the probe.
 * @module
 */
import { LEGACY_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/constants.ts'
import { ErrorCode, McpError } from '../protocol/errors.ts'
import { isPlainObject } from '../protocol/jsonrpc.ts'
import { HttpError, InvalidResultError, NetworkError } from './errors.ts'
import { raceAbort } from './abort.ts'
import { RequestTimeoutError } from './errors.ts'

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

/**
 * How long a stored verdict is trusted before the server is probed again: 24 hours, in ms.
 * @internal not in the public API: the docs state its value
 */
export const ERA_VERDICT_MAX_AGE_MS = 24 * 60 * 60 * 1000

/** The errors a 2026-07-28 server sends about the request's own shape: a probe answered with one found a modern server. */
const MODERN_ERRORS = new Set<number>([ErrorCode.HeaderMismatch, ErrorCode.MissingRequiredClientCapability])

/**
 * The era of a server, from how it answered a `server/discover` probe: a result whose `supportedVersions`
 * names a version this client speaks (the official TypeScript and Python SDKs' rule for results), or
 * -32020 / -32021 (the spec's reading; the TypeScript SDK counts them as legacy), is a modern server; any
 * other result (e.g. the `{}` some 2025 servers give every method they do not know), any other JSON-RPC
 * error (e.g. -32601, a legacy server's -32000 "no session"), -32022 naming only 2025 versions, HTTP 400 /
 * 404 / 405 without a JSON-RPC body, or a JSON-RPC body that cannot be read (InvalidResultError) is a
 * legacy one. (-32022 naming a 2026 version in common never reaches here: the sender retried with it.)
 * @throws what the probe threw when it is no evidence of an era: -32022 naming no version this client
 *   speaks, 401 / 403 (the transport's OAuth could not authorize), other HTTP failures (5xx, or a 2xx whose
 *   body is not JSON-RPC), a network failure, a timeout or an abort.
 */
export async function probeEra(discover: () => Promise<unknown>): Promise<Era> {
  try {
    const result = await discover()
    const versions = isPlainObject(result) ? result.supportedVersions : undefined
    const spoken = Array.isArray(versions) && versions.some((v) => SUPPORTED_PROTOCOL_VERSIONS.includes(v as string))
    return spoken ? 'modern' : 'legacy'
  } catch (error) {
    if (error instanceof McpError) {
      if (MODERN_ERRORS.has(error.code)) return 'modern'
      if (error.code === ErrorCode.UnsupportedProtocolVersion) {
        // no 2026 version in common (else the sender had retried with it): a 2025 one means a 2025 session
        const supported = (error.data as { supported?: unknown } | undefined)?.supported
        if (Array.isArray(supported) && supported.some((v) => LEGACY_PROTOCOL_VERSIONS.includes(v as string)))
          return 'legacy'
        throw error
      }
      return 'legacy'
    }
    if (error instanceof HttpError && [400, 404, 405].includes(error.status)) return 'legacy'
    if (error instanceof InvalidResultError) return 'legacy'
    throw error
  }
}

/** Why a legacy verdict is only tentative: the probe could not reach the server, or (stdio) got no answer in time. */
type TentativeCause = 'unreachable' | 'silent'

/**
 * What a client knows of its server's era, as one state:
 * - `unknown`: no verdict (`'auto'` before its probe, or after a verdict was dropped, or a probe gave none);
 * - `probing`: the `server/discover` probe (or the store) is being asked; concurrent requests share it;
 * - `remembered`: read from the {@link EraStore}, not yet confirmed by an answer;
 * - `tentative`: legacy, because the probe got no answer (see {@link TentativeCause});
 * - `settled`: fixed by the options, found by a probe, or confirmed by an answer.
 * `epoch` counts the verdicts dropped: an answer to a request sent in an older epoch judges nothing.
 */
type EraState =
  | { readonly kind: 'unknown'; readonly epoch: number }
  | { readonly kind: 'probing'; readonly probe: Promise<Era>; readonly epoch: number }
  | { readonly kind: 'remembered'; readonly era: Era; readonly epoch: number }
  | { readonly kind: 'tentative'; readonly era: 'legacy'; readonly cause: TentativeCause; readonly epoch: number }
  | { readonly kind: 'settled'; readonly era: Era; readonly epoch: number }

/**
 * One client's knowledge of its server's era: fixed (`'modern'`, `'legacy'`), or (`'auto'`) probed once —
 * concurrent first requests share the probe — and remembered. A probe that gives no verdict is reported
 * (thrown to the request that needed it) and made again by the next request. A probe that cannot reach the
 * server at all (a `NetworkError`: in a browser, also a CORS refusal of the 2026 headers) gives a tentative
 * legacy verdict: the request is tried in a 2025 session, whose own network failure takes the verdict back.
 * So does a probe left unanswered on a transport with `probeTimeoutMs` (stdio): if `initialize` then fails
 * the way a modern server fails it, the server is probed again (it may have been slow to start); once it
 * answered `initialize`, the verdict holds.
 */
export class EraNegotiator {
  /** What is known of the era; changed only by the transitions below (`#probed` … `#dropped`). */
  #state: EraState
  /** False once a remembered verdict proved wrong: this client does not read the store again. */
  #storeTrusted = true
  readonly #url: string | undefined
  readonly #store: EraStore | undefined
  readonly #now: () => number
  readonly #warn: (message: string) => void
  readonly #silenceIsLegacy: boolean | undefined

  /**
   * `options.silenceIsLegacy` (a transport with `probeTimeoutMs`: stdio): a probe left unanswered (its
   * RequestTimeoutError) is a 2025-era server (spec: stdio.mdx "Backward Compatibility"), tentatively.
   */
  constructor(
    fixed: Era | undefined,
    options: {
      url?: string | undefined
      store?: EraStore | undefined
      now?: () => number
      warn: (m: string) => void
      silenceIsLegacy?: boolean
    },
  ) {
    this.#silenceIsLegacy = options.silenceIsLegacy
    this.#state = fixed === undefined ? { kind: 'unknown', epoch: 0 } : { kind: 'settled', era: fixed, epoch: 0 }
    this.#url = options.url
    this.#store = options.url === undefined ? undefined : options.store
    this.#now = options.now ?? Date.now
    this.#warn = options.warn
  }

  /** The era, once known. */
  get era(): Era | undefined {
    return 'era' in this.#state ? this.#state.era : undefined
  }

  /**
   * The era, probing with `probe` (a `server/discover`) first when it is not known yet. The probe is shared
   * by concurrent callers and runs without their signals: `signal` ends only this caller's wait.
   */
  async resolve(probe: () => Promise<unknown>, signal?: AbortSignal): Promise<Era> {
    const state = this.#state
    if ('era' in state) return state.era
    return raceAbort(state.kind === 'probing' ? state.probe : this.#probed(probe), signal)
  }

  /**
   * Send one request in the server's era (probing first when needed), and check a remembered verdict
   * against the answer: a verdict the server no longer fits is forgotten, the server probed again and the
   * request sent again — once, and never a `tools/call` the server answered (it ran: its result is
   * returned as it is). `server/discover` on a modern server is answered by the probe itself.
   * @param sessionStarted - whether the 2025 session had been initialized when `attempt` failed (a remembered
   *   legacy verdict is doubted only when `initialize` itself failed).
   * @throws what `attempt` or the probe threw.
   */
  async negotiate(
    method: string,
    params: Record<string, unknown>,
    probe: () => Promise<Record<string, unknown>>,
    attempt: () => Promise<Record<string, unknown>>,
    signal: AbortSignal | undefined,
    sessionStarted: () => boolean,
  ): Promise<Record<string, unknown>> {
    let probed: Record<string, unknown> | undefined
    const era = await this.resolve(async () => (probed = await probe()), signal)
    if (probed && era === 'modern' && method === 'server/discover' && Object.keys(params).length === 0) return probed
    for (let again = false; ; again = true) {
      // what this attempt was sent under: a concurrent request may change the state meanwhile
      const sentUnder = this.#state
      const current = () => this.#state.epoch === sentUnder.epoch
      const sentEra = 'era' in sentUnder ? sentUnder.era : undefined
      try {
        const result = await attempt()
        if (!(sentUnder.kind === 'remembered' && sentEra === 'modern' && typeof result.resultType !== 'string')) {
          if (current()) this.#confirmed()
          return result
        }
        if (current()) await this.#forget() // a 2025 server answered: a remembered modern verdict that no longer holds
        if (method === 'tools/call' || again) return { resultType: 'complete', ...result }
      } catch (error) {
        const mismatch =
          isEraMismatch(error) && (sentEra === 'modern' || !sessionStarted()) && !(error instanceof NetworkError)
        if (sentUnder.kind === 'tentative') {
          // the 2025 try after an unreachable probe failed too: no verdict (probed again below on a mismatch);
          // but a server that answered `initialize` after a silent probe is a 2025 one: the verdict holds
          if (current()) {
            if (sentUnder.cause === 'silent' && sessionStarted()) this.#confirmed()
            else this.#dropped()
          }
          if (again || !mismatch) throw error
        } else if (sentUnder.kind === 'remembered') {
          if (again || !mismatch) throw error
          if (current()) await this.#forget()
        } else if (current() || again || !mismatch) throw error
      }
      await this.resolve(probe, signal)
    }
  }

  /**
   * Transition: a probe starts (from `unknown`); it ends in `#recalled`, `#found` or `#guessed`, or, when it
   * gives no verdict (thrown to the requests that wait for it), back in `unknown` for the next request.
   */
  #probed(probe: () => Promise<unknown>): Promise<Era> {
    const epoch = this.#state.epoch
    const probing: EraState = {
      kind: 'probing',
      probe: this.#find(probe).finally(() => {
        if (this.#state === probing) this.#state = { kind: 'unknown', epoch }
      }),
      epoch,
    }
    this.#state = probing
    return probing.probe
  }

  /** Transition: the store remembered `era` (not yet confirmed by an answer). */
  #recalled(era: Era): Era {
    this.#state = { kind: 'remembered', era, epoch: this.#state.epoch }
    return era
  }

  /** Transition: a probe found `era`. */
  #found(era: Era): Era {
    this.#state = { kind: 'settled', era, epoch: this.#state.epoch }
    return era
  }

  /** Transition: the probe could not reach the server, or (stdio) got no answer in time: legacy, tentatively. */
  #guessed(cause: TentativeCause): Era {
    this.#state = { kind: 'tentative', era: 'legacy', cause, epoch: this.#state.epoch }
    return 'legacy'
  }

  /** Transition: a request was answered in this era — a remembered or tentative verdict is settled (a tentative one is not stored). */
  #confirmed(): void {
    const state = this.#state
    if (state.kind === 'remembered' || state.kind === 'tentative')
      this.#state = { kind: 'settled', era: state.era, epoch: state.epoch }
  }

  /** Transition: the verdict is dropped (no era until the next probe); a new epoch begins. */
  #dropped(): void {
    this.#state = { kind: 'unknown', epoch: this.#state.epoch + 1 }
  }

  async #find(probe: () => Promise<unknown>): Promise<Era> {
    const stored = this.#storeTrusted ? await this.#recall() : undefined
    if (stored !== undefined) return this.#recalled(stored)
    let era: Era
    try {
      era = await probeEra(probe)
    } catch (error) {
      const silent = this.#silenceIsLegacy === true && error instanceof RequestTimeoutError
      if (!(error instanceof NetworkError || silent)) throw error
      return this.#guessed(silent ? 'silent' : 'unreachable')
    }
    this.#found(era)
    await this.#remember(era)
    return era
  }

  async #remember(era: Era): Promise<void> {
    if (!this.#store) return
    await Promise.resolve()
      .then(() => this.#store!.set(this.#url!, { era, checkedAt: this.#now() }))
      .catch((error: unknown) => this.#warn(`era store: set failed: ${String(error)}`))
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

  /** Forget a remembered verdict that proved wrong, here and in the store; this client will not read the store again. */
  async #forget(): Promise<void> {
    this.#dropped()
    this.#storeTrusted = false
    await Promise.resolve()
      .then(() => this.#store!.delete(this.#url!))
      .catch((e: unknown) => this.#warn(`era store: delete failed: ${String(e)}`))
  }
}

/**
 * An error that shows the request reached a server of the other era and was not run: -32601 (a 2025
 * server asked for a 2026 method, or the reverse), -32000 (a 2025 server's "no session"), -32022 (a
 * modern-only server asked to `initialize`), HTTP 400 / 404 / 405, or no JSON-RPC at all.
 */
function isEraMismatch(error: unknown): boolean {
  if (error instanceof McpError)
    return [ErrorCode.MethodNotFound, ErrorCode.UnsupportedProtocolVersion, -32000].includes(error.code)
  if (error instanceof HttpError) return [400, 404, 405].includes(error.status)
  return error instanceof InvalidResultError
}

/**
 * The version a `-32022` (unsupported protocol version) answer offers that this SDK speaks: the first of its
 * `data.supported` in {@link SUPPORTED_PROTOCOL_VERSIONS}; undefined for another error or no such version.
 */
export function versionOffered(error: unknown): string | undefined {
  if (!(error instanceof McpError && error.code === ErrorCode.UnsupportedProtocolVersion)) return undefined
  const supported = (error.data as { supported?: unknown } | undefined)?.supported
  return Array.isArray(supported)
    ? supported.find((s): s is string => typeof s === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(s))
    : undefined
}
