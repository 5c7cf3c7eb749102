/**
 * The notification bus behind `subscriptions/listen` (spec: basic/patterns/subscriptions.mdx): server
 * events go in with `publish`, every open listen stream takes them out with `subscribe` and forwards
 * the kinds its client asked for. The default bus is in memory (one isolate); plug your own to fan out
 * across instances.
 *
 * **Many instances.** A Worker deployment runs many isolates, and a listen stream is held by one of
 * them, so an event published on another isolate must reach it. On Workers, pass
 * `durableObjectNotificationBus(env)` of `edge-mcp/cloudflare` (a Durable Object); elsewhere implement
 * {@link NotificationBus} over a fan-out you already run — a queue, Redis pub/sub, a `BroadcastChannel`
 * (Deno Deploy, browsers) — and pass it as `notificationBus` to every instance. `publish` sends the event (plain JSON) to the others *and* to local listeners;
 * `subscribe` may resolve only once the subscription is live, because the server acknowledges a
 * listen request only after it resolves (so nothing published after the acknowledgement is missed).
 * Both may be async; failures are logged by the server, never thrown at the caller.
 * @module
 */
import { META } from '../protocol/constants.ts'
import { ErrorCode, McpError } from '../protocol/errors.ts'
import { parse } from '../protocol/check.ts'
import { SubscriptionFilter as checkFilter } from '../protocol/checks.gen.ts'
import { isPlainObject } from '../protocol/jsonrpc.ts'
import { normalizeUri } from '../protocol/uri-literal.ts'
import type { JSONRPCNotification, RequestId, SubscriptionFilter } from '../protocol/schemas/index.ts'

/**
 * One server event, plain JSON so that any bus can carry it: a list changed, or a resource was updated
 * (`uri`: an absolute URI). Each maps to one notification kind of the listen filter.
 */
export type ServerEvent =
  | { kind: 'toolsListChanged' }
  | { kind: 'promptsListChanged' }
  | { kind: 'resourcesListChanged' }
  | { kind: 'resourceUpdated'; uri: string }

/** Receives every event published on a bus. */
export type ServerEventListener = (event: ServerEvent) => void
/** Ends a subscription to a bus. */
export type Unsubscribe = () => void | Promise<void>

/** Where server events meet listen streams. Async-friendly: either method may return a promise. */
export interface NotificationBus {
  /** Deliver `event` to every subscriber (on every instance, for a shared bus). */
  publish(event: ServerEvent): void | Promise<void>
  /**
   * Call `listener` for every event from now on, until the returned function is called. A bus that can
   * lose a subscription on its own (a dropped connection) calls `dropped` once when it does: the listen
   * stream then ends with a `-32603` error response, since events may have been missed, and the client
   * listens again. After `dropped`, `listener` is not called again; unsubscribing is still allowed.
   */
  subscribe(listener: ServerEventListener, dropped?: (error: unknown) => void): Unsubscribe | Promise<Unsubscribe>
}

/**
 * The default bus: synchronous fan-out to the listeners of this isolate. Every listener runs even when
 * one throws; `publish` then throws the first error.
 */
export class InMemoryNotificationBus implements NotificationBus {
  readonly #listeners = new Set<{ listener: ServerEventListener }>()

  /** How many subscriptions are open (one per live listen stream). */
  get listenerCount(): number {
    return this.#listeners.size
  }

  publish(event: ServerEvent): void {
    let failure: { error: unknown } | undefined
    for (const entry of [...this.#listeners]) {
      try {
        entry.listener(event)
      } catch (error) {
        failure ??= { error }
      }
    }
    if (failure) throw failure.error
  }

  subscribe(listener: ServerEventListener): Unsubscribe {
    const entry = { listener } // one entry per call: the same function may subscribe twice
    this.#listeners.add(entry)
    return () => {
      this.#listeners.delete(entry)
    }
  }
}

/** True for an absolute URI (a scheme, then `:`), as `ResourceUpdatedNotification.uri` requires. */
export function isAbsoluteUri(uri: unknown): uri is string {
  return typeof uri === 'string' && /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/.test(uri)
}

/**
 * The filter of a `subscriptions/listen` request.
 * @throws McpError -32602 naming the field, e.g. `field 'notifications.resourceSubscriptions.0'`; also for more than
 *   {@link MAX_RESOURCE_SUBSCRIPTIONS} URIs or one longer than {@link MAX_SUBSCRIBED_URI_LENGTH} characters.
 */
export function parseListenFilter(params: Record<string, unknown>): SubscriptionFilter {
  if (!isPlainObject(params.notifications)) {
    throw new McpError(
      ErrorCode.InvalidParams,
      "Invalid params: field 'notifications' must be an object (a SubscriptionFilter)",
    )
  }
  const [issue, filter] = parse(checkFilter(), params.notifications)
  if (issue !== undefined) {
    // the filter's issue told from the params: "field 'notifications.x': …"
    const why = issue.startsWith("field '")
      ? `field 'notifications.${issue.slice(7)}`
      : `field 'notifications': ${issue}`
    throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${why}`)
  }
  const uris = filter.resourceSubscriptions ?? []
  if (uris.length > MAX_RESOURCE_SUBSCRIPTIONS) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid params: field 'notifications.resourceSubscriptions' has ${uris.length} URIs; at most ${MAX_RESOURCE_SUBSCRIPTIONS} per stream`,
    )
  }
  const long = uris.findIndex((uri) => uri.length > MAX_SUBSCRIBED_URI_LENGTH)
  if (long !== -1) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid params: field 'notifications.resourceSubscriptions.${long}' is longer than ${MAX_SUBSCRIBED_URI_LENGTH} characters`,
    )
  }
  return filter
}

/** Most URIs one listen stream may subscribe to (each stream holds its set in memory). */
export const MAX_RESOURCE_SUBSCRIPTIONS = 1000
/** Longest URI a listen stream may subscribe to, in characters. */
export const MAX_SUBSCRIBED_URI_LENGTH = 4096

const LIST_CHANGED: Readonly<Record<Exclude<ServerEvent['kind'], 'resourceUpdated'>, string>> = {
  toolsListChanged: 'notifications/tools/list_changed',
  promptsListChanged: 'notifications/prompts/list_changed',
  resourcesListChanged: 'notifications/resources/list_changed',
}

/**
 * A matcher for one listen stream: the notification an event becomes on it (tagged with
 * `_meta["io.modelcontextprotocol/subscriptionId"]`), or undefined when the filter did not ask for it. A
 * resource update matches a subscribed URI in any percent-encoding-equivalent form (`normalizeUri`) and is
 * sent under the URI as the client subscribed to it.
 */
export function notificationMatcher(
  filter: SubscriptionFilter,
  subscriptionId: RequestId,
): (event: ServerEvent) => JSONRPCNotification | undefined {
  // by normal form (RFC 3986 6.2.2 percent-encoding), to the form the client subscribed with
  const uris = new Map((filter.resourceSubscriptions ?? []).map((uri) => [normalizeUri(uri), uri]))
  const meta = { [META.subscriptionId]: subscriptionId }
  return (event) => {
    if (event.kind === 'resourceUpdated') {
      const uri = uris.get(normalizeUri(event.uri))
      return uri !== undefined
        ? { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { _meta: meta, uri } }
        : undefined
    }
    return filter[event.kind] === true
      ? { jsonrpc: '2.0', method: LIST_CHANGED[event.kind], params: { _meta: meta } }
      : undefined
  }
}
