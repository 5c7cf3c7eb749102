/**
 * A 2026-07-28 request as the `Client` sends it: the per-request `_meta` envelope (protocol version;
 * capabilities, with the tasks extension added on `tools/call`, `tasks/*` and `subscriptions/listen`, see
 * tasks.ts; client info), the `progressToken` and log level, then the exchange within the request timeout.
 * @module
 */
import { META } from '../protocol/constants.ts'
import type { ClientCapabilities } from '../protocol/schemas/index.ts'
import { exchange, type ExchangeOptions } from './exchange.ts'
import { clientInfoOf, DEFAULT_REQUEST_TIMEOUT_MS, wantsProgress, type ClientOptions } from './options.ts'
import { declaredCapabilities } from './tasks.ts'

type Meta = Record<string, unknown>

/** What the envelope is read from (a `Client`). */
export interface EnvelopeSource {
  readonly options: ClientOptions
  readonly protocolVersion: string
  readonly capabilities: ClientCapabilities
}

/** The request `_meta` of `method`: `extra` (the caller's own keys), then the envelope every request carries. */
export function envelopeOf(client: EnvelopeSource, method: string, extra?: Meta): Meta {
  return {
    ...extra,
    [META.protocolVersion]: client.protocolVersion,
    [META.clientCapabilities]: declaredCapabilities(method, client.capabilities),
    [META.clientInfo]: clientInfoOf(client.options),
  }
}

/** Exchange a 2026-07-28 request: `_meta` is `own` (the caller's keys and middleware's), then the envelope. */
export function exchangeEnveloped(
  client: EnvelopeSource,
  method: string,
  params: Meta,
  own: Meta | undefined,
  options: ExchangeOptions,
  id: number,
): Promise<Record<string, unknown>> {
  const progressToken = `progress-${id}`
  const meta = envelopeOf(client, method, own)
  if (wantsProgress(method, options)) meta.progressToken = progressToken
  if (options.logLevel) meta[META.logLevel] = options.logLevel
  const message = { jsonrpc: '2.0' as const, id, method, params: { ...params, _meta: meta } }
  const timeoutMs = client.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
  return exchange(client.options.transport, message, options, timeoutMs, progressToken)
}
