/**
 * The request/response core under `Client.request`: send one JSON-RPC request through the transport
 * within its timeout (paused while the user is busy, e.g. in an OAuth login), route its progress and
 * notifications, and check the response before its result is handed back.
 * @module
 */
import { McpError } from '../protocol/errors.ts'
import { parse, type Check } from '../protocol/check.ts'
import type { JSONRPCNotification, JSONRPCRequest, RequestId } from '../protocol/schemas/index.ts'
import type { ClientTransport, SendOptions } from './transport.ts'
import { anySignal, rejectOnAbort } from './abort.ts'
import { InvalidResultError, RequestTimeoutError } from './errors.ts'
import { checkInteger, type CallOptions } from './options.ts'
import type { ClientRoundCall } from './middleware.ts'

/**
 * Per-request options of {@link exchange}: the call's options, plus what the transport is told of the
 * message (`SendOptions.session`, `routing`, `onAccepted`) and the 2025-era `onRequest`.
 */
export type ExchangeOptions = CallOptions &
  Pick<SendOptions, 'session' | 'routing' | 'onAccepted'> & {
    /**
     * A server-to-client request on this request's stream (2025 era). `interactive` runs the step that
     * answers it with the request timeout paused (the user's time does not count); `signal` aborts with the
     * request (the caller's abort, or the timeout).
     */
    onRequest?: (request: JSONRPCRequest, during: { interactive: Interactive; signal: AbortSignal }) => void
    /** While in flight, this request's timeout is paused by `pauses.run` (a 2025 session's GET-stream questions). */
    pauses?: PauseGroup
    /** The round this request is (a carrier request of a logical call, with middleware), for `request` middleware. */
    round?: ClientRoundCall
  }

/** The request timeouts of the requests in flight, paused together while a step runs (e.g. a user answers). */
export class PauseGroup {
  readonly #members = new Set<Interactive>()

  /** Add one request's pause; @returns its removal. */
  add(pause: Interactive): () => void {
    this.#members.add(pause)
    return () => void this.#members.delete(pause)
  }

  /** Run `step` with the timeout of every request now in flight paused. */
  run<T>(step: () => Promise<T>): Promise<T> {
    return [...this.#members].reduce<() => Promise<T>>((inner, pause) => () => pause(inner), step)()
  }
}

/** Runs a step with the request timeout paused (see {@link SendOptions.interactive}). */
type Interactive = <T>(step: () => Promise<T>) => Promise<T>

/**
 * Send `message` and return its raw result.
 * @param defaultTimeoutMs - the limit when `options.timeoutMs` is not given, in milliseconds.
 * @param progressToken - the `progressToken` the message's `_meta` carries (see `wantsProgress`): its progress
 *   goes to `onProgress` and, unless `resetTimeoutOnProgress` is false, starts the timeout again.
 * @throws the caller's abort reason when `options.signal` aborts.
 * @throws RangeError when `options.timeoutMs` or `options.maxTotalTimeoutMs` is not a positive integer.
 * @throws RequestTimeoutError when no answer comes within the limit.
 * @throws McpError when the server answers with a JSON-RPC error; InvalidResultError for a missing,
 *   mismatched or malformed response; HttpError / NetworkError from the transport.
 */
export async function exchange(
  transport: ClientTransport,
  message: JSONRPCRequest,
  options: ExchangeOptions,
  defaultTimeoutMs: number,
  progressToken: string,
): Promise<Record<string, unknown>> {
  const { id, method } = message
  options.signal?.throwIfAborted()
  checkInteger('timeoutMs', options.timeoutMs)
  checkInteger('maxTotalTimeoutMs', options.maxTotalTimeoutMs)
  const deadline = pausableDeadline(method, options.timeoutMs ?? defaultTimeoutMs, options.maxTotalTimeoutMs)
  const signal = options.signal ? anySignal([options.signal, deadline.signal]) : deadline.signal
  const sendOptions: SendOptions & { signal: AbortSignal } = { signal, interactive: deadline.pause }
  if (options.routing) sendOptions.routing = options.routing
  if (options.session) sendOptions.session = options.session
  const onRequest = options.onRequest
  if (onRequest) sendOptions.onRequest = (request) => onRequest(request, { interactive: deadline.pause, signal })
  if (options.onAccepted) sendOptions.onAccepted = options.onAccepted
  const unpaused = options.pauses?.add(deadline.pause)
  const reset = options.resetTimeoutOnProgress === false ? undefined : deadline.reset
  let settled = false // nothing reaches the caller's callbacks once the call has settled
  const route = notificationRouter(options, progressToken, reset)
  if (route) sendOptions.onNotification = (n) => void (settled || route(n))
  let response: Record<string, unknown> | undefined
  try {
    response = (await untilAborted(signal, () => transport.send(message, sendOptions))) as
      Record<string, unknown> | undefined
  } catch (error) {
    if (deadline.signal.aborted && !options.signal?.aborted) throw deadline.signal.reason
    throw error
  } finally {
    settled = true
    deadline.clear()
    unpaused?.()
  }
  return resultOf(response, id, method)
}

/**
 * Validate a result with its check (checks.gen.ts). @returns its output (a copy, see ../protocol/check.ts).
 * @throws InvalidResultError naming the first issue.
 */
export function parseResult<T>(check: Check<T>, value: unknown, method: string): T {
  const parsed = parse(check, value)
  if (parsed[0] !== undefined) throw new InvalidResultError(`Invalid ${method} result: ${parsed[0]}`)
  return parsed[1]
}

/**
 * A request timeout of `timeoutMs` milliseconds as an abort signal (aborting with a RequestTimeoutError).
 * `pause` runs a step with the clock stopped: the user's time (an OAuth login, a 2025 server's question)
 * does not count against the request timeout; steps may overlap (the clock runs again when the last one
 * ends). `reset` starts the `timeoutMs` again (progress came), but never beyond `maxTotalMs` of counted time
 * in all (then the error names `maxTotalMs`). `clear` stops it for good.
 */
function pausableDeadline(method: string, timeoutMs: number, maxTotalMs?: number) {
  const timer = new AbortController()
  let limit = maxTotalMs !== undefined && maxTotalMs < timeoutMs ? maxTotalMs : timeoutMs // what `left` is bounded by
  const expire = () => timer.abort(new RequestTimeoutError(method, limit))
  let left = Math.min(timeoutMs, maxTotalMs ?? timeoutMs)
  let handle: ReturnType<typeof setTimeout> | undefined = setTimeout(expire, left)
  let since = Date.now()
  let counted = 0 // time the clock ran before `since`, in milliseconds
  let paused = 0
  let cleared = false
  const stop = () => {
    clearTimeout(handle)
    handle = undefined
    const ran = Date.now() - since
    counted += ran
    left = Math.max(0, left - ran)
  }
  const pause = async <T>(step: () => Promise<T>): Promise<T> => {
    if (paused++ === 0 && handle !== undefined) stop()
    try {
      return await step()
    } finally {
      if (--paused === 0 && !timer.signal.aborted && !cleared) {
        since = Date.now()
        handle = setTimeout(expire, left)
      }
    }
  }
  const reset = () => {
    if (cleared || timer.signal.aborted) return
    const running = handle !== undefined
    if (running) stop()
    const total = maxTotalMs === undefined ? Infinity : maxTotalMs - counted
    left = Math.max(0, Math.min(timeoutMs, total))
    limit = total < timeoutMs ? maxTotalMs! : timeoutMs
    if (running) {
      since = Date.now()
      handle = setTimeout(expire, left)
    }
  }
  const clear = () => {
    cleared = true
    clearTimeout(handle)
  }
  return { signal: timer.signal, pause, reset, clear }
}

/**
 * The transport's `onNotification`: progress for this request to `onAnyProgress` (the timeout reset) and
 * `onProgress`, everything to `onNotification`.
 */
function notificationRouter(
  options: CallOptions,
  progressToken: string,
  onAnyProgress: (() => void) | undefined,
): ((notification: JSONRPCNotification) => void) | undefined {
  if (!options.onNotification && !options.onProgress && !onAnyProgress) return undefined
  return (n) => {
    const p = n.params as
      { progressToken?: unknown; progress?: unknown; total?: unknown; message?: unknown } | undefined
    if (n.method === 'notifications/progress' && p?.progressToken === progressToken && typeof p.progress === 'number') {
      onAnyProgress?.()
      const event: { progress: number; total?: number; message?: string } = { progress: p.progress }
      if (typeof p.total === 'number') event.total = p.total
      if (typeof p.message === 'string') event.message = p.message
      options.onProgress?.(event)
    }
    options.onNotification?.(n)
  }
}

/**
 * Run `send`, rejecting with the signal's reason as soon as it aborts: the transport is raced too, so
 * that a custom transport that ignores the signal still cannot hang the call.
 */
function untilAborted<T>(signal: AbortSignal, send: () => Promise<T>): Promise<T> {
  const aborted = rejectOnAbort(signal)
  return Promise.race([send(), aborted])
}

/** The result of the response to request `id`. @throws McpError for an error answer; InvalidResultError otherwise. */
function resultOf(
  response: Record<string, unknown> | undefined,
  id: RequestId,
  method: string,
): Record<string, unknown> {
  if (!response || typeof response !== 'object') throw new InvalidResultError(`No response to ${method}`)
  const error = response.error as { code?: unknown; message?: unknown; data?: unknown } | undefined
  // an error without id answers a request the server could not read (parse error, body too large, …)
  const idless = error !== undefined && (response.id === undefined || response.id === null)
  if (response.id !== id && !idless) {
    throw new InvalidResultError(
      `Response id ${JSON.stringify(response.id)} does not match request id ${JSON.stringify(id)}`,
    )
  }
  if (error !== undefined) {
    if (
      typeof error !== 'object' ||
      error === null ||
      !Number.isInteger(error.code) ||
      typeof error.message !== 'string'
    ) {
      throw new InvalidResultError(`Malformed JSON-RPC error in the response to ${method}`)
    }
    throw new McpError(error.code as number, error.message, error.data)
  }
  const result = response.result
  if (typeof result !== 'object' || result === null || Array.isArray(result))
    throw new InvalidResultError(`The result of ${method} is not an object`)
  return result as Record<string, unknown>
}
