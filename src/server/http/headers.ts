/**
 * The standard headers of a 2026-07-28 request checked against its body (spec: streamable-http.mdx
 * "Standard headers"): `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`.
 * @module
 */
import { HEADER, META, targetParamOf } from '../../protocol/constants.ts'
import { ErrorCode, McpError } from '../../protocol/errors.ts'
import { decodeHeaderValue, isVisibleAscii, quoteValue } from '../../protocol/headers.ts'
import type { JSONRPCRequest } from '../../protocol/schemas/index.ts'

/**
 * Compare the standard headers with the body (spec: streamable-http.mdx "Standard headers"). Each
 * recognised header's raw value must be tab or visible ASCII before it is compared or decoded (a
 * Latin-1 or raw UTF-8 value is a mismatch even when it spells the body's value); the message shows
 * both values quoted, non-ASCII escaped ({@link quoteValue}).
 * @returns a -32020 error, or undefined when they agree.
 */
export function checkHeaders(headers: Headers, request: JSONRPCRequest): McpError | undefined {
  const params = request.params ?? {}
  const meta = (params._meta ?? {}) as Record<string, unknown>
  const version = headers.get(HEADER.protocolVersion)
  if (version === null) return mismatch('Header mismatch: missing MCP-Protocol-Version header')
  if (!isVisibleAscii(version)) return notAscii('MCP-Protocol-Version', version)
  const bodyVersion = meta[META.protocolVersion]
  if (typeof bodyVersion === 'string' && version !== bodyVersion)
    return differs('MCP-Protocol-Version', version, bodyVersion)
  const method = headers.get(HEADER.method)
  if (method === null) return mismatch('Header mismatch: missing Mcp-Method header')
  if (!isVisibleAscii(method)) return notAscii('Mcp-Method', method)
  if (method !== request.method) return differs('Mcp-Method', method, request.method)
  // tasks/get, tasks/update, tasks/cancel carry the task id (ext-tasks: "Streamable HTTP: Routing Headers")
  const nameParam = targetParamOf(request.method) ?? (TASK_METHODS.has(request.method) ? 'taskId' : undefined)
  if (nameParam) {
    const raw = headers.get(HEADER.name)
    if (raw === null) return mismatch('Header mismatch: missing Mcp-Name header')
    if (!isVisibleAscii(raw)) return notAscii('Mcp-Name', raw)
    const decoded = decodeHeaderValue(raw)
    if (decoded === undefined) return mismatch('Header mismatch: Mcp-Name header has an invalid =?base64?…?= value')
    const bodyValue = params[nameParam]
    if (typeof bodyValue === 'string' && decoded !== bodyValue) return differs('Mcp-Name', decoded, bodyValue)
  }
  return undefined
}

const TASK_METHODS = new Set(['tasks/get', 'tasks/update', 'tasks/cancel'])

/** A header whose raw value has a char outside tab and 0x20–0x7E (non-ASCII must come base64-encoded). */
function notAscii(header: string, raw: string): McpError {
  return mismatch(
    `Header mismatch: ${header} header value ${quoteValue(raw)} is not visible ASCII (non-ASCII values must be sent as =?base64?…?=)`,
  )
}

function differs(header: string, value: string, bodyValue: string): McpError {
  return mismatch(
    `Header mismatch: ${header} header value ${quoteValue(value)} does not match body value ${quoteValue(bodyValue)}`,
  )
}

function mismatch(message: string): McpError {
  return new McpError(ErrorCode.HeaderMismatch, message)
}
