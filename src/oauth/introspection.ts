/**
 * Opaque (or any) access tokens verified by asking the authorization server: OAuth 2.0 Token
 * Introspection (RFC 7662).
 * @module
 */
import type { AuthInfo } from '../protocol/auth.ts'
import { InvalidTokenError, KeySourceError } from '../server/errors.ts'
import type { VerifyToken, VerifyTokenContext } from '../server/http/bearer.ts'
import { fetchHeld, readJson, type OAuthFetch } from '../protocol/oauth-metadata.ts'
import { audienceList, authInfoOf, checkBinding, duration, matchAudience, secureUrl } from './claims.ts'
import type { DPoPProofChecker } from './dpop.ts'

/** Options of {@link introspectionVerifier}. */
export interface IntrospectionVerifierOptions {
  /** The introspection endpoint (RFC 7662 §2; https, or http only on a loopback host). */
  endpoint: string
  /** This resource server's client id at the authorization server. */
  clientId: string
  /** Its secret, sent as `client_secret_basic` (RFC 6749 §2.3.1). Without one, `client_id` is sent in the form. */
  clientSecret?: string
  /** When set, an `iss` in the response must equal it. */
  issuer?: string
  /**
   * The audience the response's `aud` must contain (RFC 8707; compared with scheme and host lowercased and
   * without a trailing slash). Default: the request's canonical resource (`VerifyTokenContext.resource`).
   */
  audience?: string | readonly string[]
  /** Refuse a response without `aud` (it cannot be bound to this resource). Default true. */
  requireAudience?: boolean
  /** The fetch for the introspection request. Default: the global `fetch`. */
  fetch?: OAuthFetch
  /** Longest token sent, in characters. Default 16,384. */
  maxTokenLength?: number
  /** How long the introspection request may take, in **ms**; then the request gets 503. Default 5,000. */
  timeoutMs?: number
  /**
   * Accept DPoP-bound tokens (RFC 9449; the answer's `cnf.jkt`, §6.2) presented as `Authorization: DPoP
   * <token>` with a proof, checked by this `dpopProofChecker(…)`. Default: none; a token with `cnf` is refused.
   */
  dpop?: DPoPProofChecker
}

/** Clock skew allowed for `nbf`, in seconds (as the JWT verifier's default). */
const NBF_SKEW_SECONDS = 60

const isNumericDate = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)

/**
 * A {@link VerifyToken} that introspects each token (RFC 7662 §2.1, one POST per request: no cache). The
 * token is valid when the answer has `active: true`, an `exp` (seconds) not in the past and an `nbf` not
 * more than 60 s ahead when present (a time that is not a number is refused), `aud` naming the resource,
 * `iss` equal to `issuer` when both are present, and no `cnf` (a sender-constrained token) unless `dpop`
 * is given and the token came with the `DPoP` scheme and a valid proof. `clientId` is the response's `client_id`,
 * `scopes` its `scope`, `claims` the whole response.
 *
 * Throws {@link InvalidTokenError} (401) for an inactive, expired or misdirected token, and a
 * `KeySourceError` (`ERR_KEY_SOURCE`, 503) when the endpoint cannot be reached within `timeoutMs`, answers non-2xx, or not with a JSON object.
 * @throws TypeError at construction when `endpoint` is not https (http only on loopback) or `clientId` is empty.
 */
export function introspectionVerifier(options: IntrospectionVerifierOptions): VerifyToken {
  const endpoint = secureUrl(options.endpoint, 'introspectionVerifier endpoint')
  if (typeof options.clientId !== 'string' || options.clientId === '')
    throw new TypeError('introspectionVerifier clientId must be a non-empty string')
  const maxTokenLength = duration(options.maxTokenLength, 16_384, 'introspectionVerifier maxTokenLength')
  const timeoutMs = duration(options.timeoutMs, 5_000, 'introspectionVerifier timeoutMs')
  const audiences = audienceList(options.audience)
  const fetchImpl: OAuthFetch = options.fetch ?? ((request) => fetch(request))
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  }
  if (options.clientSecret !== undefined) {
    // RFC 6749 §2.3.1: each part form-urlencoded before joining with ':'.
    const id = new URLSearchParams({ a: options.clientId }).toString().slice(2)
    const secret = new URLSearchParams({ a: options.clientSecret }).toString().slice(2)
    headers.authorization = `Basic ${btoa(`${id}:${secret}`)}`
  }

  const verify = async (token: string, context: VerifyTokenContext): Promise<AuthInfo> => {
    if (typeof token !== 'string' || token === '' || token.length > maxTokenLength)
      throw new InvalidTokenError('the token is malformed')
    const form = new URLSearchParams({ token, token_type_hint: 'access_token' })
    if (options.clientSecret === undefined) form.set('client_id', options.clientId)
    const request = new Request(endpoint, {
      method: 'POST',
      headers,
      body: form,
      signal: AbortSignal.timeout(timeoutMs),
    })
    const answer = await fetchHeld(fetchImpl, request, async (response) => {
      if (response.ok) return { claims: await readJson(response) }
      await response.body?.cancel().catch(() => {})
      return { status: response.status }
    }).catch((cause: unknown) => {
      throw new KeySourceError(`Token introspection at ${endpoint.href} failed`, { cause })
    })
    if ('status' in answer)
      throw new KeySourceError(`Token introspection at ${endpoint.href} answered ${answer.status}`)
    const { claims } = answer
    if (!claims || typeof claims.active !== 'boolean')
      throw new KeySourceError(`Token introspection at ${endpoint.href} did not answer with an RFC 7662 JSON object`)
    if (!claims.active) throw new InvalidTokenError('the token is not active')
    const now = Date.now() / 1000
    // RFC 7662 §2.2: NumericDate; a present but unusable time is refused, never skipped
    if (claims.exp !== undefined && !isNumericDate(claims.exp))
      throw new InvalidTokenError('the token has no valid expiry')
    if (claims.exp !== undefined && claims.exp <= now) throw new InvalidTokenError('the token has expired')
    if (claims.nbf !== undefined && !(isNumericDate(claims.nbf) && claims.nbf <= now + NBF_SKEW_SECONDS))
      throw new InvalidTokenError('the token is not yet valid')
    if (options.issuer !== undefined && claims.iss !== undefined && claims.iss !== options.issuer)
      throw new InvalidTokenError('the token was issued by another issuer')
    const expected = audiences ?? [context.resource]
    let resource: string | undefined
    if (claims.aud === undefined && options.requireAudience === false) resource = expected[0]
    else resource = matchAudience(claims.aud, expected)
    if (resource === undefined) throw new InvalidTokenError('the token is for another resource')
    await checkBinding(token, claims, context, options.dpop)
    return authInfoOf(claims, resource, options.issuer)
  }
  return options.dpop ? Object.assign(verify, { dpop: options.dpop }) : verify
}
