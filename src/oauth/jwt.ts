/**
 * JWT access tokens (RFC 9068, RFC 7519) verified against an authorization server's JWKS: discovery of
 * its metadata (RFC 8414 §3, OpenID Discovery §4), keys through jose's remote JWKS (refetched once for an
 * unknown `kid`, rate-limited), every signature check by jose.
 * @module
 */
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose'
import type { AuthInfo } from '../protocol/auth.ts'
import { InvalidTokenError, KeySourceError, messageOf } from '../server/errors.ts'
import type { VerifyToken, VerifyTokenContext } from '../server/http/bearer.ts'
import { authorizationServerMetadataUrls, fetchHeld, readJson, type OAuthFetch } from '../protocol/oauth-metadata.ts'
import { audienceList, authInfoOf, checkBinding, duration, matchAudience, secureUrl } from './claims.ts'
import type { DPoPProofChecker } from './dpop.ts'

/** Options of {@link jwtVerifier}. */
export interface JwtVerifierOptions {
  /**
   * The authorization server's issuer identifier: a token's `iss` must equal it exactly (RFC 9068 §4). An
   * https URL, or http only on a loopback host (127.0.0.0/8, [::1], localhost).
   */
  issuer: string
  /**
   * The audience a token's `aud` must contain (RFC 8707 §2; compared with scheme and host lowercased and
   * without a trailing slash). Default: the request's canonical resource (`VerifyTokenContext.resource`).
   * With several, any one matches.
   */
  audience?: string | readonly string[]
  /**
   * Accepted JWS algorithms. Default RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, EdDSA.
   * `none` and HMAC (`HS*`) are refused even if listed: a public JWKS cannot verify a shared secret.
   */
  algorithms?: readonly string[]
  /** Allowed clock skew for `exp` / `nbf`, in **seconds**. Default 60. */
  clockToleranceSeconds?: number
  /** The JWKS URL (https, or http on loopback); skips metadata discovery. */
  jwksUri?: string
  /** A required `typ` header, e.g. `at+jwt` (RFC 9068 §2.1). Default: not checked. */
  requiredType?: string
  /** Minimum time between JWKS refetches caused by an unknown `kid`, in **ms**. Default 30,000. */
  cooldownMs?: number
  /** How long fetched keys are used before a refetch, in **ms**. Default 600,000. */
  cacheMaxAgeMs?: number
  /** The fetch for metadata and JWKS. Default: the global `fetch`. */
  fetch?: OAuthFetch
  /** Longest token accepted, in characters (checked before decoding). Default 16,384. */
  maxTokenLength?: number
  /** How long each metadata or JWKS fetch may take, in **ms**; then the request gets 503. Default 5,000. */
  timeoutMs?: number
  /**
   * Accept DPoP-bound tokens (RFC 9449) presented as `Authorization: DPoP <token>` with a proof, checked by
   * this `dpopProofChecker(…)`. Default: none; a token with `cnf` is refused.
   */
  dpop?: DPoPProofChecker
}

const DEFAULT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'EdDSA']
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

/**
 * A {@link VerifyToken} for JWT access tokens: the signature (by a key of the issuer's JWKS, with an
 * allowed asymmetric algorithm), `iss`, `aud` (the resource), `exp` (required), `nbf`, and `typ` when
 * asked for; a sender-constrained token (`cnf`: DPoP, mTLS) is refused unless `dpop` is given and the token
 * came with the `DPoP` scheme and a valid proof (see `dpopProofChecker`). The result's `clientId` is `client_id` ?? `azp` ?? `appid` ?? `cid` ?? `''`, `scopes` come
 * from `scope` (space-separated) or `scp`, `expiresAt` is `exp` (seconds), `claims` the payload.
 *
 * The verifier throws {@link InvalidTokenError} (401) with a short message for a token that is not valid
 * here, and any other error (503) when the issuer's metadata or JWKS cannot be fetched (each fetch is
 * given `timeoutMs`) or are unusable; a failed discovery is retried on the next request. Keys are cached per
 * verifier (per isolate on Workers). On Workers an in-flight fetch is never shared between requests
 * (workerd forbids waiting on another request's I/O), so concurrent requests that find no cached keys (a
 * cold isolate, or a new `kid` before the first refetch lands) each fetch; the cooldown applies after that.
 * @throws TypeError at construction for an issuer or `jwksUri` that is not https (http only on loopback),
 *   `none` / `HS*` / no algorithms, or a negative or non-finite duration.
 */
export function jwtVerifier(options: JwtVerifierOptions): VerifyToken {
  const issuer = options.issuer
  const issuerUrl = secureUrl(issuer, 'jwtVerifier issuer')
  if (issuerUrl.search !== '') throw new TypeError(`jwtVerifier issuer must not have a query, got ${issuer}`)
  const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)]
  if (algorithms.length === 0) throw new TypeError('jwtVerifier algorithms must not be empty')
  for (const alg of algorithms) {
    if (typeof alg !== 'string' || alg.toLowerCase() === 'none' || /^HS/i.test(alg))
      throw new TypeError(`jwtVerifier algorithms: ${String(alg)} is not allowed (none and HMAC are refused)`)
  }
  const jwksUri = options.jwksUri === undefined ? undefined : secureUrl(options.jwksUri, 'jwtVerifier jwksUri')
  const audiences = audienceList(options.audience)
  const clockTolerance = duration(options.clockToleranceSeconds, 60, 'jwtVerifier clockToleranceSeconds')
  const cooldownDuration = duration(options.cooldownMs, 30_000, 'jwtVerifier cooldownMs')
  const cacheMaxAge = duration(options.cacheMaxAgeMs, 600_000, 'jwtVerifier cacheMaxAgeMs')
  const maxTokenLength = duration(options.maxTokenLength, 16_384, 'jwtVerifier maxTokenLength')
  // bounded like jose's JWKS fetch (its default): an issuer that never answers must not hold requests
  const timeoutMs = duration(options.timeoutMs, 5_000, 'jwtVerifier timeoutMs')
  const fetchImpl: OAuthFetch = options.fetch ?? ((request) => fetch(request))
  const verifyOptions: JWTVerifyOptions = {
    issuer,
    algorithms,
    clockTolerance,
    requiredClaims: ['exp'],
    ...(options.requiredType === undefined ? {} : { typ: options.requiredType }),
  }

  const keysFrom = (url: URL): JWTVerifyGetKey => {
    const remote = createRemoteJWKSet(url, {
      cooldownDuration,
      cacheMaxAge,
      timeoutDuration: timeoutMs,
      [customFetch]: (href, init) =>
        fetchHeld(fetchImpl, new Request(href, init), (response) => Promise.resolve(response)),
    })
    return async (header, token) => {
      try {
        return await remote(header, token)
      } catch (error) {
        if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) throw error
        throw new KeySourceError(`The JWKS of ${issuer} (${url.href}) could not be used`, { cause: error })
      }
    }
  }
  // Only a settled key set is shared between requests, never an in-flight discovery: workerd does not let
  // one request wait on I/O another request started (that request may end first, and the wait never would).
  // So a burst of cold requests each discover, until one has; jose's remote JWKS does the same on Workers.
  let keys: JWTVerifyGetKey | undefined = jwksUri ? keysFrom(jwksUri) : undefined
  const keySet = async (): Promise<JWTVerifyGetKey> => {
    if (keys) return keys
    const url = await discoverJwksUri(fetchImpl, issuer, timeoutMs)
    return (keys ??= keysFrom(url))
  }

  const verify = async (token: string, context: VerifyTokenContext): Promise<AuthInfo> => {
    if (typeof token !== 'string' || token.length > maxTokenLength || !COMPACT_JWS.test(token))
      throw new InvalidTokenError('the token is malformed')
    const getKey = await keySet()
    let payload: Record<string, unknown>
    try {
      payload = await verifyWithAnyKey(token, getKey, verifyOptions)
    } catch (error) {
      throw translate(error)
    }
    const resource = matchAudience(payload.aud, audiences ?? [context.resource])
    if (resource === undefined) throw new InvalidTokenError('the token is for another resource')
    await checkBinding(token, payload, context, options.dpop)
    return authInfoOf(payload, resource)
  }
  return options.dpop ? Object.assign(verify, { dpop: options.dpop }) : verify
}

/** jose's verification; when several JWKS keys fit a token (no `kid`), each is tried in turn. */
async function verifyWithAnyKey(
  token: string,
  getKey: JWTVerifyGetKey,
  options: JWTVerifyOptions,
): Promise<Record<string, unknown>> {
  try {
    return (await jwtVerify(token, getKey, options)).payload
  } catch (error) {
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error
    for await (const key of error) {
      try {
        return (await jwtVerify(token, key, options)).payload
      } catch (inner) {
        if (!(inner instanceof errors.JWSSignatureVerificationFailed)) throw inner
      }
    }
    throw new errors.JWSSignatureVerificationFailed()
  }
}

/** A jose error as InvalidTokenError with a short message safe to send; other errors unchanged (503). */
function translate(error: unknown): unknown {
  if (!(error instanceof errors.JOSEError) || error instanceof KeySourceError) return error
  if (error instanceof errors.JWTExpired) return new InvalidTokenError('the token has expired')
  if (error instanceof errors.JWTClaimValidationFailed) {
    const messages: Record<string, string> = {
      iss: 'the token was issued by another issuer',
      nbf: 'the token is not yet valid',
      exp: 'the token has no valid expiry',
      typ: 'the token type is not accepted',
    }
    return new InvalidTokenError(messages[error.claim] ?? 'the token claims are invalid')
  }
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return new InvalidTokenError('the token signature is invalid')
  if (error instanceof errors.JWKSNoMatchingKey) return new InvalidTokenError('the token is signed with an unknown key')
  if (error instanceof errors.JOSEAlgNotAllowed) return new InvalidTokenError('the token algorithm is not allowed')
  return new InvalidTokenError('the token is malformed')
}

/**
 * The `jwks_uri` of `issuer`'s metadata: RFC 8414 well-known URL first, then OpenID Discovery; the
 * document's `issuer` must be identical (RFC 8414 §3.3) and `jwks_uri` https (http only on loopback).
 * @throws KeySourceError when no document is found or it is not usable (a configuration or outage problem: 503).
 */
async function discoverJwksUri(fetchImpl: OAuthFetch, issuer: string, timeoutMs: number): Promise<URL> {
  for (const url of authorizationServerMetadataUrls(issuer)) {
    const request = new Request(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    })
    const metadata = await fetchHeld(fetchImpl, request, async (response) => {
      if (response.ok) return readJson(response)
      await response.body?.cancel().catch(() => {})
      return undefined
    }).catch((cause: unknown) => {
      throw new KeySourceError(
        `The authorization server metadata at ${url.href} could not be fetched: ${messageOf(cause)}`,
        {
          cause,
        },
      )
    })
    if (!metadata) continue
    if (metadata.issuer !== issuer)
      throw new KeySourceError(
        `Authorization server metadata at ${url.href} has issuer ${JSON.stringify(metadata.issuer)}, not ${issuer}`,
      )
    try {
      return secureUrl(metadata.jwks_uri, `jwks_uri of ${issuer}`)
    } catch (error) {
      throw new KeySourceError((error as Error).message)
    }
  }
  throw new KeySourceError(`No authorization server metadata found for ${issuer}`)
}
