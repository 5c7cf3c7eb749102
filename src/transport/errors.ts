/**
 * Transport-level errors raised on the client side (never sent by the server).
 * @module
 */

/**
 * An HTTP failure that is not an MCP answer: a status with no JSON-RPC body (proxy errors, 5xx pages),
 * and every 401 / 403 (authentication and authorization are HTTP matters; `wwwAuthenticate` is kept).
 */
export class HttpError extends Error {
  override readonly name: string = 'HttpError'
  /** The HTTP status code. */
  readonly status: number
  /** The response body as text (may be empty). */
  readonly body: string
  /** The `WWW-Authenticate` header of a 401 / 403, if any. */
  readonly wwwAuthenticate: string | undefined
  constructor(status: number, body: string, wwwAuthenticate?: string) {
    super(`HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`)
    this.status = status
    this.body = body
    this.wwwAuthenticate = wwwAuthenticate
  }
}


/** The server answered something that is not a valid MCP message or result (bad JSON, wrong id, bad shape). */
export class InvalidResultError extends Error {
  override readonly name: string = 'InvalidResultError'
}

/** A request got no answer within the client's `requestTimeoutMs`. */
export class RequestTimeoutError extends Error {
  override readonly name: string = 'RequestTimeoutError'
  /** The limit that passed, in milliseconds. */
  readonly timeoutMs: number
  constructor(method: string, timeoutMs: number) {
    super(`No answer to ${method} within ${timeoutMs} ms`)
    this.timeoutMs = timeoutMs
  }
}
