/**
 * `Client.listen` over a 2025-era session, which has no `subscriptions/listen`: the filter is honoured
 * from the `initialize` capabilities (the same rule as a 2026 server's acknowledgement), each
 * `resourceSubscriptions` URI is `resources/subscribe`d (and `resources/unsubscribe`d when the
 * subscription ends), and the notifications the session receives outside any request's answer (its GET
 * stream, spec 2025-11-25: basic/transports.mdx "Listening for Messages from the Server") are delivered
 * when the filter asked for them. It is shaped as a {@link ClientTransport} answering the one listen
 * request, so the subscription machinery (callbacks, iterator, `ended`) is the 2026 one unchanged.
 * @module
 */
import { META } from '../protocol/constants.ts'
import { honouredFilter } from '../protocol/subscription-filter.ts'
import type {
  JSONRPCNotification,
  JSONRPCRequest,
  RequestId,
  ServerCapabilities,
  SubscriptionFilter,
} from '../protocol/schemas/index.ts'
import type { LegacyConnection } from './legacy.ts'
import type { ClientTransport, OutboundMessage, SendOptions } from './transport.ts'

/** What the listen adapter needs of the 2025-era session. */
export interface LegacyListenSession {
  /** The server's capabilities, from `initialize` (initializing first when needed). */
  capabilities(signal?: AbortSignal): Promise<ServerCapabilities>
  /** The session's id now (undefined without a session): an unsubscribe goes only to the session that subscribed. */
  sessionId(): string | undefined
  /** Send a request in the session (`resources/subscribe`, `resources/unsubscribe`). */
  request(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<unknown>
  /**
   * Receive every notification the session gets outside a request's answer, until the returned function
   * is called; `dropped` is called (once) when that channel is lost for good (the session ended, the GET
   * stream broke and could not be resumed).
   */
  notifications(listener: (notification: JSONRPCNotification) => void, dropped: (error: unknown) => void): () => void
}

/**
 * What `listen` needs of a client's 2025-era session: the server's capabilities — nothing when it offers no
 * standalone stream to send on (the stream is opened again first when it ended) — its requests, and the
 * notifications of the standalone stream until it is lost.
 */
export function listenSessionOf(connection: LegacyConnection): LegacyListenSession {
  return {
    capabilities: async (signal) => {
      const server = await connection.start(signal)
      return (await connection.reopenStream()) ? server.capabilities : {}
    },
    request: (method, params, signal) => connection.inSession(method, params, signal ? { signal } : {}, ''),
    sessionId: () => connection.sessionId,
    notifications: (listener, dropped) => {
      const remove = connection.onStreamNotification(listener)
      const forget = connection.onDropped((error) => (remove(), dropped(error)))
      return () => (remove(), forget())
    },
  }
}

/**
 * A transport whose `send` of a `subscriptions/listen` request opens a subscription over `session`: it
 * delivers the acknowledgement (the honoured filter), then the matching notifications tagged with the
 * request id as `_meta` subscriptionId, and settles only when the signal aborts (rejecting with its
 * reason) or the session's channel drops (rejecting with that error).
 */
export function legacyListenTransport(session: LegacyListenSession): ClientTransport {
  return { send: (message, options) => listen(session, message, options ?? {}) }
}

async function listen(session: LegacyListenSession, message: OutboundMessage, options: SendOptions): Promise<never> {
  const { signal, onNotification } = options
  const request = message as JSONRPCRequest
  const requested = ((request.params ?? {}) as { notifications?: SubscriptionFilter }).notifications ?? {}
  const filter = honouredFilter(requested, await session.capabilities(signal))
  const uris = filter.resourceSubscriptions ?? []
  const subscribed: string[] = []
  let subscribedIn: string | undefined
  const unsubscribe = () => {
    // best effort, after the subscription ended: a failure changes nothing for the caller; a session that
    // ended (or was replaced) holds no subscription, and a request now would start a new one for nothing
    if (subscribedIn === undefined || session.sessionId() !== subscribedIn) return
    for (const uri of subscribed) session.request('resources/unsubscribe', { uri }).catch(() => {})
  }
  try {
    for (const uri of uris) {
      await session.request('resources/subscribe', { uri }, signal)
      subscribed.push(uri)
      subscribedIn = session.sessionId()
    }
  } catch (error) {
    unsubscribe()
    throw error
  }
  const matches = matcher(filter)
  const tag = (n: JSONRPCNotification) => tagged(n, request.id)
  return new Promise<never>((_, reject) => {
    const end = (error: unknown) => {
      stop()
      signal?.removeEventListener('abort', onAbort)
      unsubscribe()
      reject(error) // eslint-disable-line @typescript-eslint/prefer-promise-reject-errors -- the abort reason or the drop error, as given
    }
    const onAbort = () => end(signal!.reason)
    const stop = session.notifications((n) => {
      if (matches(n)) onNotification?.(tag(n))
    }, end)
    onNotification?.(
      tag({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: filter } }),
    )
    if (signal?.aborted) onAbort()
    else signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** Whether a notification is one the honoured filter asked for (`resources/updated`: a subscribed URI or one below it). */
function matcher(filter: SubscriptionFilter): (n: JSONRPCNotification) => boolean {
  const uris = new Set(filter.resourceSubscriptions ?? [])
  return (n) => {
    switch (n.method) {
      case 'notifications/tools/list_changed':
        return filter.toolsListChanged === true
      case 'notifications/prompts/list_changed':
        return filter.promptsListChanged === true
      case 'notifications/resources/list_changed':
        return filter.resourcesListChanged === true
      case 'notifications/resources/updated': {
        const uri = (n.params as { uri?: unknown } | undefined)?.uri
        return (
          typeof uri === 'string' && (uris.has(uri) || [...uris].some((u) => uri.startsWith(u.replace(/\/?$/, '/'))))
        )
      }
      default:
        return false
    }
  }
}

/** `n` with the subscription's id in `_meta`, as a 2026 listen stream carries it. */
function tagged(n: JSONRPCNotification, id: RequestId): JSONRPCNotification {
  const params = n.params ?? {}
  return { ...n, params: { ...params, _meta: { ...(params._meta as object | undefined), [META.subscriptionId]: id } } }
}
