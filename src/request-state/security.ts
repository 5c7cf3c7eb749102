/**
 * The request-state policy: seal plaintext state into a token bound to time, request, principal and
 * audience, and open it again — checking every claim for every codec (built-in or your own).
 *
 * With `keys` (the token format, `"v2."`): the plaintext is `iat(6) ‖ exp(6) ‖ UTF-8 JSON of the state`,
 * times in **milliseconds** (unsigned 48-bit big-endian); the binding — method, target, canonical
 * arguments, audience, principal — is not stored: it is the AAD (`"v2." ‖ kid ‖ JSON [m, t, args,
 * aud|null, p|null]`, `args` the canonical JSON as a string), recomputed by the opener, so a token presented
 * for anything else fails the tag. No digest: a seal or an open is one Web Crypto call.
 *
 * With a custom `codec` (byte-transparent, so it cannot carry a binding beside the bytes): the codec seals
 * the claims envelope, compact JSON: `v` (1), `iat`/`exp` Unix time in **seconds**, `m` method, `t`
 * target (tool or prompt name, or resource URI), `a` digest of the canonical JSON of the arguments, `s`
 * the handler's state (a JSON value), `aud` audience (when there is one), `p` a salted principal tag (when
 * a principal is bound); the SDK checks every claim after `unseal`. Either way every round is re-sealed,
 * so `ttlSeconds` bounds each round's think time.
 *
 * The same policy seals the legacy lane's session ids (`"s1."` tokens: the key ring's session scheme, its
 * own HKDF info): claims `v` (1), `sid` (128 random bits), `pv` the negotiated protocol version, `caps` the
 * client's capabilities, `ci` its client info, `aud`, `p` the principal tag, `iat`/`exp` in seconds
 * (`sessionTtlSeconds`, default 14 days). A policy with a custom `codec` seals no sessions.
 * @module
 */
import {
  AesGcmKeyRing,
  TEST_RANDOM_SOURCE,
  type RandomSource,
  type RequestStateCodec,
  type RequestStateKey,
} from './codec.ts'
import { InvalidRequestStateError } from './errors.ts'
import {
  bindingJson,
  claimsOf,
  decodeStatePlaintext,
  encodeStatePlaintext,
  isObject,
  principalMatches,
  principalTag,
  roundExtensionOf,
  type RequestStateValue,
  type RoundExtension,
} from './claims.ts'
import type { LegacySession, PrincipalSource, RequestBinding, SealedQuestion } from './types.ts'
import { digest16 } from '../encoding/canonical.ts'
import { OpenedSessions } from './opened-sessions.ts'

export type { LegacySession, PrincipalSource, RequestBinding, SealedQuestion } from './types.ts'

/** Options of {@link RequestStateSecurity}: exactly one of `keys` or `codec`. */
export interface RequestStateSecurityOptions {
  /** Secrets, newest first: `keys[0]` seals, every key opens. Each ≥ 32 bytes (strings: UTF-8 bytes). */
  keys?: readonly RequestStateKey[]
  /** Your own codec instead of the built-in AES-GCM one; claims are still checked by the SDK. */
  codec?: RequestStateCodec
  /** Lifetime of one round's token in **seconds** (positive, finite). Default 600. */
  ttlSeconds?: number
  /** The audience claim. Default: the server's name. */
  audience?: string
  /**
   * The principal a token is bound to, or `null` to disable principal binding. Default:
   * {@link authenticatedPrincipal} (client id, issuer, subject of verified auth info).
   */
  bindPrincipal?: ((source: PrincipalSource) => string | undefined) | null
  /** Largest accepted token, in characters, checked before any decoding. Default 1 MiB (1,048,576). */
  maxTokenLength?: number
  /** Clock in **milliseconds** since the epoch (tests inject one). Default `Date.now`. */
  now?: () => number
  /**
   * Lifetime of a legacy (2025-era) session id in **seconds** (positive, finite). Default 1,209,600 (14
   * days): a 2025 client that gets 404 for an expired session must re-initialize, and some wedge instead,
   * so sessions are long-lived; rotate keys to end them sooner.
   */
  sessionTtlSeconds?: number
}

/** Tokens minted up to this many seconds in the future (clock skew between instances) are accepted. */
export const CLOCK_SKEW_SECONDS = 60
const DEFAULT_TTL_SECONDS = 600
/** 14 days, in seconds. */
const DEFAULT_SESSION_TTL_SECONDS = 14 * 24 * 60 * 60
const DEFAULT_MAX_TOKEN_LENGTH = 1024 * 1024
const EPHEMERAL: unique symbol = Symbol('edge-mcp.ephemeral')
const utf8 = new TextEncoder()

/**
 * The default principal: compact JSON `[clientId, issuer|null, subject|null]` of verified auth info,
 * or undefined when the request is unauthenticated.
 * @internal not in the public API: the default `bindPrincipal`
 */
export function authenticatedPrincipal(source: PrincipalSource): string | undefined {
  const a = source.authInfo
  if (!a) return undefined
  return JSON.stringify([a.clientId, a.issuer ?? null, a.subject ?? null])
}

/**
 * How a server protects `requestState`: which codec, how long a round may take, and what each token is
 * bound to. `McpServer` uses `RequestStateSecurity.ephemeral()` unless you pass one.
 *
 * @throws TypeError when both or neither of `keys` / `codec` are given.
 * @throws RangeError for a `ttlSeconds` or `sessionTtlSeconds` that is not a positive finite number, or for invalid keys (see AesGcmKeyRing).
 * @example
 * // many instances: every instance shares the keys (newest first)
 * new RequestStateSecurity({ keys: parseRequestStateKeys(env.REQUEST_STATE_KEYS), ttlSeconds: 600 })
 */
export class RequestStateSecurity {
  /** Lifetime of a round's token, in seconds. */
  readonly ttlSeconds: number
  /** Lifetime of a legacy session id, in seconds (default 14 days). */
  readonly sessionTtlSeconds: number
  /** The explicit audience, or undefined to use the server's name. */
  readonly audience: string | undefined
  /** The largest token accepted (characters); the server refuses to mint a larger one. */
  get maxTokenLength(): number {
    return this.#maxTokenLength
  }
  /** True for the zero-config per-process policy (exempt from the named-server rule). */
  readonly isEphemeral: boolean
  #ring: AesGcmKeyRing | undefined
  readonly #ringKeys: readonly RequestStateKey[] | undefined
  readonly #codec: RequestStateCodec | undefined
  readonly #bindPrincipal: ((source: PrincipalSource) => string | undefined) | null
  readonly #maxTokenLength: number
  readonly #now: () => number
  readonly #random: RandomSource
  /**
   * Session ids this policy (so this key ring) opened and found valid, by exact token (audience, claims, the
   * principal their tag matched). A hit skips the decrypt, the parse and that principal's tag hash, not the checks
   * (claims, times, audience, principal). Kept claims are never handed out: each request gets its own copies.
   */
  readonly #opened = new OpenedSessions()

  constructor(options: RequestStateSecurityOptions) {
    if ((options.keys === undefined) === (options.codec === undefined)) {
      throw new TypeError('RequestStateSecurity takes exactly one of keys or codec')
    }
    const ttl = options.ttlSeconds ?? DEFAULT_TTL_SECONDS
    if (!(typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0)) {
      throw new RangeError(`request-state ttlSeconds must be a positive finite number of seconds, got ${String(ttl)}`)
    }
    this.ttlSeconds = ttl
    const sessionTtl = options.sessionTtlSeconds ?? DEFAULT_SESSION_TTL_SECONDS
    if (!(typeof sessionTtl === 'number' && Number.isFinite(sessionTtl) && sessionTtl > 0)) {
      throw new RangeError(`sessionTtlSeconds must be a positive finite number of seconds, got ${String(sessionTtl)}`)
    }
    this.sessionTtlSeconds = sessionTtl
    this.audience = options.audience
    this.isEphemeral = (options as { [EPHEMERAL]?: boolean })[EPHEMERAL] === true
    const random = (options as { [TEST_RANDOM_SOURCE]?: RandomSource })[TEST_RANDOM_SOURCE]
    this.#random = random ?? ((n) => crypto.getRandomValues(new Uint8Array(n)))
    // the ephemeral key is drawn on first use: Workers forbid random values at global scope
    this.#ringKeys = options.keys
    if (options.keys !== undefined && !this.isEphemeral)
      this.#ring = new AesGcmKeyRing(options.keys, random ? { [TEST_RANDOM_SOURCE]: random } : {})
    this.#codec = options.codec
    this.#bindPrincipal = options.bindPrincipal === undefined ? authenticatedPrincipal : options.bindPrincipal
    const maxTokenLength = options.maxTokenLength ?? DEFAULT_MAX_TOKEN_LENGTH
    if (!(Number.isInteger(maxTokenLength) && maxTokenLength > 0)) {
      throw new RangeError(`request-state maxTokenLength must be a positive integer, got ${String(maxTokenLength)}`)
    }
    this.#maxTokenLength = maxTokenLength
    this.#now = options.now ?? Date.now
  }

  /** One random 32-byte secret for this process: tokens die with the process (single instance only). */
  static ephemeral(options: Omit<RequestStateSecurityOptions, 'keys' | 'codec'> = {}): RequestStateSecurity {
    const internal = { ...options, keys: [], [EPHEMERAL]: true }
    return new RequestStateSecurity(internal)
  }

  /**
   * The principal for a request, via `bindPrincipal`.
   * @throws TypeError when `bindPrincipal` returns something other than a string or undefined/null.
   */
  principalOf(source: PrincipalSource): string | undefined {
    if (this.#bindPrincipal === null) return undefined
    const p = this.#bindPrincipal(source)
    if (p === undefined || p === null) return undefined
    if (typeof p !== 'string') throw new TypeError('bindPrincipal must return a string or undefined')
    return p
  }

  #keyRing(): AesGcmKeyRing {
    this.#ring ??= new AesGcmKeyRing(this.isEphemeral ? [crypto.getRandomValues(new Uint8Array(32))] : this.#ringKeys!)
    return this.#ring
  }

  /** True when this policy can seal legacy session ids: it has keys (a custom `codec` seals none). */
  get sealsSessions(): boolean {
    return this.#codec === undefined
  }

  /**
   * Seal a legacy session into an `Mcp-Session-Id` (`"s1."` token, valid `sessionTtlSeconds`).
   * @param principal - from {@link principalOf}; undefined binds none.
   * @throws TypeError when the policy has a custom codec (see {@link sealsSessions}).
   */
  async sealSession(
    session: LegacySession,
    principal: string | undefined,
    audience: string | undefined,
  ): Promise<string> {
    if (!this.sealsSessions) throw new TypeError('a RequestStateSecurity with a custom codec seals no sessions')
    const iat = this.#now() / 1000
    const claims: Record<string, unknown> = {
      v: 1,
      sid: session.sid,
      pv: session.protocolVersion,
      caps: session.clientCapabilities,
      iat,
      exp: iat + this.sessionTtlSeconds,
    }
    if (session.clientInfo !== undefined) claims.ci = session.clientInfo
    if (audience !== undefined) claims.aud = audience
    if (principal !== undefined) claims.p = await principalTag(principal, this.#random(8))
    return this.#keyRing()
      .sessionCodec(audience)
      .seal(utf8.encode(JSON.stringify(claims)))
  }

  /**
   * Open a legacy session id and check its expiry, audience and principal.
   * @throws InvalidRequestStateError with a log-only reason for every failure (and for any token when the
   *   policy seals no sessions).
   */
  async openSession(
    token: unknown,
    principal: string | undefined,
    audience: string | undefined,
  ): Promise<LegacySession> {
    if (!this.sealsSessions) throw new InvalidRequestStateError('no session keys')
    if (typeof token !== 'string') throw new InvalidRequestStateError('non-string session id')
    if (token.length > this.#maxTokenLength) throw new InvalidRequestStateError('too large')
    const hit = this.#opened.get(token, audience, this.#now() / 1000)
    const claims = hit ? hit.claims : claimsOf(await this.#keyRing().sessionCodec(audience).unseal(token))
    // a kept id's declared capabilities and client info: parsed anew, so no request shares another's
    const [caps, ci] = hit ? (JSON.parse(hit.declared) as unknown[]) : [claims.caps, claims.ci]
    const { v, sid, pv, iat, exp } = claims
    if (
      v !== 1 ||
      typeof sid !== 'string' ||
      typeof pv !== 'string' ||
      !isObject(caps) ||
      !(ci === undefined || isObject(ci))
    )
      throw new InvalidRequestStateError('malformed claims')
    this.#checkTimes(iat, exp, this.sessionTtlSeconds)
    const audienceOk = claims.aud === audience
    const hasTag = 'p' in claims
    const principalOk =
      principal === undefined ? !hasTag : hit?.principal === principal || (await principalMatches(claims.p, principal))
    if (!audienceOk) throw new InvalidRequestStateError('audience')
    if (!principalOk) throw new InvalidRequestStateError('principal')
    if (hit) hit.principal = principal
    else {
      const expires = Math.min(exp as number, (iat as number) + this.sessionTtlSeconds) // numbers: checked above
      this.#opened.keep(token, claims, { audience, principal, expires })
    }
    const session: LegacySession = { sid, protocolVersion: pv, clientCapabilities: caps }
    if (ci !== undefined) session.clientInfo = ci
    return session
  }

  /**
   * Seal the id of a server-to-client request (`"q1."` token under the question HKDF info): the
   * mailbox key `qid`, the session `sid` it was asked in, the principal, valid `ttlSeconds`.
   * @throws TypeError when the policy has a custom codec (see {@link sealsSessions}).
   */
  async sealQuestion(
    question: SealedQuestion,
    principal: string | undefined,
    audience: string | undefined,
    ttlSeconds: number,
  ) {
    if (!this.sealsSessions) throw new TypeError('a RequestStateSecurity with a custom codec seals no questions')
    const iat = this.#now() / 1000
    const claims: Record<string, unknown> = { v: 1, qid: question.qid, sid: question.sid, iat, exp: iat + ttlSeconds }
    if (audience !== undefined) claims.aud = audience
    if (principal !== undefined) claims.p = await principalTag(principal, this.#random(8))
    return this.#keyRing()
      .questionCodec(audience)
      .seal(utf8.encode(JSON.stringify(claims)))
  }

  /**
   * Open the id of a server-to-client request and check its expiry, audience and principal.
   * @throws InvalidRequestStateError with a log-only reason for every failure.
   */
  async openQuestion(token: unknown, principal: string | undefined, audience: string | undefined) {
    if (!this.sealsSessions) throw new InvalidRequestStateError('no session keys')
    if (typeof token !== 'string') throw new InvalidRequestStateError('non-string question id')
    if (token.length > this.#maxTokenLength) throw new InvalidRequestStateError('too large')
    const claims = claimsOf(await this.#keyRing().questionCodec(audience).unseal(token))
    const { v, qid, sid, iat, exp } = claims
    if (v !== 1 || typeof qid !== 'string' || typeof sid !== 'string')
      throw new InvalidRequestStateError('malformed claims')
    this.#checkTimes(iat, exp, Infinity)
    const principalOk = principal === undefined ? !('p' in claims) : await principalMatches(claims.p, principal)
    if (claims.aud !== audience) throw new InvalidRequestStateError('audience')
    if (!principalOk) throw new InvalidRequestStateError('principal')
    return { qid, sid } satisfies SealedQuestion
  }

  /**
   * Check a token's times against this policy's clock: minted at most `CLOCK_SKEW_SECONDS` in the
   * future, and not expired by its own `exp` nor by `ttlSeconds` (a shortened one also shortens tokens
   * already out).
   * @throws InvalidRequestStateError `minted in the future` or `expired`.
   */
  #checkTimes(iat: unknown, exp: unknown, ttlSeconds: number): void {
    const now = this.#now() / 1000
    if (!(typeof iat === 'number' && iat <= now + CLOCK_SKEW_SECONDS))
      throw new InvalidRequestStateError('minted in the future')
    if (!(typeof exp === 'number' && now < exp && now < iat + ttlSeconds)) throw new InvalidRequestStateError('expired')
  }

  /**
   * Seal a handler's state for one round, bound to `binding` and `audience` (exactly what the server does
   * after a handler returns an `InputRequiredResult`; see also `createRequestStateCodec`). With keys: a
   * `"v2."` token (binding in the AAD); with a custom codec: the claims envelope, sealed by the codec.
   * @param state - any JSON value; a string reads back as the same string.
   * @param audience - the effective audience (the explicit one, else the server's name).
   * @param extension - what the server carries beside the state (its middleware's round and carry); @internal
   * @throws TypeError for a state that is not JSON (undefined, a function, a cycle, a BigInt), or a codec
   *   that returns a non-string.
   */
  async seal(
    state: RequestStateValue,
    binding: RequestBinding,
    audience: string | undefined,
    extension?: RoundExtension,
  ): Promise<string> {
    const codec = this.#codec
    if (codec === undefined) {
      const iatMs = Math.floor(this.#now())
      const plaintext = encodeStatePlaintext(iatMs, Math.floor(iatMs + this.ttlSeconds * 1000), state, extension)
      const bound = bindingJson(binding.method, binding.target, binding.canonicalArgs, audience, binding.principal)
      return this.#keyRing().sealBound(plaintext, bound, audience)
    }
    if (state === undefined) throw new TypeError('requestState must be a JSON value')
    // the principal tag and the arguments digest are independent: both run before either is awaited
    const tag = binding.principal === undefined ? undefined : principalTag(binding.principal, this.#random(8))
    const [argsDigest, principalClaim] = await Promise.all([digest16(binding.canonicalArgs), tag])
    const iat = this.#now() / 1000
    const claims: Record<string, unknown> = {
      v: 1,
      iat,
      exp: iat + this.ttlSeconds,
      m: binding.method,
      t: binding.target,
      a: argsDigest,
      s: state,
    }
    if (audience !== undefined) claims.aud = audience
    if (principalClaim !== undefined) claims.p = principalClaim
    if (extension !== undefined) claims.x = extension
    const token = await codec.seal(utf8.encode(JSON.stringify(claims)))
    if (typeof token !== 'string') throw new TypeError('the request-state codec returned a non-string token')
    return token
  }

  /**
   * Open and verify a token presented on a retry: a `"v2."` token with keys (one Web Crypto call, the
   * open), the codec's tokens with a custom codec (the codec's open, and alongside it a hash of
   * `binding.canonicalArgs`).
   * @returns the handler's state, as it was sealed (any JSON value).
   * @throws InvalidRequestStateError with a log-only reason for every failure (never the token or plaintext);
   *   with keys, a token bound to another request, principal or audience fails its tag: reason `seal`.
   */
  async open(token: unknown, binding: RequestBinding, audience: string | undefined): Promise<RequestStateValue> {
    return (await this.openRound(token, binding, audience)).state
  }

  /**
   * {@link open}, with what the server carried beside the state (see `seal`'s `extension`).
   * @throws as {@link open}; `malformed claims` for a malformed extension.
   * @internal
   */
  async openRound(
    token: unknown,
    binding: RequestBinding,
    audience: string | undefined,
  ): Promise<{ state: RequestStateValue; extension?: RoundExtension }> {
    if (typeof token !== 'string') throw new InvalidRequestStateError('non-string requestState')
    if (token.length > this.#maxTokenLength) throw new InvalidRequestStateError('too large')
    const codec = this.#codec
    if (codec === undefined) {
      const bound = bindingJson(binding.method, binding.target, binding.canonicalArgs, audience, binding.principal)
      const opened = decodeStatePlaintext(await this.#keyRing().openBound(token, bound, audience))
      this.#checkTimes(opened.iatMs / 1000, opened.expMs / 1000, this.ttlSeconds)
      return opened.extension ? { state: opened.state, extension: opened.extension } : { state: opened.state }
    }
    const digest = digest16(binding.canonicalArgs)
    digest.then(undefined, () => {}) // awaited below; a rejection is never unhandled while the codec runs
    let bytes: Uint8Array
    try {
      bytes = await codec.unseal(token)
    } catch (error) {
      if (error instanceof InvalidRequestStateError) throw error
      throw new InvalidRequestStateError('codec error')
    }
    const claims = claimsOf(bytes)
    const { v, iat, exp, s } = claims
    if (v !== 1 || s === undefined) throw new InvalidRequestStateError('malformed claims')
    this.#checkTimes(iat, exp, this.ttlSeconds)
    // Every binding check runs before any verdict, so the time taken does not tell which one failed.
    const argsDigest = await digest
    const requestOk = claims.m === binding.method && claims.t === binding.target && claims.a === argsDigest
    const audienceOk = claims.aud === audience
    const hasTag = 'p' in claims
    const presenceOk = hasTag === (binding.principal !== undefined)
    const principalOk = binding.principal === undefined ? !hasTag : await principalMatches(claims.p, binding.principal)
    if (!requestOk) throw new InvalidRequestStateError('request binding')
    if (!audienceOk) throw new InvalidRequestStateError('audience')
    if (!presenceOk) throw new InvalidRequestStateError('principal drift')
    if (!principalOk) throw new InvalidRequestStateError('principal')
    const state = s as RequestStateValue
    return claims.x === undefined ? { state } : { state, extension: roundExtensionOf(claims.x) }
  }
}
