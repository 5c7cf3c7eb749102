/**
 * OAuth 2.1 for the client side of MCP authorization (spec: basic/authorization/*.mdx), on Web APIs only:
 * protected-resource metadata (RFC 9728), authorization-server metadata (RFC 8414 / OpenID Discovery),
 * client registration (pre-registered, Client ID Metadata Document, RFC 7591), PKCE S256 (RFC 7636),
 * resource indicators (RFC 8707), issuer identification (RFC 9207), refresh tokens and step-up.
 * @module
 */
import { encodeBase64Url } from '../encoding/base64url.ts'
import { ClientError } from '../protocol/errors.ts'

type Awaitable<T> = T | Promise<T>

/** Tokens kept for one MCP server (keyed by the server URL), with the issuer that minted them. */
export interface StoredTokens {
  /** The authorization server's `issuer`; a token is never sent after the server moves to another one. */
  issuer: string
  access_token: string
  token_type: string
  refresh_token?: string
  /** The scopes requested (space-separated), kept so that step-up asks for their union with the new ones. */
  scope?: string
  /** When the access token expires, in **milliseconds** since the epoch (from `expires_in`). */
  expires_at?: number
}

/** Client credentials at one authorization server (RFC 7591 §3.2.1 response fields). */
export interface OAuthClientInformation {
  client_id: string
  client_secret?: string
  /** `client_secret_basic`, `client_secret_post` or `none`; chosen from the AS metadata when absent. */
  token_endpoint_auth_method?: string
}

/** A pre-registered client (spec: client-registration.mdx §Pre-registration), bound to its issuer. */
export interface PreRegisteredClient extends OAuthClientInformation {
  /** The issuer these credentials belong to; they are used with no other authorization server. */
  issuer: string
}

/** Where tokens and registrations live. {@link MemoryOAuthStorage} is the default; persist them yourself. */
export interface OAuthStorage {
  loadTokens(resource: string): Awaitable<StoredTokens | undefined>
  saveTokens(resource: string, tokens: StoredTokens | undefined): Awaitable<void>
  /** Dynamically registered clients, keyed by issuer (spec: client-registration.mdx §Authorization Server Binding). */
  loadClient(issuer: string): Awaitable<OAuthClientInformation | undefined>
  saveClient(issuer: string, client: OAuthClientInformation): Awaitable<void>
}

/** In-memory {@link OAuthStorage} (lost with the process). */
export class MemoryOAuthStorage implements OAuthStorage {
  readonly #tokens = new Map<string, StoredTokens>()
  readonly #clients = new Map<string, OAuthClientInformation>()
  loadTokens(resource: string): StoredTokens | undefined {
    return this.#tokens.get(resource)
  }
  saveTokens(resource: string, tokens: StoredTokens | undefined): void {
    if (tokens) this.#tokens.set(resource, tokens)
    else this.#tokens.delete(resource)
  }
  loadClient(issuer: string): OAuthClientInformation | undefined {
    return this.#clients.get(issuer)
  }
  saveClient(issuer: string, client: OAuthClientInformation): void {
    this.#clients.set(issuer, client)
  }
}

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
  /** Default: a {@link MemoryOAuthStorage}. */
  storage?: OAuthStorage
  /** The fetch for metadata, registration and token requests. Default: the global one. */
  fetch?: (input: Request) => Promise<Response>
  /** Re-authorizations allowed per request after `403 insufficient_scope` (spec §Step-Up). Default 2. */
  maxStepUps?: number
}

/** An OAuth failure: discovery, validation, registration, an authorization or token error. */
export class OAuthError extends ClientError {
  /** The OAuth `error` code when the authorization server sent one (RFC 6749 §5.2), else a local reason. */
  declare readonly code: string
  constructor(code: string, message: string) {
    super('OAuthError', code, message)
  }
}

/** A `WWW-Authenticate` challenge's auth-params (RFC 9110 §11.6.1), names lowercased. */
export interface Challenge {
  scheme: string
  params: Record<string, string>
}

/**
 * Parse a `WWW-Authenticate` value into its challenges (RFC 9110 §11.6.1: quoted-strings may hold
 * commas and escaped quotes). Token68 forms are ignored.
 */
export function parseWwwAuthenticate(header: string): Challenge[] {
  const challenges: Challenge[] = []
  const re = /\s*(?:,\s*)*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*)))?/y
  let current: Challenge | undefined
  let m: RegExpExecArray | null
  while (re.lastIndex < header.length && (m = re.exec(header)) !== null) {
    const [, name, quoted, bare] = m
    if (quoted === undefined && bare === undefined) {
      current = { scheme: name!, params: {} }
      challenges.push(current)
    } else if (current) {
      current.params[name!.toLowerCase()] = quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : bare!
    }
  }
  return challenges
}

/** The Bearer challenge's params of a `WWW-Authenticate` header (empty when absent). */
export function bearerParams(header: string | undefined): Record<string, string> {
  return parseWwwAuthenticate(header ?? '').find((c) => c.scheme.toLowerCase() === 'bearer')?.params ?? {}
}

/**
 * The well-known URLs of an issuer's metadata, in the order the spec requires
 * (authorization-server-discovery.mdx; RFC 8414 §3.1 and §5, OpenID Discovery §4).
 */
export function authorizationServerMetadataUrls(issuer: string): URL[] {
  const url = new URL(issuer)
  const path = url.pathname.replace(/\/+$/, '')
  const at = (p: string) => new URL(p, url.origin)
  if (path === '') return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')]
  return [
    at(`/.well-known/oauth-authorization-server${path}`),
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
  ]
}

/** The RFC 9728 §3.1 well-known URLs for a resource: path-based first (when it has a path), then the root. */
export function protectedResourceMetadataUrls(serverUrl: string): URL[] {
  const url = new URL(serverUrl)
  const path = url.pathname.replace(/\/+$/, '')
  const root = new URL('/.well-known/oauth-protected-resource', url.origin)
  return path === '' ? [root] : [new URL(`/.well-known/oauth-protected-resource${path}`, url.origin), root]
}

/**
 * Whether protected-resource metadata published `resource` may be used for `serverUrl` (RFC 9728 §3.3,
 * §7.3): same origin, and the server's path is the resource's path or below it.
 */
export function resourceMatches(resource: string, serverUrl: string): boolean {
  let r: URL
  let s: URL
  try {
    r = new URL(resource)
    s = new URL(serverUrl)
  } catch {
    return false
  }
  if (r.origin !== s.origin || r.hash !== '') return false
  const base = r.pathname.replace(/\/+$/, '')
  return s.pathname === r.pathname || s.pathname.replace(/\/+$/, '') === base || s.pathname.startsWith(`${base}/`)
}

/**
 * The client authentication method for the token endpoint (RFC 6749 §2.3, RFC 8414 §2): the one
 * registered, else `none` without a secret, else the first of basic, post, none that the AS lists
 * (`client_secret_basic` when it lists none).
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

/** A PKCE pair (RFC 7636 §4.1-4.2): a 43-character verifier and its S256 challenge. */
export async function createPkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = encodeBase64Url(crypto.getRandomValues(new Uint8Array(32)))
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))
  return { verifier, challenge: encodeBase64Url(new Uint8Array(digest)) }
}

type Metadata = Record<string, unknown>
const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((s) => typeof s === 'string') ? (value as string[]) : undefined
const scopeSet = (...scopes: (string | undefined)[]): string[] => [
  ...new Set(scopes.flatMap((s) => (s ? s.split(' ').filter(Boolean) : []))),
]
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+')

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
export class OAuthClientProvider {
  readonly options: OAuthClientProviderOptions
  readonly storage: OAuthStorage
  readonly #fetch: (input: Request) => Promise<Response>

  /** @throws RangeError when `maxStepUps` is not a non-negative integer. */
  constructor(options: OAuthClientProviderOptions) {
    if (options.maxStepUps !== undefined && !(Number.isInteger(options.maxStepUps) && options.maxStepUps >= 0)) {
      throw new RangeError(`maxStepUps must be a non-negative integer, got ${String(options.maxStepUps)}`)
    }
    this.options = options
    this.storage = options.storage ?? new MemoryOAuthStorage()
    this.#fetch = options.fetch ?? ((input) => fetch(input))
  }

  /** Re-authorizations allowed per request after `403 insufficient_scope`. */
  get maxStepUps(): number {
    return this.options.maxStepUps ?? 2
  }

  /** The `Authorization` header value for requests to `serverUrl`, if a token is stored. */
  async authorizationHeader(serverUrl: string): Promise<string | undefined> {
    const tokens = await this.storage.loadTokens(serverUrl)
    return tokens ? `Bearer ${tokens.access_token}` : undefined
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
    const prm = await this.#protectedResource(serverUrl, challenge.resource_metadata, signal)
    const resource = prm.resource as string
    const issuer = strings(prm.authorization_servers)?.[0]
    if (!issuer)
      throw new OAuthError('invalid_resource_metadata', 'Protected resource metadata lists no authorization_servers')
    const as = await this.#authorizationServer(issuer, signal)
    const stored = await this.storage.loadTokens(serverUrl)
    const previous = stored?.issuer === issuer ? stored : undefined
    // the server moved to another authorization server: its tokens are dropped now, not only once a new
    // one is issued, so that a failed or abandoned authorization never sends them again
    if (stored !== undefined && previous === undefined) await this.storage.saveTokens(serverUrl, undefined)

    if (!stepUp && previous?.refresh_token) {
      const client = await this.#client(issuer, as, signal)
      const params: Record<string, string> = {
        grant_type: 'refresh_token',
        refresh_token: previous.refresh_token,
        resource,
      }
      try {
        await this.#token(serverUrl, issuer, as, client, params, previous.scope, previous.refresh_token, signal)
        return
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error // network failures surface; a refused refresh starts over
      }
    }

    let scopes = scopeSet(challenge.scope ?? strings(prm.scopes_supported)?.join(' '))
    if (stepUp) scopes = scopeSet(previous?.scope, challenge.scope)
    if ((this.options.offlineAccess ?? true) && strings(as.scopes_supported)?.includes('offline_access'))
      scopes = scopeSet(scopes.join(' '), 'offline_access')
    const scope = scopes.length ? scopes.join(' ') : undefined

    const client = await this.#client(issuer, as, signal)
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
    const params: Record<string, string> = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: this.options.redirectUrl,
      code_verifier: verifier,
      resource,
    }
    await this.#token(serverUrl, issuer, as, client, params, scope, undefined, signal)
  }

  /** RFC 9728 §3: the metadata from `resource_metadata`, else the well-known URLs in order; `resource` checked. */
  async #protectedResource(
    serverUrl: string,
    fromChallenge: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Metadata> {
    const urls = fromChallenge ? [new URL(fromChallenge, serverUrl)] : protectedResourceMetadataUrls(serverUrl)
    for (const url of urls) {
      const prm = await this.#getJson(url, signal)
      if (!prm) continue
      if (typeof prm.resource !== 'string' || !resourceMatches(prm.resource, serverUrl)) {
        throw new OAuthError(
          'invalid_resource_metadata',
          `Protected resource metadata at ${url.href} names resource ${JSON.stringify(prm.resource)}, not ${serverUrl}`,
        )
      }
      return prm
    }
    throw new OAuthError(
      'invalid_resource_metadata',
      `No protected resource metadata found for ${serverUrl} (tried ${urls.map((u) => u.href).join(', ')})`,
    )
  }

  /** RFC 8414 §3 / OpenID Discovery §4: the first metadata document found; its `issuer` must be identical. */
  async #authorizationServer(issuer: string, signal: AbortSignal | undefined): Promise<Metadata> {
    for (const url of authorizationServerMetadataUrls(issuer)) {
      const as = await this.#getJson(url, signal)
      if (!as) continue
      if (as.issuer !== issuer) {
        throw new OAuthError(
          'invalid_issuer',
          `Authorization server metadata at ${url.href} has issuer ${JSON.stringify(as.issuer)}, not ${issuer}`,
        )
      }
      if (typeof as.authorization_endpoint !== 'string' || typeof as.token_endpoint !== 'string') {
        throw new OAuthError(
          'invalid_metadata',
          `Authorization server metadata of ${issuer} lacks authorization_endpoint or token_endpoint`,
        )
      }
      if (!strings(as.code_challenge_methods_supported)?.includes('S256')) {
        throw new OAuthError(
          'invalid_metadata',
          `Authorization server ${issuer} does not advertise PKCE S256 (code_challenge_methods_supported)`,
        )
      }
      return as
    }
    throw new OAuthError('invalid_metadata', `No authorization server metadata found for ${issuer}`)
  }

  /** spec: client-registration.mdx, in its priority order; credentials are bound to `issuer`. */
  async #client(issuer: string, as: Metadata, signal: AbortSignal | undefined): Promise<OAuthClientInformation> {
    const pre = this.options.preRegistered?.find((c) => c.issuer === issuer)
    if (pre) return pre
    const saved = await this.storage.loadClient(issuer)
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
    const response = await this.#fetch(
      new Request(as.registration_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        ...(signal ? { signal } : {}),
      }),
    )
    const info = await readJson(response)
    if (!response.ok || typeof info?.client_id !== 'string')
      throw oauthErrorOf(
        info,
        `Dynamic client registration at ${as.registration_endpoint} failed (HTTP ${response.status})`,
      )
    const client: OAuthClientInformation = { client_id: info.client_id }
    if (typeof info.client_secret === 'string') client.client_secret = info.client_secret
    if (typeof info.token_endpoint_auth_method === 'string')
      client.token_endpoint_auth_method = info.token_endpoint_auth_method
    await this.storage.saveClient(issuer, client)
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
    const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' })
    const form = new URLSearchParams(params)
    const method = selectTokenAuthMethod(client, strings(as.token_endpoint_auth_methods_supported))
    if (method === 'client_secret_basic') {
      headers.set(
        'authorization',
        `Basic ${btoa(`${formEncode(client.client_id)}:${formEncode(client.client_secret ?? '')}`)}`,
      )
    } else {
      form.set('client_id', client.client_id)
      if (method === 'client_secret_post' && client.client_secret !== undefined)
        form.set('client_secret', client.client_secret)
    }
    const response = await this.#fetch(
      new Request(as.token_endpoint as string, {
        method: 'POST',
        headers,
        body: form.toString(),
        ...(signal ? { signal } : {}),
      }),
    )
    const body = await readJson(response)
    if (!response.ok || typeof body?.access_token !== 'string' || typeof body.token_type !== 'string') {
      throw oauthErrorOf(body, `Token request to ${String(as.token_endpoint)} failed (HTTP ${response.status})`)
    }
    if (body.token_type.toLowerCase() !== 'bearer') {
      throw new OAuthError(
        'unsupported_token_type',
        `The token endpoint issued a ${body.token_type} token; only Bearer tokens are supported`,
      )
    }
    const tokens: StoredTokens = { issuer, access_token: body.access_token, token_type: body.token_type }
    const refresh = typeof body.refresh_token === 'string' ? body.refresh_token : refreshToken
    if (refresh !== undefined) tokens.refresh_token = refresh
    if (scope !== undefined) tokens.scope = scope
    if (typeof body.expires_in === 'number') tokens.expires_at = Date.now() + body.expires_in * 1000
    await this.storage.saveTokens(serverUrl, tokens)
  }

  /** GET a JSON metadata document; undefined when it is not there (any non-2xx or non-JSON answer). */
  async #getJson(url: URL, signal: AbortSignal | undefined): Promise<Metadata | undefined> {
    const response = await this.#fetch(
      new Request(url, { headers: { accept: 'application/json' }, ...(signal ? { signal } : {}) }),
    )
    if (!response.ok) {
      await response.body?.cancel().catch(() => {})
      return undefined
    }
    return readJson(response)
  }
}

/**
 * Check an authorization response (RFC 6749 §4.1.2, RFC 9207 §2.4 as the spec's table words it) and
 * return its code: `iss`, when present, must equal the recorded issuer by simple string comparison, and
 * must be present when the AS advertised `authorization_response_iss_parameter_supported`; `state` must
 * match. An `error` is reported only after `iss` passed.
 * @throws OAuthError for any failure.
 */
export function validateAuthorizationResponse(
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

async function readJson(response: Response): Promise<Metadata | undefined> {
  try {
    const value: unknown = await response.json()
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Metadata) : undefined
  } catch {
    return undefined
  }
}

function oauthErrorOf(body: Metadata | undefined, fallback: string): OAuthError {
  const code = typeof body?.error === 'string' ? body.error : 'invalid_response'
  const description = typeof body?.error_description === 'string' ? `: ${body.error_description}` : ''
  return new OAuthError(code, typeof body?.error === 'string' ? `${fallback}: ${code}${description}` : fallback)
}
