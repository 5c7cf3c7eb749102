/**
 * The options of the low-level {@link Server} (and of `McpServer`, which adds its own).
 * @module
 */
import type { ImpliedScopes } from '../protocol/auth.ts'
import type { ServerCapabilities } from '../protocol/schemas/index.ts'
import type { CacheOptions } from './cache.ts'
import type { Logger, RequestContext } from './context.ts'
import type { LegacyQuestionOptions } from './legacy-questions.ts'
import type { LegacyMode } from './legacy.ts'
import type { NotificationBus } from './notifications.ts'

/** Options of `Server`. */
export interface ServerOptions {
  /** Capabilities to advertise in `server/discover` (merged with those implied by registered handlers). */
  capabilities?: ServerCapabilities
  /** Instructions for the model, returned by `server/discover`. */
  instructions?: string
  /** Protocol versions served. Default `["2026-07-28"]`. */
  supportedVersions?: readonly string[]
  /**
   * Cache hints for `server/discover`, the list methods and `resources/read` (spec:
   * server/utilities/caching.mdx): a server default, and per-method overrides under `methods`. A field a
   * result already carries wins. Default `{ ttlMs: 0, cacheScope: 'private' }`.
   * @example { ttlMs: 60_000, cacheScope: 'public', methods: { 'resources/list': { cacheScope: 'private' } } }
   */
  cache?: CacheOptions
  /** Where diagnostics go. Default: the console. */
  logger?: Logger
  /**
   * Carries server events to `subscriptions/listen` streams. Default: a new `InMemoryNotificationBus`
   * (this isolate only); share one across instances to fan out (see `notifications.ts`; on Workers,
   * `durableObjectNotificationBus` of `edge-mcp/cloudflare`).
   */
  notificationBus?: NotificationBus
  /**
   * Which resource URIs this listen request may subscribe to (`resourceSubscriptions`), e.g. by the
   * caller's `ctx.authInfo`. A URI it refuses (or throws for) is left out of the acknowledgement, which
   * the spec defines as the honoured subset; nothing is sent for it. Default: every URI. Without it,
   * anyone may learn when any resource changes: set it when resources are per user.
   * @example authorizeSubscription: (uri, ctx) => uri.startsWith(`users://${ctx.authInfo?.clientId}/`)
   */
  authorizeSubscription?: (uri: string, ctx: RequestContext) => boolean | Promise<boolean>
  /**
   * Scope hierarchies: a granted scope → the narrower scopes it implies (followed transitively), for the
   * registration `scopes` of tools, prompts and resources and the fetch handler's `oauth.requiredScopes`
   * (spec: basic/authorization "Servers MUST account for scope hierarchies").
   * @example impliedScopes: { 'books:admin': ['books:order', 'books:read'] }
   */
  impliedScopes?: ImpliedScopes
  /**
   * 2025-era clients (no `_meta` envelope; `initialize` first): `'serve'` answers them from the same
   * handlers (`initialize` negotiates 2025-11-25, 2025-06-18 or 2025-03-26; questions are asked in a
   * session, see `legacyQuestions`); `'reject'` answers their `initialize` with -32022 and any other
   * request with -32602 (HTTP 400). Default `'serve'`.
   *
   * Sessions without storage: when request-state sealing is on (`useRequestStateSecurity` with keys;
   * `McpServer` turns it on by default), `initialize` answers with a sealed `Mcp-Session-Id` ("s1." token:
   * the negotiated version, the client's capabilities and info, its principal; valid the policy's
   * `sessionTtlSeconds`, default 14 days). A request carrying it gets them back (`ctx.clientCapabilities`); an id
   * that does not open (forged, expired, another principal's) gets HTTP 404, a version header other than the
   * session's HTTP 400. A request without one is served statelessly (it declared no capabilities, so a
   * question gets -32021). With sealing off no id is issued and any received is ignored; 2026 requests
   * ignore it always.
   */
  legacy?: LegacyMode
  /**
   * Questions for 2025-era clients in a session: an `InputRequiredResult` (or a resolver's `elicit`,
   * `sample`, `listRoots`) is asked as a server-to-client request on the POST's SSE stream and the
   * handler runs again with the answer (see `legacy-questions.ts`). Bounded by `maxRounds` (default 8)
   * and `timeoutMs` per question (default 300,000 ms). The `mailbox` carries answers between instances:
   * in memory by default on Node, Deno and Bun; on Workers none unless you bind a Durable Object
   * (`durableObjectMailbox` of `edge-mcp/cloudflare`), and without one a question fails at once.
   */
  legacyQuestions?: LegacyQuestionOptions
}
