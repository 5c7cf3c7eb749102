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
import { LEGACY_PROTOCOL_VERSIONS } from '../protocol/constants.ts'
import { ErrorCode, McpError } from '../protocol/errors.ts'
import { isPlainObject } from '../protocol/jsonrpc.ts'
import type { ClientCapabilities, JSONRPCNotification, JSONRPCRequest } from '../protocol/schemas/index.ts'
import type { ClientTransport, SessionBinding } from './transport.ts'
import { raceAbort } from './abort.ts'
import { exchange, PauseGroup, type ExchangeOptions } from './exchange.ts'
import {
  answerServerRequest,
  asModern,
  discoverResult,
  isSessionGone,
  sessionEnded,
  SESSION_WIDE,
  type AnswerAround,
  type LegacyServer,
} from './legacy-requests.ts'
import { clientInfoOf, wantsProgress, warnWith, type ClientOptions } from './options.ts'
import { withUrlElicitation } from './url-elicitation.ts'
import { requestCall, through, withAddedMeta, type ClientRequestCall, type Middlewares } from './middleware.ts'

/** How long opening the standalone `GET` stream may hold up the first request, in milliseconds. */
export const STREAM_OPEN_WAIT_MS = 1_000

/** What the connection needs of the client. */
export interface LegacyDeps {
  options: ClientOptions
  capabilities: ClientCapabilities
  nextId(): number
  timeoutMs: number
  /** The client's middleware, when some is registered (see middleware.ts). */
  middleware?: () => Middlewares | undefined
}

/** One client's 2025-era session with one server. */
export class LegacyConnection {
  readonly #deps: LegacyDeps
  #sessionId: string | undefined
  #server: LegacyServer | undefined
  #starting: Promise<LegacyServer> | undefined
  /** The timeouts of the requests in flight: paused while a question from the GET stream is being answered. */
  readonly #pauses = new PauseGroup()
  /** Bumped by `close()`: work begun in an earlier epoch (an `initialize` in flight) must not revive the session. */
  #epoch = 0
  /** Whether the server answered the standalone `GET` with 405 (it offers none: never ask again in this session). */
  #noStream = false
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
   * Call `dropped` (once) when the standalone stream is lost: the session ended, or the stream closed for
   * good. For `listen` (legacy-listen.ts, whose `listenSessionOf` is what a subscription needs of this
   * session: there, so that an app that never listens does not bundle it). @returns a function that removes it.
   */
  onDropped(dropped: (error: unknown) => void): () => void {
    this.#droppers.add(dropped)
    return () => void this.#droppers.delete(dropped)
  }

  /**
   * Open the standalone `GET` stream again when it ended and the server offers one (for `listen`).
   * @returns whether it is open (or opening) now.
   */
  async reopenStream(): Promise<boolean> {
    if (!this.streaming && !this.#noStream) await this.#listen()
    return this.streaming
  }

  /** The session's id now (undefined without a session, or when the server gave none). */
  get sessionId(): string | undefined {
    return this.#sessionId
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
    warnWith(this.#deps.options, message)
  }

  /** Forget the session: its streams are closed, the next request initializes again. */
  #forget(): void {
    this.#stream?.abort()
    this.#stream = undefined
    this.#server = undefined
    this.#sessionId = undefined
    this.#starting = undefined
    this.#noStream = false
    this.#drop(sessionEnded('the 2025-era session ended')) // last: its subscriptions see no session to unsubscribe from
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

  /** The session, as a transport is told of it: its negotiated version and, when the server gave one, its id. */
  #binding(): SessionBinding {
    const session: SessionBinding = {}
    if (this.#server) session.protocolVersion = this.#server.protocolVersion
    if (this.#sessionId !== undefined) session.id = this.#sessionId
    return session
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
  async inSession(
    method: string,
    params: Record<string, unknown>,
    options: ExchangeOptions,
    progressToken: string,
  ): Promise<Record<string, unknown>> {
    const named = params.name ?? params.uri
    return withUrlElicitation(() => this.#withLiveSession(method, params, options, progressToken), {
      callbacks: this.#deps.options,
      method,
      target: typeof named === 'string' ? named : '',
      signal: options.signal,
      watchCompletions: (ids) =>
        this.streaming ? this.#watchCompletions(ids, options.timeoutMs ?? this.#deps.timeoutMs) : undefined,
    })
  }

  /** Start the session when needed, exchange the request in it, and on its 404 start a new one and retry once. */
  async #withLiveSession(
    method: string,
    params: Record<string, unknown>,
    options: ExchangeOptions,
    progressToken: string,
  ): Promise<Record<string, unknown>> {
    const epoch = this.#epoch
    const server = await this.start(options.signal)
    if (method === 'server/discover') return discoverResult(server)
    this.#checkOpen(epoch)
    const sentWith = this.#sessionId
    let delivered = false // the server took the request: a 404 now (on resuming its stream) must not send it twice
    try {
      return await this.#unenveloped(
        method,
        params,
        { ...options, onAccepted: () => (delivered = true) },
        progressToken,
      )
    } catch (error) {
      if (!isSessionGone(error) || sentWith === undefined) throw error
      if (this.#sessionId === sentWith) this.#forget() // unless a concurrent request already replaced it
      if (delivered) throw error
      this.#checkOpen(epoch) // closed meanwhile: no new session
      await this.start(options.signal)
      this.#checkOpen(epoch)
      return this.#unenveloped(method, params, options, progressToken)
    }
  }

  /** @throws an `AbortError` DOMException when `close()` ran since `epoch`. */
  #checkOpen(epoch: number): void {
    if (this.#epoch !== epoch) throw new DOMException('The client was closed', 'AbortError')
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

  /**
   * Build the 2025 message (no envelope; `progressToken` kept) and exchange it in the session (`session`
   * binding, its questions answered), through the `request` middleware when some is registered.
   */
  #unenveloped(
    method: string,
    params: Record<string, unknown>,
    options: ExchangeOptions,
    progressToken: string,
  ): Promise<Record<string, unknown>> {
    const mw = this.#deps.middleware?.()
    const id = this.#deps.nextId()
    if (!mw) return this.#exchanged(id, method, params, options, progressToken, undefined)
    const version = this.#server?.protocolVersion ?? LEGACY_PROTOCOL_VERSIONS[0]!
    const rc = requestCall(method, params, 'legacy', version, this.#transport, options.round, id)
    return through(mw, 'request', rc, () => {
      const _meta = withAddedMeta(params._meta as Record<string, unknown> | undefined, rc.meta)
      return this.#exchanged(id, method, _meta ? { ...params, _meta } : params, options, progressToken, rc)
    })
  }

  async #exchanged(
    id: number,
    method: string,
    params: Record<string, unknown>,
    options: ExchangeOptions,
    progressToken: string,
    during: ClientRequestCall | undefined,
  ): Promise<Record<string, unknown>> {
    const meta: Record<string, unknown> = { ...(params._meta as Record<string, unknown> | undefined) }
    if (wantsProgress(method, options)) meta.progressToken = progressToken
    const body: Record<string, unknown> = { ...params }
    delete body._meta
    if (Object.keys(meta).length > 0) body._meta = meta
    const message: JSONRPCRequest = { jsonrpc: '2.0', id, method, params: body }
    const named = params.name ?? params.uri
    const target = typeof named === 'string' ? named : ''
    const result = await exchange(
      this.#transport,
      message,
      {
        ...options,
        session: this.#binding(),
        onRequest: (request, { signal, interactive }) =>
          void this.#answer(request, method, target, signal, interactive, during),
        onNotification: (notification) => {
          options.onNotification?.(notification)
          if (SESSION_WIDE.has(notification.method)) this.#emit(notification)
        },
        pauses: this.#pauses,
      },
      this.#deps.timeoutMs,
      progressToken,
    )
    return asModern(result)
  }

  /**
   * `initialize` (once; concurrent callers share it) and `notifications/initialized`.
   * @throws McpError when the server answers with an error or a version this client does not speak.
   */
  start(signal?: AbortSignal): Promise<LegacyServer> {
    const starting = (this.#starting ??= this.#initialize().catch((error: unknown) => {
      if (this.#starting === starting) this.#starting = undefined // the next request tries again
      throw error
    }))
    return raceAbort(starting, signal) // shared: one caller's abort ends only its own wait
  }

  async #initialize(): Promise<LegacyServer> {
    const epoch = this.#epoch
    const { options, capabilities } = this.#deps
    const offered = LEGACY_PROTOCOL_VERSIONS[0]!
    const params = { protocolVersion: offered, capabilities, clientInfo: clientInfoOf(options) }
    const message: JSONRPCRequest = { jsonrpc: '2.0', id: this.#deps.nextId(), method: 'initialize', params }
    let sessionId: string | undefined
    const exchangeOptions: ExchangeOptions = { session: { onId: (id) => (sessionId = id) } }
    const send = () => exchange(this.#transport, message, exchangeOptions, this.#deps.timeoutMs, '')
    const mw = this.#deps.middleware?.()
    const rc = mw && requestCall('initialize', params, 'legacy', offered, this.#transport, undefined, message.id)
    const result = !rc
      ? await send()
      : await through(mw, 'request', rc, () => {
          const _meta = withAddedMeta(undefined, rc.meta)
          if (_meta) message.params = { ...message.params, _meta }
          return send()
        })
    if (this.#epoch !== epoch) {
      // closed while initializing: end the session the server just made, and revive nothing
      if (sessionId !== undefined) await this.#endSession({ id: sessionId })
      this.#checkOpen(epoch)
    }
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
    await this.#transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' }, { session: this.#binding() })
    this.#checkOpen(epoch) // close() meanwhile ended the session
    await this.#listen()
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
            session: this.#binding(),
            signal,
            // a question not tied to a request: the user's time counts against none of those in flight
            onRequest: (request) => void this.#answer(request, '', '', signal, (step) => this.#pauses.run(step)),
            onNotification: (notification) => this.#emit(notification),
          })
          .then(
            (stream) => {
              if (!stream) return ((this.#noStream = true), ended()) // 405
              stream.closed
                .catch((error: unknown) => this.#warn(`GET stream: ${String(error)}`))
                .finally(() => {
                  if (!signal.aborted) this.#drop(sessionEnded("the 2025-era session's GET stream ended"))
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
   * Answer one server-to-client request (see {@link answerServerRequest}) and POST the answer in the session
   * it came from (its headers taken when it arrived). On a request's stream the callback runs `interactive`
   * (that request's timeout paused) with `signal` aborting when that request ends by abort or timeout.
   * Never throws (a failed POST is a warning).
   */
  async #answer(
    request: JSONRPCRequest,
    method: string,
    target: string,
    signal: AbortSignal | undefined,
    interactive: <T>(step: () => Promise<T>) => Promise<T> = (step) => step(),
    during?: ClientRequestCall,
  ) {
    const session = this.#binding()
    const mw = this.#deps.middleware?.()
    const around: AnswerAround | undefined = mw
      ? (key, asked, step) =>
          through(mw, 'answer', { key, method: asked, era: 'legacy', ...(during ? { request: during } : {}) }, step)
      : undefined
    const response = await interactive(() =>
      answerServerRequest(this.#deps.options, request, method, target, signal, around),
    )
    try {
      await this.#transport.send(response, { session })
    } catch (error) {
      this.#warn(`the answer to the server's ${request.method} could not be sent: ${String(error)}`)
    }
  }

  /** Close the standalone stream, end the session (`DELETE`, a 405 ignored) and forget it. */
  async close(): Promise<void> {
    this.#epoch++
    const session = this.#binding()
    const had = this.#sessionId !== undefined
    this.#forget()
    if (had) await this.#endSession(session)
  }

  async #endSession(session: SessionBinding): Promise<void> {
    await this.#transport.endSession?.(session)
  }
}
