/**
 * Talking to a 2025-era server (spec 2025-11-25: basic/lifecycle.mdx, basic/transports.mdx): `initialize`
 * once (2025-11-25, accepting a 2025-06-18 or 2025-03-26 counter-offer), `notifications/initialized`, then
 * every request without the 2026 envelope and with `MCP-Protocol-Version` and `Mcp-Session-Id`; a session
 * the server no longer knows (404) is started again once. Server-to-client requests arriving on a
 * request's stream or on the session's standalone `GET` stream go to the same callbacks as 2026 input
 * requests, and their answers are POSTed back. Streams that close early are resumed (`Last-Event-ID`); a
 * `-32042` is answered through the `elicitation` callback and the request sent again.
 * @module
 */
import { HEADER, LEGACY_PROTOCOL_VERSIONS, META } from '../protocol/constants.ts'
import { ErrorCode, McpError } from '../protocol/errors.ts'
import { isPlainObject } from '../protocol/jsonrpc.ts'
import type {
  ClientCapabilities,
  InputRequest,
  JSONRPCNotification,
  JSONRPCRequest,
  JSONRPCResponse,
  RequestId,
} from '../protocol/schemas/index.ts'
import type { ClientTransport } from '../transport/http-client.ts'
import { HttpError } from '../transport/errors.ts'
import { answerInput } from './carrier.ts'
import { MissingInputHandlerError } from './errors.ts'
import { legacyListenTransport } from './legacy-listen.ts'
import { exchange, type ExchangeOptions } from './exchange.ts'
import type { ClientOptions } from './options.ts'
import { withUrlElicitation } from './url-elicitation.ts'

/** How long opening the standalone `GET` stream may hold up the first request, in milliseconds. */
export const STREAM_OPEN_WAIT_MS = 1_000

/** What `initialize` told about the server. */
export interface LegacyServer {
  protocolVersion: string
  capabilities: Record<string, unknown>
  serverInfo: Record<string, unknown>
  instructions?: string
}

/** What the connection needs of the client. */
export interface LegacyDeps {
  options: ClientOptions
  capabilities: ClientCapabilities
  nextId(): number
  timeoutMs: number
}

/** One client's 2025-era session with one server. */
export class LegacyConnection {
  readonly #deps: LegacyDeps
  #sessionId: string | undefined
  #server: LegacyServer | undefined
  #starting: Promise<LegacyServer> | undefined
  /** Aborts the standalone `GET` stream; set while it is opening or open. */
  #stream: AbortController | undefined
  readonly #listeners = new Set<(notification: JSONRPCNotification) => void>()
  /** Called (and forgotten) when the standalone stream is lost: the session ended, or the stream closed for good. */
  readonly #droppers = new Set<(error: unknown) => void>()

  constructor(deps: LegacyDeps) {
    this.#deps = deps
  }

  /**
   * Receive the notifications the server sends on the session's standalone `GET` stream (list changes,
   * log messages, `notifications/elicitation/complete`; the latter from request streams too).
   * @returns a function that removes the listener.
   */
  onStreamNotification(listener: (notification: JSONRPCNotification) => void): () => void {
    this.#listeners.add(listener)
    return () => void this.#listeners.delete(listener)
  }

  /**
   * `Client.listen` over this session (see legacy-listen.ts): the filter honoured from the `initialize`
   * capabilities — nothing when the server offers no standalone stream to send on — and the matching
   * notifications, until the signal aborts or the stream is lost.
   */
  listenTransport(): ClientTransport {
    return legacyListenTransport({
      capabilities: async (signal) => ((await this.start(signal)) && this.streaming ? this.#server!.capabilities : {}),
      request: (method, params, signal) => this.request(method, params, signal ? { signal } : {}, ''),
      notifications: (listener, dropped) => {
        const remove = this.onStreamNotification(listener)
        const drop = (error: unknown) => (remove(), dropped(error))
        this.#droppers.add(drop)
        return () => (remove(), this.#droppers.delete(drop))
      },
    })
  }

  /** The standalone stream is lost: tell the subscriptions over it, once. */
  #drop(error: unknown): void {
    const droppers = [...this.#droppers]
    this.#droppers.clear()
    for (const drop of droppers) drop(error)
  }

  /** Whether the standalone `GET` stream is open (or opening): server messages outside requests can arrive. */
  get streaming(): boolean {
    return this.#stream !== undefined
  }

  #emit(notification: JSONRPCNotification): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(notification)
      } catch (error) {
        this.#warn(`a stream notification listener threw: ${String(error)}`)
      }
    }
  }

  #warn(message: string): void {
    ;(this.#deps.options.onWarning ?? ((m: string) => console.warn(`[edge-mcp] ${m}`)))(message)
  }

  /** Forget the session: its streams are closed, the next request initializes again. */
  #forget(): void {
    this.#drop(new Error('The 2025-era session ended'))
    this.#stream?.abort()
    this.#stream = undefined
    this.#server = undefined
    this.#sessionId = undefined
    this.#starting = undefined
  }

  get #transport(): ClientTransport {
    return this.#deps.options.transport
  }

  /** The negotiated version, once initialized. */
  get protocolVersion(): string | undefined {
    return this.#server?.protocolVersion
  }

  /** The `initialize` result, once initialized. */
  get server(): LegacyServer | undefined {
    return this.#server
  }

  /** The session's headers: `MCP-Protocol-Version` and, when the server gave one, `Mcp-Session-Id`. */
  #headers(): Record<string, string> {
    const headers: Record<string, string> = {}
    if (this.#server) headers[HEADER.protocolVersion] = this.#server.protocolVersion
    if (this.#sessionId !== undefined) headers[HEADER.sessionId] = this.#sessionId
    return headers
  }

  /**
   * Send one request in the session (initializing first), its server-to-client requests answered through
   * the callbacks. A 404 on the session starts a new one and retries, once (not when the server had taken
   * the request and its stream's resumption got the 404: that is thrown). `server/discover` (no such
   * method in 2025) is answered from the `initialize` result. A `-32042` (URL elicitation
   * required, spec 2025-11-25 client/elicitation.mdx) goes to the `elicitation` callback and, once accepted
   * (and completed, when the standalone stream can say so), the request is sent again (see `withUrlElicitation`).
   * @throws McpError for a JSON-RPC error (-32042 when declined, cancelled or repeated); HttpError /
   *   NetworkError from the transport.
   */
  async request(
    method: string,
    params: Record<string, unknown>,
    options: ExchangeOptions,
    progressToken: string,
  ): Promise<Record<string, unknown>> {
    const named = params.name ?? params.uri
    return withUrlElicitation(() => this.#inSession(method, params, options, progressToken), {
      callbacks: this.#deps.options,
      method,
      target: typeof named === 'string' ? named : '',
      signal: options.signal,
      watchCompletions: (ids) =>
        this.streaming ? this.#watchCompletions(ids, options.timeoutMs ?? this.#deps.timeoutMs) : undefined,
    })
  }

  async #inSession(
    method: string,
    params: Record<string, unknown>,
    options: ExchangeOptions,
    progressToken: string,
  ): Promise<Record<string, unknown>> {
    const server = await this.start(options.signal)
    if (method === 'server/discover') return discoverResult(server)
    let delivered = false // the server took the request: a 404 now (on resuming its stream) must not send it twice
    try {
      return await this.#send(method, params, { ...options, onResponse: (r) => (delivered ||= r.ok) }, progressToken)
    } catch (error) {
      if (!isSessionGone(error) || this.#sessionId === undefined) throw error
      this.#forget()
      if (delivered) throw error
      await this.start(options.signal)
      return this.#send(method, params, options, progressToken)
    }
  }

  /**
   * Resolves once `notifications/elicitation/complete` arrived for each id (spec 2025-11-25:
   * client/elicitation.mdx), or after `ms` milliseconds (the request is then retried anyway).
   */
  #watchCompletions(ids: string[], ms: number): { done: Promise<void>; stop(): void } {
    const pending = new Set(ids)
    let stop = () => {}
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      const remove = this.onStreamNotification((n) => {
        if (n.method === 'notifications/elicitation/complete')
          pending.delete((n.params as { elicitationId?: unknown } | undefined)?.elicitationId as string)
        if (pending.size === 0) resolve()
      })
      stop = () => {
        clearTimeout(timer)
        remove()
      }
    })
    return { done, stop }
  }

  async #send(
    method: string,
    params: Record<string, unknown>,
    options: ExchangeOptions,
    progressToken: string,
  ): Promise<Record<string, unknown>> {
    const id = this.#deps.nextId()
    const meta: Record<string, unknown> = { ...(params._meta as Record<string, unknown> | undefined) }
    if (options.onProgress) meta.progressToken = progressToken
    const body: Record<string, unknown> = { ...params }
    delete body._meta
    if (Object.keys(meta).length > 0) body._meta = meta
    const message: JSONRPCRequest = { jsonrpc: '2.0', id, method, params: body }
    const named = params.name ?? params.uri
    const target = typeof named === 'string' ? named : ''
    const signal = options.signal
    const result = await exchange(
      this.#transport,
      message,
      {
        ...options,
        headers: { ...options.headers, ...this.#headers() },
        onRequest: (request) => void this.#answer(request, method, target, signal),
        onNotification: (notification) => {
          options.onNotification?.(notification)
          if (SESSION_WIDE.has(notification.method)) this.#emit(notification)
        },
        resume: true,
        era: 'legacy',
      },
      this.#deps.timeoutMs,
      progressToken,
    )
    return asModern(method, result)
  }

  /**
   * `initialize` (once; concurrent callers share it) and `notifications/initialized`.
   * @throws McpError when the server answers with an error or a version this client does not speak.
   */
  start(signal?: AbortSignal): Promise<LegacyServer> {
    this.#starting ??= this.#initialize(signal).catch((error: unknown) => {
      this.#starting = undefined // the next request tries again
      throw error
    })
    return this.#starting
  }

  async #initialize(signal: AbortSignal | undefined): Promise<LegacyServer> {
    const { options, capabilities } = this.#deps
    const message: JSONRPCRequest = {
      jsonrpc: '2.0',
      id: this.#deps.nextId(),
      method: 'initialize',
      params: {
        protocolVersion: LEGACY_PROTOCOL_VERSIONS[0]!,
        capabilities,
        clientInfo: options.clientInfo ?? { name: 'edge-mcp-client', version: '0.1.0' },
      },
    }
    let sessionId: string | undefined
    const exchangeOptions: ExchangeOptions = {
      era: 'legacy',
      onResponse: (response) => (sessionId = response.headers.get(HEADER.sessionId) ?? undefined),
    }
    if (signal) exchangeOptions.signal = signal
    const result = await exchange(this.#transport, message, exchangeOptions, this.#deps.timeoutMs, '')
    const version = result.protocolVersion
    if (typeof version !== 'string' || !LEGACY_PROTOCOL_VERSIONS.includes(version))
      throw new McpError(
        ErrorCode.UnsupportedProtocolVersion,
        `The server offered protocol version ${JSON.stringify(version)}; this client speaks ${LEGACY_PROTOCOL_VERSIONS.join(', ')}`,
      )
    const server: LegacyServer = {
      protocolVersion: version,
      capabilities: isPlainObject(result.capabilities) ? result.capabilities : {},
      serverInfo: isPlainObject(result.serverInfo) ? result.serverInfo : {},
    }
    if (typeof result.instructions === 'string') server.instructions = result.instructions
    this.#server = server
    this.#sessionId = sessionId
    await this.#transport.send(
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { headers: this.#headers(), era: 'legacy' },
    )
    if (this.#server === server) await this.#listen() // unless closed meanwhile
    return server
  }

  /**
   * Open the session's standalone `GET` stream (spec 2025-11-25: transports.mdx "Listening for Messages from
   * the Server") for the server's requests and notifications not tied to a request of ours (e.g. the v1 SDK's
   * `elicitInput` without `relatedRequestId`): its requests are answered like those on a request's stream
   * (`ctx.method` and `ctx.target` empty), its notifications go to the `onStreamNotification` listeners. A
   * 405 is "no stream"; another failure a warning. Waits for the server's answer at most
   * {@link STREAM_OPEN_WAIT_MS}, so that a request sent at once is not asked on a stream not yet there.
   */
  async #listen(): Promise<void> {
    const abort = new AbortController()
    const signal = abort.signal
    this.#stream = abort
    const ended = () => void (this.#stream === abort && (this.#stream = undefined))
    const opened = this.#transport.openStream
      ? this.#transport
          .openStream({
            headers: this.#headers(),
            signal,
            onRequest: (request) => void this.#answer(request, '', '', signal),
            onNotification: (notification) => this.#emit(notification),
          })
          .then(
            (stream) => {
              if (!stream) return ended() // 405
              stream.closed
                .catch((error: unknown) => this.#warn(`GET stream: ${String(error)}`))
                .finally(() => {
                  if (!signal.aborted) this.#drop(new Error("The 2025-era session's GET stream closed"))
                  ended()
                })
            },
            (error: unknown) => {
              ended()
              if (!signal.aborted) this.#warn(`GET stream not opened: ${String(error)}`)
            },
          )
      : ended()
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([opened, new Promise((resolve) => (timer = setTimeout(resolve, STREAM_OPEN_WAIT_MS)))])
    clearTimeout(timer)
  }

  /**
   * Answer one server-to-client request and POST the answer: `ping` with `{}`; `elicitation/create`,
   * `sampling/createMessage` and `roots/list` through the callbacks (-32601 when there is none, -32603
   * when it fails or answers wrongly); anything else -32601. Never throws (a failed POST is a warning).
   */
  async #answer(request: JSONRPCRequest, method: string, target: string, signal: AbortSignal | undefined) {
    let response: JSONRPCResponse
    try {
      const result = await this.#resultOf(request, method, target, signal ?? new AbortController().signal)
      response = { jsonrpc: '2.0', id: request.id, result }
    } catch (error) {
      const code =
        error instanceof MissingInputHandlerError || error instanceof McpError
          ? ErrorCode.MethodNotFound
          : ErrorCode.InternalError
      const message = error instanceof Error ? error.message : String(error)
      response = { jsonrpc: '2.0', id: request.id, error: { code, message } }
    }
    try {
      await this.#transport.send(response, { headers: this.#headers(), era: 'legacy' })
    } catch (error) {
      this.#warn(`the answer to the server's ${request.method} could not be sent: ${String(error)}`)
    }
  }

  async #resultOf(
    request: JSONRPCRequest,
    method: string,
    target: string,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    if (request.method === 'ping') return {}
    if (!['elicitation/create', 'sampling/createMessage', 'roots/list'].includes(request.method))
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`)
    const input = { method: request.method, params: request.params ?? {} } as InputRequest
    const key = keyOf(request.id)
    return await answerInput(this.#deps.options, key, input, { key, method, target, signal })
  }

  /** Close the standalone stream, end the session (`DELETE`, a 405 ignored) and forget it. */
  async close(): Promise<void> {
    const headers = this.#headers()
    const had = this.#sessionId !== undefined
    this.#forget()
    if (had) await this.#transport.endSession?.(headers)
  }
}

/** Notifications about the session, not the request whose stream brought them: they go to the stream listeners too. */
const SESSION_WIDE = new Set([
  'notifications/elicitation/complete',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
])

/** The methods whose 2026-07-28 results carry cache hints (spec: server/utilities/caching.mdx). */
const HINTED = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read'])

/**
 * A 2025-era result as the 2026-07-28 result types read it: `resultType: 'complete'` (2025 has no
 * rounds) and, on the cacheable methods, the hints a 2025 server cannot give set to "do not cache"
 * (`ttlMs: 0`, `cacheScope: 'private'`). What the server sent is kept.
 */
function asModern(method: string, result: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { resultType: 'complete', ...result }
  if (HINTED.has(method)) {
    out.ttlMs ??= 0
    out.cacheScope ??= 'private'
  }
  return out
}

/**
 * What `server/discover` would have said, from the `initialize` result: the negotiated version as the one
 * supported, the capabilities, instructions, serverInfo in `_meta`, and "do not cache" hints.
 */
function discoverResult(server: LegacyServer): Record<string, unknown> {
  const result: Record<string, unknown> = {
    resultType: 'complete',
    supportedVersions: [server.protocolVersion],
    capabilities: server.capabilities,
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { [META.serverInfo]: server.serverInfo },
  }
  if (server.instructions !== undefined) result.instructions = server.instructions
  return result
}

/** A session the server no longer knows: HTTP 404, or its -32001 "Session not found". */
function isSessionGone(error: unknown): boolean {
  return (error instanceof HttpError && error.status === 404) || (error instanceof McpError && error.code === -32001)
}

function keyOf(id: RequestId): string {
  return `server-request-${String(id)}`
}
