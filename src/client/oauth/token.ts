/**
 * The token endpoint request (RFC 6749 §3.2, §5) every OAuth client flow ends in — authorization code,
 * refresh, client credentials, JWT bearer, token exchange — with the client's authentication at the
 * token endpoint (RFC 6749 §2.3.1, RFC 7523 §2.2), and the tokens kept from its answer.
 * @module
 */
import { OAuthError } from '../errors.ts'
import { fetchHeld, readJson, type Metadata, type OAuthFetch } from '../../protocol/oauth-metadata.ts'
import type { OAuthStore, StoredTokens } from './store.ts'
import type { DPoPProofs } from './dpop.ts'

/**
 * How the client authenticates at a token endpoint (RFC 8414 §2 `token_endpoint_auth_methods_supported`
 * names): `none` sends `client_id` in the form (a public client; omitted when there is no client id),
 * `client_secret_basic` an HTTP Basic header (RFC 6749 §2.3.1, both parts form-encoded),
 * `client_secret_post` both in the form, `private_key_jwt` a signed assertion made per request
 * (RFC 7523 §2.2, `client_assertion_type` jwt-bearer).
 */
export type TokenEndpointAuth =
  | { method: 'none'; clientId?: string }
  | { method: 'client_secret_basic' | 'client_secret_post'; clientId: string; clientSecret: string }
  | { method: 'private_key_jwt'; clientId: string; assertion: () => Promise<string> }

/** What {@link requestToken} sends. */
export interface TokenRequest {
  /** The token endpoint URL (from the authorization server's metadata, or configured). */
  tokenEndpoint: string
  auth: TokenEndpointAuth
  /** The grant's form parameters (`grant_type` and the rest); client authentication is added to them. */
  params: Record<string, string>
  fetch: OAuthFetch
  signal?: AbortSignal | undefined
  /** Extra headers for the request, made when it is sent. */
  headers?: (() => HeadersInit | Promise<HeadersInit>) | undefined
  /**
   * Ask for a DPoP-bound token (RFC 9449 §5): a proof by the key of `proofs` (kept in `store`) on each
   * attempt, and one more attempt with the server's nonce after a `400 use_dpop_nonce` (§8).
   */
  dpop?: { proofs: DPoPProofs; store: OAuthStore } | undefined
}

/** A successful token response (RFC 6749 §5.1; RFC 8693 §2.2.1 adds `issued_token_type`). */
export interface TokenResponse extends Metadata {
  access_token: string
  token_type: string
  /** Seconds. */
  expires_in?: number
  refresh_token?: string
  scope?: string
  issued_token_type?: string
}

const VSCHARS = /^[\x20-\x7e]+$/

const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+')

/** RFC 7523 §2.2: the `client_assertion_type` of a JWT client assertion. */
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer'

/**
 * POST the token request (form-encoded) with the client's authentication and read its answer.
 * @returns the response's JSON object: `access_token` and `token_type` are strings; `expires_in` (a number),
 *   `refresh_token`, `scope` and `issued_token_type` (strings) are left out when of another type.
 * @throws OAuthError with the authorization server's `error` code (RFC 6749 §5.2, e.g. `invalid_grant`,
 *   `invalid_client`), or `invalid_response` when the answer is not a token response (a redirect, which is
 *   not followed; an `access_token` that is not 1*VSCHAR); what `fetch` throws.
 */
export async function requestToken(request: TokenRequest): Promise<TokenResponse> {
  const { dpop, tokenEndpoint } = request
  for (let attempt = 1; ; attempt++) {
    const { response, json: body } = await postToken(request)
    // a nonce asked for (RFC 9449 §8) is kept for later proofs too; the request is made again once with it
    const retry = dpop?.proofs.nonceFrom(tokenEndpoint, response, body?.error)
    if (retry && attempt === 1) continue
    if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400))
      throw new OAuthError(
        'invalid_response',
        `Token request to ${tokenEndpoint} was redirected; redirects are not followed`,
      )
    // RFC 6749 §A.12: an access token is 1*VSCHAR (a control character would fail every request's header)
    const token = body?.access_token
    if (!response.ok || typeof token !== 'string' || !VSCHARS.test(token) || typeof body?.token_type !== 'string') {
      throw oauthErrorOf(body, `Token request to ${tokenEndpoint} failed (HTTP ${response.status})`)
    }
    // some servers send expires_in as a string: a field of the wrong type is dropped, not trusted
    const tokens = { ...body } as TokenResponse
    for (const [name, type] of [
      ['expires_in', 'number'],
      ['refresh_token', 'string'],
      ['scope', 'string'],
      ['issued_token_type', 'string'],
    ] as const) {
      if (typeof tokens[name] !== type) delete tokens[name]
    }
    return tokens
  }
}

/** One POST of the token request: its headers (with a fresh DPoP proof) and client authentication made anew. */
async function postToken(request: TokenRequest): Promise<{ response: Response; json: Metadata | undefined }> {
  const { auth, dpop, tokenEndpoint } = request
  const headers = new Headers(request.headers ? await request.headers() : undefined)
  if (dpop) headers.set('dpop', await dpop.proofs.proof(dpop.store, 'POST', tokenEndpoint))
  headers.set('content-type', 'application/x-www-form-urlencoded')
  headers.set('accept', 'application/json')
  const form = new URLSearchParams(request.params)
  if (auth.method === 'client_secret_basic') {
    headers.set('authorization', `Basic ${btoa(`${formEncode(auth.clientId)}:${formEncode(auth.clientSecret)}`)}`)
  } else if (auth.method === 'client_secret_post') {
    form.set('client_id', auth.clientId)
    form.set('client_secret', auth.clientSecret)
  } else if (auth.method === 'private_key_jwt') {
    // client_id is optional next to an assertion (RFC 7521 §4.2) but some servers look the client up by it
    form.set('client_id', auth.clientId)
    form.set('client_assertion_type', CLIENT_ASSERTION_TYPE)
    form.set('client_assertion', await auth.assertion())
  } else if (auth.clientId !== undefined) {
    form.set('client_id', auth.clientId)
  }
  // a redirect is not followed: Fetch would send the form (client_secret, client_assertion, a code, a
  // refresh token or an ID token) again to wherever it points, another origin included
  const init: RequestInit = { method: 'POST', headers, body: form.toString(), redirect: 'manual' }
  if (request.signal) init.signal = request.signal
  return fetchHeld(request.fetch, new Request(tokenEndpoint, init), async (r) => ({
    response: r,
    json: await readJson(r),
  }))
}

/**
 * The tokens to store from a token response: Bearer tokens (RFC 6750), and DPoP-bound ones (RFC 9449 §5)
 * when the request asked for them (`dpop`); the refresh token is the new one, else `refreshToken` (a
 * refresh that issued none keeps the old one, RFC 6749 §6).
 * @throws OAuthError `unsupported_token_type` for any other `token_type`.
 */
export function storedTokensOf(
  issuer: string,
  response: TokenResponse,
  scope: string | undefined,
  refreshToken?: string,
  dpop?: boolean,
): StoredTokens {
  const type = response.token_type.toLowerCase()
  if (type !== 'bearer' && !(dpop && type === 'dpop')) {
    throw new OAuthError(
      'unsupported_token_type',
      `The token endpoint issued a ${response.token_type} token; only ${dpop ? 'Bearer and DPoP' : 'Bearer'} tokens are supported`,
    )
  }
  const tokens: StoredTokens = { issuer, access_token: response.access_token, token_type: response.token_type }
  const refresh = response.refresh_token ?? refreshToken
  if (refresh !== undefined) tokens.refresh_token = refresh
  if (scope !== undefined) tokens.scope = scope
  if (response.expires_in !== undefined) tokens.expires_at = Date.now() + response.expires_in * 1000
  return tokens
}

/** An OAuthError from an error response's body (RFC 6749 §5.2), else `invalid_response` with `fallback`. */
export function oauthErrorOf(body: Metadata | undefined, fallback: string): OAuthError {
  const code = typeof body?.error === 'string' ? body.error : 'invalid_response'
  const description = typeof body?.error_description === 'string' ? `: ${body.error_description}` : ''
  return new OAuthError(code, typeof body?.error === 'string' ? `${fallback}: ${code}${description}` : fallback)
}
