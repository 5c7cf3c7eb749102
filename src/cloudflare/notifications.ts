/**
 * The notification bus on Cloudflare Workers: a Durable Object that every isolate publishes server
 * events to and that holds one streaming connection per open `subscriptions/listen` stream, whichever
 * isolate holds it (spec: basic/patterns/subscriptions.mdx). One object per namespace (addressed by a
 * fixed name); it stores nothing, and an event published while a stream is not connected is not kept.
 *
 * Each subscription owns its connection: a `POST /listen` to the object made in the listen request's own
 * context (workerd lets no request use another request's streams), answered with a body that stays open
 * and carries one event per line (NDJSON). `publish` is a `POST /publish` from the publishing request; the
 * object writes the event to every open connection, its publisher's included.
 * @module
 */
import { busEventToPublish, MAX_BUS_EVENT_BYTES, parseBusEvent, parseBusEventText } from '../server/bus-events.ts'
import type { NotificationBus, ServerEvent } from '../server/notifications.ts'
import { UpstreamError, messageOf } from '../server/errors.ts'

/**
 * The binding name the README and the demo use.
 * @internal not in the public API: the `binding` default
 */
export const DEFAULT_NOTIFICATIONS_BINDING = 'MCP_NOTIFICATIONS'

/** The limit and the check of events on the wire, shared with the Redis bus. */
export { MAX_BUS_EVENT_BYTES, parseBusEvent }

/**
 * Events a connection may fall behind by before the object cuts it (its listen stream then ends with an
 * error, see {@link durableObjectNotificationBus}): a reader this far behind is stuck, and the object's
 * memory stays bounded.
 * @internal not in the public API: a limit of the Durable Object bus
 */
export const MAX_BUS_BACKLOG = 1000

/** What the bus needs of a Durable Object namespace binding (`DurableObjectNamespace` fits). */
export interface NotificationNamespace {
  idFromName(name: string): unknown
  get(id: never): { fetch(input: string, init?: RequestInit): Promise<Response> }
}

/** The internal HTTP exchange with the object (never exposed to clients). */
const ORIGIN = 'https://notifications.edge-mcp.internal'
/** The one object of a namespace. */
const OBJECT_NAME = 'edge-mcp/notifications'
const encoder = new TextEncoder()

/** One line of the wire: the event's JSON and a newline, or undefined when it is too big. */
function encodeLine(event: ServerEvent): Uint8Array | undefined {
  const bytes = encoder.encode(JSON.stringify(event) + '\n')
  return bytes.byteLength <= MAX_BUS_EVENT_BYTES + 1 ? bytes : undefined
}

/**
 * The Durable Object class of the notification bus. Export it from your Worker's main module and bind it:
 *
 * ```toml
 * [[durable_objects.bindings]]
 * name = "MCP_NOTIFICATIONS"
 * class_name = "McpNotificationBus"
 *
 * [[migrations]]
 * tag = "v2" # the next tag of your migrations
 * new_sqlite_classes = ["McpNotificationBus"]
 * ```
 *
 * It answers `POST /listen` with 200 and a body that stays open, one event (JSON) per line, until the
 * caller goes away or falls {@link MAX_BUS_BACKLOG} events behind; and `POST /publish` (one event, at most
 * {@link MAX_BUS_EVENT_BYTES} bytes) with 202 once the event is queued on every open connection, 400 for
 * anything that is not an event, 413 for one too big; `GET /connections` with `{ connections }` (how many
 * are open). Nothing is stored.
 */
export class McpNotificationBus {
  readonly #connections = new Set<ReadableStreamDefaultController<Uint8Array>>()

  /** How many listen connections are open. */
  get connectionCount(): number {
    return this.#connections.size
  }

  async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname
    if (path === '/connections' && request.method === 'GET') return Response.json({ connections: this.connectionCount })
    if (request.method !== 'POST') return new Response('method not allowed', { status: 405 })
    if (path === '/listen') return this.#listen(request)
    if (path !== '/publish') return new Response('not found', { status: 404 })
    if (Number(request.headers.get('content-length') ?? 0) > MAX_BUS_EVENT_BYTES) {
      return new Response('event too big', { status: 413 })
    }
    const text = await request.text()
    if (encoder.encode(text).byteLength > MAX_BUS_EVENT_BYTES) return new Response('event too big', { status: 413 })
    const event = parseBusEventText(text)
    if (!event) return new Response('not a server event', { status: 400 })
    const line = encodeLine(event)!
    for (const connection of [...this.#connections]) {
      try {
        if ((connection.desiredSize ?? 0) > 0) {
          connection.enqueue(line)
          continue
        }
        connection.error(new UpstreamError(`the listener fell ${MAX_BUS_BACKLOG} events behind`))
      } catch {
        // a stream that already ended: the others still get the event
      }
      this.#connections.delete(connection)
    }
    return new Response(null, { status: 202 })
  }

  #listen(request: Request): Response {
    let connection!: ReadableStreamDefaultController<Uint8Array>
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          connection = controller
        },
        cancel: () => {
          this.#connections.delete(connection)
        },
      },
      { highWaterMark: MAX_BUS_BACKLOG },
    )
    this.#connections.add(connection)
    request.signal?.addEventListener('abort', () => this.#connections.delete(connection), { once: true })
    return new Response(body, { headers: { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' } })
  }
}

/**
 * A notification bus on the Durable Object namespace `env[binding]` (of {@link McpNotificationBus}), for
 * the server option `notificationBus`: every isolate that publishes and every listen stream, on any
 * isolate, meet in one object.
 *
 * - `publish(event)` posts it to the object; it rejects with a `TypeError` for a value that is not a
 *   `ServerEvent`, and with an `UpstreamError` (`ERR_UPSTREAM`) when the object refuses it (the server logs either). A
 *   `resourceUpdated` of a URI longer than 4096 characters, in its given and in its normal form, is dropped
 *   (no stream can subscribe to it).
 * - `subscribe(listener, dropped)` resolves once the object holds the connection (so the listen request
 *   is acknowledged only then) and calls `listener` for each event, in the order the object got them.
 *   When the connection ends without an unsubscribe (the object restarted, the isolate fell
 *   {@link MAX_BUS_BACKLOG} events behind, a network error) it calls `dropped`: the listen stream ends with
 *   a `-32603` error, since events may have been missed, and the client listens again. Unsubscribing
 *   closes the connection.
 *
 * A missing binding fails each `publish` and `subscribe` (the listen request then gets `-32603`) with an
 * error naming the binding and how to add it.
 * @param env - the Worker's `env` (its bindings).
 * @param binding - the binding's name in `env` (default `"MCP_NOTIFICATIONS"`).
 * @example new McpServer(info, { notificationBus: durableObjectNotificationBus(env) })
 */
export function durableObjectNotificationBus(
  env: object | undefined,
  binding: string = DEFAULT_NOTIFICATIONS_BINDING,
): NotificationBus {
  const stub = () => {
    const namespace = (env as Record<string, unknown> | undefined)?.[binding] as NotificationNamespace | undefined
    if (typeof namespace?.idFromName !== 'function' || typeof namespace.get !== 'function') {
      throw new Error(
        `env.${binding} is not bound to a Durable Object namespace: bind it in wrangler.toml ` +
          `([[durable_objects.bindings]] name = "${binding}", class_name = "McpNotificationBus", with a migration) ` +
          `and export { McpNotificationBus } from 'edge-mcp/cloudflare' in the Worker`,
      )
    }
    const object = namespace.get(namespace.idFromName(OBJECT_NAME) as never)
    return {
      fetch: (input: string, init?: RequestInit) =>
        object.fetch(input, init).catch((cause: unknown) => {
          if (init?.signal?.aborted) throw cause // our own unsubscribe
          throw new UpstreamError(`the notification bus could not be reached: ${messageOf(cause)}`, { cause })
        }),
    }
  }
  return {
    async publish(value) {
      const event = busEventToPublish(value)
      if (!event) return // a URI too long to match any stream
      const res = await stub().fetch(ORIGIN + '/publish', {
        method: 'POST',
        body: JSON.stringify(event),
        headers: { 'content-type': 'application/json' },
      })
      await res.body?.cancel()
      if (res.status !== 202) throw new UpstreamError(`the notification bus answered ${res.status} to a publish`)
    },
    async subscribe(listener, dropped) {
      const abort = new AbortController()
      const res = await stub().fetch(ORIGIN + '/listen', { method: 'POST', signal: abort.signal })
      if (res.status !== 200 || !res.body) {
        await res.body?.cancel()
        throw new UpstreamError(`the notification bus answered ${res.status} to a listen`)
      }
      const reader = res.body.getReader()
      let open = true
      const lost = (error: unknown) => {
        if (!open) return
        open = false
        dropped?.(error)
      }
      void readLines(reader, listener).then(
        () => lost(new UpstreamError('the notification bus closed the connection')),
        (cause: unknown) =>
          lost(
            cause instanceof UpstreamError
              ? cause
              : new UpstreamError(`the notification bus connection failed: ${messageOf(cause)}`, { cause }),
          ),
      )
      return async () => {
        if (!open) return
        open = false
        abort.abort()
        await reader.cancel().catch(() => {})
      }
    },
  }
}

/**
 * Read NDJSON events until the body ends, handing each valid one to `listener` (one that throws does not
 * stop the others). A line that is not an event is skipped.
 * @throws Error when a line grows past {@link MAX_BUS_EVENT_BYTES} characters (the stream is not ours).
 */
async function readLines(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  listener: (event: ServerEvent) => void,
): Promise<void> {
  const decoder = new TextDecoder()
  let pending = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return
    pending += decoder.decode(value, { stream: true })
    let newline: number
    while ((newline = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, newline)
      pending = pending.slice(newline + 1)
      const event = parseBusEventText(line)
      if (!event) continue
      try {
        listener(event)
      } catch {
        // the listener's own failure (a stream that just closed); the others still get theirs
      }
    }
    if (pending.length > MAX_BUS_EVENT_BYTES) {
      await reader.cancel().catch(() => {})
      throw new UpstreamError(`the notification bus sent a line longer than ${MAX_BUS_EVENT_BYTES} characters`)
    }
  }
}
