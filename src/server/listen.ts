/**
 * `subscriptions/listen` (spec: basic/patterns/subscriptions.mdx): one long-lived request whose
 * notifications carry the server events the client asked for.
 * @module
 */
import { META, TASKS_EXTENSION } from '../protocol/constants.ts'
import { ErrorCode, McpError, missingCapabilityError } from '../protocol/errors.ts'
import type { JSONRPCNotification, ServerCapabilities, SubscriptionFilter } from '../protocol/schemas/index.ts'
import type { Channel, Logger, RequestContext, RequestParams, ResultObject } from './context.ts'
import { honouredFilter } from '../protocol/subscription-filter.ts'
import { notificationMatcher, parseListenFilter, type NotificationBus, type Unsubscribe } from './notifications.ts'
import { UpstreamError } from './errors.ts'
import { logError } from './log.ts'
import { MAX_TIMER_MS } from './runtime.ts'

/** What a listen stream needs from its server. */
export interface ListenDeps {
  /** The server's capabilities: the filter is cut to what they honour. */
  capabilities: ServerCapabilities
  /** `ServerOptions.authorizeSubscription`. */
  authorize: ((uri: string, ctx: RequestContext) => boolean | Promise<boolean>) | undefined
  bus: NotificationBus
  /** The ends of the streams open on this instance (`Server.closeSubscriptions` calls them). */
  listens: Set<() => void>
  logger: Logger
}

/**
 * Serve one `subscriptions/listen`: subscribe to the bus, send the acknowledgement (the honoured subset
 * of the filter), then every matching event, each tagged with the request id as `_meta` subscriptionId,
 * until the client goes away (`signal`), or `Server.closeSubscriptions` or the expiry of the caller's
 * token (`authInfo.expiresAt`) ends it with a result. Progress
 * and log messages never go here.
 * @throws McpError -32602 for a bad filter; -32600 (HTTP 406) when the transport cannot stream; -32603
 *   when the bus dropped the subscription (`subscribe`'s `dropped`), before or after the acknowledgement;
 *   -32603 (HTTP 503) saying to listen again when the bus could not be reached (its `UpstreamError`).
 */
export async function serveListen(
  params: RequestParams,
  ctx: RequestContext,
  notify: Channel['notify'],
  deps: ListenDeps,
): Promise<ResultObject> {
  const filter = honouredFilter(parseListenFilter(params), deps.capabilities)
  // ext-tasks: task status notifications need the extension declared on the request; none are sent (none agreed)
  if (
    (params.notifications as { taskIds?: unknown }).taskIds !== undefined &&
    deps.capabilities.extensions?.[TASKS_EXTENSION]
  ) {
    if (!(ctx.clientCapabilities.extensions as Record<string, unknown> | undefined)?.[TASKS_EXTENSION])
      throw missingCapabilityError({ extensions: { [TASKS_EXTENSION]: {} } })
    ;(filter as { taskIds?: string[] }).taskIds = []
  }
  if (deps.authorize && filter.resourceSubscriptions) {
    filter.resourceSubscriptions = await authorizedUris(filter.resourceSubscriptions, deps.authorize, ctx, deps.logger)
  }
  if (!notify) {
    throw new McpError(
      ErrorCode.InvalidRequest,
      'Not Acceptable: subscriptions/listen answers with an SSE stream; Accept must include text/event-stream',
      undefined,
      406,
    )
  }
  const match = notificationMatcher(filter, ctx.requestId)
  let early: JSONRPCNotification[] | undefined = [] // events between subscribing and the acknowledgement
  let lost: { error: unknown } | undefined // the bus dropped the subscription (a shared bus's connection)
  let end: (() => void) | undefined
  let unsubscribe: Unsubscribe
  try {
    unsubscribe = await deps.bus.subscribe(
      (event) => {
        const notification = lost ? undefined : match(event)
        if (!notification) return
        if (early) early.push(notification)
        else notify(notification)
      },
      (error) => {
        lost ??= { error }
        end?.()
      },
    )
  } catch (error) {
    unreachableBus(error, deps.logger)
  }
  try {
    if (!ctx.signal.aborted && !lost) {
      notify(acknowledgement(filter, ctx))
      for (const n of early) notify(n)
      early = undefined
      // until the client goes away, closeSubscriptions ends the stream or the bus drops it (inline: no
      // extra tick before unsubscribing)
      const ended = new Promise<void>((resolve) => (end = resolve))
      ctx.signal.addEventListener('abort', end!, { once: true })
      deps.listens.add(end!)
      // the token's lifetime bounds the stream: past `exp` (or a revocation) it must not keep hearing events;
      // the client listens again with a fresh token
      const expiry = expiryTimer(ctx, end!)
      try {
        await ended
      } finally {
        if (expiry !== undefined) clearTimeout(expiry)
        ctx.signal.removeEventListener('abort', end!)
        deps.listens.delete(end!)
      }
    }
  } finally {
    try {
      await unsubscribe()
    } catch (error) {
      const message = 'unsubscribing a listen stream from the notification bus failed'
      logError(deps.logger, 'listen.unsubscribeFailed', message, error)
    }
  }
  if (lost && !ctx.signal.aborted) {
    logError(deps.logger, 'listen.dropped', 'the notification bus dropped a listen stream', lost.error)
    throw new McpError(
      ErrorCode.InternalError,
      'The notification bus dropped this subscription; notifications may have been missed: listen again',
    )
  }
  // the graceful-closure result; after a disconnect nobody reads it
  return { _meta: { [META.subscriptionId]: ctx.requestId } }
}

/**
 * A bus's own failure to subscribe (`UpstreamError`: Redis, a Durable Object) becomes -32603 with HTTP
 * status 503 saying to listen again (logged; its cause is not sent); anything else is thrown as it is.
 */
function unreachableBus(error: unknown, logger: Logger): never {
  if (!(error instanceof UpstreamError)) throw error
  logError(logger, 'listen.subscribeFailed', `a listen stream could not subscribe: ${error.message}`, error)
  throw new McpError(ErrorCode.InternalError, 'The notification bus could not be reached: listen again', undefined, 503)
}

/** A timer calling `end` when the caller's token expires (`authInfo.expiresAt`, seconds), if it has one. */
function expiryTimer(ctx: RequestContext, end: () => void): ReturnType<typeof setTimeout> | undefined {
  const expiresAt = ctx.authInfo?.expiresAt
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) return undefined
  const delay = expiresAt * 1000 - Date.now()
  if (delay > MAX_TIMER_MS) return undefined
  return setTimeout(end, Math.max(delay, 0))
}

/** The URIs `authorize` allows, in order; one it refuses or throws for (logged) is left out. */
async function authorizedUris(
  uris: string[],
  authorize: NonNullable<ListenDeps['authorize']>,
  ctx: RequestContext,
  logger: Logger,
): Promise<string[]> {
  const allowed = await Promise.all(
    uris.map(async (uri) => {
      try {
        return (await authorize(uri, ctx)) === true
      } catch (error) {
        logError(logger, 'listen.authorizeFailed', 'authorizeSubscription failed; the URI is left out', error)
        return false
      }
    }),
  )
  return uris.filter((_, i) => allowed[i])
}

/** `notifications/subscriptions/acknowledged`: the honoured filter, tagged with the subscription id. */
function acknowledgement(filter: SubscriptionFilter, ctx: RequestContext): JSONRPCNotification {
  return {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { _meta: { [META.subscriptionId]: ctx.requestId }, notifications: filter },
  }
}
