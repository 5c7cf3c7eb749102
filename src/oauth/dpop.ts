/**
 * DPoP (RFC 9449) on the resource server: the proof that comes with a DPoP-bound access token is checked
 * (§4.3, §7.1) — one `DPoP` header, `typ: dpop+jwt`, an allowed asymmetric `alg`, an embedded public `jwk`
 * that verifies the signature and whose RFC 7638 thumbprint is the token's `cnf.jkt` (§6), `htm` / `htu`
 * naming this request, `ath` the token's hash, `iat` within a window, a `jti` not seen within it, and the
 * server's nonce (§9) when one is required. Its own module, reached only through the verifiers' `dpop`
 * option: a Worker that does not accept DPoP carries none of it.
 * @module
 */
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, errors, jwtVerify, type JWK } from 'jose'
import { decodeBase64UrlStrict, encodeBase64UrlCompact } from '../encoding/base64url.ts'
import { DPoPProofError, InvalidTokenError } from '../server/errors.ts'
import type { VerifyTokenContext } from '../server/http/bearer.ts'
import { duration } from './claims.ts'

/**
 * Where the `jti` of accepted proofs are remembered, so a proof is used once (RFC 9449 §11.1). The default
 * is in memory, **per instance** (per isolate on Workers, per process on Node): a proof replayed to another
 * instance within the window is not caught there. For a fleet, back it with shared storage that has an
 * atomic set-if-absent with expiry — Redis `SET key 1 NX EXAT expiresAt` (seen when the answer is not
 * `OK`), or a Durable Object keyed by the key's first characters doing the same on its storage.
 */
export interface DPoPReplayStore {
  /**
   * Record `key` until `expiresAt` (seconds since the epoch) and answer whether it was already recorded and
   * not expired; both in one atomic step. `key` is the proof key's thumbprint and the proof's `jti`
   * (at most 300 characters). A throw fails the request with 503: a proof is never accepted unchecked.
   */
  seen(key: string, expiresAt: number): boolean | Promise<boolean>
}

/** Options of {@link dpopProofChecker}. */
export interface DPoPProofCheckerOptions {
  /**
   * Accepted proof algorithms (RFC 9449 §4.3 step 5: asymmetric only), also sent as the challenge's `algs`
   * and in the metadata's `dpop_signing_alg_values_supported`. Default ES256, ES384, ES512, PS256, PS384,
   * PS512, RS256, RS384, RS512, EdDSA. `none` and HMAC (`HS*`) are refused even if listed.
   */
  algorithms?: readonly string[]
  /**
   * How far a proof's `iat` may be from this server's clock, either way, in **seconds**; a `jti` is
   * remembered as long. Default 300.
   */
  iatWindowSeconds?: number
  /** Where used `jti`s are remembered. Default: in memory, per instance (see {@link DPoPReplayStore}). */
  replayStore?: DPoPReplayStore
  /**
   * Require a nonce from this server in every proof (RFC 9449 §9): a proof without a current one gets 401
   * `use_dpop_nonce` with a fresh nonce in `DPoP-Nonce`. Nonces are stateless — an HMAC-SHA-256 of the
   * time step under `secret` — valid in their step and the next (`lifetimeSeconds` each, default 300).
   * Without `secret`, each instance makes its own (a client that reaches another isolate is asked once
   * more); give every instance the same `secret` (at least 32 characters) to share them.
   */
  nonce?: boolean | { secret?: string; lifetimeSeconds?: number }
  /** Refuse tokens presented as `Bearer`: only DPoP-bound tokens are accepted. Default false. */
  required?: boolean
}

/** The DPoP proof check of a verifier (`dpop` option of `jwtVerifier` / `introspectionVerifier`). */
export interface DPoPProofChecker {
  /** The accepted proof algorithms. */
  readonly algorithms: readonly string[]
  /** Whether `Bearer` presentation is refused. */
  readonly required: boolean
  /**
   * Check the request's proof for `token`, whose verified claims are `claims`.
   * @throws InvalidTokenError when the token is not bound to a key (`cnf.jkt`) or to the proof's key;
   *   DPoPProofError (`invalid_dpop_proof`, or `use_dpop_nonce` with a nonce) for the proof itself.
   */
  check(token: string, claims: Record<string, unknown>, context: VerifyTokenContext): Promise<void>
}

const DEFAULT_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA']
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/
/** Longest proof read, in characters: an RSA-4096 key and every claim fit in well under this. */
const MAX_PROOF_LENGTH = 8_192
/** Longest `jti` accepted: RFC 9449 §4.2 asks for at least 96 random bits; 256 leaves room for any encoding. */
const MAX_JTI_LENGTH = 256
/** JWK members that make a key private or symmetric (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']
/** Most `jti`s the in-memory store holds; past it (after dropping expired ones) requests fail with 503. */
const MEMORY_STORE_LIMIT = 100_000

const invalidProof = (message: string) => new DPoPProofError(message)

/**
 * The DPoP proof check for a verifier's `dpop` option: `jwtVerifier({ issuer, dpop: dpopProofChecker() })`.
 * Tokens presented with the `DPoP` scheme must then carry `cnf.jkt` (RFC 9449 §6) and a valid proof;
 * tokens with `cnf` presented as `Bearer` stay refused (§7.2), unbound `Bearer` tokens are accepted
 * unless `required`. `htu` is compared with `request.url` without query and fragment (scheme and host
 * case, default port and path encoding normalized by URL parsing; a trailing slash counts), or with the
 * request's path at the origin of `oauth.resource` (the public URL, behind a proxy).
 * @throws TypeError for `none` / `HS*` / no algorithms, a negative or non-finite duration, or a nonce
 *   `secret` shorter than 32 characters.
 */
export function dpopProofChecker(options: DPoPProofCheckerOptions = {}): DPoPProofChecker {
  const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)]
  if (algorithms.length === 0) throw new TypeError('dpopProofChecker algorithms must not be empty')
  for (const alg of algorithms) {
    if (typeof alg !== 'string' || alg.toLowerCase() === 'none' || /^HS/i.test(alg))
      throw new TypeError(`dpopProofChecker algorithms: ${String(alg)} is not allowed (none and HMAC are refused)`)
  }
  const window = duration(options.iatWindowSeconds, 300, 'dpopProofChecker iatWindowSeconds')
  const store = options.replayStore ?? memoryReplayStore()
  const nonces = options.nonce ? serverNonces(options.nonce === true ? {} : options.nonce) : undefined

  return {
    algorithms,
    required: options.required === true,
    async check(token, claims, context) {
      const cnf = claims.cnf as { jkt?: unknown } | undefined
      if (typeof cnf?.jkt !== 'string') throw new InvalidTokenError('the token is not bound to a DPoP key (no cnf.jkt)')
      const { request } = context
      const proof = request.headers.get('dpop')
      if (proof === null) throw invalidProof('the DPoP proof is missing (no DPoP header)')
      // Fetch joins repeated headers with ", ": a compact JWS has no comma, so one means several proofs
      if (proof.includes(',')) throw invalidProof('more than one DPoP proof (one DPoP header only)')
      if (proof.length > MAX_PROOF_LENGTH || !COMPACT_JWS.test(proof)) throw invalidProof('the DPoP proof is malformed')
      let header: ReturnType<typeof decodeProtectedHeader>
      try {
        header = decodeProtectedHeader(proof)
      } catch {
        throw invalidProof('the DPoP proof is malformed')
      }
      if (header.typ !== 'dpop+jwt') throw invalidProof('the DPoP proof typ is not dpop+jwt')
      if (typeof header.alg !== 'string' || !algorithms.includes(header.alg))
        throw invalidProof(`the DPoP proof algorithm is not one of ${algorithms.join(' ')}`)
      const jwk = header.jwk as JWK | undefined
      if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk))
        throw invalidProof('the DPoP proof has no jwk header')
      if (PRIVATE_MEMBERS.some((member) => member in jwk))
        throw invalidProof('the DPoP proof jwk must be a public key (no private or symmetric members)')
      let payload: Record<string, unknown>
      try {
        payload = (await jwtVerify(proof, EmbeddedJWK, { algorithms, typ: 'dpop+jwt' })).payload
      } catch (error) {
        if (error instanceof errors.JWSSignatureVerificationFailed)
          throw invalidProof('the DPoP proof signature is invalid')
        throw invalidProof('the DPoP proof is malformed')
      }
      const { jti, htm, htu, iat, ath } = payload
      if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH)
        throw invalidProof(`the DPoP proof jti must be a string of 1 to ${MAX_JTI_LENGTH} characters`)
      if (htm !== request.method) throw invalidProof(`the DPoP proof htm is not ${request.method}`)
      if (typeof htu !== 'string' || !URL.canParse(htu) || !targetsOf(request.url, context.resource).has(targetOf(htu)))
        throw invalidProof('the DPoP proof htu is not this request URL')
      const now = Math.floor(Date.now() / 1000)
      if (typeof iat !== 'number' || !Number.isFinite(iat) || Math.abs(now - iat) > window)
        throw invalidProof(`the DPoP proof iat is not within ${window} seconds of now`)
      if (ath !== (await sha256(token))) throw invalidProof('the DPoP proof ath is not the hash of this access token')
      const thumbprint = await calculateJwkThumbprint(jwk, 'sha256')
      if (thumbprint !== cnf.jkt) throw new InvalidTokenError('the token is bound to another key than the DPoP proof')
      if (nonces && !(typeof payload.nonce === 'string' && (await nonces.valid(payload.nonce))))
        throw new DPoPProofError(
          'the DPoP proof needs a current nonce of this server',
          'use_dpop_nonce',
          await nonces.current(),
        )
      if (await store.seen(`${thumbprint}:${jti}`, iat + window))
        throw invalidProof('the DPoP proof was already used (its jti was seen)')
    },
  }
}

/** A URL as `htu` compares (RFC 9449 §4.3 step 9): scheme, host and path, no query or fragment. */
function targetOf(href: string): string {
  const url = new URL(href)
  return `${url.protocol}//${url.host}${url.pathname}`
}

/**
 * The targets a proof may name for a request to `href`: that URL, and the same path at the origin of
 * `resource` (`oauth.resource`): behind a TLS-terminating proxy the request arrives as `http://internal…`
 * while the client signed the public URL.
 */
function targetsOf(href: string, resource: string): Set<string> {
  const url = new URL(href)
  const targets = new Set([targetOf(href)])
  if (URL.canParse(resource)) targets.add(`${new URL(resource).origin}${url.pathname}`)
  return targets
}

/** base64url(SHA-256(ASCII text)): the `ath` of an access token (RFC 9449 §4.2). */
async function sha256(text: string): Promise<string> {
  return encodeBase64UrlCompact(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))))
}

/**
 * The in-memory {@link DPoPReplayStore}: a map in insertion order, which is about expiry order (each entry lives
 * `iat` + the window), so expired entries are dropped from its front as requests come, at no cost while there
 * are none. Full of live entries ({@link MEMORY_STORE_LIMIT}), a proof is refused (the checker's 503) rather
 * than one forgotten; a full sweep for expired entries out of order runs then at most once a second, so a
 * client that fills it cannot make every request scan it.
 * @internal exported for unit tests only; not part of the public API
 */
export function memoryReplayStore(limit = MEMORY_STORE_LIMIT): DPoPReplayStore {
  const seen = new Map<string, number>()
  let swept = 0
  return {
    seen(key, expiresAt) {
      const now = Date.now() / 1000
      const until = seen.get(key)
      if (until !== undefined && until >= now) return true
      for (const [k, t] of seen) {
        if (t >= now) break
        seen.delete(k)
      }
      if (seen.size >= limit && now - swept >= 1) {
        swept = now
        for (const [k, t] of seen) if (t < now) seen.delete(k)
      }
      // full of live entries: refuse to check (503) rather than forget one and let a replay through
      if (seen.size >= limit) throw new Error('the DPoP replay store is full')
      seen.delete(key) // an expired entry of the same key goes to the back with its new expiry
      seen.set(key, expiresAt)
      return false
    },
  }
}

/** Stateless server nonces (RFC 9449 §9): `step.mac`, the MAC an HMAC-SHA-256 of the time step. */
function serverNonces(options: { secret?: string; lifetimeSeconds?: number }) {
  const lifetime = duration(options.lifetimeSeconds, 300, 'dpopProofChecker nonce.lifetimeSeconds') || 1
  if (options.secret !== undefined && (typeof options.secret !== 'string' || options.secret.length < 32))
    throw new TypeError('dpopProofChecker nonce.secret must be a string of at least 32 characters')
  const raw =
    options.secret === undefined ? crypto.getRandomValues(new Uint8Array(32)) : new TextEncoder().encode(options.secret)
  let key: CryptoKey | undefined
  const hmacKey = async () =>
    (key ??= await crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']))
  const step = () => Math.floor(Date.now() / 1000 / lifetime)
  const data = (n: number) => new TextEncoder().encode(String(n))
  return {
    async current(): Promise<string> {
      const n = step()
      return `${n}.${encodeBase64UrlCompact(new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(), data(n))))}`
    },
    async valid(nonce: string): Promise<boolean> {
      const match = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(nonce)
      const n = Number(match?.[1])
      const signature = match && decodeBase64UrlStrict(match[2]!)
      if (!signature || (n !== step() && n !== step() - 1)) return false
      // verify, not a string comparison: constant time
      return crypto.subtle.verify('HMAC', await hmacKey(), signature, data(n))
    },
  }
}
