/**
 * Building the {@link RequestContext} of one request: the transport's facts, the envelope's shorthands,
 * the opened `requestState`, and the progress and log notifiers.
 * @module
 */
import { requireCapabilities, type RequestEnvelope, type RequiredCapability } from '../protocol/envelope.ts'
import type { JSONRPCRequest, LoggingLevel } from '../protocol/schemas/index.ts'
import type { RequestContext, RequestInfo } from './context.ts'

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

/**
 * The context of one request: the transport's `info`, the envelope's shorthands, the opened
 * `requestState`, and `sendProgress` / `log`, which notify through `info.notify` only when the envelope
 * asked for them (a `progressToken`; a `logLevel` at most as severe as the message).
 * @param requestState - the plaintext state for {@link RequestContext.requestState}.
 */
export function createRequestContext(
  request: JSONRPCRequest,
  envelope: RequestEnvelope,
  info: RequestInfo,
  requestState: string | undefined,
): RequestContext {
  let lastProgress = -Infinity
  // Object.assign, not `{ ...info, … }`: V8 takes a slow path for properties written after a spread.
  return Object.assign({}, info, {
    method: request.method,
    requestId: request.id,
    envelope,
    protocolVersion: envelope.protocolVersion,
    clientCapabilities: envelope.clientCapabilities,
    clientInfo: envelope.clientInfo,
    signal: info.signal ?? new AbortController().signal,
    requestState,
    requireCapabilities: (...needs: RequiredCapability[]) => requireCapabilities(envelope.clientCapabilities, ...needs),
    sendProgress: (progress: number, total?: number, message?: string) => {
      const token = envelope.progressToken
      if (token === undefined || !info.notify || !(progress > lastProgress)) return false
      lastProgress = progress
      const params: Record<string, unknown> = { progressToken: token, progress }
      if (total !== undefined) params.total = total
      if (message !== undefined) params.message = message
      info.notify({ jsonrpc: '2.0', method: 'notifications/progress', params })
      return true
    },
    log: (level: LoggingLevel, data: unknown, logger?: string) => {
      const wanted = envelope.logLevel
      if (wanted === undefined || !info.notify || LOG_SEVERITY[level] < LOG_SEVERITY[wanted]) return false
      const params: Record<string, unknown> = { level, data }
      if (logger !== undefined) params.logger = logger
      info.notify({ jsonrpc: '2.0', method: 'notifications/message', params })
      return true
    },
  } satisfies Omit<RequestContext, keyof RequestInfo> & { signal: AbortSignal })
}
