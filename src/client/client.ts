/**
 * The MCP client, for both protocol eras: it finds the server's era (`versionNegotiation: 'auto'`, see
 * era.ts), then speaks 2026-07-28 (the `_meta` envelope on every request; `callTool` answers input-required
 * rounds through your callbacks and retries until the result is complete) or 2025-11-25 (a session, the
 * server's own requests answered through the same callbacks; see legacy.ts).
 * @module
 */
import { LATEST_PROTOCOL_VERSION } from '../protocol/constants.ts'
import type { Check } from '../protocol/check.ts'
import type {
  ClientCapabilities,
  DetailedTask,
  InputRequiredResult,
  JSONRPCNotification,
  Prompt,
  Resource,
  ResourceTemplate,
  SubscriptionFilter,
  Tool,
} from '../protocol/schemas/index.ts'
import { invalidateFor, ResponseCache, withUsableHints } from './cache.ts'
import { parseResult, type ExchangeOptions } from './exchange.ts'
import { EraNegotiator, versionOffered, type Era } from './era.ts'
import { LegacyConnection } from './legacy.ts'
import {
  addMiddleware,
  requestCall,
  through,
  throughCall,
  withAddedMeta,
  type ClientCall,
  type ClientMiddleware,
} from './middleware.ts'
import { callTool, driveCarrier, type CarrierDeps } from './drive.ts'
import { PLAN_LISTEN, type ListenPlan } from './listen-plan.ts'
import type { SendOptions } from './transport.ts'
import {
  capabilitiesOf,
  defined,
  checkClientOptions,
  DEFAULT_REQUEST_TIMEOUT_MS,
  warnWith,
  withClientDefaults,
  type CallOptions,
  type ClientOptions,
  type ManualCallOptions,
} from './options.ts'
import { walkPages, withoutNullCursor } from './pages.ts'
import {
  CallToolResult,
  CompleteResult,
  DiscoverResult,
  GetPromptResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  ReadResourceResult,
} from './checks.gen.ts'
import { ToolHeaders } from './tool-headers.ts'
import { envelopeOf, exchangeEnveloped } from './request-envelope.ts'
import { cancelTask, getTask, resumeTask } from './tasks.ts'

type Meta = Record<string, unknown>

/**
 * An MCP client.
 *
 * @example
 * const client = new Client({
 *   transport: new StreamableHttpClientTransport('http://127.0.0.1:8787/mcp'),
 *   elicitation: async (params) => ({ action: 'accept', content: { region: 'eu-west-1' } }),
 * })
 * const result = await client.callTool('provision', { name: 'orders' })
 */
export class Client {
  readonly options: ClientOptions
  #nextId = 1
  readonly #cache: ResponseCache | undefined
  /** What `listTools` saw of each tool's `x-mcp-header` parameters, for `callTool`'s `Mcp-Param-*` headers. */
  readonly #toolHeaders = new ToolHeaders()
  #version: string | undefined
  readonly #legacy: LegacyConnection | undefined
  /** What `use` registered; undefined until then (nothing runs or is allocated for middleware before). */
  #middleware: ClientMiddleware[] | undefined
  /** What a carrier call (drive.ts) needs of this client. */
  readonly #carrier: CarrierDeps

  /** The server's era: fixed by `versionNegotiation`, or (`'auto'`) found by the first request's probe. */
  readonly #eras: EraNegotiator

  /** @throws RangeError for an invalid `maxRounds`, `requestTimeoutMs`, `versionNegotiation` or `cache.maxEntries`. */
  constructor(options: ClientOptions) {
    const negotiation = checkClientOptions(options)
    this.options = options
    this.#carrier = {
      options,
      request: (method, params, options) => this.request(method, params, options),
      cached: (method, params, options, parse) => this.#cached(method, params, options, parse),
      middleware: () => this.#middleware,
      routingFor: (name, args) => this.#toolHeaders.routingFor(name, args),
      relist: async (signal) => {
        await this.invalidateCache('tools/list') // a cached list is what got the headers wrong
        await this.listTools(signal ? { signal } : {})
      },
    }
    const url: unknown = options.transport.url // checked: a JavaScript transport may set anything
    this.#eras = new EraNegotiator(negotiation === 'auto' ? undefined : negotiation, {
      url: typeof url === 'string' ? url : undefined,
      store: options.eraStore,
      silenceIsLegacy: options.transport.probeTimeoutMs !== undefined,
      warn: (message) => this.#warn(message),
    })
    this.#legacy =
      negotiation !== 'modern'
        ? new LegacyConnection({
            options,
            capabilities: this.capabilities,
            nextId: () => this.#nextId++,
            timeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
            middleware: () => this.#middleware,
          })
        : undefined
    if (options.cache) {
      this.#cache = new ResponseCache(options.cache === true ? {} : options.cache, {
        url: typeof url === 'string' ? url : undefined,
        protocolVersion: options.protocolVersion ?? LATEST_PROTOCOL_VERSION,
        capabilities: this.capabilities,
      })
    }
  }

  /** Add middleware: a {@link ClientMiddleware}, or a bare function (a `request` hook); registration order is outermost first. @returns this client. @throws TypeError for anything else, naming a key that is not a hook. */
  use(middleware: ClientMiddleware): this
  use(middleware: NonNullable<ClientMiddleware['request']>): this
  use(middleware: ClientMiddleware | NonNullable<ClientMiddleware['request']>): this {
    addMiddleware((this.#middleware ??= []), middleware)
    return this
  }

  /**
   * Drop cached results (see {@link ClientOptions.cache}): all of this server's, or those of one method
   * (e.g. `'tools/list'`), for every principal. Does nothing when the cache is off.
   */
  async invalidateCache(method?: string): Promise<void> {
    await this.#cache?.deletePrefix(await this.#cache.prefix(method))
  }

  /**
   * Drop the cached results a server notification makes stale (spec: caching.mdx "Interaction with
   * Notifications"): `notifications/tools/list_changed` → `tools/list`, `…/prompts/list_changed` →
   * `prompts/list`, `…/resources/list_changed` → `resources/list` and `resources/templates/list`,
   * `notifications/resources/updated` `{ uri }` → that URI's `resources/read`. @returns whether it is one of these.
   */
  invalidateCacheFor(notification: { method: string; params?: Record<string, unknown> | undefined }): Promise<boolean> {
    return invalidateFor(this.#cache, notification)
  }

  /** Send a cacheable request through the cache (when it is on; see {@link ResponseCache.through}). */
  async #cached<T>(
    method: string,
    params: Record<string, unknown>,
    options: ExchangeOptions,
    parse: (result: Record<string, unknown>) => T,
  ): Promise<T> {
    const send = () => this.request(method, params, options)
    if (!this.#cache) return parse(await send())
    return this.#cache.through(method, params, options.signal, send, parse, (m) => this.#warn(m))
  }

  #warn(message: string): undefined {
    return warnWith(this.options, message)
  }

  /** The capabilities declared on every request. */
  get capabilities(): ClientCapabilities {
    return capabilitiesOf(this.options)
  }

  /**
   * The protocol version in use: with a 2025-era server the one `initialize` negotiated (2025-11-25 until
   * it has run); otherwise `protocolVersion`, or the one a `-32022` answer told us to use. In `'auto'` mode
   * it is only settled once the first request has found the era.
   */
  get protocolVersion(): string {
    if (this.#eras.era === 'legacy') return this.#legacy!.protocolVersion ?? '2025-11-25'
    return this.#version ?? this.options.protocolVersion ?? LATEST_PROTOCOL_VERSION
  }

  /** The server's era: `'modern'` (2026-07-28) or `'legacy'` (2025); undefined until `'auto'` has probed. */
  get era(): Era | undefined {
    return this.#eras.era
  }

  /** End a `'legacy'` session (`DELETE`, a 405 ignored; none on stdio: close that transport itself). @throws HttpError / NetworkError. */
  async close(): Promise<void> {
    await this.#legacy?.close()
  }

  /**
   * Send one request and return its raw result (in `'auto'` mode the first one probes the server's era with
   * `server/discover`, see `EraNegotiator.negotiate`). A `-32022` answer whose `data.supported` lists a version this SDK
   * speaks is retried once with that version, which is then kept (spec: basic/versioning.mdx, SEP-2575).
   * @throws McpError when the server answers with a JSON-RPC error; HttpError for HTTP failures.
   */
  async request(
    method: string,
    params: Record<string, unknown> = {},
    options: CallOptions & Pick<SendOptions, 'routing'> = {},
  ): Promise<Record<string, unknown>> {
    return this.#eras.negotiate(
      method,
      params,
      this.#probe,
      () => this.#versioned(method, params, options),
      options.signal,
      () => this.#legacy?.server !== undefined,
    )
  }

  /**
   * The era probe (see era.ts): `server/discover` as a 2026-07-28 request (shared: no caller's signal), within
   * the transport's `probeTimeoutMs` when it sets one (stdio).
   */
  readonly #probe = () =>
    this.#versioned('server/discover', {}, defined({ timeoutMs: this.options.transport.probeTimeoutMs }))

  /** Send as 2026-07-28 at the version in use; a `-32022` naming a version this SDK speaks is sent again at it. */
  async #versioned(method: string, params: Record<string, unknown>, options: ExchangeOptions) {
    try {
      return await this.#enveloped(method, params, options)
    } catch (error) {
      const version = this.#eras.era === 'legacy' ? undefined : versionOffered(error)
      if (version === undefined) throw error
      this.#version = version
      return this.#enveloped(method, params, options)
    }
  }

  /**
   * Build the request (envelope, `progressToken`, log level; what `request` middleware adds to `_meta`
   * before the envelope) and exchange it; a 2025-era request goes to the session (its middleware run there).
   */
  async #enveloped(
    method: string,
    params: Record<string, unknown>,
    call: ExchangeOptions,
  ): Promise<Record<string, unknown>> {
    const options = withClientDefaults(this.options, call)
    const id = this.#nextId++
    const own = params._meta as Meta | undefined
    const mw = this.#middleware
    let result
    if (this.#eras.era === 'legacy') result = await this.#legacy!.inSession(method, params, options, `progress-${id}`)
    else if (!mw) result = await exchangeEnveloped(this, method, params, own, options, id)
    else {
      const rc = requestCall(method, params, 'modern', this.protocolVersion, this.options.transport, options.round, id)
      result = await through(mw, 'request', rc, () =>
        exchangeEnveloped(this, method, params, withAddedMeta(own, rc.meta), options, id),
      )
    }
    return withUsableHints(method, result) // odd hints mean "do not cache", never a failed call
  }

  /** `server/discover`: supported versions, capabilities, instructions, cache hints and `_meta` serverInfo. */
  async discover(options: CallOptions = {}): Promise<DiscoverResult> {
    return this.#cached('server/discover', {}, options, (result) =>
      parseResult(DiscoverResult, result, 'server/discover'),
    )
  }

  /**
   * `tools/list`, walking every page. Tools whose `x-mcp-header` annotations are invalid are left out
   * (spec: streamable-http.mdx), with a warning; the others' header parameters are remembered so that
   * `callTool` mirrors them into `Mcp-Param-*` headers.
   */
  async listTools(options: CallOptions = {}): Promise<Tool[]> {
    const tools = await this.#walk<Tool>('tools/list', 'tools', ListToolsResult, options)
    return this.#toolHeaders.replace(tools, (message) => this.#warn(message))
  }

  /**
   * `tools/call`, answering input-required rounds through the callbacks until a complete result.
   * With `{ manual: true }` the first `InputRequiredResult` is returned instead, for you to answer and
   * resume later with `{ inputResponses, requestState }` (possibly from another process).
   *
   * @throws McpError when the server answers with a JSON-RPC error (e.g. -32602 for an unknown tool or a
   *   requestState still rejected after the one restart of `restartOnInvalidRequestState`, -32021 for a
   *   missing capability).
   * @throws InputRequiredRoundsExceededError after `maxRounds` retries.
   * @throws MissingInputHandlerError when the server asks for input this client has no callback for.
   */
  callTool(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult>
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: ManualCallOptions,
  ): Promise<CallToolResult | InputRequiredResult>
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: CallOptions & { manual?: boolean },
  ): Promise<CallToolResult | InputRequiredResult>
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: CallOptions & { manual?: boolean } = {},
  ): Promise<CallToolResult | InputRequiredResult> {
    const mw = this.#middleware
    if (!mw) return callTool(this.#carrier, name, args, options, undefined)
    return throughCall(mw, 'tools/call', name, args, (call) => callTool(this.#carrier, name, args, options, call))
  }

  /**
   * `prompts/get`, driving the same input-required loop as {@link Client.callTool} (or returning the
   * first `InputRequiredResult` with `{ manual: true }`). @throws as {@link Client.callTool}.
   */
  getPrompt(name: string, args?: Record<string, string>, options?: CallOptions): Promise<GetPromptResult>
  getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    options: ManualCallOptions,
  ): Promise<GetPromptResult | InputRequiredResult>
  getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    options: CallOptions & { manual?: boolean },
  ): Promise<GetPromptResult | InputRequiredResult>
  async getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: CallOptions & { manual?: boolean } = {},
  ): Promise<GetPromptResult | InputRequiredResult> {
    const params = { name, arguments: args }
    const drive = (call: ClientCall | undefined) =>
      driveCarrier(this.#carrier, 'prompts/get', params, name, GetPromptResult, options, call)
    return this.#middleware ? throughCall(this.#middleware, 'prompts/get', name, args, drive) : drive(undefined)
  }

  /**
   * `resources/read`, driving the same input-required loop as {@link Client.callTool}.
   * @throws McpError -32602 with `data.uri` when the resource does not exist; otherwise as {@link Client.callTool}.
   */
  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult>
  readResource(uri: string, options: ManualCallOptions): Promise<ReadResourceResult | InputRequiredResult>
  readResource(
    uri: string,
    options: CallOptions & { manual?: boolean },
  ): Promise<ReadResourceResult | InputRequiredResult>
  async readResource(
    uri: string,
    options: CallOptions & { manual?: boolean } = {},
  ): Promise<ReadResourceResult | InputRequiredResult> {
    const drive = (call: ClientCall | undefined) =>
      driveCarrier(this.#carrier, 'resources/read', { uri }, uri, ReadResourceResult, options, call)
    return this.#middleware ? throughCall(this.#middleware, 'resources/read', uri, undefined, drive) : drive(undefined)
  }

  /**
   * `completion/complete`: suggested values for a prompt argument or a URI-template variable.
   * @param ref - `{ type: 'ref/prompt', name }` or `{ type: 'ref/resource', uri: template }`
   * @param argument - the argument being completed and what was typed so far
   * @param context - the other arguments already given
   */
  async complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<CompleteResult['completion']> {
    const result = await this.request(
      'completion/complete',
      { ref, argument, context: { arguments: context } },
      options,
    )
    return parseResult(CompleteResult, result, 'completion/complete').completion
  }

  /**
   * The plan of a `subscriptions/listen` on this client, for `listen` (listen.ts, a function of its own so
   * that an app that never listens does not bundle it): the era found first, then the request and where
   * it goes. @internal
   */
  async [PLAN_LISTEN](filter: SubscriptionFilter, signal?: AbortSignal): Promise<ListenPlan> {
    signal?.throwIfAborted()
    const era = await this.#eras.resolve(this.#probe, signal)
    const params = { notifications: filter, _meta: envelopeOf(this, 'subscriptions/listen') }
    const cache = this.#cache
    return {
      ...(era === 'legacy' ? { session: this.#legacy! } : { transport: this.options.transport }),
      message: { jsonrpc: '2.0', id: this.#nextId++, method: 'subscriptions/listen', params },
      timeoutMs: this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      warn: (m) => this.#warn(m),
      // list changes and resource updates drop the cache entries they make stale before the app hears of them
      ...(cache ? { before: (n: JSONRPCNotification) => this.invalidateCacheFor(n) } : {}),
    }
  }

  /**
   * Tasks (`io.modelcontextprotocol/tasks`): poll the task `taskId` (e.g. saved from `onTask` before a restart)
   * until it ends, as `callTool` does with a task the server creates (tasks.ts `runTask`: poll interval, questions
   * answered through the callbacks, `signal` → `tasks/cancel`, limits). @returns the tool's result.
   * @throws McpError for a failed task; TaskEndedError when it was cancelled, is not found or expired;
   *   TypeError unless `taskId` is a non-empty string.
   */
  resumeTask(taskId: string, options: CallOptions = {}): Promise<CallToolResult> {
    return resumeTask(this.#carrier, taskId, options)
  }

  /** `tasks/get`: the task's state now. @throws McpError -32602 when the server does not know it (for this caller). */
  getTask(taskId: string, options?: CallOptions): Promise<DetailedTask> {
    return getTask(this.#carrier, taskId, options)
  }

  /** `tasks/cancel`: acknowledged (a finished task stays as it is). @throws McpError -32602 for an unknown task. */
  cancelTask(taskId: string, options?: CallOptions): Promise<void> {
    return cancelTask(this.#carrier, taskId, options)
  }

  /** `prompts/list`, walking every page. */
  async listPrompts(options: CallOptions = {}): Promise<Prompt[]> {
    return this.#walk('prompts/list', 'prompts', ListPromptsResult, options)
  }

  /** `resources/list`, walking every page. */
  async listResources(options: CallOptions = {}): Promise<Resource[]> {
    return this.#walk('resources/list', 'resources', ListResourcesResult, options)
  }

  /** `resources/templates/list`, walking every page. */
  async listResourceTemplates(options: CallOptions = {}): Promise<ResourceTemplate[]> {
    return this.#walk('resources/templates/list', 'resourceTemplates', ListResourceTemplatesResult, options)
  }

  /** Every page of a list method, each through the cache but for a cursor already used (see {@link walkPages}). */
  async #walk<T>(method: string, field: string, check: Check, options: CallOptions): Promise<T[]> {
    const parse = (result: Record<string, unknown>) =>
      parseResult(check, withoutNullCursor(result), method) as Record<string, unknown>
    return walkPages<T>(
      method,
      field,
      (params, again) =>
        again ? this.request(method, params, options).then(parse) : this.#cached(method, params, options, parse),
      () => this.invalidateCache(method),
    )
  }
}
