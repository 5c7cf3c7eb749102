/**
 * The MCP client (2026-07-28): every request carries the `_meta` envelope; `callTool` answers
 * input-required rounds through your callbacks and retries until the result is complete.
 * @module
 */
import * as v from 'valibot'
import { LATEST_PROTOCOL_VERSION, META, SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/constants.ts'
import { ErrorCode, McpError } from '../protocol/errors.ts'
import { formatParamValue, headerParamsOf, valueAt, type HeaderParam } from '../protocol/param-headers.ts'
import { describeIssue } from '../protocol/issues.ts'
import {
  CallToolResult,
  CompleteResult,
  CreateMessageResult,
  DiscoverResult,
  ElicitResult,
  GetPromptResult,
  InputRequiredResult,
  ListPromptsResult,
  ListResourceTemplatesResult,
  ListResourcesResult,
  ListRootsResult,
  ListToolsResult,
  ReadResourceResult,
  type Prompt,
  type Resource,
  type SubscriptionFilter,
  type ResourceTemplate,
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type ElicitRequestParams,
  type Implementation,
  type InputRequest,
  type InputResponse,
  type InputResponses,
  type JSONRPCNotification,
  type LoggingLevel,
  type Tool,
} from '../protocol/schemas.ts'
import type { ClientTransport, SendOptions } from '../transport/http-client.ts'
import {
  InvalidInputResponseError,
  InvalidResultError,
  MissingInputHandlerError,
  RequestTimeoutError,
} from './errors.ts'
import { ResponseCache, type ResponseCacheOptions } from './cache.ts'
import { driveInputRequired, type RoundInfo } from './input-required.ts'
import { openSubscription, type ListenOptions, type Subscription } from './listen.ts'

/** What an input callback knows about the request it answers. */
export interface InputContext {
  /** The `inputRequests` key being answered. */
  key: string
  /** The call that asked: `tools/call`, `prompts/get` or `resources/read`. */
  method: string
  /** The tool or prompt name, or the resource URI. */
  target: string
  /** Aborts when a sibling request of the same round failed or the call was aborted. */
  signal: AbortSignal
}

/** Answers an `elicitation/create` input request (form or URL mode). */
export type ElicitationCallback = (
  params: ElicitRequestParams,
  ctx: InputContext,
) => ElicitResult | Promise<ElicitResult>
/** Answers a `sampling/createMessage` input request. */
export type SamplingCallback = (
  params: CreateMessageRequestParams,
  ctx: InputContext,
) => CreateMessageResult | Promise<CreateMessageResult>
/** Answers a `roots/list` input request. */
export type RootsCallback = (ctx: InputContext) => ListRootsResult | Promise<ListRootsResult>

/** Options of {@link Client}. */
export interface ClientOptions {
  /** How messages reach the server, e.g. `new StreamableHttpClientTransport(url)`. */
  transport: ClientTransport
  /** Sent as `_meta` clientInfo. Default `{ name: 'edge-mcp-client', version: '0.1.0' }`. */
  clientInfo?: Implementation
  /** The protocol version to request. Default `"2026-07-28"`. */
  protocolVersion?: string
  /**
   * Capabilities to declare on every request. Default: derived from the callbacks — elicitation
   * `{ form: {}, url: {} }`, sampling `{}`, roots `{}` — for each callback given.
   */
  capabilities?: ClientCapabilities
  /** Answers `elicitation/create` input requests (form and URL mode); declares `elicitation`. */
  elicitation?: ElicitationCallback
  /** Answers `sampling/createMessage` input requests; declares `sampling`. */
  sampling?: SamplingCallback
  /** Answers `roots/list` input requests; declares `roots`. */
  roots?: RootsCallback
  /** Retries allowed per call before `InputRequiredRoundsExceededError`. Default 10. */
  maxRounds?: number
  /**
   * Longest wait for the answer to one request (each round of a call is its own request), in
   * **milliseconds**; then `RequestTimeoutError`. Default 60,000. Time spent in your callbacks is not counted.
   */
  requestTimeoutMs?: number
  /** Receives warnings, e.g. a tool dropped from `listTools` for an invalid `x-mcp-header`. Default `console.warn`. */
  onWarning?: (message: string) => void
  /** Waits between state-only rounds (50 ms doubling to 250 ms); tests inject a fake. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  /**
   * Cache the results of `server/discover`, the list methods and `resources/read` for as long as their
   * `ttlMs` says, honouring `cacheScope` (spec: server/utilities/caching.mdx). `true` for an in-memory
   * cache of 500 entries, or options (store, clock, principal). Off by default.
   */
  cache?: boolean | ResponseCacheOptions
}

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call; it then rejects with the signal's reason (an `AbortError` `DOMException` by default). */
  signal?: AbortSignal
  /**
   * Limit for each request of this call, in **milliseconds** (overrides the client's `requestTimeoutMs`);
   * then `RequestTimeoutError`. Time spent in your input callbacks is not counted.
   */
  timeoutMs?: number
  /** Seed the first request with answers (resume a flow from stored state). */
  inputResponses?: InputResponses
  /** Seed the first request with a `requestState` from an earlier `InputRequiredResult` (byte-exact). */
  requestState?: string
  /** Observe each input-required round (what was asked, what was answered). */
  onRound?: (info: RoundInfo) => void
  /** Receives notifications sent on this request's stream. */
  onNotification?: (notification: JSONRPCNotification) => void
  /**
   * Receives progress (`notifications/progress`) for this call; setting it sends a `progressToken`.
   * `total` and `message` when the server gives them.
   */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void
  /** Ask for log messages of at least this severity (sent as `_meta` logLevel); they arrive via `onNotification`. */
  logLevel?: LoggingLevel
}

/** Per-call options of manual mode: the first `InputRequiredResult` is returned, not answered. */
export interface ManualCallOptions extends CallOptions {
  manual: true
}

/** Default per-request timeout, in milliseconds. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000
/** Most pages a list call walks before giving up (a server that never stops paginating). */
const MAX_LIST_PAGES = 1000
/** The cached methods each server notification makes stale. */
const STALE_AFTER: ReadonlyMap<string, readonly string[]> = new Map([
  ['notifications/tools/list_changed', ['tools/list']],
  ['notifications/prompts/list_changed', ['prompts/list']],
  ['notifications/resources/list_changed', ['resources/list', 'resources/templates/list']],
  ['notifications/resources/updated', ['resources/read']],
])

/** `AbortSignal.any`, with a fallback for runtimes that lack it. */
function anySignal(signals: AbortSignal[]): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any(signals)
  const controller = new AbortController()
  for (const s of signals) {
    if (s.aborted) {
      controller.abort(s.reason)
      break
    }
    s.addEventListener('abort', () => controller.abort(s.reason), { once: true })
  }
  return controller.signal
}

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
  #version: string | undefined

  /** @throws RangeError when `maxRounds` is not a non-negative integer, or `cache.maxEntries` not a positive one. */
  constructor(options: ClientOptions) {
    if (options.maxRounds !== undefined && !(Number.isInteger(options.maxRounds) && options.maxRounds >= 0)) {
      throw new RangeError(`maxRounds must be a non-negative integer, got ${String(options.maxRounds)}`)
    }
    const timeout = options.requestTimeoutMs
    if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) {
      throw new RangeError(`requestTimeoutMs must be a positive integer, got ${String(timeout)}`)
    }
    this.options = options
    if (options.cache) {
      const url = (options.transport as { url?: unknown }).url
      this.#cache = new ResponseCache(options.cache === true ? {} : options.cache, {
        url: typeof url === 'string' ? url : undefined,
        protocolVersion: options.protocolVersion ?? LATEST_PROTOCOL_VERSION,
        capabilities: this.capabilities,
      })
    }
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
   * `notifications/resources/updated` `{ uri }` → that URI's `resources/read`.
   * @returns whether the notification is one of these.
   */
  async invalidateCacheFor(notification: {
    method: string
    params?: Record<string, unknown> | undefined
  }): Promise<boolean> {
    const methods = STALE_AFTER.get(notification.method)
    if (!methods) return false
    const uri = notification.params?.uri
    for (const method of this.#cache ? methods : []) {
      const params = method === 'resources/read' && typeof uri === 'string' ? { uri } : undefined
      await this.#cache!.deletePrefix(await this.#cache!.prefix(method, params))
    }
    return true
  }

  /**
   * Send a cacheable request through the cache (when it is on): a fresh entry answers without a request;
   * otherwise the result is parsed, then stored if its hints allow. Errors are never stored; a store
   * that fails counts as a miss (with a warning).
   */
  async #cached<T>(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
    parse: (result: Record<string, unknown>) => T,
  ): Promise<T> {
    const cache = this.#cache
    if (!cache) return parse(await this.request(method, params, options))
    options.signal?.throwIfAborted()
    const keys = await cache.keys(method, params)
    const hit = await cache
      .get(keys)
      .catch((error: unknown) => this.#warn(`response cache: get failed: ${String(error)}`))
    if (hit !== undefined) return parse(hit)
    const result = await this.request(method, params, options)
    const parsed = parse(result)
    await cache.put(keys, result).catch((error: unknown) => this.#warn(`response cache: set failed: ${String(error)}`))
    return parsed
  }

  #warn(message: string): undefined {
    ;(this.options.onWarning ?? ((m: string) => console.warn(`[edge-mcp] ${m}`)))(message)
    return undefined
  }

  /** The capabilities declared on every request. */
  get capabilities(): ClientCapabilities {
    if (this.options.capabilities) return this.options.capabilities
    const caps: ClientCapabilities = {}
    if (this.options.elicitation) caps.elicitation = { form: {}, url: {} }
    if (this.options.sampling) caps.sampling = {}
    if (this.options.roots) caps.roots = {}
    return caps
  }

  /** The protocol version sent: `protocolVersion`, or the one a `-32022` answer told us to use. */
  get protocolVersion(): string {
    return this.#version ?? this.options.protocolVersion ?? LATEST_PROTOCOL_VERSION
  }

  /**
   * Send one request with the envelope and return its raw result. A `-32022` answer whose
   * `data.supported` lists a version this SDK speaks is retried once with that version, which is then
   * kept for later requests (spec: basic/versioning.mdx, SEP-2575).
   * @throws McpError when the server answers with a JSON-RPC error; HttpError for HTTP failures.
   */
  async request(
    method: string,
    params: Record<string, unknown> = {},
    options: CallOptions & { headers?: Record<string, string> } = {},
  ): Promise<Record<string, unknown>> {
    try {
      return await this.#request(method, params, options)
    } catch (error) {
      if (!(error instanceof McpError && error.code === ErrorCode.UnsupportedProtocolVersion)) throw error
      const supported = (error.data as { supported?: unknown } | undefined)?.supported
      const version = Array.isArray(supported)
        ? supported.find((s): s is string => typeof s === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(s))
        : undefined
      if (version === undefined) throw error
      this.#version = version
      return this.#request(method, params, options)
    }
  }

  /** The request `_meta`: `extra` (the caller's own keys), then the envelope every request carries. */
  #envelope(extra?: Record<string, unknown>): Record<string, unknown> {
    return {
      ...extra,
      [META.protocolVersion]: this.protocolVersion,
      [META.clientCapabilities]: this.capabilities,
      [META.clientInfo]: this.options.clientInfo ?? { name: 'edge-mcp-client', version: '0.1.0' },
    }
  }

  async #request(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions & { headers?: Record<string, string> },
  ): Promise<Record<string, unknown>> {
    const id = this.#nextId++
    const meta = this.#envelope(params._meta as Record<string, unknown> | undefined)
    const progressToken = `progress-${id}`
    if (options.onProgress) meta.progressToken = progressToken
    if (options.logLevel) meta[META.logLevel] = options.logLevel
    const message = { jsonrpc: '2.0' as const, id, method, params: { ...params, _meta: meta } }
    options.signal?.throwIfAborted()
    if (options.timeoutMs !== undefined && !(Number.isInteger(options.timeoutMs) && options.timeoutMs > 0)) {
      throw new RangeError(`timeoutMs must be a positive integer, got ${String(options.timeoutMs)}`)
    }
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
    const timer = new AbortController()
    const timeoutError = new RequestTimeoutError(method, timeoutMs)
    let handle: ReturnType<typeof setTimeout> | undefined = setTimeout(() => timer.abort(timeoutError), timeoutMs)
    let left = timeoutMs
    let since = Date.now()
    const signal = options.signal ? anySignal([options.signal, timer.signal]) : timer.signal
    const sendOptions: SendOptions & { signal: AbortSignal } = {
      signal,
      // the user's time (an OAuth login) does not count against the request timeout
      interactive: async (step) => {
        if (handle !== undefined) {
          clearTimeout(handle)
          handle = undefined
          left = Math.max(0, left - (Date.now() - since))
        }
        try {
          return await step()
        } finally {
          if (!timer.signal.aborted) {
            since = Date.now()
            handle = setTimeout(() => timer.abort(timeoutError), left)
          }
        }
      },
    }
    if (options.headers) sendOptions.headers = options.headers
    if (options.onNotification || options.onProgress) {
      sendOptions.onNotification = (n) => {
        const p = n.params as
          { progressToken?: unknown; progress?: unknown; total?: unknown; message?: unknown } | undefined
        if (
          n.method === 'notifications/progress' &&
          p?.progressToken === progressToken &&
          typeof p.progress === 'number'
        ) {
          const event: { progress: number; total?: number; message?: string } = { progress: p.progress }
          if (typeof p.total === 'number') event.total = p.total
          if (typeof p.message === 'string') event.message = p.message
          options.onProgress?.(event)
        }
        options.onNotification?.(n)
      }
    }
    let response: Record<string, unknown> | undefined
    try {
      // Race the transport too: a custom transport that ignores the signal still cannot hang the call.
      const aborted = new Promise<never>((_resolve, reject) => {
        if (signal.aborted) reject(signal.reason)
        signal.addEventListener('abort', () => reject(signal.reason), { once: true })
      })
      response = (await Promise.race([this.options.transport.send(message, sendOptions), aborted])) as
        Record<string, unknown> | undefined
    } catch (error) {
      if (timer.signal.aborted && !options.signal?.aborted) throw timeoutError
      throw error
    } finally {
      clearTimeout(handle)
    }
    if (!response || typeof response !== 'object') throw new InvalidResultError(`No response to ${method}`)
    const error = response.error as { code?: unknown; message?: unknown; data?: unknown } | undefined
    // an error without id answers a request the server could not read (parse error, body too large, …)
    const idless = error !== undefined && (response.id === undefined || response.id === null)
    if (response.id !== id && !idless) {
      throw new InvalidResultError(
        `Response id ${JSON.stringify(response.id)} does not match request id ${JSON.stringify(id)}`,
      )
    }
    if (error !== undefined) {
      if (
        typeof error !== 'object' ||
        error === null ||
        !Number.isInteger(error.code) ||
        typeof error.message !== 'string'
      ) {
        throw new InvalidResultError(`Malformed JSON-RPC error in the response to ${method}`)
      }
      throw new McpError(error.code as number, error.message, error.data)
    }
    const result = response.result
    if (typeof result !== 'object' || result === null || Array.isArray(result))
      throw new InvalidResultError(`The result of ${method} is not an object`)
    return result as Record<string, unknown>
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
    const tools = await this.#walk<Tool, typeof ListToolsResult>('tools/list', 'tools', ListToolsResult, options)
    const kept: Tool[] = []
    this.#toolHeaders.clear()
    for (const tool of tools) {
      const found = headerParamsOf(tool.inputSchema)
      if ('invalid' in found) {
        this.#warn(`Ignoring tool '${tool.name}': ${found.invalid}`)
        continue
      }
      if (found.params.length) this.#toolHeaders.set(tool.name, found.params)
      kept.push(tool)
    }
    return kept
  }

  readonly #toolHeaders = new Map<string, HeaderParam[]>()

  /** The `Mcp-Param-*` headers of a tool call, from the tool definitions `listTools` saw. */
  #paramHeaders(name: string, args: Record<string, unknown>): Record<string, string> {
    const out: Record<string, string> = {}
    for (const param of this.#toolHeaders.get(name) ?? []) {
      const value = formatParamValue(valueAt(args, param.path))
      if (value !== undefined) out[`Mcp-Param-${param.name}`] = value
    }
    return out
  }

  /**
   * `tools/call`, answering input-required rounds through the callbacks until a complete result.
   * With `{ manual: true }` the first `InputRequiredResult` is returned instead, for you to answer and
   * resume later with `{ inputResponses, requestState }` (possibly from another process).
   *
   * @throws McpError when the server answers with a JSON-RPC error (e.g. -32602 for an unknown tool or
   *   a rejected requestState, -32021 for a missing capability).
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
    try {
      return await this.#drive('tools/call', { name, arguments: args }, name, CallToolResult, {
        ...options,
        headers: this.#paramHeaders(name, args),
      })
    } catch (error) {
      // -32020: the tool's headers may have changed; re-list once and retry (spec: streamable-http.mdx)
      if (!(error instanceof McpError && error.code === ErrorCode.HeaderMismatch)) throw error
      await this.invalidateCache('tools/list') // a cached list is what got the headers wrong
      await this.listTools(options.signal ? { signal: options.signal } : {})
      return this.#drive('tools/call', { name, arguments: args }, name, CallToolResult, {
        ...options,
        headers: this.#paramHeaders(name, args),
      })
    }
  }

  /**
   * `prompts/get`, driving the same input-required loop as {@link Client.callTool} (or returning the
   * first `InputRequiredResult` with `{ manual: true }`).
   * @throws as {@link Client.callTool}.
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
    return this.#drive('prompts/get', { name, arguments: args }, name, GetPromptResult, options)
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
    return this.#drive('resources/read', { uri }, uri, ReadResourceResult, options)
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
   * `subscriptions/listen`: open a long-lived stream of the notifications `filter` opts in to, and
   * resolve once the server acknowledged it (`requestTimeoutMs` applies to that wait only). Then
   * notifications reach the callbacks and the returned async iterable, until you abort `signal` (or
   * call `close()`), or the server ends the subscription.
   *
   * @example
   * const sub = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['file:///config.json'] }, { signal })
   * for await (const n of sub) if (n.method === 'notifications/tools/list_changed') await client.listTools()
   * @throws McpError when the server refuses (e.g. -32602 naming a bad filter field); RequestTimeoutError,
   *   InvalidResultError and HttpError as for any request. After the acknowledgement, a broken stream
   *   rejects `subscription.ended` (and the iterator) with SubscriptionDroppedError.
   */
  async listen(filter: SubscriptionFilter, options: ListenOptions = {}): Promise<Subscription> {
    options.signal?.throwIfAborted()
    const id = this.#nextId++
    const request = {
      jsonrpc: '2.0' as const,
      id,
      method: 'subscriptions/listen',
      params: { notifications: filter, _meta: this.#envelope() },
    }
    const warn = this.options.onWarning ?? ((m: string) => console.warn(`[edge-mcp] ${m}`))
    // list changes and resource updates drop the cache entries they make stale before the app hears of them
    const before = this.#cache ? (n: JSONRPCNotification) => this.invalidateCacheFor(n) : undefined
    return openSubscription(
      this.options.transport,
      request,
      options,
      this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      warn,
      before,
    )
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

  async #walk<T, S extends v.GenericSchema>(
    method: string,
    field: string,
    schema: S,
    options: CallOptions,
  ): Promise<T[]> {
    const items: T[] = []
    let cursor: string | undefined
    const seen = new Set<string>()
    do {
      if (seen.size >= MAX_LIST_PAGES)
        throw new InvalidResultError(`${method} returned more than ${MAX_LIST_PAGES} pages`)
      const params = cursor === undefined ? {} : { cursor }
      let page: Record<string, unknown>
      try {
        page = await this.#cached(
          method,
          params,
          options,
          (result) => parseResult(schema, result, method) as Record<string, unknown>,
        )
      } catch (error) {
        // a cursor that fails makes every cached page suspect (spec: caching.mdx "Interaction with Pagination")
        if (cursor !== undefined) await this.invalidateCache(method)
        throw error
      }
      items.push(...(page[field] as T[]))
      cursor = page.nextCursor as string | undefined
      if (cursor !== undefined) {
        if (seen.has(cursor)) throw new InvalidResultError(`${method} returned the same cursor twice`)
        seen.add(cursor)
      }
    } while (cursor !== undefined)
    return items
  }

  /** Send a carrier request and, unless `manual`, answer its input-required rounds until it completes. */
  async #drive<R>(
    method: string,
    base: Record<string, unknown>,
    target: string,
    complete: v.GenericSchema<unknown, R>,
    options: CallOptions & { manual?: boolean; headers?: Record<string, string> },
  ): Promise<R | InputRequiredResult> {
    const send = async (inputResponses: InputResponses | undefined, requestState: string | undefined) => {
      const params: Record<string, unknown> = { ...base }
      if (inputResponses !== undefined) params.inputResponses = inputResponses
      if (requestState !== undefined) params.requestState = requestState
      return parseCarrierResult(method, await this.request(method, params, options), complete)
    }
    // only a first request without answers or state may be cached (spec: caching.mdx "Cache Key")
    const cacheable =
      method === 'resources/read' && options.inputResponses === undefined && options.requestState === undefined
    const first = cacheable
      ? await this.#cached(method, base, options, (result) => parseCarrierResult(method, result, complete))
      : await send(options.inputResponses, options.requestState)
    if (options.manual) return first
    const driveOptions: Parameters<typeof driveInputRequired<R>>[1] = {
      dispatch: (key, request, signal) => this.#answer(key, request, { key, method, target, signal }),
      retry: send,
      isInputRequired: (value): value is InputRequiredResult =>
        (value as { resultType?: unknown }).resultType === 'input_required',
    }
    if (this.options.maxRounds !== undefined) driveOptions.maxRounds = this.options.maxRounds
    if (this.options.sleep) driveOptions.sleep = this.options.sleep
    if (options.signal) driveOptions.signal = options.signal
    if (options.onRound) driveOptions.onRound = options.onRound
    return driveInputRequired(first, driveOptions)
  }

  /** Answer one input request through its callback, and check the answer's shape before it is sent. */
  async #answer(key: string, request: InputRequest, ctx: InputContext): Promise<InputResponse> {
    let answer: unknown
    let schema: v.GenericSchema
    switch (request.method) {
      case 'elicitation/create': {
        if (!this.options.elicitation) throw new MissingInputHandlerError('elicitation', key)
        answer = await this.options.elicitation(request.params, ctx)
        schema = ElicitResult
        break
      }
      case 'sampling/createMessage': {
        if (!this.options.sampling) throw new MissingInputHandlerError('sampling', key)
        answer = await this.options.sampling(request.params, ctx)
        schema = CreateMessageResult
        break
      }
      case 'roots/list': {
        if (!this.options.roots) throw new MissingInputHandlerError('roots', key)
        answer = await this.options.roots(ctx)
        schema = ListRootsResult
        break
      }
    }
    const parsed = v.safeParse(schema, answer)
    if (!parsed.success) throw new InvalidInputResponseError(key, describeIssue(parsed.issues[0]))
    return answer as InputResponse
  }
}

function parseResult<S extends v.GenericSchema>(schema: S, value: unknown, method: string): v.InferOutput<S> {
  const parsed = v.safeParse(schema, value)
  if (!parsed.success) {
    throw new InvalidResultError(`Invalid ${method} result: ${describeIssue(parsed.issues[0])}`)
  }
  return parsed.output
}

function parseCarrierResult<R>(
  method: string,
  result: Record<string, unknown>,
  complete: v.GenericSchema<unknown, R>,
): R | InputRequiredResult {
  const type = result.resultType
  if (type === 'input_required') {
    const irr = parseResult(InputRequiredResult, result, method)
    if (Object.keys(irr.inputRequests ?? {}).length === 0 && irr.requestState === undefined) {
      throw new InvalidResultError(
        `${method} returned an InputRequiredResult with neither inputRequests nor requestState`,
      )
    }
    return irr
  }
  if (type !== undefined && type !== 'complete')
    throw new InvalidResultError(`Unknown resultType '${String(type)}' in ${method} result`)
  return parseResult(complete, result, method)
}
