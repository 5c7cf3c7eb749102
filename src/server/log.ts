/**
 * The server's diagnostics, sent to its {@link Logger}: a {@link LogRecord} to `logger.record` when it has
 * one, else today's line of text (`warn`, or `error` with the cause). One `request` record per JSON-RPC
 * request, built only when `logger.record` is there.
 * @module
 */
import { targetParamOf } from '../protocol/constants.ts'
import { ErrorCode } from '../protocol/errors.ts'
import type { JSONRPCRequest } from '../protocol/schemas/index.ts'
import type { Logger, LogRecord, RequestInfo } from './context.ts'
import type { Handled } from './handled.ts'

/** The fields of a record besides level, event, message and error. */
type Fields = Omit<LogRecord, 'level' | 'event' | 'message' | 'error'>

/** A warning: `logger.warn(message)`, or a `warn` record of `event` with `fields`. */
export function logWarn(logger: Logger, event: string, message: string, fields?: Fields): void {
  if (logger.record) emit(logger, { level: 'warn', event, message, ...fields })
  else logger.warn(message)
}

/**
 * A failure: `logger.error(message, cause)`, or an `error` record of `event` with `fields` and the
 * cause's name and message (never its stack or its own cause).
 */
export function logError(logger: Logger, event: string, message: string, cause?: unknown, fields?: Fields): void {
  if (!logger.record) return cause === undefined ? logger.error(message) : logger.error(message, cause)
  const record: LogRecord = { level: 'error', event, message, ...fields }
  if (cause instanceof Error) record.error = { name: String(cause.name), message: String(cause.message) }
  else if (typeof cause === 'string') record.error = { name: 'Error', message: cause }
  emit(logger, record)
}

/** A record to `logger.record`; a logger that throws does not break the request it logs. */
function emit(logger: Logger, record: LogRecord): void {
  try {
    logger.record?.(record)
  } catch {
    // the log is the operator's; the request goes on
  }
}

/**
 * Run one request and log its `request` record (call only when `logger.record` is there): method, target,
 * duration, outcome, era, id. A request whose signal aborted (the client cancelled it or went away) is
 * `cancelled`, whatever it was answered: nobody reads the answer.
 */
export async function loggedRequest(
  logger: Logger,
  request: JSONRPCRequest,
  era: 'modern' | 'legacy',
  info: RequestInfo,
  run: () => Promise<Handled>,
): Promise<Handled> {
  const start = performance.now()
  const handled = await run()
  const durationMs = Math.round((performance.now() - start) * 1000) / 1000
  const { method, id } = request
  const param = targetParamOf(method)
  const target = param === undefined ? undefined : request.params?.[param]
  const record: LogRecord = { level: 'info', event: 'request', message: '', method, outcome: 'ok', era, requestId: id }
  if (typeof target === 'string') record.target = target
  record.durationMs = durationMs
  const response = handled.response as { result?: Record<string, unknown>; error?: { code: number } } | undefined
  if (!response || info.signal?.aborted) record.outcome = 'cancelled'
  else if (response.error) {
    record.code = response.error.code
    record.outcome = response.error.code === ErrorCode.InternalError ? 'error' : 'refused'
    record.level = record.outcome === 'error' ? 'error' : 'warn'
  } else if (response.result?.isError === true) record.outcome = 'toolError'
  else if (response.result?.resultType === 'input_required') record.outcome = 'inputRequired'
  record.message = `${method}${typeof target === 'string' ? ` ${target}` : ''}: ${record.outcome} in ${durationMs} ms`
  emit(logger, record)
  return handled
}
