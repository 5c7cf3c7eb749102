/**
 * Transport-level errors raised on the client side (never sent by the server).
 * @module
 */
import { ClientError } from '../protocol/errors.ts'

/**
 * An HTTP failure that is not an MCP answer: a status with no JSON-RPC body (proxy errors, 5xx pages),
 * and every 401 / 403 (authentication and authorization are HTTP matters; `wwwAuthenticate` is kept).
 */
export class HttpError extends ClientError {
  /** The HTTP status code. */
  readonly status: number
  /** The response body as text (may be empty). */
  readonly body: string
  /** The `WWW-Authenticate` header of a 401 / 403, if any. */
  readonly wwwAuthenticate: string | undefined
  constructor(status: number, body: string, wwwAuthenticate?: string) {
    super('HttpError', 'ERR_HTTP', `HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`)
    this.status = status
    this.body = body
    this.wwwAuthenticate = wwwAuthenticate
  }
}

/** The server answered something that is not a valid MCP message or result (bad JSON, wrong id, bad shape). */
export class InvalidResultError extends ClientError {
  constructor(message: string, options?: ErrorOptions) {
    super('InvalidResultError', 'ERR_INVALID_RESULT', message, options)
  }
}

/**
 * The request never got an HTTP response: DNS, connection refused or reset, TLS, CORS refusal in a
 * browser; or its SSE stream broke off while being read (connection reset) with no way to resume it.
 * `cause` is what `fetch` or the body's reader threw (usually a `TypeError`). The server sent no error.
 */
export class NetworkError extends ClientError {
  /** The endpoint that could not be reached. */
  readonly url: string
  constructor(url: string, cause: unknown) {
    super(
      'NetworkError',
      'ERR_NETWORK',
      `Could not reach ${url}: ${cause instanceof Error ? cause.message : String(cause)}`,
      {
        cause,
      },
    )
    this.url = url
  }
}

/** An OAuth failure: discovery, validation, registration, an authorization or token error. */
export class OAuthError extends ClientError {
  /** The OAuth `error` code when the authorization server sent one (RFC 6749 §5.2), else a local reason. */
  declare readonly code: string
  constructor(code: string, message: string) {
    super('OAuthError', code, message)
  }
}
