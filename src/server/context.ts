/**
 * What a handler knows about the request it serves, how that context is built (the transport's facts,
 * the envelope's shorthands, the opened `requestState`, the progress and log notifiers), and the handler types.
 * @module
 */
import { requireCapabilities, type RequestEnvelope, type RequiredCapability } from '../protocol/envelope.ts'
import type {
  ClientCapabilities,
  JSONRPCRequest,
  Implementation,
  JSONRPCNotification,
  LoggingLevel,
  RequestId,
} from '../protocol/schemas/index.ts'
import type { AuthInfo } from '../protocol/auth.ts'
import type { RequestStateValue } from '../request-state/claims.ts'

/** Facts of the request a transport hands to the server with each message, which a handler may read. All optional. */
export interface RequestInfo {
  /** The HTTP request, when served over HTTP (read headers here; they are client input, never identity). */
  request?: Request
  /** Environment bindings (a Worker's `env`). */
  env?: unknown
  /** The runtime's execution context (a Worker's `ctx`, with `waitUntil`). */
  executionCtx?: unknown
  /** Verified auth info from your auth layer; the default request-state principal is derived from it. */
  authInfo?: AuthInfo
  /** Aborts when the client goes away (on Workers: `request.signal`). */
  signal?: AbortSignal
}

/**
 * The transport's side of one message, handed to the server beside the request and never shown to a
 * handler: where the request's messages to the client go before its response, when its handler starts,
 * and the session of a transport that keeps it itself. All optional.
 */
export interface Channel {
  /** The transport's kind, shown to middleware (`RequestCall.transport`). */
  transport?: 'http' | 'stdio'
  /**
   * The 2025-era session of a transport that keeps it itself (stdio: the connection is the session, its
   * `initialize` result's `Handled.sessionId`), read before the `Mcp-Session-Id` header of `info.request`.
   * It must come from the transport, never from the client's message.
   */
  sessionId?: string
  /**
   * Sends a notification about this request to the client before its response — or, to a 2025-era
   * client, a server-to-client request (spec 2025-11-25: transports.mdx) — on the response's stream (the
   * transport streams it as SSE when the client accepts that). Undefined when the transport cannot.
   */
  notify?: (message: JSONRPCNotification | JSONRPCRequest) => void
  /**
   * Called once the request has passed the server's own checks (era, session, `requestState`) and its
   * handler is about to run: a transport times a quiet handler from here, so that a check's error keeps
   * its HTTP status.
   */
  started?: () => void
}

/** Params of a request as received (`_meta` envelope included). */
export type RequestParams = Record<string, unknown>
/** A result object; `resultType` and `_meta` serverInfo are added by the server. */
export type ResultObject = Record<string, unknown>
/** Handles one method. Throw `McpError` to answer with a JSON-RPC error. */
export type RequestHandler = (params: RequestParams, ctx: RequestContext) => ResultObject | Promise<ResultObject>
/**
 * A handler of the server's own (`subscriptions/listen`), which also writes to the request's channel.
 * @internal
 */
export type ChannelHandler = (
  params: RequestParams,
  ctx: RequestContext,
  channel: Channel,
) => ResultObject | Promise<ResultObject>
/** Handles one notification method; its return value and errors are ignored. */
export type NotificationHandler = (params: RequestParams, info: RequestInfo) => void | Promise<void>

/** The context passed to every request handler. */
export interface RequestContext extends RequestInfo {
  /** The JSON-RPC method, e.g. `tools/call`. */
  method: string
  /** The JSON-RPC id of this request (each round of a multi-round call has a new id). */
  requestId: RequestId
  /** The request's `_meta` envelope. */
  envelope: RequestEnvelope
  /** Shorthand for `envelope.protocolVersion`. */
  protocolVersion: string
  /** Shorthand for `envelope.clientCapabilities`: what this request's client can do, this request only. */
  clientCapabilities: ClientCapabilities
  /** Shorthand for `envelope.clientInfo` (unverified). */
  clientInfo: Implementation | undefined
  /** Always present: aborts when the client goes away. */
  signal: AbortSignal
  /**
   * The state the client carried back from the previous round, as the handler should read it: on
   * `tools/call`, `prompts/get` and `resources/read`, the opened state (verified and unsealed: the JSON
   * value the previous round sealed — a string stays a string) when request-state sealing is on, the wire
   * string verbatim when it is off. Undefined on a first round and
   * on every other method. `params.requestState` is never rewritten: it is what came over the wire (the
   * sealed token when sealing is on).
   */
  requestState: RequestStateValue | undefined
  /**
   * Throw `-32021` (HTTP 400, `data.requiredCapabilities`) unless the client declared every capability.
   * @example ctx.requireCapabilities('elicitation.form')
   */
  requireCapabilities(...needs: RequiredCapability[]): void
  /**
   * Report progress (spec: basic/patterns/progress.mdx). Sent only when the request carried a
   * `progressToken`; `progress` must increase with each call. Returns whether it was sent.
   */
  sendProgress(progress: number, total?: number, message?: string): boolean
  /**
   * Send a log message (deprecated feature of 2026-07-28, spec: server/utilities/logging.mdx). Sent only
   * when the request's `_meta` asked for a `logLevel` and `level` is at least that severe.
   * Returns whether it was sent.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): boolean
}

/**
 * A sink for the server's own diagnostics (request-state rejections, handler crashes). Without `record`,
 * each diagnostic is one line of text: `warn(message)`, or `error(message, cause)` with the thrown value.
 * With `record`, every diagnostic goes to `record` as a {@link LogRecord} instead (`warn` and `error` are
 * then not called by the server), and each JSON-RPC request the server answers adds one `request` record.
 * (Not `log`: `logger: console` keeps printing lines of text.)
 * @example
 * const record = (r: LogRecord) => console.log(JSON.stringify(r))
 * new McpServer(info, { logger: { warn: console.warn, error: console.error, record } })
 */
export interface Logger {
  warn(message: string): void
  error(message: string, error?: unknown): void
  /** Structured diagnostics: when present, every diagnostic comes here as a record, and nothing goes to `warn`/`error`. */
  record?(record: LogRecord): void
}

/**
 * One diagnostic of the server, as {@link Logger.record} receives it. It never holds a token
 * (`Mcp-Session-Id`, `requestState`, bearer), a request's arguments, answers (`inputResponses`), handler
 * state, a stack or an error's `cause`: only the fields below.
 *
 * Events: `request` (one per JSON-RPC request answered: `level` `info`, `warn` when refused, `error` when
 * the server failed; with `method`, `target`, `durationMs`, `outcome`, `era`, `requestId`, `code`);
 * `handler.failed`, `notification.failed`, `publish.failed`; `requestState.rejected`, `sessionId.rejected`,
 * `answerId.rejected`, `requestState.sealFailed`, `principal.failed`, `sessionId.mintFailed`,
 * `sessionId.tooLong`, `sealing.ephemeralOnWorkers`; `answer.discarded`, `answer.undelivered`, `question.unaskable`,
 * `question.failed`, `tool.nameWarning`; `listen.authorizeFailed`, `listen.subscribeFailed`, `listen.unsubscribeFailed`,
 * `listen.dropped`;
 * `http.failed`, `http.streamFailed`, `auth.verifyFailed`; `stdio.truncated`, `stdio.tooLong`,
 * `stdio.invalidUtf8`, `stdio.parseError`, `stdio.invalidMessage`, `stdio.duplicateId`, `stdio.refused`,
 * `stdio.outputBroke`, `stdio.unserializable`, `stdio.readFailed`, `stdio.failed`; `tasks.redis`, `tasks.lease`,
 * `tasks.size` (the Redis task store of `edge-mcp/redis`).
 */
export interface LogRecord {
  level: 'debug' | 'info' | 'warn' | 'error'
  /** Stable event name (listed above). */
  event: string
  /** The text the default formatter prints (what `warn` / `error` get without `record`). */
  message: string
  /** The JSON-RPC method. */
  method?: string
  /** The tool or prompt name, or the resource URI, when the request has one. */
  target?: string
  /** Milliseconds from the request's arrival at the server to its answer (`performance.now()` resolution). */
  durationMs?: number
  /**
   * `ok`; `toolError` (a result with `isError`); `inputRequired` (an `InputRequiredResult`, 2026 era);
   * `cancelled` (no response: the client cancelled); `refused` (a JSON-RPC error for the client's request:
   * invalid params, unknown method, invalid requestState, …); `error` (`-32603`: the server failed).
   */
  outcome?: 'ok' | 'error' | 'toolError' | 'inputRequired' | 'cancelled' | 'refused'
  /** `modern` (2026-07-28 envelope) or `legacy` (2025 era). */
  era?: 'modern' | 'legacy'
  requestId?: string | number
  /** The JSON-RPC error code of a `refused` or `error` outcome (its message is not logged: it may echo input). */
  code?: number
  /** `name` and `message` of the thrown Error (or the thrown string as `message`); never its stack or cause. */
  error?: { name: string; message: string }
}

/**
 * The default logger: `console.warn` / `console.error`.
 * @internal not in the public API: the `logger` default
 */
export const consoleLogger: Logger = {
  warn: (message) => console.warn(`[edge-mcp] ${message}`),
  error: (message, error) => console.error(`[edge-mcp] ${message}`, error ?? ''),
}

/** RFC 5424 severities, least to most severe (spec: `LoggingLevel`). */
const LOG_SEVERITY: Readonly<Record<LoggingLevel, number>> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
}

const LAZY_SIGNAL: unique symbol = Symbol('edge-mcp.lazySignal')
/** The state of a signal made on first read: shared by the copies of one context. */
export interface LazySignal {
  signal?: AbortSignal
  /** Called once, on the first read. */
  make: () => AbortSignal
}
type Lazy = { [LAZY_SIGNAL]?: LazySignal }
// One getter and setter for every context (fresh functions per object would cost V8 a new map each).
function readSignal(this: Lazy): AbortSignal {
  const lazy = this[LAZY_SIGNAL]!
  return (lazy.signal ??= lazy.make())
}
function writeSignal(this: object, value: unknown): void {
  Object.defineProperty(this, 'signal', { value, writable: true, enumerable: true, configurable: true })
}
const SIGNAL_ACCESSOR: PropertyDescriptor = { get: readSignal, set: writeSignal, enumerable: true, configurable: true }
const newSignal = (): AbortSignal => new AbortController().signal

/**
 * Give `target` a `signal` made on first read (an enumerable accessor; assigning a value makes it a plain
 * data property): an `AbortSignal` costs microseconds on Node, and most handlers never read theirs.
 */
export function defineLazySignal(target: object, lazy: LazySignal): void {
  // a copy (withContext) given its request's own signal: the accessor is there, only its state changes
  // (two property definitions less, ~0.3 µs on Node)
  if (Object.hasOwn(target, LAZY_SIGNAL) && Object.getOwnPropertyDescriptor(target, 'signal')?.get === readSignal) {
    ;(target as Lazy)[LAZY_SIGNAL] = lazy
    return
  }
  Object.defineProperty(target, LAZY_SIGNAL, { value: lazy, writable: true, configurable: true })
  Object.defineProperty(target, 'signal', SIGNAL_ACCESSOR)
}

/**
 * A request's signal (see {@link defineLazySignal}) whose controller is made on first read, or when the
 * server aborts the request itself (`controller()`); it aborts with {@link outer}'s signal too, read when
 * the controller is made. Methods, not closures: nothing is allocated per request but the object.
 */
export abstract class LazyAbort implements LazySignal {
  signal?: AbortSignal
  #made?: { controller: AbortController; outer: AbortSignal | undefined; onAbort: () => void }

  /** The signal the controller follows (the client's, the request's own). */
  protected abstract outer(): AbortSignal | undefined

  /** The controller, made now if it was not. */
  controller(): AbortController {
    if (this.#made) return this.#made.controller
    const controller = new AbortController()
    const outer = this.outer()
    const made = (this.#made = { controller, outer, onAbort: () => controller.abort(outer?.reason) })
    if (outer?.aborted) made.onAbort()
    else outer?.addEventListener('abort', made.onAbort, { once: true })
    return controller
  }

  make(): AbortSignal {
    return this.controller().signal
  }

  /** Stop following the outer signal (the request is over). */
  release(): void {
    this.#made?.outer?.removeEventListener('abort', this.#made.onAbort)
  }
}

/**
 * `Object.assign({}, source, extra)`, except that a `signal` of `source` not yet made (see
 * {@link defineLazySignal}) stays unmade in the copy (`Object.assign` would read it), shared with `source`.
 */
export function withContext<S extends object, E extends object>(source: S, extra: E): S & E {
  const lazy = (source as Lazy)[LAZY_SIGNAL]
  if (
    lazy === undefined ||
    lazy.signal !== undefined ||
    Object.getOwnPropertyDescriptor(source, 'signal')?.get !== readSignal
  )
    return Object.assign({}, source, extra)
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(source)) if (key !== 'signal') out[key] = (source as Record<string, unknown>)[key]
  defineLazySignal(out, lazy)
  return Object.assign(out, extra) as S & E
}

/**
 * The context of one request: the transport's `info`, the envelope's shorthands, the opened
 * `requestState`, and `sendProgress` / `log`, which notify through `channel.notify` only when the envelope
 * asked for them (a `progressToken`; a `logLevel` at most as severe as the message).
 * @param requestState - the plaintext state for {@link RequestContext.requestState}.
 * @param progress - the last progress sent on this request's token, shared by the contexts of one request
 *   whose handler runs more than once (a 2025-era request asking questions), so none repeats a value.
 */
export function createRequestContext(
  request: JSONRPCRequest,
  envelope: RequestEnvelope,
  info: RequestInfo,
  channel: Channel,
  requestState: RequestStateValue | undefined,
  progress: { last: number } = { last: -Infinity },
): RequestContext {
  const notify = channel.notify
  // Object.assign (in withContext), not `{ ...info, … }`: V8 takes a slow path for properties written
  // after a spread. The signal stays unmade until read (made here only when the transport gave none).
  const ctx = withContext(info, {
    method: request.method,
    requestId: request.id,
    envelope,
    protocolVersion: envelope.protocolVersion,
    clientCapabilities: envelope.clientCapabilities,
    clientInfo: envelope.clientInfo,
    requestState,
    requireCapabilities: (...needs: RequiredCapability[]) => requireCapabilities(envelope.clientCapabilities, ...needs),
    sendProgress: (value: number, total?: number, message?: string) => {
      const token = envelope.progressToken
      if (token === undefined || !notify || !(value > progress.last)) return false
      progress.last = value
      const params: Record<string, unknown> = { progressToken: token, progress: value }
      if (total !== undefined) params.total = total
      if (message !== undefined) params.message = message
      notify({ jsonrpc: '2.0', method: 'notifications/progress', params })
      return true
    },
    log: (level: LoggingLevel, data: unknown, logger?: string) => {
      const wanted = envelope.logLevel
      if (wanted === undefined || !notify || LOG_SEVERITY[level] < LOG_SEVERITY[wanted]) return false
      const params: Record<string, unknown> = { level, data }
      if (logger !== undefined) params.logger = logger
      notify({ jsonrpc: '2.0', method: 'notifications/message', params })
      return true
    },
  } satisfies Omit<RequestContext, keyof RequestInfo | 'signal'>)
  // no signal from the transport: one that never aborts, made if read
  if ((ctx as Lazy)[LAZY_SIGNAL] === undefined && (ctx as { signal?: unknown }).signal === undefined)
    defineLazySignal(ctx, { make: newSignal })
  return ctx as RequestContext
}
