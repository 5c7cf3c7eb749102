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

/**
 * The request never got an HTTP response: DNS, connection refused or reset, TLS, CORS refusal in a
 * browser. `cause` is what `fetch` threw (usually a `TypeError`). Nothing reached the server, or nothing
 * came back; the server sent no error.
 */
export class NetworkError extends Error {
  override readonly name: string = 'NetworkError'
  /** The endpoint that could not be reached. */
  readonly url: string
  constructor(url: string, cause: unknown) {
    super(`Could not reach ${url}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.url = url
  }
}
