/**
 * `edge-mcp/client`: the `Client` (with its multi-round-trip loop and optional response cache), `listen`
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
  ManualCallOptions,
  RootsCallback,
  SamplingCallback,
} from './options.ts'
export type { RoundInfo } from './input-required.ts'
export { ERA_VERDICT_MAX_AGE_MS, type Era, type EraStore, type EraVerdict } from './era.ts'
export type { ListenOptions, Subscription, SubscriptionEnd } from './listen.ts'
export { InMemoryCacheStore, type CacheEntry, type ResponseCacheOptions, type ResponseCacheStore } from './cache.ts'

// Transport: Streamable HTTP over fetch
export type { ClientTransport, SendOptions, StreamOptions } from './transport.ts'
export { StreamableHttpClientTransport, type StreamableHttpClientTransportOptions } from './http/transport.ts'

// Transport: stdio (a server launched as a child process; its streams as Web Streams)
export {
  ConnectionClosedError,
  DEFAULT_PROBE_TIMEOUT_MS,
  StdioClientTransport,
  type StdioClientTransportOptions,
} from './stdio.ts'

// OAuth 2.1 for MCP servers that answer 401 (discovery, PKCE, refresh; Web APIs only)
export { OAuthClientProvider, type OAuthClientProviderOptions } from './oauth/provider.ts'
export {
  InMemoryOAuthStore,
  type OAuthClientInformation,
  type OAuthStore,
  type PreRegisteredClient,
  type StoredTokens,
} from './oauth/store.ts'

// Errors the client side raises itself (an error the server answered with is an McpError)
export {
  HttpError,
  InputRequiredRoundsExceededError,
  InvalidInputResponseError,
  InvalidResultError,
  MissingInputHandlerError,
  NetworkError,
  OAuthError,
  RequestTimeoutError,
  SubscriptionDroppedError,
} from './errors.ts'
