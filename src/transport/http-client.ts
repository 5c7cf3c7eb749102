/**
 * Streamable HTTP, client side, over `fetch` (spec: basic/transports/streamable-http.mdx).
 * @module
 */
import { HEADER, META, targetParamOf } from '../protocol/constants.ts'
import { encodeHeaderValue } from '../protocol/headers.ts'
import type { JSONRPCNotification, JSONRPCRequest, JSONRPCResponse } from '../protocol/schemas/index.ts'
import { bearerParams } from './oauth-discovery.ts'
import type { OAuthClientProvider } from './oauth.ts'
import { HttpError, InvalidResultError, NetworkError } from './errors.ts'

/** Options for one message sent by a {@link ClientTransport}. */
export interface SendOptions {
  /** Aborts the HTTP request (closing the stream is the cancel in 2026-07-28). */
  signal?: AbortSignal
  /** Called for each notification received on the request's SSE stream before its response. */
  onNotification?: (notification: JSONRPCNotification) => void
  /** Extra request headers for this message only (e.g. `Mcp-Param-*`). */
  headers?: Record<string, string>
  /**
   * Runs a step that waits for the user (the OAuth login in the browser) with the request timeout
   * paused: the `Client` passes one, so a slow login is not a `RequestTimeoutError`. The caller's own
   * abort still applies.
   */
  interactive?: <T>(step: () => Promise<T>) => Promise<T>
  /**
   * Called for each server-to-client request (a 2025-era server's `elicitation/create`,
   * `sampling/createMessage`, `roots/list`, `ping`) on the request's SSE stream; the stream goes on
   * being read meanwhile. The answer is the caller's to send (a response message, through `send`).
   */
  onRequest?: (request: JSONRPCRequest) => void
  /** Called with the HTTP response before its body is read (a 2025-era client reads `Mcp-Session-Id`). */
  onResponse?: (response: Response) => void
}

/** What a transport sends: a request, a notification, or (2025-era) the answer to a server's request. */
export type OutboundMessage = JSONRPCRequest | JSONRPCNotification | JSONRPCResponse

/** Moves one JSON-RPC message to the server and brings back its response (undefined for notifications). */
export interface ClientTransport {
  send(message: OutboundMessage, options?: SendOptions): Promise<unknown>
  /**
   * End a 2025-era session: `DELETE` with these headers (`Mcp-Session-Id`); a 405 (the server does not
   * let clients end sessions) is no failure. Optional: transports without sessions leave it out.
   */
  endSession?(headers: Record<string, string>): Promise<void>
}

/** Options of {@link StreamableHttpClientTransport}. */
export interface StreamableHttpClientTransportOptions {
  /** The fetch to use (default: the global one). Handy for tests and for custom agents. */
  fetch?: (input: Request) => Promise<Response>
  /** Extra headers on every request (e.g. `Authorization`), or a function returning them. */
  headers?: HeadersInit | (() => HeadersInit | Promise<HeadersInit>)
  /**
   * OAuth (spec: basic/authorization): sends the stored access token, and on `401` or
   * `403 insufficient_scope` authorizes and retries (once after a 401, `maxStepUps` times after 403s).
   */
  auth?: OAuthClientProvider
}

/**
 * POSTs each message with the standard headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) and
 * reads a JSON or SSE answer.
 *
 * @throws HttpError for an HTTP failure whose body is not a JSON-RPC message (status, body text kept).
 * @example
 * const transport = new StreamableHttpClientTransport('http://127.0.0.1:8787/mcp')
 */
export class StreamableHttpClientTransport implements ClientTransport {
  readonly url: string
  readonly #fetch: (input: Request) => Promise<Response>
  readonly #headers: StreamableHttpClientTransportOptions['headers']
  readonly #auth: OAuthClientProvider | undefined

  constructor(url: string | URL, options: StreamableHttpClientTransportOptions = {}) {
    this.url = String(url)
    this.#fetch = options.fetch ?? ((input) => fetch(input))
    this.#headers = options.headers
    this.#auth = options.auth
  }

  /**
   * Send one message and read its answer.
   * @throws HttpError for 401/403 (after the OAuth retries, when `auth` is set) and non-MCP HTTP failures;
   *   OAuthError when authorization itself fails.
   */
  async send(message: OutboundMessage, options: SendOptions = {}): Promise<unknown> {
    const auth = this.#auth
    let response = await this.#post(message, options)
    let reauthorized = false
    let stepUps = 0
    while (auth && (response.status === 401 || response.status === 403)) {
      const challenge = response.headers.get('www-authenticate') ?? undefined
      if (
        response.status === 401
          ? reauthorized
          : bearerParams(challenge).error !== 'insufficient_scope' || stepUps >= auth.maxStepUps
      )
        break
      if (response.status === 401) reauthorized = true
      else stepUps++
      await response.body?.cancel().catch(() => {})
      await auth.authorize(this.url, challenge, options.signal, options.interactive)
      response = await this.#post(message, options)
    }
    return this.#read(message, response, options)
  }

  /**
   * `DELETE` the session named in `headers` (spec 2025-11-25: transports.mdx "Session Management").
   * @throws HttpError for a failure other than 404 (already gone) or 405 (not supported); NetworkError.
   */
  async endSession(headers: Record<string, string>): Promise<void> {
    const all = new Headers(typeof this.#headers === 'function' ? await this.#headers() : this.#headers)
    for (const [k, val] of Object.entries(headers)) all.set(k, val)
    const authorization = await this.#auth?.authorizationHeader(this.url)
    if (authorization) all.set('authorization', authorization)
    let response: Response
    try {
      response = await this.#fetch(new Request(this.url, { method: 'DELETE', headers: all }))
    } catch (error) {
      throw new NetworkError(this.url, error)
    }
    await response.body?.cancel().catch(() => {})
    if (!response.ok && response.status !== 404 && response.status !== 405)
      throw new HttpError(response.status, 'DELETE of the session failed')
  }

  async #post(message: OutboundMessage, options: SendOptions): Promise<Response> {
    const headers = new Headers(typeof this.#headers === 'function' ? await this.#headers() : this.#headers)
    headers.set('content-type', 'application/json')
    headers.set('accept', 'application/json, text/event-stream')
    const params = ('params' in message ? message.params : undefined) ?? {}
    const version = (params._meta as Record<string, unknown> | undefined)?.[META.protocolVersion]
    if (typeof version === 'string') headers.set(HEADER.protocolVersion, version)
    if ('method' in message) headers.set(HEADER.method, message.method)
    for (const [k, val] of Object.entries(options.headers ?? {})) headers.set(k, val)
    const nameParam = 'method' in message ? targetParamOf(message.method) : undefined
    const nameValue = nameParam ? params[nameParam] : undefined
    if (typeof nameValue === 'string') headers.set(HEADER.name, encodeHeaderValue(nameValue))
    const authorization = await this.#auth?.authorizationHeader(this.url)
    if (authorization) headers.set('authorization', authorization)
    const init: RequestInit = { method: 'POST', headers, body: JSON.stringify(message) }
    if (options.signal) init.signal = options.signal
    let response: Response
    try {
      response = await this.#fetch(new Request(this.url, init))
    } catch (error) {
      if (options.signal?.aborted) throw error // an abort or a timeout: the caller's signal says which
      throw new NetworkError(this.url, error)
    }
    options.onResponse?.(response)
    return response
  }

  async #read(message: OutboundMessage, response: Response, options: SendOptions): Promise<unknown> {
    if (response.status === 401 || response.status === 403) {
      throw new HttpError(
        response.status,
        await safeText(response),
        response.headers.get('www-authenticate') ?? undefined,
      )
    }
    if (response.status === 202 || !('id' in message) || !('method' in message)) {
      await response.body?.cancel().catch(() => {})
      if (response.ok) return undefined
      throw new HttpError(response.status, await safeText(response))
    }
    const type = (response.headers.get('content-type') ?? '').toLowerCase()
    if (type.startsWith('text/event-stream') && response.body) {
      return readSse(response.body, message.id, options)
    }
    const text = await safeText(response)
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      throw new HttpError(response.status, text)
    }
    if (typeof body !== 'object' || body === null || !('jsonrpc' in body)) throw new HttpError(response.status, text)
    if (!response.ok && !('error' in body)) throw new HttpError(response.status, text) // a "result" with a failure status
    return body
  }
}

/** The body as text; empty when it cannot be read. */
async function safeText(response: Response): Promise<string> {
  try {
    return await response.text()
  } catch {
    return ''
  }
}

/**
 * Read SSE events until the response carrying `id` (or an error without id) arrives; notifications go
 * to `onNotification`; comment lines (keep-alives) are ignored.
 * @throws InvalidResultError for an event whose data is not JSON; HttpError when the stream ends first.
 */
async function readSse(
  stream: ReadableStream<Uint8Array>,
  id: string | number,
  options: SendOptions,
): Promise<unknown> {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  const terminator = /\r\n|\r|\n/g
  let partial: string[] = [] // the current line's text so far (only new text is scanned: linear in the stream)
  let afterCr = false // the last chunk ended in CR: an LF opening the next one belongs to it
  let data: string[] = []
  const dispatch = (): unknown => {
    if (data.length === 0) return undefined
    const text = data.join('\n')
    data = []
    let message: Record<string, unknown>
    try {
      message = JSON.parse(text) as Record<string, unknown>
    } catch {
      throw new InvalidResultError('An SSE event carried data that is not JSON')
    }
    if (typeof message !== 'object' || message === null) return undefined
    const isResponse = 'result' in message || 'error' in message
    if (isResponse && (message.id === id || ((!('id' in message) || message.id === null) && 'error' in message)))
      return message
    if (typeof message.method === 'string') {
      if (!('id' in message)) options.onNotification?.(message as JSONRPCNotification)
      else options.onRequest?.(message as unknown as JSONRPCRequest)
    }
    return undefined
  }
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      const text = decoder.decode(value, { stream: true })
      if (text === '') continue
      let start: number = afterCr && text[0] === '\n' ? 1 : 0
      afterCr = false
      for (;;) {
        terminator.lastIndex = start
        const found = terminator.exec(text)
        if (!found) {
          partial.push(text.slice(start))
          break
        }
        const line = partial.join('') + text.slice(start, found.index)
        partial = []
        start = found.index + found[0].length
        afterCr = found[0] === '\r' && start === text.length
        if (line === '') {
          const message = dispatch()
          if (message !== undefined) return message
          continue
        }
        if (line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'data') data.push(val)
      }
    }
    const last = dispatch() // a final event without the trailing blank line
    if (last !== undefined) return last
  } finally {
    reader.cancel().catch(() => {})
  }
  throw new HttpError(200, 'The SSE stream ended before the response arrived')
}
