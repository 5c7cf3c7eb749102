/**
 * JSON-RPC and MCP error codes, and the error class every layer throws (spec §6 "Error codes").
 * @module
 */

/** Error codes of JSON-RPC 2.0 and MCP 2026-07-28. */
export const ErrorCode = Object.freeze({
  /** Invalid JSON was received. */
  ParseError: -32700,
  /** The JSON sent is not a valid JSON-RPC request. */
  InvalidRequest: -32600,
  /** The method does not exist or is not available (HTTP 404). */
  MethodNotFound: -32601,
  /** Invalid method parameters, unknown tool, rejected `requestState`, missing envelope (HTTP 400). */
  InvalidParams: -32602,
  /** Internal error. */
  InternalError: -32603,
  /** A standard header is missing, malformed or differs from the body (HTTP 400). */
  HeaderMismatch: -32020,
  /** The request needs a client capability the client did not declare (HTTP 400). */
  MissingRequiredClientCapability: -32021,
  /** The requested protocol version is not supported (HTTP 400). */
  UnsupportedProtocolVersion: -32022,
} as const)

/**
 * An error with a JSON-RPC code, message and optional `data`. Thrown by handlers to answer with a
 * JSON-RPC error, and thrown by the client when the server answered with one.
 *
 * @example
 * throw new McpError(ErrorCode.InvalidParams, 'Unknown tool: nope')
 */
export class McpError extends Error {
  override readonly name: string = 'McpError'
  /** The JSON-RPC error code. */
  readonly code: number
  /** The error's `data` member, if any. */
  readonly data: unknown
  /**
   * The HTTP status a transport should answer with, when the spec fixes one (400 for envelope,
   * header, version and capability errors; 404 for unknown methods). Undefined means 200.
   */
  readonly httpStatus: number | undefined

  constructor(code: number, message: string, data?: unknown, httpStatus?: number) {
    super(message)
    this.code = code
    this.data = data
    this.httpStatus = httpStatus ?? defaultHttpStatus(code)
  }

  /** The JSON-RPC `error` member for this error. */
  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data }
  }
}

/**
 * The base of every error edge-mcp raises itself, modelled on jose's `JOSEError`: `code` is a stable string
 * to branch on (`ERR_…`; for `OAuthError`, the RFC 6749 §5.2 error code or a local reason), `name` the
 * class's name (set explicitly, so it survives minification). An error the peer answered on the wire is an
 * {@link McpError} instead, whose `code` is the JSON-RPC number.
 */
export class EdgeMcpError extends Error {
  override readonly name: string
  /** A stable, machine-readable code, e.g. `ERR_REQUEST_TIMEOUT`. */
  readonly code: string
  constructor(name: string, code: string, message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = name
    this.code = code
  }
}

/** The base of the errors the client side raises itself (transport, client loop, browser callbacks). */
export class ClientError extends EdgeMcpError {}

/** The base of the errors the server side raises itself (request-state codecs, resolvers, registration). */
export class ServerError extends EdgeMcpError {}

function defaultHttpStatus(code: number): number | undefined {
  switch (code) {
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400
    case ErrorCode.MethodNotFound:
      return 404
    default:
      return undefined
  }
}

/**
 * The one message every rejected `requestState` gets, whatever the cause (never reveals which check failed).
 * @internal not in the public API: the wire message both sides recognise
 */
export const INVALID_REQUEST_STATE_MESSAGE = 'Invalid or expired requestState'

/** The frozen JSON-RPC error for a rejected `requestState`: `-32602 "Invalid or expired requestState"`. */
export function invalidRequestStateError(): McpError {
  return new McpError(ErrorCode.InvalidParams, INVALID_REQUEST_STATE_MESSAGE, { reason: 'invalid_request_state' })
}

/**
 * `-32021` with `data.requiredCapabilities` (spec: MissingRequiredClientCapabilityError).
 * @param required - the capabilities the request needs, e.g. `{ elicitation: { form: {} } }`
 * @internal not in the public API: the server's error for a missing client capability
 */
export function missingCapabilityError(required: Record<string, unknown>, message?: string): McpError {
  const names = Object.keys(required).join(', ')
  return new McpError(
    ErrorCode.MissingRequiredClientCapability,
    message ?? `Server requires the ${names} capability for this request`,
    { requiredCapabilities: required },
  )
}
