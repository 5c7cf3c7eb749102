/**
 * Reading a Streamable HTTP SSE stream on the client side: the events' JSON-RPC messages routed by kind,
 * and (2025-11-25 transports.mdx "Resumability and Redelivery", SEP-1699 polling) the stream followed
 * across reconnections: when it closes early, wait the server's `retry` and `GET` it again with
 * `Last-Event-ID` (also when the connection breaks off), within bounds: a shortest wait, a count of
 * reconnections, a longest event ({@link MAX_SSE_EVENT_LENGTH}).
 * @module
 */
import type { JSONRPCNotification, JSONRPCRequest } from '../../protocol/schemas/index.ts'
import { sleep } from '../abort.ts'
import { HttpError, InvalidResultError, NetworkError } from '../errors.ts'

/** Where a stream stands: the SSE "last event ID" and reconnection time it set, and how many messages it brought. */
export interface SseCursor {
  /** The last `id:` field seen (the `Last-Event-ID` of a reconnection); undefined until the server sends one. */
  lastEventId?: string
  /** The last `retry:` field, in milliseconds. */
  retryMs?: number
  /** Events dispatched so far that carried a message (priming events, an id with empty data, not counted). */
  messages: number
}

/** What to do with each JSON-RPC message of a stream. */
export interface SseHandlers {
  /** A response (result or error): return true when it is the awaited one, which ends the read. */
  onResponse?: (response: Record<string, unknown>) => boolean
  onRequest?: ((request: JSONRPCRequest) => void) | undefined
  onNotification?: ((notification: JSONRPCNotification) => void) | undefined
}

/**
 * The most one SSE event may hold, in characters (UTF-16 code units) of its decoded text: its `data` lines
 * together with the line being read. 16 Mi, i.e. 16 MiB of ASCII JSON. An event that grows past it fails
 * the stream (InvalidResultError), so that a server cannot make the client hold an endless event in memory.
 */
export const MAX_SSE_EVENT_LENGTH = 16 * 1024 * 1024

/**
 * Read SSE events until `handlers.onResponse` accepts one (returned) or the stream ends (undefined).
 * Comment lines (keep-alives) and events without data (priming events) are skipped; `id` and `retry`
 * update `cursor` (HTML "event stream interpretation"). Aborting `signal` cancels the stream.
 * @param url - the endpoint the stream comes from (named in a NetworkError).
 * @throws InvalidResultError for an event whose data is not JSON, or one longer than
 *   {@link MAX_SSE_EVENT_LENGTH}; NetworkError when reading the body fails (the connection broke off);
 *   the abort reason when `signal` aborts.
 */
export async function readSseEvents(
  stream: ReadableStream<Uint8Array>,
  handlers: SseHandlers,
  cursor: SseCursor,
  url: string,
  signal?: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  const reader = stream.getReader()
  const cancel = () => void reader.cancel(signal?.reason).catch(() => {})
  signal?.addEventListener('abort', cancel, { once: true })
  const decoder = new TextDecoder()
  const terminator = /\r\n|\r|\n/g
  let partial: string[] = [] // the current line's text so far (only new text is scanned: linear in the stream)
  let partialLength = 0
  let afterCr = false // the last chunk ended in CR: an LF opening the next one belongs to it
  let data: string[] = []
  let dataLength = 0 // of the current event's data lines, a line feed each
  let idBuffer = cursor.lastEventId
  const checkLength = () => {
    if (dataLength + partialLength > MAX_SSE_EVENT_LENGTH)
      throw new InvalidResultError(
        `An SSE event exceeded the client's limit of ${MAX_SSE_EVENT_LENGTH} characters (MAX_SSE_EVENT_LENGTH)`,
      )
  }
  const dispatch = (): Record<string, unknown> | undefined => {
    if (idBuffer === '')
      delete cursor.lastEventId // an empty id resets it
    else if (idBuffer !== undefined) cursor.lastEventId = idBuffer
    if (data.length === 0) return undefined
    const text = data.join('\n')
    data = []
    dataLength = 0
    if (text.trim() === '') return undefined // a priming event: an id to resume from, no message
    cursor.messages++
    let message: Record<string, unknown>
    try {
      message = JSON.parse(text) as Record<string, unknown>
    } catch {
      throw new InvalidResultError('An SSE event carried data that is not JSON')
    }
    if (typeof message !== 'object' || message === null) return undefined
    if ('result' in message || 'error' in message) return handlers.onResponse?.(message) ? message : undefined
    if (typeof message.method === 'string') {
      if (!('id' in message)) handlers.onNotification?.(message as JSONRPCNotification)
      else handlers.onRequest?.(message as unknown as JSONRPCRequest)
    }
    return undefined
  }
  try {
    signal?.throwIfAborted()
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>
      try {
        chunk = await reader.read()
      } catch (error) {
        signal?.throwIfAborted()
        throw new NetworkError(url, error, 'stream') // e.g. a connection reset mid-stream (Node: "TypeError: terminated")
      }
      if (chunk.done) break
      const text = decoder.decode(chunk.value, { stream: true })
      if (text === '') continue
      let start: number = afterCr && text[0] === '\n' ? 1 : 0
      afterCr = false
      for (;;) {
        terminator.lastIndex = start
        const found = terminator.exec(text)
        if (!found) {
          partial.push(text.slice(start))
          partialLength += text.length - start
          checkLength()
          break
        }
        const line = partial.join('') + text.slice(start, found.index)
        partial = []
        partialLength = 0
        start = found.index + found[0].length
        afterCr = found[0] === '\r' && start === text.length
        if (line === '') {
          const message = dispatch()
          if (message !== undefined) return message
          continue
        }
        if (line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'data') {
          data.push(val)
          dataLength += val.length + 1
          checkLength()
        } else if (field === 'id' && !val.includes('\0')) idBuffer = val
        else if (field === 'retry' && /^\d+$/.test(val)) cursor.retryMs = Number(val)
      }
    }
    signal?.throwIfAborted() // a cancelled reader reads as done
    return dispatch() // a final event without the trailing blank line
  } finally {
    signal?.removeEventListener('abort', cancel)
    reader.cancel().catch(() => {})
  }
}

/**
 * Open a stream again (2025-11-25 only; 2026-07-28 streams are not resumable): `GET` with
 * `Last-Event-ID: lastEventId`. @throws NetworkError, or HttpError for an answer that is no SSE stream.
 */
export type Reconnect = (lastEventId: string, signal: AbortSignal | undefined) => Promise<ReadableStream<Uint8Array>>

/** Consecutive reconnections that bring no message (or fail: network, 5xx) before the stream is given up. */
export const MAX_FRUITLESS_RECONNECTS = 5
/** Reconnections of one stream in all (fruitful or not) before it is given up. */
export const MAX_RECONNECTS = 100
/** The wait before a reconnection when the server gave no `retry`, in milliseconds; doubled per fruitless try. */
export const DEFAULT_RETRY_MS = 1_000
/** The shortest wait before a reconnection, in milliseconds: a smaller `retry` (e.g. 0) is raised to it. */
export const MIN_RETRY_MS = 100
/** The longest backoff between reconnections, in milliseconds (a server's larger `retry` is still honoured). */
const MAX_BACKOFF_MS = 30_000

/** Where a followed stream comes from and how it is resumed. */
export interface FollowOptions {
  /** The endpoint (named in a NetworkError). */
  url: string
  /** How to open the stream again; without it the stream is read once. */
  reconnect?: Reconnect | undefined
  /** Cancels the stream and any wait or reconnection. */
  signal?: AbortSignal | undefined
}

/**
 * Read a stream and, when it closes (or its connection breaks off: a read error) before
 * `handlers.onResponse` accepted a response after an event id, `reconnect` after the server's `retry`
 * (else {@link DEFAULT_RETRY_MS}; at least {@link MIN_RETRY_MS}; doubled per reconnection that brought no
 * message, capped at 30 s unless `retry` is larger) and read on, until a response (returned), an end the
 * server gave no means to resume (undefined), {@link MAX_FRUITLESS_RECONNECTS} reconnections in a row
 * without a message (priming events do not count), or {@link MAX_RECONNECTS} in all. A resumed stream the
 * server held open at least as long as the wait before it is a poll and counts towards neither bound (a
 * request stream is still bounded by its request's timeout).
 * @throws the last reconnection's error (NetworkError, HttpError 5xx / 408 / 429) or HttpError "resumed N
 *   times in a row without a message" after the fruitless tries; HttpError "resumed N times" after
 *   {@link MAX_RECONNECTS}; any other reconnection error at once (HttpError 404: the session is gone; 405:
 *   no GET stream; 200 without an SSE stream); NetworkError for a read error on a stream that cannot be
 *   resumed (no `reconnect`, or no event id yet); InvalidResultError from {@link readSseEvents}; the abort
 *   reason.
 */
export async function followSse(
  stream: ReadableStream<Uint8Array>,
  handlers: SseHandlers,
  options: FollowOptions,
): Promise<Record<string, unknown> | undefined> {
  const { url, reconnect, signal } = options
  const cursor: SseCursor = { messages: 0 }
  let fruitless = 0
  let reconnects = 0
  /** Reconnections that were no poll (see below): what {@link MAX_RECONNECTS} bounds. */
  let counted = 0
  let openedAt = Date.now()
  let waited = 0
  let failure: Error | undefined
  let current: ReadableStream<Uint8Array> | undefined = stream
  for (;;) {
    const before = cursor.messages
    if (current) {
      try {
        const found = await readSseEvents(current, handlers, cursor, url, signal)
        if (found !== undefined) return found
      } catch (error) {
        // a broken connection is a close like any other when the stream can be resumed
        if (!(error instanceof NetworkError) || !reconnect || cursor.lastEventId === undefined) throw error
        failure = error
      }
    }
    const lastEventId = cursor.lastEventId
    if (!reconnect || lastEventId === undefined) return undefined
    // a resumed stream the server held open at least as long as the wait before it is a poll (SEP-1699: a
    // long request polled with its stream closed now and then), not a loop: it counts towards neither bound
    const polled = reconnects > 0 && current !== undefined && Date.now() - openedAt >= waited
    if (reconnects > 0 && !polled) fruitless = cursor.messages > before ? 0 : fruitless + 1 // the first stream is none
    if (reconnects > 0 && !polled) counted++
    if (fruitless >= MAX_FRUITLESS_RECONNECTS)
      throw failure ?? new HttpError(200, `The SSE stream was resumed ${fruitless} times in a row without a message`)
    if (counted >= MAX_RECONNECTS)
      throw new HttpError(200, `The SSE stream was resumed ${counted} times, the most for one stream`)
    const base = Math.max(MIN_RETRY_MS, cursor.retryMs ?? DEFAULT_RETRY_MS)
    waited = Math.max(base, Math.min(MAX_BACKOFF_MS, base * 2 ** Math.max(0, fruitless - 1)))
    await sleep(waited, signal)
    reconnects++
    try {
      current = await reconnect(lastEventId, signal)
      openedAt = Date.now()
      failure = undefined
    } catch (error) {
      signal?.throwIfAborted()
      if (!isTransient(error)) throw error
      current = undefined // counted as fruitless; tried again after the backoff
      failure = error as Error
    }
  }
}

/** A reconnection failure worth another try: the network (NetworkError), a 5xx, 408 or 429. */
function isTransient(error: unknown): boolean {
  if (error instanceof NetworkError) return true
  return error instanceof HttpError && (error.status >= 500 || error.status === 408 || error.status === 429)
}

/**
 * A `GET`'s answer as an SSE stream: its body, or undefined for 405 (the server offers no GET stream).
 * @throws HttpError for any other answer (a success that is not `text/event-stream` included).
 */
export async function sseBodyOf(response: Response): Promise<ReadableStream<Uint8Array> | undefined> {
  const type = response.headers.get('content-type') ?? ''
  if (response.ok && /^text\/event-stream/i.test(type) && response.body) return response.body
  const text = await response.text().catch(() => '')
  if (response.status === 405) return undefined
  throw new HttpError(response.status, `GET: ${text || `no SSE stream (${type})`}`)
}
