/**
 * The errors the client side raises itself (never sent by the server), each a `ClientError` with its own
 * `code`: distinguishable from `McpError`, which carries an error the server answered with.
 * @module
 */
import { ClientError } from '../protocol/errors.ts'
import type { DetailedTask } from '../protocol/schemas/index.ts'

/** A request got no answer within the client's `requestTimeoutMs`. */
export class RequestTimeoutError extends ClientError {
  static readonly code = 'ERR_REQUEST_TIMEOUT' as const
  readonly code = 'ERR_REQUEST_TIMEOUT' as const
  override readonly name: string = 'RequestTimeoutError'
  /** The limit that passed, in milliseconds. */
  readonly timeoutMs: number
  constructor(method: string, timeoutMs: number) {
    super(`No answer to ${method} within ${timeoutMs} ms`)
    this.timeoutMs = timeoutMs
  }
}

/** The server kept answering `InputRequiredResult` beyond the client's round limit. */
export class InputRequiredRoundsExceededError extends ClientError {
  static readonly code = 'ERR_INPUT_REQUIRED_ROUNDS_EXCEEDED' as const
  readonly code = 'ERR_INPUT_REQUIRED_ROUNDS_EXCEEDED' as const
  override readonly name: string = 'InputRequiredRoundsExceededError'
  /** The limit that was exceeded (retries allowed). */
  readonly maxRounds: number
  constructor(maxRounds: number) {
    super(
      `Server returned InputRequiredResult for more than ${maxRounds} rounds; raise maxRounds on the Client, ` +
        'or pass { manual: true } to drive the loop yourself.',
    )
    this.maxRounds = maxRounds
  }
}

/** The server asked for input (elicitation, sampling or roots) that this client has no callback for. */
export class MissingInputHandlerError extends ClientError {
  static readonly code = 'ERR_MISSING_INPUT_HANDLER' as const
  readonly code = 'ERR_MISSING_INPUT_HANDLER' as const
  override readonly name: string = 'MissingInputHandlerError'
  /** The capability the server asked for: `elicitation`, `sampling` or `roots`. */
  readonly capability: 'elicitation' | 'sampling' | 'roots'
  /** The `inputRequests` key of the request. */
  readonly key: string
  constructor(capability: 'elicitation' | 'sampling' | 'roots', key: string) {
    super(`The server asked for ${capability} (input request '${key}') but this Client has no ${capability} callback`)
    this.capability = capability
    this.key = key
  }
}

/** An input callback (elicitation, sampling, roots) returned something that is not a valid answer. */
export class InvalidInputResponseError extends ClientError {
  static readonly code = 'ERR_INVALID_INPUT_RESPONSE' as const
  readonly code = 'ERR_INVALID_INPUT_RESPONSE' as const
  override readonly name: string = 'InvalidInputResponseError'
  /** The `inputRequests` key whose answer was invalid. */
  readonly key: string
  constructor(key: string, detail: string) {
    super(`The answer to input request '${key}' is invalid: ${detail}`)
    this.key = key
  }
}

/**
 * A task (`io.modelcontextprotocol/tasks`) ended without a result: `'cancelled'` (its status became
 * `cancelled`), `'not_found'` (`tasks/get` answered -32602: the server no longer knows it — deleted at its TTL,
 * or never this caller's; the McpError is the `cause`), or `'expired'` (its TTL passed while it still was not done).
 */
export class TaskEndedError extends ClientError {
  static readonly code = 'ERR_TASK_ENDED' as const
  readonly code = 'ERR_TASK_ENDED' as const
  override readonly name: string = 'TaskEndedError'
  readonly taskId: string
  readonly reason: 'cancelled' | 'not_found' | 'expired'
  /** The task as last seen (undefined when it was never read). */
  readonly task: DetailedTask | undefined
  constructor(taskId: string, reason: TaskEndedError['reason'], task?: DetailedTask, cause?: unknown) {
    const why = { cancelled: 'was cancelled', not_found: 'is not found', expired: 'outlived its TTL' }[reason]
    super(`Task ${taskId} ${why}${task?.statusMessage ? `: ${task.statusMessage}` : ''}`, cause ? { cause } : undefined)
    this.taskId = taskId
    this.reason = reason
    this.task = task
  }
}

/**
 * A `subscriptions/listen` stream broke after its acknowledgement without the server's closing result
 * (a network drop, a proxy timeout, a server restart). Notifications may have been missed: re-read what
 * you care about and listen again (spec: subscriptions.mdx "Graceful Closure").
 */
export class SubscriptionDroppedError extends ClientError {
  static readonly code = 'ERR_SUBSCRIPTION_DROPPED' as const
  readonly code = 'ERR_SUBSCRIPTION_DROPPED' as const
  override readonly name: string = 'SubscriptionDroppedError'
  /** The id of the listen request (its subscriptionId). */
  readonly subscriptionId: string | number
  constructor(subscriptionId: string | number, cause: unknown) {
    super(
      `Subscription ${JSON.stringify(subscriptionId)} dropped: ${cause instanceof Error && cause.name === 'SessionEnded' ? cause.message : "the stream closed without the server's closing result"}`,
      { cause },
    )
    this.subscriptionId = subscriptionId
  }
}

/**
 * An HTTP failure that is not an MCP answer: a status with no JSON-RPC body (proxy errors, 5xx pages),
 * and every 401 / 403 (authentication and authorization are HTTP matters; `wwwAuthenticate` is kept).
 *
 * The message is `HTTP <status>` and, when the body says something, a readable line of it (at most 200
 * characters, whitespace collapsed, `…` when cut): a JSON-RPC error object gives its `error.message`, an
 * HTML page its `<title>` (else its text without tags), any other body its text. For example:
 * - `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Forbidden: …"}}` (403) →
 *   `HTTP 403: Forbidden: …`
 * - `<html><head><title>502 Bad Gateway</title></head>…</html>` (502) → `HTTP 502: 502 Bad Gateway`
 * - `upstream connect error\n  or disconnect` (503) → `HTTP 503: upstream connect error or disconnect`
 * - an empty body (401) → `HTTP 401`
 *
 * `body` keeps the raw body, unshortened.
 */
export class HttpError extends ClientError {
  static readonly code = 'ERR_HTTP' as const
  readonly code = 'ERR_HTTP' as const
  override readonly name: string = 'HttpError'
  /** The HTTP status code. */
  readonly status: number
  /** The response body as text, as received (may be empty). */
  readonly body: string
  /** The `WWW-Authenticate` header of a 401 / 403, if any. */
  readonly wwwAuthenticate: string | undefined
  constructor(status: number, body: string, wwwAuthenticate?: string) {
    const said = readableBody(body)
    super(`HTTP ${status}${said ? `: ${said}` : ''}`)
    this.status = status
    this.body = body
    this.wwwAuthenticate = wwwAuthenticate
  }
}

/** The most of a body an {@link HttpError} message shows, in characters. */
const BODY_SHOWN = 200
/** How much of a body is read for that, in characters (an HTML page's title is near its top). */
const BODY_READ = 65_536

/** What an HTTP error body says, in one line of at most {@link BODY_SHOWN} characters ('' for nothing). */
function readableBody(body: string): string {
  const text = body.trim()
  if (!text) return ''
  return shorten(jsonRpcMessage(text) ?? htmlText(text) ?? text)
}

/** `error.message` of a JSON-RPC error object, else undefined. */
function jsonRpcMessage(text: string): string | undefined {
  if (!text.startsWith('{')) return undefined
  try {
    const parsed: unknown = JSON.parse(text)
    const error = (parsed as { error?: unknown } | null)?.error
    const message = (error as { message?: unknown } | null)?.message
    return typeof error === 'object' && typeof message === 'string' && message.trim() ? message : undefined
  } catch {
    return undefined
  }
}

/**
 * An HTML page's `<title>` text, else its text without tags, scripts and styles; undefined when not HTML.
 * Linear in the page's length (no backtracking pattern), since a body may be anything.
 */
function htmlText(page: string): string | undefined {
  // markup: opens with a doctype or a tag, and closes some element
  if (!/^<(!doctype\s+html|[a-z][a-z0-9]*)[\s/>]/i.test(page) || !page.includes('</')) return undefined
  const text = page.slice(0, BODY_READ)
  const lower = text.toLowerCase()
  const shown = (s: string) => decodeEntities(s.replace(/<[^<>]*>/g, ' ')).trim()
  const open = lower.indexOf('<title')
  const start = open < 0 ? -1 : lower.indexOf('>', open) + 1
  const end = start > 0 ? lower.indexOf('</title', start) : -1
  const title = end > 0 ? shown(text.slice(start, end)) : ''
  if (title) return title
  let visible = ''
  const hidden = /<(script|style)[\s>]/g
  for (let at = 0, next; at < text.length;) {
    hidden.lastIndex = at
    if (!(next = hidden.exec(lower))) {
      visible += text.slice(at)
      break
    }
    visible += `${text.slice(at, next.index)} `
    const close = lower.indexOf(`</${next[1]}`, next.index)
    const after = close < 0 ? -1 : lower.indexOf('>', close)
    if (after < 0) break
    at = after + 1
  }
  return shown(visible) || undefined
}

/** The few HTML entities error pages use. */
function decodeEntities(s: string): string {
  const named: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }
  return s.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (entity, name: string) => {
    if (name[0] !== '#') return named[name.toLowerCase()] ?? entity
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10)
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity
  })
}

/** Whitespace collapsed to single spaces, cut to {@link BODY_SHOWN} characters with `…`. */
function shorten(s: string): string {
  const line = s.slice(0, BODY_READ).replace(/\s+/g, ' ').trim()
  return line.length > BODY_SHOWN ? `${line.slice(0, BODY_SHOWN - 1)}…` : line
}

/** The server answered something that is not a valid MCP message or result (bad JSON, wrong id, bad shape). */
export class InvalidResultError extends ClientError {
  static readonly code = 'ERR_INVALID_RESULT' as const
  readonly code = 'ERR_INVALID_RESULT' as const
  override readonly name: string = 'InvalidResultError'
}

/**
 * The request never got an HTTP response: DNS, connection refused or reset, TLS, CORS refusal in a
 * browser; or its SSE stream broke off while being read (connection reset) with no way to resume it.
 * The message says what happened once, with the system error code when the runtime gives one:
 * `Could not reach http://127.0.0.1:8787/mcp: connection refused (ECONNREFUSED)` (Node, Bun), `…: Failed
 * to fetch (the server may be down, or may not allow requests from this page's origin)` (a browser, which
 * gives no reason), `The connection to … broke off: …` (a stream). `cause` is what `fetch` or the body's
 * reader threw (usually a `TypeError`, on Node with the system error as its own `cause`). The server sent
 * no error.
 */
export class NetworkError extends ClientError {
  static readonly code = 'ERR_NETWORK' as const
  readonly code = 'ERR_NETWORK' as const
  override readonly name: string = 'NetworkError'
  /** The endpoint that could not be reached. */
  readonly url: string
  /**
   * @param phase - `'request'` (default): no response came; `'stream'`: a response's body broke off.
   */
  constructor(url: string, cause: unknown, phase: 'request' | 'stream' = 'request') {
    const reason = networkReason(cause, url)
    super(phase === 'stream' ? `The connection to ${url} broke off: ${reason}` : `Could not reach ${url}: ${reason}`, {
      cause,
    })
    this.url = url
  }
}

/** System error codes in words (Node's and Bun's `code`, undici's `UND_ERR_*`). */
const CODE_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ECONNABORTED: 'connection aborted',
  EPIPE: 'connection closed',
  ETIMEDOUT: 'connection timed out',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'temporary failure in name resolution',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no response headers in time',
  UND_ERR_BODY_TIMEOUT: 'the response stalled',
  UND_ERR_SOCKET: 'the server closed the connection',
}

/** What a browser's `fetch` says for every network or CORS failure (Chromium, Firefox, Safari): no reason given. */
const BROWSER_GENERIC = /^(Failed to fetch|NetworkError when attempting to fetch resource\.?|Load failed)$/

/**
 * Why a fetch or a body read failed, said once: the system error code in words with the code
 * (`connection refused (ECONNREFUSED)`), else the innermost error's message (Node's outer `fetch failed`
 * and Deno's `error sending request for url (…)` prefix dropped); a browser's reasonless `Failed to fetch`
 * gets the two likely causes.
 */
function networkReason(cause: unknown, url: string): string {
  let code: string | undefined
  let message = ''
  const seen = new Set<unknown>()
  for (let e: unknown = cause; e instanceof Error && !seen.has(e) && seen.size < 8;) {
    seen.add(e)
    const c = (e as { code?: unknown }).code
    if (typeof c === 'string' && /^[A-Z][A-Z0-9_]+$/.test(c)) code = c // the innermost code wins
    if (e.message) message = e.message
    // an AggregateError (one error per address tried) without a code of its own: its first error
    const inner = (e as { errors?: unknown }).errors
    e = e.cause ?? (typeof c !== 'string' && Array.isArray(inner) ? (inner[0] as unknown) : undefined)
  }
  if (!(cause instanceof Error)) message = String(cause)
  message = message.replace(`error sending request for url (${url}): `, '') // Deno names the URL again
  if (code) {
    const words = CODE_WORDS[code]
    if (words) return `${words} (${code})`
    return message.includes(code) ? message : `${message || 'failed'} (${code})`
  }
  if (BROWSER_GENERIC.test(message))
    return `${message} (the server may be down, or may not allow requests from this page's origin)`
  return message || 'failed'
}

/**
 * An OAuth failure: discovery, validation, registration, an authorization or token error. `code` is always
 * `ERR_OAUTH`; `error` says which failure it was.
 */
export class OAuthError extends ClientError {
  static readonly code = 'ERR_OAUTH' as const
  readonly code = 'ERR_OAUTH' as const
  override readonly name: string = 'OAuthError'
  /**
   * The OAuth `error` code when the authorization server sent one (RFC 6749 §5.2, e.g. `invalid_grant`),
   * else a local reason (`invalid_issuer`, `invalid_state`, `no_client`, …).
   */
  readonly error: string
  constructor(error: string, message: string) {
    super(message)
    this.error = error
  }
}

/**
 * The stdio connection is over: the server closed its output (it exited, or crashed) or reading it failed,
 * or `close()` was called. Pending requests fail with it, and so does every later `send`. The spec's
 * advice for an unexpected exit is to start the server again and retry (stdio.mdx "Unexpected Termination").
 */
export class ConnectionClosedError extends ClientError {
  static readonly code = 'ERR_CONNECTION_CLOSED' as const
  readonly code = 'ERR_CONNECTION_CLOSED' as const
  override readonly name: string = 'ConnectionClosedError'
}

/**
 * The user declined a sampling request in a browser form (Decline, Escape, the form removed), or the round
 * it belonged to was cancelled. A sampling answer has no "declined" shape, so the sampling callback of
 * `edge-mcp/browser` rejects with this and the call is abandoned (spec: client/sampling.mdx, Error Handling).
 */
export class SamplingDeclinedError extends ClientError {
  static readonly code = 'ERR_SAMPLING_DECLINED' as const
  readonly code = 'ERR_SAMPLING_DECLINED' as const
  override readonly name: string = 'SamplingDeclinedError'
  constructor(message = 'The user declined the sampling request') {
    super(message)
  }
}
