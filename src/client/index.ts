/**
 * `edge-mcp/client`: the `Client` (with its multi-round-trip loop, optional response cache and middleware), `listen`
 * (notification streams), the fetch-based Streamable HTTP transport, the stdio transport (Web Streams of a
 * child process), OAuth, and the errors the client side raises.
 * Protocol types and `McpError` come from `edge-mcp`.
 * @module
 */

// The client and its options
export { Client } from './client.ts'
export { listen } from './listen.ts'
export type {
  CallOptions,
  ClientOptions,
  ElicitationCallback,
  InputContext,
  RootsCallback,
  SamplingCallback,
} from './options.ts'
export type { RoundInfo } from './input-required.ts'
export type {
  ClientAnswerCall,
  ClientCall,
  ClientMiddleware,
  ClientRequestCall,
  ClientRoundCall,
} from './middleware.ts'
export type { EraStore, EraVerdict } from './era.ts'
export { InMemoryCacheStore, type CacheEntry, type ResponseCacheStore } from './cache.ts'

// Transports: Streamable HTTP over fetch, and stdio (a server launched as a child process, its streams as Web Streams)
export type { ClientTransport, OutboundMessage, SendOptions, SessionBinding, StreamOptions } from './transport.ts'
export { StreamableHttpClientTransport } from './http/transport.ts'
export { StdioClientTransport } from './stdio.ts'

// OAuth 2.1 for MCP servers that answer 401 (discovery, PKCE, refresh; Web APIs only)
export type { ClientAuthProvider } from './oauth/auth-provider.ts'
export { OAuthClientProvider } from './oauth/provider.ts'
// ... and without a user: client credentials (RFC 6749 §4.4), JWT bearer (RFC 7523, workload identity), SEP-990
export { ClientCredentialsProvider } from './oauth/client-credentials.ts'
export { JwtBearerProvider } from './oauth/jwt-bearer.ts'
export { EnterpriseManagedAuthProvider } from './oauth/enterprise.ts'
export { dpopProofs } from './oauth/dpop.ts'
export { InMemoryOAuthStore, type OAuthClientInformation, type OAuthStore, type StoredTokens } from './oauth/store.ts'

// Errors the client side raises itself (an error the server answered with is an McpError)
export {
  ConnectionClosedError,
  HttpError,
  InputRequiredRoundsExceededError,
  InvalidInputResponseError,
  InvalidResultError,
  MissingInputHandlerError,
  NetworkError,
  OAuthError,
  RequestTimeoutError,
  SubscriptionDroppedError,
  TaskEndedError,
} from './errors.ts'
