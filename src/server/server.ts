/**
 * The low-level MCP server: one handler per method, the request envelope, `server/discover`, and the
 * optional request-state boundary. Transport-agnostic: feed it parsed messages, get responses back.
 * @module
 */
import { errorHandled, type Handled } from './handled.ts'
import { SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/constants.ts'
import { hasEnvelope, type RequestEnvelope } from '../protocol/envelope.ts'
import { ErrorCode, McpError } from '../protocol/errors.ts'
import { errorResponse, type InboundMessage, type InboundResponse } from '../protocol/jsonrpc.ts'
import type { Implementation, JSONRPCRequest, ServerCapabilities } from '../protocol/schemas/index.ts'
import type { LegacySession, RequestStateSecurity } from '../request-state/security.ts'
import type { RequestStateValue } from '../request-state/claims.ts'
import { checkCacheOptions } from './cache.ts'
import { consoleLogger, createRequestContext, type Channel, type ChannelHandler, type Logger } from './context.ts'
import type { NotificationHandler, RequestHandler, RequestInfo, ResultObject } from './context.ts'
import { checkedResult, completeResult, legacyResult, withServerInfo } from './finish.ts'
import { ACKNOWLEDGED_METHODS, checkAcknowledged, initializeResult, MODERN_ONLY_METHODS, sessionOf } from './legacy.ts'
import { EraNegotiation, type Era } from './era.ts'
import { RequestCancelledError } from './errors.ts'
import { LegacyQuestions, withSessionNote } from './legacy-questions.ts'
import type { ServerOptions } from './server-options.ts'
import { serveListen } from './listen.ts'
import { InMemoryNotificationBus, type NotificationBus, type ServerEvent } from './notifications.ts'
import { isInputRequired } from './results.ts'
import { handlerState, RequestStateSealing, withoutNullState } from './sealing.ts'
import {
  addMiddleware,
  around,
  type Middlewares,
  withCallState,
  withMeta,
  type RequestCall,
  type RequestMiddleware,
  type ServerMiddleware,
} from './middleware.ts'
import { callOf, checkOwnResult, legacyCallFields, modernCallFields, modernThroughMiddleware } from './through.ts'
import { capabilitiesOf } from './capabilities.ts'
import { logError, loggedRequest } from './log.ts'

export type { CacheHints, CacheOptions, CacheableMethod } from './cache.ts'
export type { ServerOptions } from './server-options.ts'
export type { Handled } from './handled.ts'

/**
 * A low-level MCP server. It validates the request envelope, answers `server/discover`, routes each
 * method to its handler, and stamps `resultType` and `_meta` serverInfo on every result. It sends
 * `requestState` verbatim until you switch sealing on with {@link Server.useRequestStateSecurity}.
 * Handlers read the previous round's state as `ctx.requestState` (the opened plaintext when sealing is
 * on); `params.requestState` is always what came over the wire.
 *
 * @example
 * const server = new Server({ name: 'provisioner', version: '1.0.0' })
 * server.useRequestStateSecurity(RequestStateSecurity.ephemeral()) // one line: seal requestState
 * server.setRequestHandler('tools/list', () => ({ tools: [...], ttlMs: 0, cacheScope: 'private' }))
 * server.setRequestHandler('tools/call', async (params, ctx) => ...)
 */
export class Server {
  /** The server's name and version, sent in `_meta` serverInfo. */
  readonly info: Implementation
  readonly options: ServerOptions
  readonly logger: Logger
  /** The bus `subscriptions/listen` streams read from (`options.notificationBus`, or an in-memory one). */
  readonly notifications: NotificationBus
  readonly #handlers = new Map<string, RequestHandler | ChannelHandler>()
  readonly #notificationHandlers = new Map<string, NotificationHandler>()
  /** The request-state sealing boundary (off until {@link Server.useRequestStateSecurity}). */
  readonly #sealing: RequestStateSealing
  /** Ends each listen stream open on this instance. */
  readonly #listens = new Set<() => void>()
  readonly #questions: LegacyQuestions
  readonly #eras: EraNegotiation
  /** Registered middleware (see {@link Server.use}); undefined until the first. */
  #middleware: Middlewares | undefined
  #serving = false

  /**
   * @throws RangeError when `options.cache` or `options.legacyQuestions` holds an invalid value (see
   *   {@link ServerOptions.cache}).
   */
  constructor(info: Implementation, options: ServerOptions = {}) {
    checkCacheOptions(options.cache)
    this.#questions = new LegacyQuestions(options.legacyQuestions, options.logger ?? consoleLogger)
    this.info = info
    this.options = options
    this.logger = options.logger ?? consoleLogger
    this.#sealing = new RequestStateSealing(this.logger)
    this.notifications = options.notificationBus ?? new InMemoryNotificationBus()
    this.#eras = new EraNegotiation({
      legacy: options.legacy,
      supportedVersions: () => this.supportedVersions,
      openSession: (id, info) => this.#sealing.openSession(id, info),
    })
    this.#handlers.set('server/discover', () => this.#discover())
    this.#handlers.set('subscriptions/listen', (params, ctx, channel) =>
      serveListen(params, ctx, channel.notify, {
        capabilities: this.#capabilities(),
        authorize: this.options.authorizeSubscription,
        bus: this.notifications,
        listens: this.#listens,
        logger: this.logger,
      }),
    )
  }

  /** True once this server has been handed its first message (registrations after that are announced). */
  get serving(): boolean {
    return this.#serving
  }

  /**
   * Publish a server event to the `subscriptions/listen` streams (of every instance sharing the bus),
   * which forward it to the clients that asked for its kind. Never throws: a bus failure is logged.
   * @example await server.publish({ kind: 'resourceUpdated', uri: 'file:///config.json' })
   */
  async publish(event: ServerEvent): Promise<void> {
    try {
      await this.notifications.publish(event)
    } catch (error) {
      logError(this.logger, 'publish.failed', `publishing ${event.kind} failed`, error)
    }
  }

  /**
   * End every listen stream open on this instance gracefully (e.g. before shutdown): each gets its
   * `subscriptions/listen` result (`_meta` subscriptionId), then its stream closes
   * (spec: subscriptions.mdx "Graceful Closure").
   */
  closeSubscriptions(): void {
    for (const end of [...this.#listens]) end()
  }

  /** The versions this server accepts. */
  get supportedVersions(): readonly string[] {
    return this.options.supportedVersions ?? SUPPORTED_PROTOCOL_VERSIONS
  }

  /** Register (or replace) the handler of a request method. */
  setRequestHandler(method: string, handler: RequestHandler): this {
    this.#handlers.set(method, handler)
    return this
  }

  /**
   * Add middleware: a function runs around every request (both eras, HTTP and stdio); an object may also
   * hold `invocation` (each tool / prompt / resource handler run, with its arguments, principal and round),
   * `resolver` (each resolver run) and `question` (each question put to the client) middleware. The first
   * registered runs outermost. See `RequestMiddleware` for what `next()` gives and what may be returned.
   * @throws TypeError for anything but a function or an object of middleware functions.
   * @example server.use(async (call, next) => (limiter.allow(call.principal) ? next() : toolError('slow down')))
   */
  use(middleware: ServerMiddleware | RequestMiddleware): this {
    addMiddleware((this.#middleware ??= []), middleware)
    return this
  }

  /** Register the handler of a notification method. Unknown notifications are accepted and ignored. */
  setNotificationHandler(method: string, handler: NotificationHandler): this {
    this.#notificationHandlers.set(method, handler)
    return this
  }

  /**
   * Seal every outbound `requestState` of `tools/call`, `prompts/get` and `resources/read`, and verify
   * every inbound one (frozen `-32602 "Invalid or expired requestState"` on any failure).
   * @param audience - the audience claim; default: the policy's audience, else this server's name;
   *   `null` for audience-free tokens (any server sharing the keys accepts them — rarely what you want).
   * @throws Error when neither the policy nor the server has a real name and the policy is not ephemeral.
   */
  useRequestStateSecurity(policy: RequestStateSecurity, audience?: string | null): this {
    if (audience === null) {
      this.#sealing.use(policy, undefined)
      return this
    }
    audience ??= policy.audience ?? (this.info.name || undefined)
    if (audience === undefined && !policy.isEphemeral) {
      throw new Error(
        'requestStateSecurity is configured but this server has no name. Sealed requestState carries the server name as an ' +
          'audience claim, so state minted by another service sharing the same keys is rejected; unnamed servers would all ' +
          'stamp the same placeholder and the check would mean nothing. Name the server or set RequestStateSecurity({ audience }).',
      )
    }
    this.#sealing.use(policy, audience)
    return this
  }

  /** @internal The 2025-era session a bodiless request (a GET) carries, as `EraNegotiation.messageSession`. */
  legacySession(info: RequestInfo): Promise<LegacySession | undefined> {
    return this.#eras.messageSession(info, {})
  }

  /** The active request-state policy, if sealing is on. */
  get requestStateSecurity(): RequestStateSecurity | undefined {
    return this.#sealing.policy
  }

  /**
   * Answer one classified inbound message. Never throws.
   * @param info - the request's facts, which its handler sees in `ctx`.
   * @param channel - the transport's hooks for this message (its notifications, the start of its handler,
   *   a transport-kept session), which no handler sees.
   */
  handle(message: InboundMessage, info: RequestInfo = {}, channel: Channel = {}): Promise<Handled> {
    this.#serving = true
    // a request straight to handleRequest (which never throws): no async frame of its own
    if (message?.kind === 'request') return this.handleRequest(message.message, info, channel)
    return this.#handleOther(message, info, channel)
  }

  /** {@link Server.handle} of a response or a notification. */
  async #handleOther(message: InboundMessage, info: RequestInfo, channel: Channel): Promise<Handled> {
    if (message.kind === 'response') return this.#answer(message.message, info, channel)
    if (message.kind === 'notification') {
      if (this.options.legacy !== 'reject' && !hasEnvelope(message.message.params)) {
        let session: LegacySession | undefined
        try {
          session = await this.#eras.messageSession(info, channel)
        } catch (error) {
          const mcp = error as McpError // only the McpErrors of messageSession
          return { status: mcp.httpStatus ?? 400, response: errorResponse(null, mcp) }
        }
        if (session && message.message.method === 'notifications/cancelled')
          await this.#questions.cancel(session.sid, message.message.params ?? {}, info)
      }
      const handler = this.#notificationHandlers.get(message.message.method)
      if (handler) {
        try {
          await handler(message.message.params ?? {}, info)
        } catch (error) {
          const { method } = message.message
          logError(this.logger, 'notification.failed', `notification handler for ${method} failed`, error, { method })
        }
      }
      return { status: 202 }
    }
    return this.handleRequest(message.message, info, channel)
  }

  /**
   * Answer one JSON-RPC request, as {@link Server.handle}. Never throws: failures become JSON-RPC errors.
   * With a structured logger (`logger.record`), one `request` record per request (see `LogRecord`).
   */
  handleRequest(request: JSONRPCRequest, info: RequestInfo = {}, channel: Channel = {}): Promise<Handled> {
    if (!this.logger.record) return this.#handleRequest(request, info, channel)
    const era = this.options.legacy === 'reject' || hasEnvelope(request.params) ? 'modern' : 'legacy'
    return loggedRequest(this.logger, request, era, info, () => this.#handleRequest(request, info, channel))
  }

  async #handleRequest(request: JSONRPCRequest, info: RequestInfo, channel: Channel): Promise<Handled> {
    this.#serving = true
    let era: Era | undefined
    try {
      // a legacy request's session is opened before `era` is set: its 404 / 400 are real HTTP statuses
      // await only a legacy session being opened: a modern handler starts in this tick (a listen handler needs it)
      const eraOf = this.#eras.of(request, info, channel)
      era = eraOf instanceof Promise ? await eraOf : eraOf
      const result = era.legacy
        ? await this.#dispatchLegacy(request, era, info, channel)
        : await this.#dispatch(request, era.envelope, info, channel)
      const handled: Handled = { status: 200, response: { jsonrpc: '2.0', id: request.id, result } }
      if (era.legacy && request.method === 'initialize') {
        const minted = await this.#sealing.mintSession(sessionOf(request.params ?? {}, result), info)
        if (minted !== undefined) handled.sessionId = minted
      }
      return handled
    } catch (error) {
      if (error instanceof RequestCancelledError) return { status: 200 } // no response (spec: cancellation.mdx)
      return errorHandled(request.id, this.#toMcpError(error, request.method), era?.legacy === true)
    }
  }

  #toMcpError(error: unknown, method: string): McpError {
    if (error instanceof McpError) return error
    logError(
      this.logger,
      'handler.failed',
      `handler for ${method} failed`,
      error,
      method === 'a response' ? {} : { method },
    )
    return new McpError(ErrorCode.InternalError, 'Internal error')
  }

  /**
   * The life of one modern request (its envelope checked by era negotiation): find its handler, open its
   * `requestState` (sealing boundary), build the handler's context, run the handler, finish the result
   * (an `InputRequiredResult` checked then sealed; a complete one stamped with `resultType` and cache
   * hints), stamp serverInfo.
   * @throws McpError for the client's mistakes; any other error is a server bug (-32603, logged).
   */
  async #dispatch(
    request: JSONRPCRequest,
    envelope: RequestEnvelope,
    info: RequestInfo,
    channel: Channel,
  ): Promise<ResultObject> {
    const { method } = request
    const handler = this.#handlerOf(method)
    const params = withoutNullState(method, request.params ?? {})
    const opening = this.#sealing.open(method, params, info)
    // await only a token being opened: otherwise the handler starts in this tick, as a listen handler needs
    const round = opening instanceof Promise ? await opening : opening
    const ctx = createRequestContext(request, envelope, info, channel, handlerState(round, method, params))
    channel.started?.()
    const mw = this.#middleware
    if (mw)
      return modernThroughMiddleware({
        mw,
        call: callOf(
          this.#sealing.policy,
          request,
          params,
          info,
          channel,
          modernCallFields(method, params, envelope, round),
        ),
        ctx,
        run: async (extension) => {
          const result = checkedResult(method, await handler(params, ctx, channel))
          return isInputRequired(result)
            ? this.#sealing.sealInputRequired(method, result, ctx, round, extension())
            : result
        },
        finish: (out) => completeResult(method, out, params, this.options.cache, this.info),
        stamp: (out) => withServerInfo(out, this.info),
      })
    const result = checkedResult(method, await handler(params, ctx, channel))
    if (!isInputRequired(result)) return completeResult(method, result, params, this.options.cache, this.info)
    return withServerInfo(await this.#sealing.sealInputRequired(method, result, ctx, round), this.info)
  }

  /**
   * The life of one legacy request: `initialize` and the acknowledged session methods answered here,
   * the 2026-only methods refused, any other method run by its handler and its result stripped of what
   * 2025 has no schema for. An `InputRequiredResult` is asked of the client (`legacy-questions.ts`).
   * @throws McpError for the client's mistakes (-32601 unknown or 2026-only method; -32021 a capability
   *   it did not declare; the handler's own).
   */
  async #dispatchLegacy(request: JSONRPCRequest, era: Era, info: RequestInfo, channel: Channel): Promise<ResultObject> {
    const mw = this.#middleware
    if (!mw) return legacyResult(await this.#runLegacy(request, era, info, channel, undefined))
    const call = callOf(
      this.#sealing.policy,
      request,
      request.params ?? {},
      info,
      channel,
      legacyCallFields(request, era),
    )
    let inner: ResultObject | undefined
    const run = async () => (inner = await this.#runLegacy(request, era, info, channel, call))
    const out = checkedResult(request.method, await around(mw, 'request', call, run))
    if (out !== inner) checkOwnResult(request.method, out)
    return legacyResult(withMeta(out, call.meta))
  }

  /** {@link Server.#dispatchLegacy}'s work, inside its request middleware (`call`) when there is any. */
  async #runLegacy(
    request: JSONRPCRequest,
    era: Era,
    info: RequestInfo,
    channel: Channel,
    call: RequestCall | undefined,
  ): Promise<ResultObject> {
    const { method } = request
    const params = { ...request.params }
    if (method === 'initialize')
      return initializeResult(params, this.#capabilities(), this.info, this.options.instructions)
    if (ACKNOWLEDGED_METHODS.has(method)) {
      checkAcknowledged(method, params)
      return {}
    }
    if (MODERN_ONLY_METHODS.has(method)) throw methodNotFound(method)
    const handler = this.#handlerOf(method)
    // 2025 has no rounds: answers and state come only from the questions this server asks
    delete params.inputResponses
    delete params.requestState
    const progress = { last: -Infinity } // one progress token across the handler's runs
    const tracked = this.#questions.track(era.session, request.id, info) // notifications/cancelled aborts it
    const mw = this.#middleware
    let run = 1
    const contextOf = (requestState: RequestStateValue | undefined) => {
      const ctx = tracked.withSignal(createRequestContext(request, era.envelope, info, channel, requestState, progress))
      return call && mw ? withCallState(ctx, { call, mw, round: run, resolvers: new Map() }) : ctx
    }
    try {
      const ctx = contextOf(undefined)
      channel.started?.()
      let result = checkedResult(method, await handler(params, ctx, channel))
      if (isInputRequired(result)) {
        result = await this.#questions.ask(request, result, ctx, {
          session: era.session,
          notify: channel.notify,
          mint: (sid, at, ttlSeconds) => this.#sealing.mintQuestion(sid, at, ttlSeconds),
          async rerun(inputResponses, requestState) {
            const next = inputResponses === undefined ? params : { ...params, inputResponses }
            run++
            return checkedResult(method, await handler(next, contextOf(requestState), channel))
          },
        })
      }
      return result
    } catch (error) {
      throw withSessionNote(error, era.session)
    } finally {
      tracked.done()
    }
  }

  /** A client's answer to a question: 202 once delivered, else 400 (404 for a session that does not open). */
  async #answer(response: InboundResponse, info: RequestInfo, channel: Channel): Promise<Handled> {
    try {
      if (this.options.legacy === 'reject')
        throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: clients must not send responses', undefined, 400)
      const session = await this.#eras.messageSession(info, channel, true)
      await this.#questions.deliverAnswer(response, info, session, (token, at) => this.#sealing.openQuestion(token, at))
      return { status: 202 }
    } catch (error) {
      const mcp = this.#toMcpError(error, 'a response')
      return { status: error instanceof McpError ? (mcp.httpStatus ?? 400) : 500, response: errorResponse(null, mcp) }
    }
  }

  /** @throws McpError -32601 for a method without a handler. */
  #handlerOf(method: string): RequestHandler | ChannelHandler {
    const handler = this.#handlers.get(method)
    if (!handler) throw methodNotFound(method)
    return handler
  }

  /** `options.capabilities`, plus those implied by registered handlers (where not set explicitly). */
  #capabilities(): ServerCapabilities {
    return capabilitiesOf(this.options.capabilities, this.#handlers)
  }

  /** `server/discover`: the supported versions, the capabilities, and the instructions if any. */
  #discover(): ResultObject {
    const result: ResultObject = {
      resultType: 'complete',
      supportedVersions: [...this.supportedVersions],
      capabilities: this.#capabilities(),
    }
    if (this.options.instructions !== undefined) result.instructions = this.options.instructions
    return result
  }
}

function methodNotFound(method: string): McpError {
  return new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`, { reason: 'unknown method' })
}
