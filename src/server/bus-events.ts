/**
 * What a shared notification bus carries on the wire, checked on both of its ends: one `ServerEvent` as
 * JSON, at most {@link MAX_BUS_EVENT_BYTES} bytes. Used by the Durable Object bus (`edge-mcp/cloudflare`)
 * and the Redis bus (`edge-mcp/redis`).
 * @module
 */
import { normalizeUri } from '../protocol/uri-literal.ts'
import { isAbsoluteUri, MAX_SUBSCRIBED_URI_LENGTH, type ServerEvent } from './notifications.ts'

/**
 * Largest event on the wire, in bytes of its JSON (UTF-8): a `resourceUpdated` of a 4096-character URI
 * (the longest a stream may subscribe to) fits even with every character escaped.
 * @internal not in the public API: a limit of the shared buses
 */
export const MAX_BUS_EVENT_BYTES = 32 * 1024

const LIST_KINDS: ReadonlySet<string> = new Set(['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'])

/**
 * `value` as a {@link ServerEvent} (a fresh object with only its fields), or undefined when it is not
 * one: a list kind, or `resourceUpdated` with an absolute `uri` of at most 4096 characters (a longer one
 * matches no stream). Both ends of a shared bus check every event with it.
 * @internal not in the public API: the shared buses' check of what comes off the wire
 */
export function parseBusEvent(value: unknown): ServerEvent | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { kind, uri } = value as { kind?: unknown; uri?: unknown }
  if (typeof kind === 'string' && LIST_KINDS.has(kind)) return { kind } as ServerEvent
  if (kind === 'resourceUpdated' && isAbsoluteUri(uri) && uri.length <= MAX_SUBSCRIBED_URI_LENGTH) {
    return { kind, uri }
  }
  return undefined
}

/**
 * The event a bus publishes for `value`: as {@link parseBusEvent} gives it, or, for a `resourceUpdated` whose
 * URI is too long as given, with its URI in normal form (`normalizeUri`: matching is by normal form, and
 * `%41` is shorter as `A`).
 * @returns the event, or `undefined` for a `resourceUpdated` of an absolute URI too long even so (no stream
 *   can subscribe to it: publish nothing).
 * @throws TypeError for a value that is not a `ServerEvent`.
 * @internal not in the public API: what the shared buses' `publish` sends
 */
export function busEventToPublish(value: unknown): ServerEvent | undefined {
  const event = parseBusEvent(value) ?? parseBusEvent(normalized(value))
  if (event) return event
  const uri = (value as { uri?: unknown } | null)?.uri
  if ((value as { kind?: unknown } | null)?.kind === 'resourceUpdated' && isAbsoluteUri(uri)) return undefined // too long to match
  throw new TypeError(`not a server event: ${JSON.stringify(value)?.slice(0, 200)}`)
}

/** A `resourceUpdated` with its URI in normal form; anything else unchanged. */
function normalized(value: unknown): unknown {
  const { kind, uri } = (value ?? {}) as { kind?: unknown; uri?: unknown }
  return kind === 'resourceUpdated' && typeof uri === 'string' ? { kind, uri: normalizeUri(uri) } : value
}

/**
 * One event off a bus's wire: the JSON `text` as a {@link ServerEvent} (see {@link parseBusEvent}), or
 * undefined when it is not JSON or not an event.
 * @internal not in the public API: shared by the Durable Object and Redis buses
 */
export function parseBusEventText(text: string): ServerEvent | undefined {
  try {
    return parseBusEvent(JSON.parse(text))
  } catch {
    return undefined
  }
}
