/**
 * Writing a Streamable HTTP response: one JSON body or one-event SSE stream, or a per-request SSE stream
 * of notifications then the response, with keep-alives and a cap on what a slow reader may leave unread
 * (spec: basic/transports/streamable-http.mdx); the event ids that let a 2025-era client resume a request
 * stream that was cut, and which request a resuming `GET` names.
 * @module
 */
import { ErrorCode, McpError } from '../../protocol/errors.ts'
import { errorResponse, isRequestId, type InboundMessage } from '../../protocol/jsonrpc.ts'
import { hasEnvelope } from '../../protocol/envelope.ts'
import { HEADER } from '../../protocol/constants.ts'
import type { JSONRPCNotification, JSONRPCRequest, RequestId } from '../../protocol/schemas/index.ts'
import { defineLazySignal, LazyAbort, type Channel, type Logger, type RequestInfo } from '../context.ts'
import type { Handled, Server } from '../server.ts'
import { logError } from '../log.ts'

/**
 * Bytes of notifications a streamed response holds for a reader that does not read; then it is cut off.
 * @internal not in the public API: the docs state its value
 */
export const MAX_UNREAD_BYTES = 1024 * 1024

/** How a response is written: one JSON body, or SSE. */
export type Representation = 'json' | 'sse'

const JSON_HEADERS = { 'Content-Type': 'application/json' }
const SSE_HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' }

/** An SSE comment: keeps idle connections open, and lets workerd notice a client that went away. */
const KEEP_ALIVE = ': keep-alive\n\n'

/**
 * The JSON of a message. One JSON cannot hold (a BigInt or a cycle in a result or `_meta`: a server bug)
 * is logged, and a response becomes `-32603 "Internal error"` for the same id; a notification, undefined
 * (not sent).
 */
function jsonOf(message: unknown, logger?: Logger): string | undefined {
  try {
    return JSON.stringify(message)
  } catch (error) {
    if (logger) logError(logger, 'http.unserializable', 'a message could not be serialized as JSON', error)
    const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown }
    if (method !== undefined) return undefined
    return JSON.stringify(
      errorResponse(isRequestId(id) ? id : null, new McpError(ErrorCode.InternalError, 'Internal error')),
    )
  }
}

/** One SSE `message` event carrying a JSON-RPC message ('' for one JSON cannot hold: see {@link jsonOf}). */
function sseEvent(message: unknown, logger?: Logger): string {
  const json = jsonOf(message, logger)
  return json === undefined ? '' : `event: message\ndata: ${json}\n\n`
}

/** A complete response: `body` as JSON, or as a single SSE event; `logger` hears of a body JSON cannot hold. */
export function reply(
  status: number,
  body: unknown,
  as: Representation,
  headers?: Record<string, string>,
  logger?: Logger,
): Response {
  if (as === 'sse') {
    return new Response(sseEvent(body, logger), {
      status,
      headers: headers ? { ...SSE_HEADERS, ...headers } : SSE_HEADERS,
    })
  }
  return new Response(jsonOf(body, logger) ?? 'null', {
    status,
    headers: headers ? { 'Content-Type': 'application/json', ...headers } : JSON_HEADERS,
  })
}

/**
 * The SSE event id of the priming event of 2025-era request `id`'s stream in the session whose
 * `Mcp-Session-Id` is `sessionId`: the session id's last 8 characters (random in a sealed id: this binds it
 * to the session), then the request id's JSON. Its response's event id is this plus `r` (spec 2025-11-25:
 * basic/transports.mdx "Resumability and Redelivery").
 */
export function primingId(sessionId: string, id: RequestId): string {
  return sessionId.slice(-8) + JSON.stringify(id)
}

/** What a 2025-era client resuming a request's cut stream gets for that request (`-32603`). */
export const CUT_MESSAGE =
  "This request's stream was cut before its response (its server instance stopped, or the connection broke): its outcome is unknown; check, then call again"

/** A `GET` resuming the stream of 2025-era request `id` that was cut (see {@link cutRequest}). */
export interface Cut {
  kind: 'cut'
  id: RequestId
}

/**
 * The `GET` whose `Last-Event-ID` is the priming event id ({@link primingId}) of a 2025-era request's
 * stream in the session of its `Mcp-Session-Id`; undefined for any other (another session's, a response's,
 * a forged one).
 */
export function cutRequest(request: Request): Cut | undefined {
  const session = request.headers.get(HEADER.sessionId)
  const last = request.headers.get('last-event-id')
  if (session && last) {
    try {
      const id: unknown = JSON.parse(last.slice(8))
      if (isRequestId(id) && last === primingId(session, id)) return { kind: 'cut', id }
    } catch {
      // not one of ours
    }
  }
  return undefined
}

/**
 * Answer with JSON when the handler finishes within `keepAliveMs` ms without sending a notification;
 * otherwise switch to a per-request SSE stream (spec: streamable-http.mdx): at the first notification
 * (the notifications so far, then each new one), or, for a quiet handler, when the first keep-alive is
 * due, `keepAliveMs` after its handler started (that keep-alive first); then the response, then close. Closing the stream is the cancel: the
 * handler's `signal` aborts. The quiet switch exists for workerd, which notices a client that went away
 * only when it next writes: a request whose response is still pending is never seen to close there.
 * `initialize` (whose `Mcp-Session-Id` header needs a plain reply) is never switched for being slow.
 * `outer` aborts when the client goes away (the request's signal); `info.signal` is set here (see above).
 * `headersOf` gives the headers of a plain reply (a session id, a challenge), undefined for none.
 * `subscriptions/listen` rides the same path: its acknowledgement opens the stream, which then stays
 * open (with keep-alives) until the client disconnects or the server ends the subscription.
 * The stream of a 2025-era request in a session (no envelope, an `Mcp-Session-Id`) opens with a priming
 * event (an id, empty data) and its response carries an id too (see {@link primingId}): a client whose
 * stream is cut before the response resumes with `GET` + `Last-Event-ID`, which handler.ts answers.
 */
export async function streamIfNotified(
  server: Server,
  message: InboundMessage,
  info: RequestInfo,
  outer: AbortSignal | undefined,
  accept: Representation,
  keepAliveMs: number,
  headersOf: (handled: Handled) => Record<string, string> | undefined,
): Promise<Response> {
  // Settles with the handled answer, or with why it becomes a stream first: a first notification, or a
  // quiet handler still running (one promise, not a race of two).
  let open!: (first: Handled | 'notified' | 'quiet') => void
  let fail!: (error: unknown) => void
  const opened = new Promise<Handled | 'notified' | 'quiet'>((resolve, reject) => {
    open = resolve
    fail = reject
  })
  const initialize = message.kind === 'request' && message.message.method === 'initialize'
  const pending = new PendingAnswer(outer, open, initialize ? undefined : keepAliveMs)
  defineLazySignal(info, pending)
  const work = server.handle(message, info, pending)
  work.then(open, fail)
  const first = await opened
  clearTimeout(pending.timer)
  if (typeof first !== 'string') {
    if (!first.response) return new Response(null, { status: first.status })
    return reply(first.status, first.response, accept, headersOf(first), server.logger)
  }
  const session = info.request?.headers.get(HEADER.sessionId)
  const priming =
    session && message.kind === 'request' && !hasEnvelope(message.message.params)
      ? primingId(session, message.message.id)
      : undefined
  const stream = notificationStream(
    server,
    work,
    pending.queued,
    pending.sink,
    () => pending.controller(),
    keepAliveMs,
    first === 'quiet',
    priming,
  )
  return new Response(stream, { status: 200, headers: SSE_HEADERS })
}

/**
 * The channel of one request while its answer is pending (one object, not a closure per hook): its
 * notifications, queued until the stream opens, then written; the start of its handler, which starts the
 * quiet timer (none for `initialize`); and the handler's signal (`info.signal`), made on first read (an
 * AbortSignal costs microseconds on Node, and most handlers never read theirs) or to abort: it aborts with
 * the client's (`outer`) or when the stream is cancelled.
 */
class PendingAnswer extends LazyAbort implements Channel {
  readonly queued: (JSONRPCNotification | JSONRPCRequest)[] = []
  readonly sink: NotificationSink = {}
  readonly transport = 'http'
  timer: ReturnType<typeof setTimeout> | undefined
  readonly #outer: AbortSignal | undefined
  readonly #open: (why: 'notified' | 'quiet') => void
  readonly #quietMs: number | undefined

  constructor(outer: AbortSignal | undefined, open: (why: 'notified' | 'quiet') => void, quietMs: number | undefined) {
    super()
    this.#outer = outer
    this.#open = open
    this.#quietMs = quietMs
  }

  protected outer(): AbortSignal | undefined {
    return this.#outer
  }

  /** Called detached (a handler's context keeps it): an arrow. */
  notify = (notification: JSONRPCNotification | JSONRPCRequest): void => {
    if (this.sink.write) this.sink.write(notification)
    else {
      this.queued.push(notification)
      this.#open('notified')
    }
  }

  // the quiet timer starts with the handler: the server's own checks (session, version, requestState)
  // answer first, with their HTTP status
  started(): void {
    if (this.#quietMs !== undefined) this.timer ??= setTimeout(this.#open, this.#quietMs, 'quiet')
  }
}

/** Where notifications go once the stream is open (`write` is set by the stream's `start`). */
interface NotificationSink {
  write?: (notification: unknown) => void
}

/**
 * The SSE body of a streamed response: a keep-alive when `keepAliveFirst`, the `queued` notifications,
 * each later one as `sink.write` gets it, keep-alive comments every `keepAliveMs` ms, then the response
 * of `work`, then the end. Cancelling the body, or a reader more than {@link MAX_UNREAD_BYTES} behind,
 * aborts `handlerAbort()` (the handler's signal). With a `priming` id (see {@link primingId}), a priming
 * event comes first (not on a stream a quiet handler opened with a keep-alive: in workerd it kept the
 * client's departure from being seen), and the response's event has that id plus `r`.
 */
function notificationStream(
  server: Server,
  work: Promise<Handled>,
  queued: readonly (JSONRPCNotification | JSONRPCRequest)[],
  sink: NotificationSink,
  handlerAbort: () => AbortController,
  keepAliveMs: number,
  keepAliveFirst: boolean,
  priming: string | undefined,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let timer: ReturnType<typeof setInterval> | undefined
  let open = true
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const send = (text: string) => {
          if (!open) return
          try {
            controller.enqueue(encoder.encode(text))
          } catch {
            open = false
          }
        }
        // A reader that falls MAX_UNREAD_BYTES behind (a stalled client on a long listen stream) is cut off
        // rather than buffered for without bound: the stream errors and the handler's signal aborts.
        const write = (message: unknown) => {
          if (open && controller.desiredSize !== null && controller.desiredSize <= 0) {
            open = false
            clearInterval(timer)
            controller.error(new Error(`the client fell more than ${MAX_UNREAD_BYTES} bytes behind`))
            handlerAbort().abort(new Error('the client stopped reading the stream'))
            return
          }
          send(sseEvent(message, server.logger))
        }
        sink.write = write
        if (priming && !keepAliveFirst) send(`id: ${priming}\ndata:\n\n`)
        if (keepAliveFirst) send(KEEP_ALIVE)
        for (const n of queued) write(n)
        timer = setInterval(() => {
          if (controller.desiredSize === null || controller.desiredSize > 0) send(KEEP_ALIVE)
        }, keepAliveMs)
        work
          .then((handled) => {
            // the response is never held back
            if (handled.response) send((priming ? `id: ${priming}r\n` : '') + sseEvent(handled.response, server.logger))
          })
          .catch((error: unknown) => logError(server.logger, 'http.streamFailed', 'streamed request failed', error))
          .finally(() => {
            clearInterval(timer)
            sink.write = () => {}
            if (open) {
              open = false
              controller.close()
            }
          })
      },
      cancel() {
        open = false
        clearInterval(timer)
        handlerAbort().abort(new Error('the client closed the stream'))
      },
    },
    { highWaterMark: MAX_UNREAD_BYTES, size: (chunk) => chunk.byteLength },
  )
}
