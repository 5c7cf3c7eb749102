/**
 * JSON-RPC 2.0 framing: classify exactly one inbound message (no batches in MCP 2026-07-28).
 * @module
 */
import { ErrorCode, McpError } from './errors.ts'
import type { JSONRPCErrorResponse, JSONRPCNotification, JSONRPCRequest, RequestId } from './schemas/index.ts'

/**
 * One classified inbound message.
 * @internal not in the public API: what the transports hand the server
 */
export type InboundMessage =
  | { kind: 'request'; message: JSONRPCRequest }
  | { kind: 'notification'; message: JSONRPCNotification }
  | { kind: 'response'; message: InboundResponse }

/**
 * A client's answer to a server-to-client request (2025-era only): its id, and its result object or its
 * error (`code` an integer, `message` a string), checked by {@link classifyMessage}.
 */
export interface InboundResponse {
  id: RequestId
  result?: Record<string, unknown>
  error?: { code: number; message: string; data?: unknown }
}

/** True for a JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** True for a value JSON-RPC allows as a request id: a string or a finite number. */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))
}

/** A request id as a map key that keeps `1` and `"1"` apart (JSON-RPC: they are different ids). */
export function requestIdKey(id: RequestId): string {
  return `${typeof id}:${String(id)}`
}

/**
 * Parse the text of one JSON-RPC message.
 * @throws McpError -32700 for invalid JSON; -32600 as {@link classifyMessage}.
 * @internal exported for unit tests only; not part of the public API
 */
export function parseMessage(text: string): InboundMessage {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new McpError(ErrorCode.ParseError, 'Parse error: the body is not valid JSON')
  }
  return classifyMessage(value)
}

/**
 * Classify an already-parsed JSON value as one request, one notification, or one response (a 2025-era
 * client's answer to a server-to-client request; the server decides whether it is welcome).
 * @throws McpError -32600 for a batch, a non-object, a bad `jsonrpc`, a missing or non-string `method`
 *   (on a message that is not a response), an id that is neither a string nor a number, non-object
 *   params, or a malformed response (see `responseOf`). The caller echoes the id when it is readable
 *   ({@link requestIdOf}).
 */
export function classifyMessage(value: unknown): InboundMessage {
  if (Array.isArray(value))
    throw new McpError(
      ErrorCode.InvalidRequest,
      'Invalid Request: batches are not supported; send exactly one JSON-RPC message',
    )
  if (!isPlainObject(value))
    throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: the message must be a JSON object')
  if (value.jsonrpc !== '2.0') throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: "jsonrpc" must be "2.0"')
  if (!('method' in value)) {
    if ('result' in value || 'error' in value) return { kind: 'response', message: responseOf(value) }
    throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: missing "method"')
  }
  if (typeof value.method !== 'string' || value.method === '')
    throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: "method" must be a non-empty string')
  if (value.params !== undefined && !isPlainObject(value.params))
    throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: "params" must be an object')
  const params = value.params
  if (!('id' in value)) return { kind: 'notification', message: { jsonrpc: '2.0', method: value.method, params } }
  if (!isRequestId(value.id))
    throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: "id" must be a string or a number')
  return { kind: 'request', message: { jsonrpc: '2.0', id: value.id, method: value.method, params } }
}

/**
 * A response's id and its result or error, checked.
 * @throws McpError -32600 for a response without a string or number id, with both or a malformed result
 *   or error.
 */
function responseOf(value: Record<string, unknown>): InboundResponse {
  if (!isRequestId(value.id))
    throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: a response "id" must be a string or a number')
  const { result, error } = value
  if ('result' in value && 'error' in value)
    throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: a response has "result" or "error", not both')
  if ('result' in value) {
    if (!isPlainObject(result))
      throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: a response "result" must be an object')
    return { id: value.id, result }
  }
  if (!isPlainObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string')
    throw new McpError(
      ErrorCode.InvalidRequest,
      'Invalid Request: a response "error" must be an object with an integer "code" and a string "message"',
    )
  const out: InboundResponse['error'] = { code: error.code as number, message: error.message }
  if ('data' in error) out.data = error.data
  return { id: value.id, error: out }
}

/** The id of a parsed value if it is a readable request id, else null (for error replies). */
export function requestIdOf(value: unknown): RequestId | null {
  return isPlainObject(value) && isRequestId(value.id) ? value.id : null
}

/**
 * Build a JSON-RPC error response. When the request's id could not be read (`null`), the response has
 * no `id` member: MCP's schema types it `id?: RequestId` and forbids `null` (spec: basic/index.mdx).
 */
export function errorResponse(id: RequestId | null, error: McpError): JSONRPCErrorResponse {
  return id === null ? { jsonrpc: '2.0', error: error.toJSON() } : { jsonrpc: '2.0', id, error: error.toJSON() }
}
