/**
 * What the machine-to-machine OAuth flows share (no user, no browser): on a `401` the discovery the
 * authorization-code flow does (RFC 9728 protected-resource metadata from the challenge, RFC 8414
 * authorization-server metadata, its issuer checked), the scope, a refresh when a refresh token is kept,
 * then the flow's own grant at the token endpoint with the `resource` parameter (RFC 8707), the tokens
 * kept in the {@link OAuthStore}. The grants are in their own modules (client-credentials.ts,
 * jwt-bearer.ts, enterprise.ts), so an application carries only the one it uses.
 * @module
 */
import { OAuthError } from '../errors.ts'
import type { ClientAuthProvider } from './auth-provider.ts'
import {
  checkClientCredentials,
  lazySigner,
  tokenEndpointAuth,
  type AssertionSigner,
  type ClientCredentials,
} from './client-auth.ts'
import {
  bearerParams,
  fetchAuthorizationServerMetadata,
  fetchProtectedResourceMetadata,
  strings,
  type Metadata,
  type OAuthFetch,
} from './discovery.ts'
import { InMemoryOAuthStore, type OAuthStore } from './store.ts'
import { requestToken, storedTokensOf, type TokenEndpointAuth } from './token.ts'
import type { DPoPProofs } from './dpop.ts'

/** Options every machine-to-machine provider takes. */
export interface MachineProviderOptions {
  /**
   * The scope to ask for (space-separated). Default: the challenge's `scope`, else the protected resource's
   * `scopes_supported` (spec §Scope Selection Strategy).
   */
  scope?: string
  /** Where tokens are kept (per MCP server URL). Default: an {@link InMemoryOAuthStore}. */
  store?: OAuthStore
  /** The fetch for metadata and token requests. Default: the global one. */
  fetch?: (input: Request) => Promise<Response>
  /** Re-authorizations allowed per request after `403 insufficient_scope` (spec §Step-Up). Default 2. */
  maxStepUps?: number
  /**
   * Required: the issuer identifier of the authorization server the credentials are for, exactly as in its
   * metadata (e.g. `https://auth.example.com`). The protected resource must list it in `authorization_servers`
   * (it is then the one used), and its metadata's `issuer` must be it, else the request fails with OAuthError
   * `invalid_issuer` before any token request: an MCP server cannot point the client at a server of its choosing
   * and collect a client secret, a workload JWT or an ID-JAG there.
   */
  authorizationServer: string
  /**
   * DPoP (RFC 9449): ask for tokens bound to a key of this client (a proof on each token request at the
   * MCP server's authorization server) and prove it on every request — `dpopProofs()` (its key pair
   * generated once and kept in `store`). Default: none, Bearer tokens only.
   */
  dpop?: DPoPProofs
}

/** What a grant is asked to make its token request for. */
export interface GrantContext {
  /** The authorization server's issuer identifier (checked against its metadata). */
  issuer: string
  /** Its metadata (RFC 8414). */
  metadata: Metadata
  /** The MCP server's resource identifier, from its protected-resource metadata (RFC 8707 `resource`). */
  resource: string
  /** The scope asked for, when there is one. */
  scope: string | undefined
  signal: AbortSignal | undefined
}

/** A token this close to its expiry (milliseconds) is renewed before it is sent. */
export const RENEW_BEFORE_MS = 30_000

const scopeSet = (...scopes: (string | undefined)[]): string[] => [
  ...new Set(scopes.flatMap((s) => (s ? s.split(' ').filter(Boolean) : []))),
]

/**
 * The base of the machine-to-machine providers: a subclass says which grant it makes
 * ({@link MachineProvider.grant}) and with which client credentials.
 */
export abstract class MachineProvider implements ClientAuthProvider {
  readonly store: OAuthStore
  protected readonly fetch: OAuthFetch
  readonly #options: MachineProviderOptions
  readonly #credentials: ClientCredentials | undefined
  readonly #signer: (() => Promise<AssertionSigner>) | undefined
  /**
   * Authorizations under way, per server and challenge, with the signal they run under: concurrent 401s share
   * one token request.
   */
  readonly #pending = new Map<string, { done: Promise<void>; signal: AbortSignal | undefined }>()
  /** Per server URL, the challenge a renewal discovers from: the last one's `resource_metadata` only. */
  readonly #discovered = new Map<string, string>()

  /**
   * @param credentials the client's authentication at the authorization server (named `field` in errors);
   *   undefined for a grant whose server needs none.
   * @throws RangeError for a bad `maxStepUps`; TypeError for bad credentials, `scope` or `authorizationServer`.
   */
  protected constructor(options: MachineProviderOptions, credentials: ClientCredentials | undefined, field: string) {
    if (options.maxStepUps !== undefined && !(Number.isInteger(options.maxStepUps) && options.maxStepUps >= 0)) {
      throw new RangeError(`maxStepUps must be a non-negative integer, got ${String(options.maxStepUps)}`)
    }
    const pinned: unknown = options.authorizationServer
    if (pinned === undefined)
      throw new TypeError(
        'authorizationServer is required: the issuer of the authorization server these credentials belong to, as in its metadata (they are sent to no other)',
      )
    if (typeof pinned !== 'string' || !URL.canParse(pinned))
      throw new TypeError(`authorizationServer must be an issuer URL, got ${JSON.stringify(pinned)}`)
    if (options.scope !== undefined && typeof options.scope !== 'string')
      throw new TypeError(`scope must be a space-separated string, got ${JSON.stringify(options.scope)}`)
    if (credentials !== undefined) checkClientCredentials(credentials, field)
    this.#options = options
    this.#credentials = credentials
    this.#signer = credentials && lazySigner(credentials, field)
    this.store = options.store ?? new InMemoryOAuthStore()
    const fetchOption = options.fetch
    this.fetch = fetchOption ? (input) => fetchOption(input) : (input) => fetch(input)
  }

  /** Re-authorizations allowed per request after `403 insufficient_scope`. */
  get maxStepUps(): number {
    return this.#options.maxStepUps ?? 2
  }

  /**
   * The headers that authorize a `method` request to `serverUrl`, if a token is stored (see `dpop`). A token
   * within {@link RENEW_BEFORE_MS} of its `expires_in` is renewed first (a refresh, else the grant), through the
   * discovery of the last authorization for this server, so the request does not go out with a token about to
   * be refused: it costs no `401`.
   * @throws what {@link authorize} throws when that renewal fails (as the `401` it avoids would have).
   */
  async authorizationHeaders(serverUrl: string, method: string): Promise<Record<string, string> | undefined> {
    let tokens = await this.store.loadTokens(serverUrl)
    const discovered = this.#discovered.get(serverUrl)
    if (
      tokens?.expires_at !== undefined &&
      tokens.expires_at - RENEW_BEFORE_MS <= Date.now() &&
      discovered !== undefined
    ) {
      await this.authorize(serverUrl, discovered)
      tokens = await this.store.loadTokens(serverUrl)
    }
    if (!tokens) return undefined
    const { dpop } = this.#options
    return dpop
      ? dpop.headers(this.store, tokens, method, serverUrl)
      : { authorization: `Bearer ${tokens.access_token}` }
  }

  /** Keeps the server's DPoP nonce; true for a `401 use_dpop_nonce` (send again with it, RFC 9449 §9). */
  onResponse(serverUrl: string, response: Response): boolean {
    return this.#options.dpop?.nonceFrom(serverUrl, response) ?? false
  }

  /**
   * Get a new access token for `serverUrl` after a `401` (or `403 insufficient_scope`, then for the union of
   * the scopes asked before and the challenged ones) whose `WWW-Authenticate` value is `wwwAuthenticate`:
   * discovery, then a refresh when a refresh token from the same issuer is kept, else the grant. A grant's
   * failure is not retried, and no other grant is tried.
   * @throws OAuthError when discovery fails (`invalid_issuer` too when the resource does not list
   *   `authorizationServer`) or the authorization server refuses (its `error`, e.g. `invalid_client`,
   *   `invalid_grant`, `invalid_scope`, `unauthorized_client`); TypeError for a private key that cannot be
   *   imported.
   */
  authorize(serverUrl: string, wwwAuthenticate: string | undefined, signal?: AbortSignal): Promise<void> {
    const key = `${serverUrl}\n${wwwAuthenticate ?? ''}`
    const pending = this.#pending.get(key)
    if (pending) {
      // another request's abort is not this one's: it authorizes anew under its own signal
      return pending.done.catch((error: unknown) => {
        if (!pending.signal?.aborted || signal?.aborted) throw error
        return this.authorize(serverUrl, wwwAuthenticate, signal)
      })
    }
    const done = this.#authorize(serverUrl, wwwAuthenticate, signal).finally(() => this.#pending.delete(key))
    this.#pending.set(key, { done, signal })
    return done
  }

  async #authorize(serverUrl: string, wwwAuthenticate: string | undefined, signal?: AbortSignal): Promise<void> {
    const challenge = bearerParams(wwwAuthenticate)
    const stepUp = challenge.error === 'insufficient_scope'
    const prm = await fetchProtectedResourceMetadata(this.fetch, serverUrl, challenge.resource_metadata, signal)
    const resource = prm.resource as string
    const where = challenge.resource_metadata
    this.#discovered.set(
      serverUrl,
      where === undefined ? '' : `Bearer resource_metadata="${where.replace(/["\\]/g, '')}"`,
    )
    const listed = strings(prm.authorization_servers) ?? []
    const issuer = this.#options.authorizationServer
    if (!listed.includes(issuer)) {
      throw new OAuthError(
        'invalid_issuer',
        `${serverUrl} names the authorization server ${listed.join(', ') || '(none)'}, not ${issuer} (authorizationServer): no credentials were sent`,
      )
    }
    const metadata = await fetchAuthorizationServerMetadata(this.fetch, issuer, signal, 'token')
    const stored = await this.store.loadTokens(serverUrl)
    const previous = stored?.issuer === issuer ? stored : undefined
    // tokens of another authorization server are never sent again, whatever happens next
    if (stored !== undefined && previous === undefined) await this.store.saveTokens(serverUrl, undefined)

    // a renewal (no challenged scope) asks again for what the expiring token had, step-ups included
    const asked = this.#options.scope ?? challenge.scope ?? previous?.scope
    let scopes = scopeSet(asked ?? strings(prm.scopes_supported)?.join(' '))
    if (stepUp) scopes = scopeSet(previous?.scope, challenge.scope)
    const scope = scopes.length ? scopes.join(' ') : undefined
    const auth = this.clientAuth(metadata, issuer)

    if (!stepUp && previous?.refresh_token) {
      const params = { grant_type: 'refresh_token', refresh_token: previous.refresh_token, resource }
      try {
        const response = await this.#token(metadata, auth, params, signal)
        const tokens = storedTokensOf(issuer, response, previous.scope, previous.refresh_token, !!this.#options.dpop)
        return await this.store.saveTokens(serverUrl, tokens)
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error // network failures surface; a refused refresh starts over
      }
    }
    const params = await this.grant({ issuer, metadata, resource, scope, signal })
    params.resource ??= resource
    if (scope !== undefined) params.scope ??= scope
    const response = await this.#token(metadata, auth, params, signal)
    await this.store.saveTokens(serverUrl, storedTokensOf(issuer, response, scope, undefined, !!this.#options.dpop))
  }

  #token(metadata: Metadata, auth: TokenEndpointAuth, params: Record<string, string>, signal?: AbortSignal) {
    const proofs = this.#options.dpop
    const dpop = proofs && { proofs, store: this.store }
    return requestToken({
      tokenEndpoint: metadata.token_endpoint as string,
      auth,
      params,
      fetch: this.fetch,
      signal,
      dpop,
    })
  }

  /**
   * The client authentication at the authorization server `issuer` (its `metadata` says which methods it
   * takes); `none` without credentials. A `private_key_jwt` assertion's `aud` is the issuer (RFC 7523 §3
   * as updated by draft-ietf-oauth-rfc7523bis), or the token endpoint when `assertionAudience` says so.
   */
  protected clientAuth(metadata: Metadata, issuer: string): TokenEndpointAuth {
    const credentials = this.#credentials
    if (!credentials) return { method: 'none' }
    const audience = credentials.assertionAudience === 'token_endpoint' ? (metadata.token_endpoint as string) : issuer
    return tokenEndpointAuth(credentials, metadata, audience, this.#signer!)
  }

  /**
   * The grant's form parameters (`grant_type` and its own); `resource` and `scope` are added from
   * `context` unless present.
   * @throws OAuthError when the grant cannot be made (e.g. a token exchange before it was refused).
   */
  protected abstract grant(context: GrantContext): Promise<Record<string, string>>
}
