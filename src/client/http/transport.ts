/**
 * Streamable HTTP, client side, over `fetch` (spec: basic/transports/streamable-http.mdx).
 * @module
 */
import { HEADER, META, targetParamOf } from '../../protocol/constants.ts'
import { encodeHeaderValue } from '../../protocol/headers.ts'
import { formatParamValue } from '../../protocol/param-headers.ts'
import { bearerParams } from '../oauth/discovery.ts'
import type { ClientAuthProvider } from '../oauth/auth-provider.ts'
import { HttpError, NetworkError } from '../errors.ts'
import { followSse, sseBodyOf, type Reconnect } from './sse.ts'
import type { ClientTransport, OutboundMessage, SendOptions, SessionBinding, StreamOptions } from '../transport.ts'

/** Options of {@link StreamableHttpClientTransport}. */
export interface StreamableHttpClientTransportOptions {
  /** The fetch to use (default: the global one). Handy for tests and for custom agents. */
  fetch?: (input: Request) => Promise<Response>
  /** Extra headers on every request (e.g. `Authorization`), or a function returning them. */
  headers?: HeadersInit | (() => HeadersInit | Promise<HeadersInit>)
  /**
   * OAuth (spec: basic/authorization): sends the stored access token, and on `401` or
   * `403 insufficient_scope` authorizes and retries (once after a 401, `maxStepUps` times after 403s).
   * An {@link OAuthClientProvider} (a user in a browser), a machine-to-machine provider, or your own.
   */
  auth?: ClientAuthProvider
}

/**
 * POSTs each message with the standard headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`; in a
 * 2025-era session — {@link SendOptions.session} given — only the 2025 ones) and reads a JSON or SSE answer. For
 * 2025-era sessions it also `GET`s — the standalone stream ({@link StreamableHttpClientTransport.openStream})
 * and the resumption of a stream that closed early — and `DELETE`s; those carry only 2025 headers.
 *
 * A request in a 2025-era session (not `initialize`) whose response stream breaks off, and the standalone
 * stream, are resumed (spec 2025-11-25: transports.mdx "Resumability and Redelivery", SEP-1699): `GET` with
 * `Last-Event-ID` once the server's `retry` has passed (in milliseconds, at least 100; doubled per
 * reconnection without a message), at most 5 reconnections in a row that bring no message (a priming event
 * is none) and 100 in all; 2026-07-28 streams are not resumable. An SSE event longer than `MAX_SSE_EVENT_LENGTH` (16 Mi characters) fails its
 * stream with an InvalidResultError.
 *
 * Aborting a request of a 2025-era session (its `signal`: the call's abort or timeout; not `initialize`)
 * closes its stream and POSTs `notifications/cancelled` naming it, at once.
 *
 * @throws HttpError for an HTTP failure whose body is not a JSON-RPC message (status, body text kept).
 * @example
 * const transport = new StreamableHttpClientTransport('http://127.0.0.1:8787/mcp')
 */
export class StreamableHttpClientTransport implements ClientTransport {
  readonly url: string
  readonly #fetch: (input: Request) => Promise<Response>
  readonly #headers: StreamableHttpClientTransportOptions['headers']
  readonly #auth: ClientAuthProvider | undefined

  constructor(url: string | URL, options: StreamableHttpClientTransportOptions = {}) {
    this.url = String(url)
    this.#fetch = options.fetch ?? ((input) => fetch(input))
    this.#headers = options.headers
    this.#auth = options.auth
  }

  /**
   * Send one message and read its answer.
   * @throws HttpError for 401/403 (after the OAuth retries, when `auth` is set) and non-MCP HTTP failures;
   *   OAuthError when authorization itself fails; NetworkError when the request or the reading of its SSE
   *   stream fails (a stream being resumed is reconnected instead); InvalidResultError for an SSE event that
   *   is not JSON or too long.
   */
  async send(message: OutboundMessage, options: SendOptions = {}): Promise<unknown> {
    const releases: Array<() => void> = []
    if (options.signal && options.session && 'method' in message && 'id' in message && message.method !== 'initialize')
      releases.push(this.#cancelOnAbort(message.id, options.signal, options.session))
    try {
      return await this.#authorized(message, options, releases)
    } finally {
      for (const release of releases) release()
    }
  }

  /** POST, and on `401` / `403 insufficient_scope` authorize through `auth` and POST again (see `auth`); then read the answer. */
  async #authorized(message: OutboundMessage, options: SendOptions, releases: Array<() => void>): Promise<unknown> {
    const auth = this.#auth
    let response = await this.#postMessage(message, options, releases)
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
      response = await this.#postMessage(message, options, releases)
    }
    return this.#readResponse(message, response, options)
  }

  /**
   * Until the returned release runs, send `notifications/cancelled` naming request `requestId` of a 2025-era
   * session the moment `signal` aborts (the caller's abort, or its timeout): closing the stream does not
   * cancel there (spec 2025-11-25: transports.mdx "Disconnection SHOULD NOT be interpreted as the client
   * cancelling its request"; basic/utilities/cancellation.mdx). Its failure is ignored: the request may be
   * over, or the server gone.
   */
  #cancelOnAbort(requestId: string | number, signal: AbortSignal, session: SessionBinding): () => void {
    const cancel = () => {
      const reason = signal.reason instanceof Error ? signal.reason.message : 'cancelled by the client'
      const notification = { jsonrpc: '2.0' as const, method: 'notifications/cancelled', params: { requestId, reason } }
      this.send(notification, { session }).catch(() => {})
    }
    if (signal.aborted) return () => {} // aborted before it was sent: nothing to cancel
    signal.addEventListener('abort', cancel, { once: true })
    return () => signal.removeEventListener('abort', cancel)
  }

  /**
   * `DELETE` the session (spec 2025-11-25: transports.mdx "Session Management").
   * @throws HttpError for a failure other than 404 (already gone) or 405 (not supported); NetworkError.
   */
  async endSession(session: SessionBinding): Promise<void> {
    const response = await this.#bare('DELETE', sessionHeaders(session))
    await response.body?.cancel().catch(() => {})
    if (!response.ok && response.status !== 404 && response.status !== 405)
      throw new HttpError(response.status, 'DELETE of the session failed')
  }

  /**
   * Open a 2025-era session's standalone SSE stream (see {@link ClientTransport.openStream}); when the server
   * closes it, or the connection breaks off, after an event id it is resumed with `Last-Event-ID` after
   * `retry`, within the bounds of {@link StreamableHttpClientTransport}'s resumption.
   * @throws HttpError (not for 405), NetworkError, as the interface says.
   */
  async openStream(options: StreamOptions): Promise<{ closed: Promise<void> } | undefined> {
    const headers = sessionHeaders(options.session)
    const body = await sseBodyOf(await this.#bare('GET', headers, options.signal))
    if (!body) return undefined
    const follow = { url: this.url, reconnect: this.#reconnect(headers), signal: options.signal }
    const closed = followSse(body, options, follow).then(
      () => undefined,
      (error: unknown) => {
        if (!options.signal.aborted) throw error
      },
    )
    return { closed }
  }

  /** Reconnections for a stream of a session with these headers: `GET` with `Last-Event-ID` (405 is an error here). */
  #reconnect(headers: Record<string, string> | undefined): Reconnect {
    return async (lastEventId, signal) => {
      const response = await this.#bare('GET', { ...headers, 'last-event-id': lastEventId }, signal)
      const body = await sseBodyOf(response)
      if (!body) throw new HttpError(405, 'GET: the server offers no stream to resume')
      return body
    }
  }

  /**
   * A `GET` (`Accept: text/event-stream`) or `DELETE` with the session's `extra` headers (both exist only
   * in 2025-era sessions). @throws NetworkError.
   */
  async #bare(method: 'GET' | 'DELETE', extra: Record<string, string> | undefined, signal?: AbortSignal) {
    const headers = new Headers(typeof this.#headers === 'function' ? await this.#headers() : this.#headers)
    if (method === 'GET') headers.set('accept', 'text/event-stream')
    for (const [k, val] of Object.entries(extra ?? {})) headers.set(k, val)
    const { request, response } = await this.#exchange(method, headers, undefined, signal)
    // read the Request's own signal here, so that it stays reachable while the headers are awaited: Node 20's
    // fetch forgets the signal of a collected Request (see cancelOnAbort)
    if (request.signal.aborted) await response.body?.cancel(request.signal.reason).catch(() => {})
    request.signal.throwIfAborted()
    return response
  }

  /**
   * POST the message: the headers (2026-07-28: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, the routing
   * values; a 2025 session: its version and id alone), the OAuth token, the fetch; reports the session id
   * the answer carries and, on a 2xx, that the server took the message.
   */
  async #postMessage(message: OutboundMessage, options: SendOptions, releases: Array<() => void>): Promise<Response> {
    const headers = new Headers(typeof this.#headers === 'function' ? await this.#headers() : this.#headers)
    headers.set('content-type', 'application/json')
    headers.set('accept', 'application/json, text/event-stream')
    // a 2025-era session's message carries only the headers a 2025 server knows: a browser preflights every
    // other header, and a 2025 server's CORS allow-list refuses it
    const legacy = options.session !== undefined
    const params = ('params' in message ? message.params : undefined) ?? {}
    const version = (params._meta as Record<string, unknown> | undefined)?.[META.protocolVersion]
    if (typeof version === 'string' && !legacy) headers.set(HEADER.protocolVersion, version)
    if ('method' in message && !legacy) headers.set(HEADER.method, message.method)
    const extra = legacy ? sessionHeaders(options.session!) : routingHeaders(options.routing)
    for (const [k, val] of Object.entries(extra ?? {})) headers.set(k, val)
    const nameParam = 'method' in message && !legacy ? nameParamOf(message.method) : undefined
    const nameValue = nameParam ? params[nameParam] : undefined
    if (typeof nameValue === 'string') headers.set(HEADER.name, encodeHeaderValue(nameValue))
    const { request, response } = await this.#exchange('POST', headers, JSON.stringify(message), options.signal)
    releases.push(cancelOnAbort(options.signal, request, response))
    options.session?.onId?.(response.headers.get(HEADER.sessionId) ?? undefined)
    if (response.ok) options.onAccepted?.()
    return response
  }

  /**
   * Fetch with the `auth` headers (a fresh DPoP proof each time); once more at once when `auth.onResponse`
   * asks (a DPoP nonce, RFC 9449 §9). @throws NetworkError; an abort or a timeout as the signal's reason.
   */
  async #exchange(method: string, headers: Headers, body: string | undefined, signal: AbortSignal | undefined) {
    for (let attempt = 1; ; attempt++) {
      const authorization = await this.#auth?.authorizationHeaders(this.url, method)
      for (const [k, val] of Object.entries(authorization ?? {})) headers.set(k, val)
      const init: RequestInit = { method, headers }
      if (body !== undefined) init.body = body
      if (signal) init.signal = signal
      const request = new Request(this.url, init)
      let response: Response
      try {
        response = await this.#fetch(request)
      } catch (error) {
        if (signal?.aborted) throw error // an abort or a timeout: the caller's signal says which
        throw new NetworkError(this.url, error)
      }
      if (!this.#auth?.onResponse?.(this.url, response) || attempt > 1) return { request, response }
      await response.body?.cancel().catch(() => {})
    }
  }

  /**
   * Read the answer: nothing for a 202 or a message that is no request; else the JSON-RPC response, from a
   * JSON body or an SSE stream (resumed in a 2025 session). @throws HttpError for a failure status or a body
   * that is no JSON-RPC; what {@link followSse} throws.
   */
  async #readResponse(message: OutboundMessage, response: Response, options: SendOptions): Promise<unknown> {
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
      const id = message.id
      const handlers = {
        ...options,
        // an error without id answers a request the server could not read
        onResponse: (m: Record<string, unknown>) => m.id === id || ((!('id' in m) || m.id === null) && 'error' in m),
      }
      // a request in a 2025-era session is resumed (spec 2025-11-25: transports.mdx "Resumability and
      // Redelivery"); `initialize` opens the session and 2026-07-28 streams are not resumable
      const resumable = options.session !== undefined && message.method !== 'initialize'
      const reconnect = resumable ? this.#reconnect(sessionHeaders(options.session!)) : undefined
      const found = await followSse(response.body, handlers, { url: this.url, reconnect, signal: options.signal })
      if (found === undefined) throw new HttpError(200, 'The SSE stream ended before the response arrived')
      return found
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

/** The param `Mcp-Name` carries: `targetParamOf`'s, or `taskId` for `tasks/*` (ext-tasks "Routing Headers"). */
function nameParamOf(method: string): string | undefined {
  return targetParamOf(method) ?? (method.startsWith('tasks/') ? 'taskId' : undefined)
}

/** The `Mcp-Param-{name}` headers of a 2026-07-28 request's routing values (see `SendOptions.routing`). */
function routingHeaders(routing: SendOptions['routing']): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(routing ?? {})) {
    const formatted = formatParamValue(value)
    if (formatted !== undefined) headers[`Mcp-Param-${name}`] = formatted
  }
  return headers
}

/** The headers of a 2025-era session's messages: `MCP-Protocol-Version` and `Mcp-Session-Id`, where known. */
function sessionHeaders(session: SessionBinding): Record<string, string> {
  const headers: Record<string, string> = {}
  if (session.protocolVersion !== undefined) headers[HEADER.protocolVersion] = session.protocolVersion
  if (session.id !== undefined) headers[HEADER.sessionId] = session.id
  return headers
}

/**
 * Cancel `response`'s body when `signal` aborts, until the returned release runs. Node 20's `fetch` stops
 * following the signal of a `Request` once that object is garbage-collected, so the transport keeps
 * `request` reachable here and cancels the body itself: an abort or a timeout really closes the connection.
 */
function cancelOnAbort(signal: AbortSignal | undefined, request: Request, response: Response): () => void {
  if (!signal) return () => {}
  const cancel = () => void response.body?.cancel(signal.reason).catch(() => {})
  if (signal.aborted) cancel()
  else signal.addEventListener('abort', cancel, { once: true })
  return () => {
    signal.removeEventListener('abort', cancel)
    void request // held until the exchange ends (see above)
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
