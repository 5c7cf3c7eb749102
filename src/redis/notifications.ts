/**
 * The notification bus on Redis pub/sub (spec: basic/patterns/subscriptions.mdx): every instance publishes
 * server events on `${prefix}events`, one event (JSON, at most 32 KiB) per message, and each bus holds one
 * Redis subscription to it, shared by the listen streams of its instance. Redis keeps nothing: an event
 * published while a stream is not subscribed is not kept (the client listens again when its stream ends).
 * @module
 */
import { busEventToPublish, MAX_BUS_EVENT_BYTES, parseBusEventText } from '../server/bus-events.ts'
import { UpstreamError } from '../server/errors.ts'
import type { NotificationBus, ServerEventListener } from '../server/notifications.ts'
import type { RedisConnection } from './connection.ts'

/** Options of {@link redisNotificationBus}. */
export interface RedisNotificationBusOptions {
  /** Prefix of the channel, e.g. `'edge-mcp:'`. */
  prefix: string
}

const encoder = new TextEncoder()

/**
 * A {@link NotificationBus} on Redis pub/sub (see the module).
 *
 * - `publish(event)` resolves once Redis took it (PUBLISH; every subscribed instance, this one included,
 *   then hands it to its listeners). It rejects with a `TypeError` for a value that is not a `ServerEvent`,
 *   and with an `UpstreamError` (`ERR_UPSTREAM`) when Redis failed or did not answer in time (the server
 *   logs either). A `resourceUpdated` of a URI longer than 4096 characters, in its given and in its normal
 *   form, is dropped (no stream can subscribe to it).
 * - `subscribe(listener, dropped)` resolves once the bus's Redis subscription is live (so the listen
 *   request is acknowledged only then) and calls `listener` for each event, checked as on the Durable
 *   Object bus (anything else on the channel is skipped; a listener that throws does not stop the others).
 *   When the subscription is lost (Redis stopped or restarted, the connection dropped) every listener's
 *   `dropped` is called once with an `UpstreamError`: its listen stream ends with `-32603` and the client
 *   listens again, which subscribes anew. Rejects with an `UpstreamError` when Redis cannot be reached.
 * @param conn - a guarded connection (its commands bounded in time, failing with `UpstreamError`).
 */
export function redisNotificationBus(conn: RedisConnection, options: RedisNotificationBusOptions): NotificationBus {
  const channel = `${options.prefix}events`
  interface Entry {
    listener: ServerEventListener
    dropped: ((error: unknown) => void) | undefined
  }
  /** One Redis subscription and the listeners it serves; `users` counts subscribes under way too. */
  interface Shared {
    ready: Promise<() => Promise<void>>
    entries: Set<Entry>
    users: number
    lost?: Error
  }
  let current: Shared | undefined
  const deliver = (shared: Shared, message: string) => {
    if (shared.lost || encoder.encode(message).byteLength > MAX_BUS_EVENT_BYTES) return
    const event = parseBusEventText(message)
    if (!event) return
    for (const entry of [...shared.entries]) {
      try {
        entry.listener(event)
      } catch {
        // the listener's own failure (a stream that just closed); the others still get theirs
      }
    }
  }
  const lose = (shared: Shared, cause: unknown) => {
    if (shared.lost) return
    shared.lost = new UpstreamError(
      `the notification bus lost its Redis subscription; events may have been missed: listen again`,
      { cause },
    )
    if (current === shared) current = undefined
    const entries = [...shared.entries]
    shared.entries.clear()
    for (const entry of entries) {
      try {
        entry.dropped?.(shared.lost)
      } catch {
        // one stream's failure does not keep the others from ending
      }
    }
  }
  const release = (shared: Shared) => {
    if (--shared.users > 0) return Promise.resolve()
    if (current === shared) current = undefined
    return shared.ready.then(
      (unsubscribe) => (shared.lost ? undefined : unsubscribe()),
      () => {},
    )
  }
  return {
    async publish(value) {
      const event = busEventToPublish(value)
      if (!event) return // a URI too long to match any stream
      await conn.command(['PUBLISH', channel, JSON.stringify(event)])
    },
    async subscribe(listener, dropped) {
      let shared = current
      if (!shared) {
        const created: Shared = { ready: undefined!, entries: new Set(), users: 0 }
        created.ready = conn.subscribe(
          channel,
          (message) => deliver(created, message),
          (error) => lose(created, error),
        )
        created.ready.catch(() => {
          if (current === created) current = undefined // the next subscribe tries again
        })
        current = shared = created
      }
      shared.users++
      try {
        await shared.ready
      } catch (error) {
        shared.users--
        throw error
      }
      if (shared.lost) {
        shared.users--
        throw shared.lost
      }
      const entry: Entry = { listener, dropped }
      shared.entries.add(entry)
      const mine = shared
      let open = true
      return async () => {
        if (!open) return
        open = false
        mine.entries.delete(entry)
        await release(mine).catch(() => {}) // Redis may be gone: the subscription is too, or will be
      }
    },
  }
}
