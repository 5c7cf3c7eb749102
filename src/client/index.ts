/**
 * `edge-mcp/client`: the `Client`, its fetch-based Streamable HTTP transport, and client-side errors.
 * @module
 */
export * from './client.ts'
export * from './options.ts'
export { MemoryCacheStore, type CacheEntry, type ResponseCacheOptions, type ResponseCacheStore } from './cache.ts'
export * from './errors.ts'
export * from './input-required.ts'
export * from '../transport/oauth.ts'
export * from '../transport/oauth-storage.ts'
export {
  authorizationServerMetadataUrls,
  bearerParams,
  parseWwwAuthenticate,
  protectedResourceMetadataUrls,
  resourceMatches,
  type Challenge,
} from '../transport/oauth-discovery.ts'
export * from '../transport/http-client.ts'
export * from '../protocol/index.ts'
export type { ListenOptions, Subscription, SubscriptionEnd } from './listen.ts'
