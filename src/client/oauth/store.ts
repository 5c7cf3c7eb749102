/**
 * Where the OAuth client keeps what it obtained: tokens per MCP server, client registrations per
 * authorization server (issuer).
 * @module
 */

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

/** Where tokens and registrations live. {@link InMemoryOAuthStore} is the default; persist them yourself. */
export interface OAuthStore {
  loadTokens(resource: string): Awaitable<StoredTokens | undefined>
  saveTokens(resource: string, tokens: StoredTokens | undefined): Awaitable<void>
  /** Dynamically registered clients, keyed by issuer (spec: client-registration.mdx §Authorization Server Binding). */
  loadClient(issuer: string): Awaitable<OAuthClientInformation | undefined>
  saveClient(issuer: string, client: OAuthClientInformation): Awaitable<void>
  /**
   * Optional: the client's DPoP key pair (RFC 9449; a provider's `dpop` option), so that tokens bound to it
   * stay usable after a restart. Its private key is not extractable: keep the `CryptoKeyPair` object itself
   * (IndexedDB stores it by structured clone; JSON cannot). Without these (the {@link InMemoryOAuthStore}
   * has none), the key lives as long as the `dpopProofs()` object, and a new one means new tokens.
   */
  loadDPoPKeyPair?(): Awaitable<CryptoKeyPair | undefined>
  saveDPoPKeyPair?(keyPair: CryptoKeyPair): Awaitable<void>
}

/** In-memory {@link OAuthStore} (lost with the process). */
export class InMemoryOAuthStore implements OAuthStore {
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
