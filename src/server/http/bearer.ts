/**
 * An MCP endpoint as an OAuth 2.1 protected resource (spec: basic/authorization/index.mdx): its Protected
 * Resource Metadata (RFC 9728), the bearer token from the `Authorization` header only (RFC 6750 §2.1,
 * never the query string), its verification through a {@link VerifyToken} (JWT or introspection verifiers:
 * `edge-mcp/oauth`), and the challenges (RFC 6750 §3): 401 with `resource_metadata`, 403
 * `insufficient_scope` with the `scope` needed. Nothing here imports a JOSE library: a Worker that does
 * not verify tokens carries none.
 * @module
 */
import { checkScopes, missingScopes, type AuthInfo, type ImpliedScopes } from '../../protocol/auth.ts'
import { DPoPProofError, InvalidTokenError } from '../errors.ts'

/** What a token verifier is told about the request: the resource it must be valid for, and the request. */
export interface VerifyTokenContext {
  /** This server's canonical resource URL (RFC 8707 / RFC 9728 `resource`): the audience a token must name. */
  resource: string
  /** The HTTP request carrying the token. */
  request: Request
  /** The Worker's `env` (or what the runtime passed), e.g. for a per-deployment issuer. */
  env: unknown
  /**
   * The `Authorization` scheme the token came with: `DPoP` only to a verifier with a `dpop` check (RFC 9449
   * §7.1; the proof is the request's `DPoP` header). Absent means `Bearer`.
   */
  scheme?: 'Bearer' | 'DPoP'
}

/**
 * Verifies a bearer token for this resource and returns who it speaks for.
 * @throws InvalidTokenError when the token is not valid here (401 `invalid_token`; its message becomes the
 *   challenge's `error_description`). Any other error is a failure of the verifier itself (the request
 *   gets 503 and the logger has the cause): a token is never accepted because a check could not run.
 */
export type VerifyToken = ((token: string, context: VerifyTokenContext) => AuthInfo | Promise<AuthInfo>) & {
  /**
   * Set by a verifier given a DPoP check (`dpop: dpopProofChecker(…)`): tokens then also come as
   * `Authorization: DPoP <token>`, the 401 challenges name `DPoP` with these `algs` (RFC 9449 §7.1), and
   * the metadata has `dpop_signing_alg_values_supported` (RFC 9728 §2). `required`: no `Bearer`.
   */
  readonly dpop?: { readonly algorithms: readonly string[]; readonly required: boolean }
}

/** Options of a protected MCP endpoint: `FetchHandlerOptions.oauth`. */
export interface ProtectedResourceOptions {
  /**
   * Issuer URLs of the authorization servers whose tokens this resource accepts (RFC 9728
   * `authorization_servers`); clients discover the first one's metadata (RFC 8414 / OpenID Discovery).
   */
  authorizationServers: readonly string[]
  /** Verifies each bearer token: `jwtVerifier(…)` or `introspectionVerifier(…)` from `edge-mcp/oauth`, or your own. */
  verifyToken: VerifyToken
  /**
   * This server's canonical resource URL (`https://mcp.example.com/mcp`; RFC 8707 §2: no fragment, no
   * trailing slash). Default: the request's origin followed by `path`, so the same Worker works under
   * each host it is deployed to; then the fetch handler's `allowedHosts` is required, since the Host
   * header is the client's to choose and a token for any other resource of the issuer would match.
   */
  resource?: string
  /** The MCP endpoint's path, for the default `resource` and the metadata's well-known URL. Default `/mcp`. */
  path?: string
  /** Scopes every request needs (the server-wide floor); per-item scopes come from registration `scopes`. */
  requiredScopes?: readonly string[]
  /** RFC 9728 `scopes_supported`: the scopes a client may ask for. Default: `requiredScopes`, when given. */
  scopesSupported?: readonly string[]
  /** RFC 9728 `resource_documentation`: a page for developers. */
  resourceDocumentation?: string
  /** RFC 9728 `resource_name`: a human-readable name. */
  resourceName?: string
  /**
   * Also serve the metadata at the root well-known URL (`/.well-known/oauth-protected-resource`), for
   * clients that look only there. Default false: only the path form (spec: authorization-server-discovery).
   */
  rootMetadata?: boolean
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource'

/**
 * Longest `Authorization` header parsed, in characters (32 KiB): a longer one is refused unread. The JWT and
 * introspection verifiers take tokens of up to 16,384 characters by default.
 */
const MAX_AUTHORIZATION_LENGTH = 32_768

/** RFC 6750 `b64token`: the only characters a bearer token may contain. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/

/** What the checks decided for one request. */
export type BearerOutcome =
  { ok: true; authInfo: AuthInfo } | { ok: false; status: 401 | 403 | 503; challenge?: Challenge; message: string }

/** The parameters of one `WWW-Authenticate: Bearer` challenge (RFC 6750 §3), or `DPoP` (RFC 9449 §7.1). */
export interface Challenge {
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof' | 'use_dpop_nonce'
  description?: string
  scope?: string
  /** The scheme a token came with; without one (no token), every scheme the resource accepts is challenged. */
  scheme?: 'Bearer' | 'DPoP'
  /** With `use_dpop_nonce`: the nonce for the client's next proof, sent as `DPoP-Nonce` (RFC 9449 §9). */
  nonce?: string
}

/**
 * An MCP endpoint's OAuth protection, for `FetchHandlerOptions.oauth` (see {@link ProtectedResourceOptions}).
 * A Worker that never makes one carries none of this code.
 * @throws TypeError for invalid options (see the constructor).
 * @example
 * createFetchHandler(mcp, {
 *   oauth: protectedResource({ authorizationServers: [issuer], verifyToken: jwtVerifier({ issuer }) }),
 * })
 */
export function protectedResource(options: ProtectedResourceOptions): ProtectedResource {
  return new ProtectedResource(options)
}

/** A protected resource's request-time behaviour (made by {@link protectedResource}). */
export class ProtectedResource {
  readonly options: ProtectedResourceOptions
  readonly #path: string

  /**
   * @throws TypeError when `authorizationServers` is empty or not absolute URLs, `verifyToken` is not a
   *   function, `resource` / `path` are malformed (a fragment, no leading `/`), or a scope list is not
   *   scope names.
   */
  constructor(options: ProtectedResourceOptions) {
    if (typeof options.verifyToken !== 'function') throw new TypeError('oauth.verifyToken must be a function')
    if (!Array.isArray(options.authorizationServers) || options.authorizationServers.length === 0)
      throw new TypeError('oauth.authorizationServers must list at least one issuer URL')
    for (const issuer of options.authorizationServers as readonly unknown[]) {
      if (typeof issuer !== 'string' || !URL.canParse(issuer))
        throw new TypeError(`oauth.authorizationServers: ${String(issuer)} is not an absolute URL`)
    }
    let path = options.path ?? '/mcp'
    if (options.resource !== undefined) {
      if (!URL.canParse(options.resource) || new URL(options.resource).hash)
        throw new TypeError(`oauth.resource must be an absolute URL without a fragment, got ${options.resource}`)
      path = new URL(options.resource).pathname
    }
    if (!path.startsWith('/')) throw new TypeError(`oauth.path must start with '/', got ${path}`)
    checkScopes('oauth.requiredScopes', options.requiredScopes)
    checkScopes('oauth.scopesSupported', options.scopesSupported)
    this.options = options
    this.#path = path === '/' ? '' : path.replace(/\/+$/, '')
  }

  /** The canonical resource URL for a request to this server (`resource`, else origin + path). */
  resourceFor(url: URL): string {
    return this.options.resource?.replace(/\/+$/, '') ?? `${url.origin}${this.#path}`
  }

  /**
   * The path-form metadata URL for a request (what `resource_metadata` points at): at the origin of
   * `resource` when set (RFC 9728 §3.1 — behind a proxy the request's own origin is an internal one).
   */
  metadataUrlFor(url: URL): string {
    const { resource } = this.options
    return `${resource === undefined ? url.origin : new URL(resource).origin}${WELL_KNOWN}${this.#path}`
  }

  /** True when `url` is one of this resource's metadata URLs. */
  isMetadataPath(url: URL): boolean {
    return (
      url.pathname === `${WELL_KNOWN}${this.#path}` ||
      (this.options.rootMetadata === true && url.pathname === WELL_KNOWN)
    )
  }

  /**
   * The metadata document (RFC 9728 §3.2): 200 JSON for GET / HEAD, 204 for a preflight, 405 otherwise.
   * Readable from any origin (`Access-Control-Allow-Origin: *`): it is public and holds no credential.
   */
  metadataResponse(request: Request, url: URL): Response {
    const cors = { 'Access-Control-Allow-Origin': '*' }
    if (request.method === 'OPTIONS') {
      return new Response(null, {
        status: 204,
        headers: { ...cors, 'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS', 'Access-Control-Max-Age': '86400' },
      })
    }
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return new Response(null, { status: 405, headers: { ...cors, Allow: 'GET, HEAD, OPTIONS' } })
    const o = this.options
    const document: Record<string, unknown> = {
      resource: this.resourceFor(url),
      authorization_servers: [...o.authorizationServers],
      bearer_methods_supported: ['header'],
    }
    const dpop = o.verifyToken.dpop
    if (dpop) document.dpop_signing_alg_values_supported = [...dpop.algorithms]
    if (dpop?.required) document.dpop_bound_access_tokens_required = true
    const scopes = o.scopesSupported ?? o.requiredScopes
    if (scopes?.length) document.scopes_supported = [...scopes]
    if (o.resourceDocumentation !== undefined) document.resource_documentation = o.resourceDocumentation
    if (o.resourceName !== undefined) document.resource_name = o.resourceName
    const body = request.method === 'HEAD' ? null : JSON.stringify(document)
    return new Response(body, {
      status: 200,
      headers: { ...cors, 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=3600' },
    })
  }

  /**
   * The bearer checks for one MCP request: the token from `Authorization` only (a token in the query
   * string or form is refused, RFC 6750 §2.3 and MCP "Token Requirements"; a header over 32 KiB is
   * refused unparsed), verified for this resource, with the server-wide `requiredScopes`.
   */
  async authenticate(
    request: Request,
    url: URL,
    env: unknown,
    implied: ImpliedScopes | undefined,
    log: (cause: unknown) => void,
  ): Promise<BearerOutcome> {
    const header = request.headers.get('authorization')
    const fromQuery = url.searchParams.has('access_token')
    if (fromQuery)
      return invalid(
        'invalid_request',
        'access tokens are accepted only in the Authorization header, never the query string',
      )
    // the 401 names the server-wide scopes, so that a client asks for no more than it needs (spec: "Scope
    // Selection Strategy")
    const none: BearerOutcome = {
      ok: false,
      status: 401,
      challenge: this.options.requiredScopes?.length ? { scope: this.options.requiredScopes.join(' ') } : {},
      message: 'Unauthorized: a bearer token is required',
    }
    if (header === null) return none
    if (header.length > MAX_AUTHORIZATION_LENGTH)
      return invalid(
        'invalid_request',
        `the Authorization header is too long (over ${MAX_AUTHORIZATION_LENGTH} characters)`,
      )
    // no backtracking: a header value has no trailing whitespace (Fetch trims it), and `\S*` stops at the
    // first space, so the match is linear in the header's length (`\S* *$` was quadratic over spaces)
    const dpop = this.options.verifyToken.dpop
    const match = (dpop ? /^(Bearer|DPoP) +(\S*)$/i : /^(Bearer) +(\S*)$/i).exec(header)
    if (!match) {
      // another scheme (Basic, …) is no bearer token at all: the plain challenge (RFC 6750 §3.1)
      if (!(dpop ? /^(bearer|dpop)(\s|$)/i : /^bearer(\s|$)/i).test(header)) return none
      return invalid('invalid_token', `the Authorization header is not "${dpop ? 'Bearer|DPoP' : 'Bearer'} <token>"`)
    }
    const scheme = match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer'
    const token = match[2]!
    if (!B64TOKEN.test(token)) return invalid('invalid_token', 'the bearer token is malformed', scheme)
    let authInfo: AuthInfo
    try {
      const context: VerifyTokenContext = { resource: this.resourceFor(url), request, env }
      if (scheme === 'DPoP') context.scheme = scheme
      authInfo = await this.options.verifyToken(token, context)
    } catch (error) {
      if (error instanceof DPoPProofError) return invalid(error.error, error.message, 'DPoP', error.nonce)
      if (error instanceof InvalidTokenError)
        return invalid('invalid_token', error.message || 'the token is not valid', scheme)
      log(error)
      return { ok: false, status: 503, message: 'Service Unavailable: the access token could not be verified' }
    }
    const missing = missingScopes(this.options.requiredScopes ?? [], authInfo.scopes, implied)
    if (missing.length) {
      const scope = (this.options.requiredScopes ?? []).join(' ')
      return {
        ok: false,
        status: 403,
        challenge: {
          error: 'insufficient_scope',
          scope,
          description: `this server needs the scope ${missing.join(' ')}`,
          scheme,
        },
        message: `Forbidden: insufficient scope; this server needs ${scope}`,
      }
    }
    return { ok: true, authInfo }
  }

  /** The `WWW-Authenticate` value for a challenge on a request to `url` (RFC 6750 §3, MCP authorization). */
  challengeHeader(url: URL, challenge: Challenge): string {
    // a 403 names every scope the call needs, the server-wide ones included: a client that asks for just
    // the challenged scopes (official SDK 1.x) would otherwise lose them (spec: "Scope Challenge Handling")
    const floor = this.options.requiredScopes ?? []
    if (challenge.error === 'insufficient_scope' && challenge.scope !== undefined && floor.length)
      challenge = { ...challenge, scope: [...new Set([...floor, ...challenge.scope.split(' ')])].join(' ') }
    const c = { ...challenge, resourceMetadata: this.metadataUrlFor(url) }
    const dpop = this.options.verifyToken.dpop
    if (!dpop) return bearerChallenge(c)
    // RFC 9449 §7.1: a DPoP challenge names the accepted algorithms; without a token, both schemes are
    // offered, with one, only its own (only DPoP when Bearer is refused)
    const algs = `algs="${dpop.algorithms.join(' ')}", `
    const ofDPoP = `DPoP ${algs}${bearerChallenge(c).slice('Bearer '.length)}`
    if (c.scheme === 'DPoP' || dpop.required) return ofDPoP
    return c.scheme === 'Bearer' ? bearerChallenge(c) : `${bearerChallenge(c)}, ${ofDPoP}`
  }

  /**
   * The headers of a refused request: a 401 / 403 challenge's `WWW-Authenticate` (and `DPoP-Nonce` for
   * `use_dpop_nonce`), or a 503's `Retry-After`.
   */
  refusalHeaders(url: URL, outcome: BearerOutcome & { ok: false }): Record<string, string> {
    const { challenge } = outcome
    if (!challenge) return { 'Retry-After': '5' }
    const headers: Record<string, string> = { 'WWW-Authenticate': this.challengeHeader(url, challenge) }
    if (challenge.nonce !== undefined) {
      headers['DPoP-Nonce'] = challenge.nonce
      // a browser client must read it; the CORS layer adds its own exposed headers to this one
      headers['Access-Control-Expose-Headers'] = 'DPoP-Nonce'
    }
    return headers
  }
}

/**
 * `Bearer resource_metadata="…", error="…", error_description="…", scope="…"` (RFC 6750 §3; values are
 * quoted strings, with `"` and `\` escaped and characters outside visible ASCII replaced).
 */
export function bearerChallenge(c: Challenge & { resourceMetadata?: string }): string {
  const params: string[] = []
  const add = (name: string, value: string | undefined) => {
    if (value !== undefined) params.push(`${name}="${value.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&')}"`)
  }
  add('resource_metadata', c.resourceMetadata)
  add('error', c.error)
  add('error_description', c.description)
  add('scope', c.scope)
  return params.length ? `Bearer ${params.join(', ')}` : 'Bearer'
}

function invalid(
  error: NonNullable<Challenge['error']>,
  description: string,
  scheme?: 'Bearer' | 'DPoP',
  nonce?: string,
): BearerOutcome {
  const challenge: Challenge = { error, description }
  if (scheme) challenge.scheme = scheme
  if (nonce !== undefined) challenge.nonce = nonce
  return { ok: false, status: 401, challenge, message: `Unauthorized: ${description}` }
}
