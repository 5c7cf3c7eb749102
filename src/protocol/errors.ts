/**
 * JSON-RPC and MCP error codes and the wire error `McpError` (spec §6 "Error codes"); the base of the errors
 * edge-mcp raises itself (`EdgeMcpError`, its `code` union, a base per side) and the one error of either side.
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
 * The `code` of every {@link EdgeMcpError}, one per error class (the class's static `code`), modelled on jose's
 * `JOSEErrorCode`. Branch on it, or on `instanceof` the class.
 */
export type EdgeMcpErrorCode =
  // either side
  | 'ERR_URI_TEMPLATE'
  // the client (edge-mcp/client, edge-mcp/browser)
  | 'ERR_HTTP'
  | 'ERR_NETWORK'
  | 'ERR_INVALID_RESULT'
  | 'ERR_REQUEST_TIMEOUT'
  | 'ERR_INPUT_REQUIRED_ROUNDS_EXCEEDED'
  | 'ERR_MISSING_INPUT_HANDLER'
  | 'ERR_INVALID_INPUT_RESPONSE'
  | 'ERR_SUBSCRIPTION_DROPPED'
  | 'ERR_CONNECTION_CLOSED'
  | 'ERR_OAUTH'
  | 'ERR_SAMPLING_DECLINED'
  | 'ERR_TASK_ENDED'
  // the server (edge-mcp/server, edge-mcp/oauth)
  | 'ERR_INVALID_REQUEST_STATE'
  | 'ERR_INVALID_SIGNATURE'
  | 'ERR_RESOLUTION'
  | 'ERR_QUESTION_TIMEOUT'
  | 'ERR_REQUEST_CANCELLED'
  | 'ERR_INVALID_TOKEN'
  | 'ERR_KEY_SOURCE'
  | 'ERR_HANDLER_RESULT'
  | 'ERR_INVALID_ANSWER'
  | 'ERR_UPSTREAM'

/**
 * The base of every error edge-mcp raises itself, modelled on jose's `JOSEError`: each class has a static
 * `code` and the same instance `code` (an {@link EdgeMcpErrorCode}, a stable string to branch on), and its
 * `name` set explicitly, so it survives minification. An error the peer answered on the wire is an
 * {@link McpError} instead, whose `code` is the JSON-RPC number.
 */
export abstract class EdgeMcpError extends Error {
  /** A stable, machine-readable code, e.g. `ERR_REQUEST_TIMEOUT`. */
  abstract readonly code: EdgeMcpErrorCode
  /**
   * @param message - what went wrong, in words.
   * @param options - `cause`: the error behind this one, if any.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
  }
}

/** The base of the errors the client side raises itself (transport, client loop, OAuth, browser callbacks). */
export abstract class ClientError extends EdgeMcpError {}

/**
 * The base of the errors the server side raises itself (request-state codecs, resolvers, registration,
 * questions to 2025-era clients, token verifiers).
 */
export abstract class ServerError extends EdgeMcpError {}

/** A template that is not valid RFC 6570, or a value a template cannot expand (a prefix of a list). */
export class UriTemplateError extends EdgeMcpError {
  static readonly code = 'ERR_URI_TEMPLATE' as const
  readonly code = 'ERR_URI_TEMPLATE' as const
  override readonly name: string = 'UriTemplateError'
}

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
