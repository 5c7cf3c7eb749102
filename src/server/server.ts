/**
 * The low-level MCP server: one handler per method, the request envelope, `server/discover`, and the
 * optional request-state boundary. Transport-agnostic: feed it parsed messages, get responses back.
 * @module
 */
import { INPUT_REQUIRED_METHODS, META, SUPPORTED_PROTOCOL_VERSIONS, targetParamOf } from '../protocol/constants.ts'
import * as v from 'valibot'
import {
  capabilitiesNeededBy,
  checkProtocolVersion,
  hasEnvelope,
  readEnvelope,
  requireCapabilities,
} from '../protocol/envelope.ts'
import { describeIssue } from '../protocol/issues.ts'
import { ErrorCode, McpError, invalidRequestStateError } from '../protocol/errors.ts'
import { errorResponse, type InboundMessage } from '../protocol/jsonrpc.ts'
import {
  InputRequiredResult,
  type Implementation,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type LoggingLevel,
  type JSONRPCResponse,
  type ServerCapabilities,
} from '../protocol/schemas.ts'
import { canonicalArguments, digest16 } from '../encoding/canonical.ts'
import { InvalidRequestStateError } from '../request-state/errors.ts'
import type { RequestBinding, RequestStateSecurity } from '../request-state/security.ts'
import { consoleLogger, type Logger, type RequestContext, type RequestInfo } from './context.ts'
import {
  honouredFilter,
  InMemoryNotificationBus,
  notificationMatcher,
  parseListenFilter,
  type NotificationBus,
  type ServerEvent,
} from './notifications.ts'
import { isInputRequired } from './results.ts'
import { CACHEABLE_METHODS, checkCacheOptions, withCacheHints, type CacheOptions } from './cache.ts'

export type { CacheHints, CacheOptions, CacheableMethod } from './cache.ts'

/** Params of a request as received (`_meta` envelope included). */
export type RequestParams = Record<string, unknown>
/** A result object; `resultType` and `_meta` serverInfo are added by the server. */
export type ResultObject = Record<string, unknown>
/** Handles one method. Throw `McpError` to answer with a JSON-RPC error. */
export type RequestHandler = (params: RequestParams, ctx: RequestContext) => ResultObject | Promise<ResultObject>
/** Handles one notification method; its return value and errors are ignored. */
export type NotificationHandler = (params: RequestParams, info: RequestInfo) => void | Promise<void>

/** Options of {@link Server}. */
export interface ServerOptions {
  /** Capabilities to advertise in `server/discover` (merged with those implied by registered handlers). */
  capabilities?: ServerCapabilities
  /** Instructions for the model, returned by `server/discover`. */
  instructions?: string
  /** Protocol versions served. Default `["2026-07-28"]`. */
  supportedVersions?: readonly string[]
  /**
   * Cache hints for `server/discover`, the list methods and `resources/read` (spec:
   * server/utilities/caching.mdx): a server default, and per-method overrides under `methods`. A field a
   * result already carries wins. Default `{ ttlMs: 0, cacheScope: 'private' }`.
   * @example { ttlMs: 60_000, cacheScope: 'public', methods: { 'resources/list': { cacheScope: 'private' } } }
   */
  cache?: CacheOptions
  /** Where diagnostics go. Default: the console. */
  logger?: Logger
  /**
   * Carries server events to `subscriptions/listen` streams. Default: a new `InMemoryNotificationBus`
   * (this isolate only); share one across instances to fan out (see `notifications.ts`).
   */
  notificationBus?: NotificationBus
  /**
   * Which resource URIs this listen request may subscribe to (`resourceSubscriptions`), e.g. by the
   * caller's `ctx.authInfo`. A URI it refuses (or throws for) is left out of the acknowledgement, which
   * the spec defines as the honoured subset; nothing is sent for it. Default: every URI. Without it,
   * anyone may learn when any resource changes: set it when resources are per user.
   * @example authorizeSubscription: (uri, ctx) => uri.startsWith(`users://${ctx.authInfo?.clientId}/`)
   */
  authorizeSubscription?: (uri: string, ctx: RequestContext) => boolean | Promise<boolean>
}

/** What the server answers for one inbound message: an HTTP-like status and, for requests, a response. */
export interface Handled {
  /** 200 for results and in-band errors; 202 for notifications; 400/404 where the spec fixes a status. */
  status: number
  /** The JSON-RPC response; undefined for notifications. */
  response?: JSONRPCResponse
}

/** RFC 5424 severities, least to most severe (spec: `LoggingLevel`). */
const LOG_SEVERITY: Readonly<Record<LoggingLevel, number>> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
}

/** Capabilities implied by a registered handler; list changes and resource updates come through `subscriptions/listen`. */
const METHOD_CAPABILITY: Record<string, [keyof ServerCapabilities, Record<string, unknown>]> = {
  'tools/list': ['tools', { listChanged: true }],
  'prompts/list': ['prompts', { listChanged: true }],
  'resources/list': ['resources', { subscribe: true, listChanged: true }],
  'completion/complete': ['completions', {}],
}

/** Most handler targets remembered as sealing state (resource URIs are unbounded): then the memory starts over. */
const ASKERS_MAX = 1024

/**
 * A low-level MCP server. It validates the request envelope, answers `server/discover`, routes each
 * method to its handler, and stamps `resultType` and `_meta` serverInfo on every result. It sends
 * `requestState` verbatim until you switch sealing on with {@link Server.useRequestStateSecurity}.
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
  readonly #handlers = new Map<string, RequestHandler>()
  readonly #notificationHandlers = new Map<string, NotificationHandler>()
  #security: { policy: RequestStateSecurity; audience: string | undefined } | undefined
  /** Ends each listen stream open on this instance. */
  readonly #listens = new Set<() => void>()
  /**
   * `method ‖ NUL ‖ target` of handlers that have sealed a requestState: their first rounds hash the
   * arguments while the handler runs (the digest is then ready to seal). At most {@link ASKERS_MAX} entries.
   */
  readonly #askers = new Set<string>()
  #serving = false

  /** @throws RangeError when `options.cache` holds an invalid value (see {@link ServerOptions.cache}). */
  constructor(info: Implementation, options: ServerOptions = {}) {
    checkCacheOptions(options.cache)
    this.info = info
    this.options = options
    this.logger = options.logger ?? consoleLogger
    this.notifications = options.notificationBus ?? new InMemoryNotificationBus()
    this.#handlers.set('server/discover', () => this.#discover())
    this.#handlers.set('subscriptions/listen', (params, ctx) => this.#listen(params, ctx))
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
      this.logger.error(`publishing ${event.kind} failed`, error)
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
      this.#security = { policy, audience: undefined }
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
    this.#security = { policy, audience }
    return this
  }

  /** The active request-state policy, if sealing is on. */
  get requestStateSecurity(): RequestStateSecurity | undefined {
    return this.#security?.policy
  }

  /** Answer one classified inbound message. Never throws. */
  async handle(message: InboundMessage, info: RequestInfo = {}): Promise<Handled> {
    this.#serving = true
    if (message.kind === 'notification') {
      const handler = this.#notificationHandlers.get(message.message.method)
      if (handler) {
        try {
          await handler(message.message.params ?? {}, info)
        } catch (error) {
          this.logger.error(`notification handler for ${message.message.method} failed`, error)
        }
      }
      return { status: 202 }
    }
    return this.handleRequest(message.message, info)
  }

  /** Answer one JSON-RPC request. Never throws: failures become JSON-RPC errors. */
  async handleRequest(request: JSONRPCRequest, info: RequestInfo = {}): Promise<Handled> {
    this.#serving = true
    try {
      const result = await this.#dispatch(request, info)
      return { status: 200, response: { jsonrpc: '2.0', id: request.id, result } }
    } catch (error) {
      const mcp = this.#toMcpError(error, request.method)
      return { status: mcp.httpStatus ?? 200, response: errorResponse(request.id, mcp) }
    }
  }

  #toMcpError(error: unknown, method: string): McpError {
    if (error instanceof McpError) return error
    this.logger.error(`handler for ${method} failed`, error)
    return new McpError(ErrorCode.InternalError, 'Internal error')
  }

  async #dispatch(request: JSONRPCRequest, info: RequestInfo): Promise<ResultObject> {
    let params: RequestParams = request.params ?? {}
    if (!hasEnvelope(params) && request.method === 'initialize') {
      const requested = typeof params.protocolVersion === 'string' ? params.protocolVersion : ''
      checkProtocolVersion(requested, this.supportedVersions)
    }
    const envelope = readEnvelope(params)
    checkProtocolVersion(envelope.protocolVersion, this.supportedVersions)
    const handler = this.#handlers.get(request.method)
    if (!handler) {
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`, { reason: 'unknown method' })
    }
    let lastProgress = -Infinity
    // Object.assign, not `{ ...info, … }`: V8 takes a slow path for properties written after a spread.
    const ctx: RequestContext = Object.assign({}, info, {
      method: request.method,
      requestId: request.id,
      envelope,
      protocolVersion: envelope.protocolVersion,
      clientCapabilities: envelope.clientCapabilities,
      clientInfo: envelope.clientInfo,
      signal: info.signal ?? new AbortController().signal,
      requireCapabilities: (...needs) => requireCapabilities(envelope.clientCapabilities, ...needs),
      sendProgress: (progress, total, message) => {
        const token = envelope.progressToken
        if (token === undefined || !info.notify || !(progress > lastProgress)) return false
        lastProgress = progress
        const params: Record<string, unknown> = { progressToken: token, progress }
        if (total !== undefined) params.total = total
        if (message !== undefined) params.message = message
        info.notify({ jsonrpc: '2.0', method: 'notifications/progress', params })
        return true
      },
      log: (level, data, logger) => {
        const wanted = envelope.logLevel
        if (wanted === undefined || !info.notify || LOG_SEVERITY[level] < LOG_SEVERITY[wanted]) return false
        const params: Record<string, unknown> = { level, data }
        if (logger !== undefined) params.logger = logger
        info.notify({ jsonrpc: '2.0', method: 'notifications/message', params })
        return true
      },
    } satisfies Omit<RequestContext, keyof RequestInfo> & { signal: AbortSignal })

    const carrier = INPUT_REQUIRED_METHODS.has(request.method)
    if (carrier && params.requestState === null) {
      params = { ...params }
      delete params.requestState
    }
    const security = carrier ? this.#security : undefined
    let binding: RequestBinding | undefined
    // Bind before the handler runs: what a handler does to its arguments must not change the binding.
    // The canonical form is taken (and checked) now; it is hashed when a token is opened or sealed.
    const canonicalArgs = security ? this.#canonicalArguments(request.method, params) : undefined
    const target = security ? params[targetParamOf(request.method) ?? 'name'] : undefined
    const askerKey = typeof target === 'string' ? request.method + '\u0000' + target : undefined
    // A retry, or a first round of a handler that sealed state before: hash now, alongside the unseal or
    // the handler (independent work); whoever needs the digest awaits it. A failure surfaces there, never
    // as an unhandled rejection.
    let argsDigest: Promise<string> | undefined
    if (security && (params.requestState !== undefined || (askerKey !== undefined && this.#askers.has(askerKey)))) {
      argsDigest = digest16(canonicalArgs!)
      argsDigest.then(undefined, () => {})
    }
    if (security && params.requestState !== undefined) {
      let reason = ''
      try {
        if (typeof target !== 'string') throw new InvalidRequestStateError('non-string target')
        binding = {
          method: request.method,
          target,
          argsDigest: argsDigest!,
          principal: this.#principal(security.policy, info, request.method),
        }
        const plaintext = await security.policy.open(params.requestState, binding, security.audience)
        params = withProp(params, 'requestState', plaintext)
      } catch (error) {
        reason = error instanceof InvalidRequestStateError ? error.reason : 'codec error'
      }
      if (reason) {
        this.logger.warn(`requestState rejected on ${request.method}: ${reason}`)
        throw invalidRequestStateError()
      }
    }

    const result = await handler(params, ctx)
    if (typeof result !== 'object' || result === null)
      throw new Error(`handler for ${request.method} returned a non-object result`)

    let out: ResultObject = result
    if (isInputRequired(result)) {
      if (!carrier)
        throw new Error(
          `handler for ${request.method} returned an InputRequiredResult; only tools/call, prompts/get and resources/read may`,
        )
      const parsed = v.safeParse(InputRequiredResult, result)
      if (!parsed.success)
        throw new Error(
          `handler for ${request.method} returned an invalid InputRequiredResult: ${describeIssue(parsed.issues[0])}`,
        )
      const requests = parsed.output.inputRequests
      const hasRequests = requests !== undefined && Object.keys(requests).length > 0
      if (!hasRequests && parsed.output.requestState === undefined) {
        throw new Error(
          `handler for ${request.method} returned an InputRequiredResult with neither inputRequests nor requestState`,
        )
      }
      if ((requests && !hasRequests) || out.ttlMs !== undefined || out.cacheScope !== undefined) {
        // an InputRequiredResult is never cacheable and carries no hints (spec: caching.mdx)
        out = { ...result }
        if (!hasRequests) delete out.inputRequests
        delete out.ttlMs
        delete out.cacheScope
      }
      // Only ask for what this request's client declared (spec: mrtr.mdx); otherwise -32021.
      if (hasRequests) ctx.requireCapabilities(...Object.values(requests).flatMap(capabilitiesNeededBy))
      if (security && out.requestState !== undefined) {
        if (binding === undefined) {
          let principal: string | undefined
          try {
            if (typeof target !== 'string')
              throw new Error(`the request's ${targetParamOf(request.method)} is not a string`)
            principal = this.#principal(security.policy, info, request.method)
          } catch (error) {
            this.logger.error(
              `refusing to seal requestState on ${request.method}`,
              error instanceof Error ? error.message : undefined,
            )
            throw new McpError(ErrorCode.InternalError, 'Internal error')
          }
          binding = {
            method: request.method,
            target: target as string,
            argsDigest: argsDigest ?? digest16(canonicalArgs!),
            principal,
          }
        }
        if (askerKey !== undefined && !this.#askers.has(askerKey)) {
          if (this.#askers.size >= ASKERS_MAX) this.#askers.clear()
          this.#askers.add(askerKey)
        }
        try {
          const token = await security.policy.seal(out.requestState as string, binding, security.audience)
          if (token.length > security.policy.maxTokenLength) {
            throw new Error(
              `the sealed requestState is ${token.length} characters, over maxTokenLength (${security.policy.maxTokenLength}); keep handler state small`,
            )
          }
          out = withProp(out, 'requestState', token)
        } catch (error) {
          this.logger.error(
            `refusing to seal requestState on ${request.method}`,
            error instanceof Error ? error.message : undefined,
          )
          throw new McpError(ErrorCode.InternalError, 'Internal error')
        }
      }
    } else {
      if (typeof out.resultType !== 'string') out = withProp(out, 'resultType', 'complete')
      if (CACHEABLE_METHODS.has(request.method) && out.resultType === 'complete') {
        // a result reached through rounds is never cacheable (spec: mrtr.mdx "Caching")
        const retry = params.requestState !== undefined || params.inputResponses !== undefined
        out = withCacheHints(out, request.method, this.options.cache, retry)
      }
    }
    const meta = (out._meta ?? {}) as Record<string, unknown>
    if (meta[META.serverInfo] === undefined) out = withProp(out, '_meta', withProp(meta, META.serverInfo, this.info))
    return out
  }

  /**
   * The canonical JSON the arguments are bound by (resources: `{}`). Arguments that cannot be bound —
   * nested too deeply, or holding non-finite numbers — are a client mistake: -32602.
   */
  #canonicalArguments(method: string, params: RequestParams): string {
    try {
      return canonicalArguments(method === 'resources/read' ? undefined : params.arguments)
    } catch (error) {
      const why = error instanceof Error ? error.message.replace(/^canonicalJson: /, '') : 'not JSON'
      throw new McpError(ErrorCode.InvalidParams, `Invalid params: arguments cannot be bound (${why})`)
    }
  }

  /** The principal via `bindPrincipal`; a failure is logged (without detail on the wire) and rethrown as a reason. */
  #principal(policy: RequestStateSecurity, info: RequestInfo, method: string): string | undefined {
    try {
      return policy.principalOf(info)
    } catch (error) {
      this.logger.error(`bindPrincipal failed on ${method}`, error instanceof Error ? error.message : undefined)
      throw new InvalidRequestStateError('principal error')
    }
  }

  /** `options.capabilities`, plus those implied by registered handlers (where not set explicitly). */
  #capabilities(): ServerCapabilities {
    const capabilities: ServerCapabilities = { ...this.options.capabilities }
    for (const [method, [cap, value]] of Object.entries(METHOD_CAPABILITY)) {
      if (this.#handlers.has(method) && capabilities[cap] === undefined)
        (capabilities as Record<string, unknown>)[cap] = { ...value }
    }
    return capabilities
  }

  /**
   * `subscriptions/listen` (spec: basic/patterns/subscriptions.mdx): subscribe to the bus, send the
   * acknowledgement (the honoured subset of the filter), then every matching event, each tagged with the
   * request id as `_meta` subscriptionId, until the client goes away (`signal`) or
   * {@link Server.closeSubscriptions} ends it with a result. Progress and log messages never go here.
   * @throws McpError -32602 for a bad filter; -32600 (HTTP 406) when the transport cannot stream.
   */
  async #listen(params: RequestParams, ctx: RequestContext): Promise<ResultObject> {
    const filter = honouredFilter(parseListenFilter(params), this.#capabilities())
    const authorize = this.options.authorizeSubscription
    if (authorize && filter.resourceSubscriptions) {
      const allowed = await Promise.all(
        filter.resourceSubscriptions.map(async (uri) => {
          try {
            return (await authorize(uri, ctx)) === true
          } catch (error) {
            this.logger.error('authorizeSubscription failed; the URI is left out', error)
            return false
          }
        }),
      )
      filter.resourceSubscriptions = filter.resourceSubscriptions.filter((_, i) => allowed[i])
    }
    const notify = ctx.notify
    if (!notify) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        'Not Acceptable: subscriptions/listen answers with an SSE stream; Accept must include text/event-stream',
        undefined,
        406,
      )
    }
    const match = notificationMatcher(filter, ctx.requestId)
    let early: JSONRPCNotification[] | undefined = [] // events between subscribing and the acknowledgement
    const unsubscribe = await this.notifications.subscribe((event) => {
      const notification = match(event)
      if (!notification) return
      if (early) early.push(notification)
      else notify(notification)
    })
    try {
      if (!ctx.signal.aborted) {
        notify({
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: { _meta: { [META.subscriptionId]: ctx.requestId }, notifications: filter },
        })
        for (const n of early) notify(n)
        early = undefined
        let end!: () => void
        const ended = new Promise<void>((resolve) => (end = resolve))
        ctx.signal.addEventListener('abort', end, { once: true })
        this.#listens.add(end)
        try {
          await ended
        } finally {
          ctx.signal.removeEventListener('abort', end)
          this.#listens.delete(end)
        }
      }
    } finally {
      try {
        await unsubscribe()
      } catch (error) {
        this.logger.error('unsubscribing a listen stream from the notification bus failed', error)
      }
    }
    // the graceful-closure result; after a disconnect nobody reads it
    return { _meta: { [META.subscriptionId]: ctx.requestId } }
  }

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

/**
 * `{ ...obj, [key]: value }` (own enumerable properties copied, `key` set last-wins), built with the
 * key before the spread: V8 takes a slow path for a property added after a spread. Only the key's
 * position among the properties differs.
 */
function withProp<T extends Record<string, unknown>>(obj: T, key: string, value: unknown): T {
  const out: Record<string, unknown> = { [key]: value, ...obj }
  out[key] = value
  return out as T
}
