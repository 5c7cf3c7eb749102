/**
 * The request-state policy: seal plaintext state into a token bound to time, request, principal and
 * audience, and open it again — checking every claim for every codec (built-in or your own).
 *
 * Claims (compact JSON inside the ciphertext): `v` format version (1), `iat`/`exp` Unix time in
 * **seconds**, `m` method, `t` target (tool or prompt name, or resource URI), `a` digest of the canonical
 * JSON of the arguments, `s` the handler's plaintext state, `aud` audience (when there is one), `p` a salted
 * principal tag (when a principal is bound). Every round is re-sealed, so `ttl` bounds each round's think time.
 *
 * The same policy seals the legacy lane's session ids (`"s1."` tokens: the key ring's session scheme, its
 * own HKDF info): claims `v` (1), `sid` (128 random bits), `pv` the negotiated protocol version, `caps` the
 * client's capabilities, `ci` its client info, `aud`, `p` the principal tag, `iat`/`exp` in seconds
 * (`sessionTtl`, default 14 days). A policy with a custom `codec` seals no sessions.
 * @module
 */
import { decodeBase64UrlStrict, encodeBase64Url } from '../encoding/base64url.ts'
import {
  AesGcmKeyRing,
  TEST_RANDOM_SOURCE,
  type RandomSource,
  type RequestStateCodec,
  type RequestStateKey,
} from './codec.ts'
import { InvalidRequestStateError } from './errors.ts'
import type { AuthInfo } from '../protocol/auth.ts'

/** What `bindPrincipal` sees: the request's verified auth info, if any. */
export interface PrincipalSource {
  authInfo?: AuthInfo
}

/** The request a token is bound to. */
export interface RequestBinding {
  /** `tools/call`, `prompts/get` or `resources/read`. */
  method: string
  /** The tool or prompt name, or the resource URI. */
  target: string
  /**
   * {@link argumentsDigest} of the arguments (resources: the digest of `{}`), or a promise of it: `seal`
   * and `open` await it alongside their own Web Crypto work, so the digest overlaps it.
   */
  argsDigest: string | PromiseLike<string>
  /** The principal string from `bindPrincipal`, or undefined when unauthenticated / unbound. */
  principal: string | undefined
}

/** Options of {@link RequestStateSecurity}: exactly one of `keys` or `codec`. */
export interface RequestStateSecurityOptions {
  /** Secrets, newest first: `keys[0]` seals, every key opens. Each ≥ 32 bytes (strings: UTF-8 bytes). */
  keys?: readonly RequestStateKey[]
  /** Your own codec instead of the built-in AES-GCM one; claims are still checked by the SDK. */
  codec?: RequestStateCodec
  /** Lifetime of one round's token in **seconds** (positive, finite). Default 600. */
  ttl?: number
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
  sessionTtl?: number
}

/**
 * What a legacy session id holds: the `initialize` a 2025-era client made, carried back on every request.
 * Client input, unverified (except that it is what this client declared).
 */
export interface LegacySession {
  /** 128 random bits, base64url: tells sessions apart (non-deterministic ids). */
  sid: string
  /** The protocol version `initialize` negotiated. */
  protocolVersion: string
  /** The capabilities the client declared at `initialize`. */
  clientCapabilities: Record<string, unknown>
  /** The client info it sent at `initialize`, if any. */
  clientInfo?: Record<string, unknown>
}

/** What the id of a server-to-client request holds: where its answer goes, and the session it was asked in. */
export interface SealedQuestion {
  /** The mailbox key of the question: 128 random bits, base64url. */
  qid: string
  /** The `sid` of the session the question was asked in. */
  sid: string
}

/** Tokens minted up to this many seconds in the future (clock skew between instances) are accepted. */
export const CLOCK_SKEW_SECONDS = 60
const DEFAULT_TTL_SECONDS = 600
/** 14 days, in seconds. */
const DEFAULT_SESSION_TTL_SECONDS = 14 * 24 * 60 * 60
const DEFAULT_MAX_TOKEN_LENGTH = 1024 * 1024
const EPHEMERAL: unique symbol = Symbol('edge-mcp.ephemeral')
const utf8 = new TextEncoder()
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })
const PRINCIPAL_DOMAIN = utf8.encode('edge-mcp/request-state/principal:')

/**
 * The default principal: compact JSON `[clientId, issuer|null, subject|null]` of verified auth info,
 * or undefined when the request is unauthenticated.
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
 * @throws RangeError for a ttl that is not a positive finite number, or for invalid keys (see AesGcmKeyRing).
 * @example
 * // many instances: every instance shares the keys (newest first)
 * new RequestStateSecurity({ keys: parseRequestStateKeys(env.REQUEST_STATE_KEYS), ttl: 600 })
 */
export class RequestStateSecurity {
  /** Lifetime of a round's token, in seconds. */
  readonly ttl: number
  /** Lifetime of a legacy session id, in seconds (default 14 days). */
  readonly sessionTtl: number
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

  constructor(options: RequestStateSecurityOptions) {
    if ((options.keys === undefined) === (options.codec === undefined)) {
      throw new TypeError('RequestStateSecurity takes exactly one of keys or codec')
    }
    const ttl = options.ttl ?? DEFAULT_TTL_SECONDS
    if (!(typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0)) {
      throw new RangeError(`request-state ttl must be a positive finite number of seconds, got ${String(ttl)}`)
    }
    this.ttl = ttl
    const sessionTtl = options.sessionTtl ?? DEFAULT_SESSION_TTL_SECONDS
    if (!(typeof sessionTtl === 'number' && Number.isFinite(sessionTtl) && sessionTtl > 0)) {
      throw new RangeError(`sessionTtl must be a positive finite number of seconds, got ${String(sessionTtl)}`)
    }
    this.sessionTtl = sessionTtl
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

  #codecFor(audience: string | undefined): RequestStateCodec {
    if (this.#codec) return this.#codec
    return this.#keyRing().codec(audience)
  }

  /** True when this policy can seal legacy session ids: it has keys (a custom `codec` seals none). */
  get sealsSessions(): boolean {
    return this.#codec === undefined
  }

  /**
   * Seal a legacy session into an `Mcp-Session-Id` (`"s1."` token, valid `sessionTtl` seconds).
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
      exp: iat + this.sessionTtl,
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
    const bytes = await this.#keyRing().sessionCodec(audience).unseal(token)
    const claims = claimsOf(bytes)
    const { v, sid, pv, caps, ci, iat, exp } = claims
    if (
      v !== 1 ||
      typeof sid !== 'string' ||
      typeof pv !== 'string' ||
      !isObject(caps) ||
      !(ci === undefined || isObject(ci))
    )
      throw new InvalidRequestStateError('malformed claims')
    this.#checkTimes(iat, exp, this.sessionTtl)
    const audienceOk = claims.aud === audience
    const hasTag = 'p' in claims
    const principalOk = principal === undefined ? !hasTag : await principalMatches(claims.p, principal)
    if (!audienceOk) throw new InvalidRequestStateError('audience')
    if (!principalOk) throw new InvalidRequestStateError('principal')
    const session: LegacySession = { sid, protocolVersion: pv, clientCapabilities: caps }
    if (ci !== undefined) session.clientInfo = ci
    return session
  }

  /**
   * Seal the id of a server-to-client request (`"q1."` token under the question HKDF info): the
   * mailbox key `qid`, the session `sid` it was asked in, the principal, valid `ttl` seconds.
   * @throws TypeError when the policy has a custom codec (see {@link sealsSessions}).
   */
  async sealQuestion(
    question: SealedQuestion,
    principal: string | undefined,
    audience: string | undefined,
    ttl: number,
  ) {
    if (!this.sealsSessions) throw new TypeError('a RequestStateSecurity with a custom codec seals no questions')
    const iat = this.#now() / 1000
    const claims: Record<string, unknown> = { v: 1, qid: question.qid, sid: question.sid, iat, exp: iat + ttl }
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
   * future, and not expired by its own `exp` nor by `ttl` (seconds; a shortened ttl also shortens tokens
   * already out).
   * @throws InvalidRequestStateError `minted in the future` or `expired`.
   */
  #checkTimes(iat: unknown, exp: unknown, ttl: number): void {
    const now = this.#now() / 1000
    if (!(typeof iat === 'number' && iat <= now + CLOCK_SKEW_SECONDS))
      throw new InvalidRequestStateError('minted in the future')
    if (!(typeof exp === 'number' && now < exp && now < iat + ttl)) throw new InvalidRequestStateError('expired')
  }

  /**
   * Seal a handler's plaintext state for one round.
   * @param audience - the effective audience (the explicit one, else the server's name).
   */
  async seal(state: string, binding: RequestBinding, audience: string | undefined): Promise<string> {
    // the principal tag and the arguments digest are independent: both run before either is awaited
    const tag = binding.principal === undefined ? undefined : principalTag(binding.principal, this.#random(8))
    const [argsDigest, principalClaim] = await Promise.all([binding.argsDigest, tag])
    const iat = this.#now() / 1000
    const claims: Record<string, unknown> = {
      v: 1,
      iat,
      exp: iat + this.ttl,
      m: binding.method,
      t: binding.target,
      a: argsDigest,
      s: state,
    }
    if (audience !== undefined) claims.aud = audience
    if (principalClaim !== undefined) claims.p = principalClaim
    const token = await this.#codecFor(audience).seal(utf8.encode(JSON.stringify(claims)))
    if (typeof token !== 'string') throw new TypeError('the request-state codec returned a non-string token')
    return token
  }

  /**
   * Open and verify a token presented on a retry. A promised `binding.argsDigest` is awaited after the
   * codec has started unsealing (the two run together); a rejected digest rejects with its own error.
   * @returns the handler's plaintext state.
   * @throws InvalidRequestStateError with a log-only reason for every failure (never the token or plaintext).
   */
  async open(token: unknown, binding: RequestBinding, audience: string | undefined): Promise<string> {
    if (typeof token !== 'string') throw new InvalidRequestStateError('non-string requestState')
    if (token.length > this.#maxTokenLength) throw new InvalidRequestStateError('too large')
    const digest = Promise.resolve(binding.argsDigest)
    digest.then(undefined, () => {}) // awaited below; a rejection is never unhandled while the codec runs
    let bytes: Uint8Array
    try {
      bytes = await this.#codecFor(audience).unseal(token)
    } catch (error) {
      if (error instanceof InvalidRequestStateError) throw error
      throw new InvalidRequestStateError('codec error')
    }
    const claims = claimsOf(bytes)
    const { v, iat, exp, s } = claims
    if (v !== 1 || typeof s !== 'string') throw new InvalidRequestStateError('malformed claims')
    this.#checkTimes(iat, exp, this.ttl)
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
    return s
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

async function tagOf(salt: Uint8Array, principal: string): Promise<Uint8Array> {
  // JSON.stringify escapes lone surrogates, so "\ud800" and "\udfff" never collide (TextEncoder would map both to U+FFFD).
  const p = utf8.encode(JSON.stringify(principal))
  const input = new Uint8Array(PRINCIPAL_DOMAIN.length + salt.length + p.length)
  input.set(PRINCIPAL_DOMAIN)
  input.set(salt, PRINCIPAL_DOMAIN.length)
  input.set(p, PRINCIPAL_DOMAIN.length + salt.length)
  return new Uint8Array(await crypto.subtle.digest('SHA-256', input)).subarray(0, 16)
}

async function principalTag(principal: string, salt: Uint8Array): Promise<string> {
  const tag = await tagOf(salt, principal)
  const out = new Uint8Array(24)
  out.set(salt)
  out.set(tag, 8)
  return encodeBase64Url(out)
}

async function principalMatches(claim: unknown, principal: string): Promise<boolean> {
  if (typeof claim !== 'string') return false
  const raw = decodeBase64UrlStrict(claim)
  if (!raw || raw.length !== 24) return false
  const expected = await tagOf(raw.subarray(0, 8), principal)
  let diff = 0
  for (let i = 0; i < 16; i++) diff |= expected[i]! ^ raw[8 + i]!
  return diff === 0
}

/** The claims object inside an unsealed token. @throws InvalidRequestStateError `malformed claims`. */
function claimsOf(bytes: Uint8Array): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = JSON.parse(strictUtf8.decode(bytes))
  } catch {
    throw new InvalidRequestStateError('malformed claims')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidRequestStateError('malformed claims')
  return parsed as Record<string, unknown>
}
