/**
 * OAuth 2.1 for the client side of MCP authorization (spec: basic/authorization/*.mdx), on Web APIs only:
 * the authorization flow and token requests — client registration (pre-registered, Client ID Metadata
 * Document, RFC 7591), PKCE S256 (RFC 7636), resource indicators (RFC 8707), issuer identification
 * (RFC 9207), refresh tokens and step-up. Discovery of the metadata it starts from (RFC 9728, RFC 8414 /
 * OpenID Discovery) is oauth-discovery.ts.
 * @module
 */
import { encodeBase64Url } from '../../encoding/base64url.ts'
import { OAuthError } from '../errors.ts'
import {
  InMemoryOAuthStore,
  type OAuthClientInformation,
  type OAuthStore,
  type PreRegisteredClient,
  type StoredTokens,
} from './store.ts'
import {
  bearerParams,
  fetchAuthorizationServerMetadata,
  fetchProtectedResourceMetadata,
  strings,
  type Metadata,
} from './discovery.ts'
import { fetchHeld, readJson } from '../../protocol/oauth-metadata.ts'
import type { ClientAuthProvider } from './auth-provider.ts'
import type { DPoPProofs } from './dpop.ts'
import { oauthErrorOf, requestToken, storedTokensOf, type TokenEndpointAuth } from './token.ts'

/** Options of {@link OAuthClientProvider}. */
export interface OAuthClientProviderOptions {
  /** The redirect URI registered for this client (e.g. `http://127.0.0.1:3000/callback`). */
  redirectUrl: string
  /**
   * Sends the user to the authorization URL and resolves with the URL the authorization server
   * redirected back to (or just its query string). Reject to abort.
   */
  redirectToAuthorization: (url: URL, signal?: AbortSignal) => Promise<string | URL>
  /** Sent in dynamic registration (RFC 7591 §2). Default `{ client_name: 'edge-mcp-client' }`. */
  clientName?: string
  /** `native` (default; CLI, desktop, localhost) or `web`, sent in dynamic registration. */
  applicationType?: 'native' | 'web'
  /** An HTTPS URL hosting this client's metadata document, used as `client_id` where the AS supports it. */
  clientMetadataUrl?: string
  /** Pre-registered credentials; each is used only with its own issuer. */
  preRegistered?: PreRegisteredClient[]
  /** Ask for `offline_access` when the AS lists it in `scopes_supported` (spec §Refresh Tokens). Default true. */
  offlineAccess?: boolean
  /** Default: an {@link InMemoryOAuthStore}. */
  store?: OAuthStore
  /** The fetch for metadata, registration and token requests. Default: the global one. */
  fetch?: (input: Request) => Promise<Response>
  /** Re-authorizations allowed per request after `403 insufficient_scope` (spec §Step-Up). Default 2. */
  maxStepUps?: number
  /**
   * DPoP (RFC 9449): ask for tokens bound to a key of this client and prove it on every request —
   * `dpopProofs()` (its key pair generated once and kept in `store`, see `OAuthStore.loadDPoPKeyPair`).
   * Default: none, Bearer tokens only.
   */
  dpop?: DPoPProofs
}

/**
 * The client authentication method for the token endpoint (RFC 6749 §2.3, RFC 8414 §2): the one
 * registered, else `none` without a secret, else the first of basic, post, none that the AS lists
 * (`client_secret_basic` when it lists none).
 * @internal exported for unit tests only; not part of the public API
 */
export function selectTokenAuthMethod(
  client: OAuthClientInformation,
  supported: string[] | undefined,
): 'client_secret_basic' | 'client_secret_post' | 'none' {
  const registered = client.token_endpoint_auth_method
  if (registered === 'client_secret_basic' || registered === 'client_secret_post' || registered === 'none')
    return registered
  if (!client.client_secret) return 'none'
  const list = supported ?? ['client_secret_basic']
  if (list.includes('client_secret_basic')) return 'client_secret_basic'
  if (list.includes('client_secret_post')) return 'client_secret_post'
  if (list.includes('none')) return 'none'
  return 'client_secret_basic'
}

/**
 * A PKCE pair (RFC 7636 §4.1-4.2): a 43-character verifier and its S256 challenge.
 * @internal exported for unit tests only; not part of the public API
 */
export async function createPkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = encodeBase64Url(crypto.getRandomValues(new Uint8Array(32)))
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))
  return { verifier, challenge: encodeBase64Url(new Uint8Array(digest)) }
}

const scopeSet = (...scopes: (string | undefined)[]): string[] => [
  ...new Set(scopes.flatMap((s) => (s ? s.split(' ').filter(Boolean) : []))),
]

/**
 * Obtains and refreshes access tokens for a {@link StreamableHttpClientTransport} (option `auth`).
 *
 * On `401` the transport calls {@link OAuthClientProvider.authorize}: protected-resource metadata from the
 * challenge's `resource_metadata`, else the well-known URLs; the resource it names must be this server;
 * authorization-server metadata from the first authorization server, its `issuer` checked; a refresh
 * when a refresh token from that same issuer exists; otherwise a client (stored registration for that
 * issuer, pre-registered, Client ID Metadata Document URL, or dynamic registration), PKCE S256, the
 * authorization redirect through `redirectToAuthorization`, RFC 9207 `iss` and `state` checks, and the
 * code exchange with the `resource` parameter. On `403 insufficient_scope` it re-authorizes with the union
 * of the scopes requested so far and the challenged ones, at most `maxStepUps` times per request.
 *
 * @example
 * const auth = new OAuthClientProvider({
 *   redirectUrl: 'http://127.0.0.1:3000/callback',
 *   redirectToAuthorization: (url) => openBrowserAndWaitForCallback(url),
 * })
 * const transport = new StreamableHttpClientTransport(serverUrl, { auth })
 */
export class OAuthClientProvider implements ClientAuthProvider {
  readonly options: OAuthClientProviderOptions
  readonly store: OAuthStore
  readonly #fetch: (input: Request) => Promise<Response>

  /** @throws RangeError when `maxStepUps` is not a non-negative integer. */
  constructor(options: OAuthClientProviderOptions) {
    if (options.maxStepUps !== undefined && !(Number.isInteger(options.maxStepUps) && options.maxStepUps >= 0)) {
      throw new RangeError(`maxStepUps must be a non-negative integer, got ${String(options.maxStepUps)}`)
    }
    this.options = options
    this.store = options.store ?? new InMemoryOAuthStore()
    this.#fetch = options.fetch ?? ((input) => fetch(input))
  }

  /** Re-authorizations allowed per request after `403 insufficient_scope`. */
  get maxStepUps(): number {
    return this.options.maxStepUps ?? 2
  }

  /** The headers that authorize a `method` request to `serverUrl`, if a token is stored (see `dpop`). */
  async authorizationHeaders(serverUrl: string, method: string): Promise<Record<string, string> | undefined> {
    const tokens = await this.store.loadTokens(serverUrl)
    if (!tokens) return undefined
    const { dpop } = this.options
    return dpop
      ? dpop.headers(this.store, tokens, method, serverUrl)
      : { authorization: `Bearer ${tokens.access_token}` }
  }

  /** Keeps the server's DPoP nonce; true for a `401 use_dpop_nonce` (send again with it, RFC 9449 §9). */
  onResponse(serverUrl: string, response: Response): boolean {
    return this.options.dpop?.nonceFrom(serverUrl, response) ?? false
  }

  /**
   * Get a new access token for `serverUrl` after a `401` or `403 insufficient_scope` whose
   * `WWW-Authenticate` value is `wwwAuthenticate`. `interactive`, when given, wraps the wait for the user
   * (`redirectToAuthorization`), e.g. to pause a request timeout meanwhile.
   * @throws OAuthError when discovery, validation, registration, authorization or the token request fails.
   */
  async authorize(
    serverUrl: string,
    wwwAuthenticate: string | undefined,
    signal?: AbortSignal,
    interactive?: <T>(step: () => Promise<T>) => Promise<T>,
  ): Promise<void> {
    const challenge = bearerParams(wwwAuthenticate)
    const stepUp = challenge.error === 'insufficient_scope'
    const fetch = (input: Request) => this.#fetch(input)
    const prm = await fetchProtectedResourceMetadata(fetch, serverUrl, challenge.resource_metadata, signal)
    const resource = prm.resource as string
    const issuer = strings(prm.authorization_servers)?.[0]
    if (!issuer)
      throw new OAuthError('invalid_resource_metadata', 'Protected resource metadata lists no authorization_servers')
    const as = await fetchAuthorizationServerMetadata(fetch, issuer, signal)
    const stored = await this.store.loadTokens(serverUrl)
    const previous = stored?.issuer === issuer ? stored : undefined
    // the server moved to another authorization server: its tokens are dropped now, not only once a new
    // one is issued, so that a failed or abandoned authorization never sends them again
    if (stored !== undefined && previous === undefined) await this.store.saveTokens(serverUrl, undefined)

    if (!stepUp && previous?.refresh_token) {
      if (await this.#refresh(serverUrl, issuer, as, resource, previous, previous.refresh_token, signal)) return
    }
    const scope = this.#scope(challenge, prm, as, stepUp, previous)
    const client = await this.#client(issuer, as, signal)
    const { code, verifier } = await this.#authorizationCode(as, client, issuer, resource, scope, signal, interactive)
    const params: Record<string, string> = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: this.options.redirectUrl,
      code_verifier: verifier,
      resource,
    }
    await this.#token(serverUrl, issuer, as, client, params, scope, undefined, signal)
  }

  /**
   * Refresh the tokens of `previous` (RFC 6749 §6). @returns false when the authorization server refused
   * (then the flow starts over); network failures surface.
   */
  async #refresh(
    serverUrl: string,
    issuer: string,
    as: Metadata,
    resource: string,
    previous: StoredTokens,
    refreshToken: string,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    const client = await this.#client(issuer, as, signal)
    const params: Record<string, string> = { grant_type: 'refresh_token', refresh_token: refreshToken, resource }
    try {
      await this.#token(serverUrl, issuer, as, client, params, previous.scope, refreshToken, signal)
      return true
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error // network failures surface; a refused refresh starts over
      return false
    }
  }

  /**
   * The scope to request: the challenged scope, else the resource's `scopes_supported`; on step-up
   * (spec §Step-Up) the union of the scopes requested before and the challenged ones; plus
   * `offline_access` when `offlineAccess` and the AS lists it (spec §Refresh Tokens).
   */
  #scope(
    challenge: Record<string, string>,
    prm: Metadata,
    as: Metadata,
    stepUp: boolean,
    previous: StoredTokens | undefined,
  ): string | undefined {
    let scopes = scopeSet(challenge.scope ?? strings(prm.scopes_supported)?.join(' '))
    if (stepUp) scopes = scopeSet(previous?.scope, challenge.scope)
    if ((this.options.offlineAccess ?? true) && strings(as.scopes_supported)?.includes('offline_access'))
      scopes = scopeSet(scopes.join(' '), 'offline_access')
    return scopes.length ? scopes.join(' ') : undefined
  }

  /**
   * The authorization request (RFC 6749 §4.1.1 with PKCE S256 and `resource`) through
   * `redirectToAuthorization` — wrapped in `interactive`, when given — and its checked response.
   * @returns the authorization code and the PKCE verifier for the code exchange.
   */
  async #authorizationCode(
    as: Metadata,
    client: OAuthClientInformation,
    issuer: string,
    resource: string,
    scope: string | undefined,
    signal: AbortSignal | undefined,
    interactive: (<T>(step: () => Promise<T>) => Promise<T>) | undefined,
  ): Promise<{ code: string; verifier: string }> {
    const { verifier, challenge: codeChallenge } = await createPkce()
    const state = encodeBase64Url(crypto.getRandomValues(new Uint8Array(16)))
    const url = new URL(as.authorization_endpoint as string)
    url.searchParams.set('response_type', 'code')
    url.searchParams.set('client_id', client.client_id)
    url.searchParams.set('redirect_uri', this.options.redirectUrl)
    url.searchParams.set('code_challenge', codeChallenge)
    url.searchParams.set('code_challenge_method', 'S256')
    url.searchParams.set('state', state)
    url.searchParams.set('resource', resource)
    if (scope) url.searchParams.set('scope', scope)
    const login = () => Promise.resolve(this.options.redirectToAuthorization(url, signal))
    const callback = await (interactive ? interactive(login) : login())
    const code = validateAuthorizationResponse(callback, {
      state,
      issuer,
      issSupported: as.authorization_response_iss_parameter_supported === true,
    })
    return { code, verifier }
  }

  /** spec: client-registration.mdx, in its priority order; credentials are bound to `issuer`. */
  async #client(issuer: string, as: Metadata, signal: AbortSignal | undefined): Promise<OAuthClientInformation> {
    const pre = this.options.preRegistered?.find((c) => c.issuer === issuer)
    if (pre) return pre
    const saved = await this.store.loadClient(issuer)
    if (saved) return saved
    if (this.options.clientMetadataUrl && as.client_id_metadata_document_supported === true) {
      return { client_id: this.options.clientMetadataUrl, token_endpoint_auth_method: 'none' }
    }
    if (typeof as.registration_endpoint !== 'string') {
      throw new OAuthError(
        'no_client',
        `No client credentials for ${issuer}: not pre-registered, no Client ID Metadata Document support, no registration_endpoint`,
      )
    }
    const supported = strings(as.token_endpoint_auth_methods_supported) ?? ['client_secret_basic']
    const method = ['none', 'client_secret_basic', 'client_secret_post'].find((m) => supported.includes(m)) ?? 'none'
    const body = {
      client_name: this.options.clientName ?? 'edge-mcp-client',
      redirect_uris: [this.options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: method,
      application_type: this.options.applicationType ?? 'native',
    }
    const request = new Request(as.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    })
    const { response, json: info } = await fetchHeld(this.#fetch, request, async (r) => ({
      response: r,
      json: await readJson(r),
    }))
    if (!response.ok || typeof info?.client_id !== 'string')
      throw oauthErrorOf(
        info,
        `Dynamic client registration at ${as.registration_endpoint} failed (HTTP ${response.status})`,
      )
    const client: OAuthClientInformation = { client_id: info.client_id }
    if (typeof info.client_secret === 'string') client.client_secret = info.client_secret
    if (typeof info.token_endpoint_auth_method === 'string')
      client.token_endpoint_auth_method = info.token_endpoint_auth_method
    await this.store.saveClient(issuer, client)
    return client
  }

  /** RFC 6749 §3.2 / §6 token request with the selected client authentication; stores the tokens. */
  async #token(
    serverUrl: string,
    issuer: string,
    as: Metadata,
    client: OAuthClientInformation,
    params: Record<string, string>,
    scope: string | undefined,
    refreshToken: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const method = selectTokenAuthMethod(client, strings(as.token_endpoint_auth_methods_supported))
    const auth: TokenEndpointAuth =
      method === 'client_secret_basic' || (method === 'client_secret_post' && client.client_secret !== undefined)
        ? { method, clientId: client.client_id, clientSecret: client.client_secret ?? '' }
        : { method: 'none', clientId: client.client_id }
    const fetch = (input: Request) => this.#fetch(input)
    const { dpop: proofs } = this.options
    const dpop = proofs && { proofs, store: this.store }
    const tokenEndpoint = as.token_endpoint as string
    const response = await requestToken({ tokenEndpoint, auth, params, fetch, signal, dpop })
    await this.store.saveTokens(serverUrl, storedTokensOf(issuer, response, scope, refreshToken, !!proofs))
  }
}

/**
 * Check an authorization response (RFC 6749 §4.1.2, RFC 9207 §2.4 as the spec's table words it) and
 * return its code: `iss`, when present, must equal the recorded issuer by simple string comparison, and
 * must be present when the AS advertised `authorization_response_iss_parameter_supported`; `state` must
 * match. An `error` is reported only after `iss` passed.
 * @throws OAuthError for any failure.
 */
function validateAuthorizationResponse(
  callback: string | URL,
  expected: { state: string; issuer: string; issSupported: boolean },
): string {
  const text = String(callback)
  const query = text.includes('?') ? text.slice(text.indexOf('?') + 1).split('#')[0]! : text.replace(/^[?#]/, '')
  const params = new URLSearchParams(query)
  const iss = params.getAll('iss')
  if (iss.length > 1 || (iss.length === 1 && iss[0] !== expected.issuer)) {
    throw new OAuthError(
      'invalid_issuer',
      `The authorization response's iss ${JSON.stringify(iss.join(','))} is not the recorded issuer ${expected.issuer}`,
    )
  }
  if (iss.length === 0 && expected.issSupported) {
    throw new OAuthError(
      'invalid_issuer',
      'The authorization response has no iss, but the authorization server advertises it',
    )
  }
  if (params.get('state') !== expected.state)
    throw new OAuthError('invalid_state', 'The authorization response state does not match')
  const error = params.get('error')
  if (error !== null)
    throw new OAuthError(
      error,
      `Authorization failed: ${error}${params.get('error_description') ? ` (${params.get('error_description')})` : ''}`,
    )
  const code = params.get('code')
  if (!code) throw new OAuthError('invalid_response', 'The authorization response has no code')
  return code
}
