/**
 * The MCP client (2026-07-28): every request carries the `_meta` envelope; `callTool` answers
 * input-required rounds through your callbacks and retries until the result is complete.
 * @module
 */
import * as v from 'valibot'
import { LATEST_PROTOCOL_VERSION, META } from '../protocol/constants.ts'
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
import type { ClientTransport } from '../transport/http-client.ts'
import { InvalidInputResponseError, InvalidResultError, MissingInputHandlerError, RequestTimeoutError } from './errors.ts'
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
export type ElicitationCallback = (params: ElicitRequestParams, ctx: InputContext) => ElicitResult | Promise<ElicitResult>
/** Answers a `sampling/createMessage` input request. */
export type SamplingCallback = (params: CreateMessageRequestParams, ctx: InputContext) => CreateMessageResult | Promise<CreateMessageResult>
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
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal
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

  /** @throws RangeError when `maxRounds` is not a non-negative integer. */
  constructor(options: ClientOptions) {
    if (options.maxRounds !== undefined && !(Number.isInteger(options.maxRounds) && options.maxRounds >= 0)) {
      throw new RangeError(`maxRounds must be a non-negative integer, got ${String(options.maxRounds)}`)
    }
    const timeout = options.requestTimeoutMs
    if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) {
      throw new RangeError(`requestTimeoutMs must be a positive integer, got ${String(timeout)}`)
    }
    this.options = options
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

  /**
   * Send one request with the envelope and return its raw result.
   * @throws McpError when the server answers with a JSON-RPC error; HttpError for HTTP failures.
   */
  async request(method: string, params: Record<string, unknown> = {}, options: CallOptions & { headers?: Record<string, string> } = {}): Promise<Record<string, unknown>> {
    const id = this.#nextId++
    const meta: Record<string, unknown> = {
      ...(params._meta as Record<string, unknown> | undefined),
      [META.protocolVersion]: this.options.protocolVersion ?? LATEST_PROTOCOL_VERSION,
      [META.clientCapabilities]: this.capabilities,
      [META.clientInfo]: this.options.clientInfo ?? { name: 'edge-mcp-client', version: '0.1.0' },
    }
    const progressToken = `progress-${id}`
    if (options.onProgress) meta.progressToken = progressToken
    if (options.logLevel) meta[META.logLevel] = options.logLevel
    const message = { jsonrpc: '2.0' as const, id, method, params: { ...params, _meta: meta } }
    options.signal?.throwIfAborted()
    const timeoutMs = this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
    const timer = new AbortController()
    const timeoutError = new RequestTimeoutError(method, timeoutMs)
    const handle = setTimeout(() => timer.abort(timeoutError), timeoutMs)
    const signal = options.signal ? anySignal([options.signal, timer.signal]) : timer.signal
    const sendOptions: { signal: AbortSignal; onNotification?: (n: JSONRPCNotification) => void; headers?: Record<string, string> } = { signal }
    if (options.headers) sendOptions.headers = options.headers
    if (options.onNotification || options.onProgress) {
      sendOptions.onNotification = (n) => {
        const p = n.params as { progressToken?: unknown; progress?: unknown; total?: unknown; message?: unknown } | undefined
        if (n.method === 'notifications/progress' && p?.progressToken === progressToken && typeof p.progress === 'number') {
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
      response = (await Promise.race([this.options.transport.send(message, sendOptions), aborted])) as Record<string, unknown> | undefined
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
      throw new InvalidResultError(`Response id ${JSON.stringify(response.id)} does not match request id ${JSON.stringify(id)}`)
    }
    if (error !== undefined) {
      if (typeof error !== 'object' || error === null || !Number.isInteger(error.code) || typeof error.message !== 'string') {
        throw new InvalidResultError(`Malformed JSON-RPC error in the response to ${method}`)
      }
      throw new McpError(error.code as number, error.message, error.data)
    }
    const result = response.result
    if (typeof result !== 'object' || result === null || Array.isArray(result)) throw new InvalidResultError(`The result of ${method} is not an object`)
    return result as Record<string, unknown>
  }

  /** `server/discover`: supported versions, capabilities, instructions, cache hints and `_meta` serverInfo. */
  async discover(options: CallOptions = {}): Promise<DiscoverResult> {
    return parseResult(DiscoverResult, await this.request('server/discover', {}, options), 'server/discover')
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
        ;(this.options.onWarning ?? ((m: string) => console.warn(`[edge-mcp] ${m}`)))(`Ignoring tool '${tool.name}': ${found.invalid}`)
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
  callTool(name: string, args: Record<string, unknown> | undefined, options: ManualCallOptions): Promise<CallToolResult | InputRequiredResult>
  callTool(name: string, args: Record<string, unknown> | undefined, options: CallOptions & { manual?: boolean }): Promise<CallToolResult | InputRequiredResult>
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: CallOptions & { manual?: boolean } = {},
  ): Promise<CallToolResult | InputRequiredResult> {
    try {
      return await this.#drive('tools/call', { name, arguments: args }, name, CallToolResult, { ...options, headers: this.#paramHeaders(name, args) })
    } catch (error) {
      // -32020: the tool's headers may have changed; re-list once and retry (spec: streamable-http.mdx)
      if (!(error instanceof McpError && error.code === ErrorCode.HeaderMismatch)) throw error
      await this.listTools(options.signal ? { signal: options.signal } : {})
      return this.#drive('tools/call', { name, arguments: args }, name, CallToolResult, { ...options, headers: this.#paramHeaders(name, args) })
    }
  }

  /**
   * `prompts/get`, driving the same input-required loop as {@link Client.callTool} (or returning the
   * first `InputRequiredResult` with `{ manual: true }`).
   * @throws as {@link Client.callTool}.
   */
  getPrompt(name: string, args?: Record<string, string>, options?: CallOptions): Promise<GetPromptResult>
  getPrompt(name: string, args: Record<string, string> | undefined, options: ManualCallOptions): Promise<GetPromptResult | InputRequiredResult>
  getPrompt(name: string, args: Record<string, string> | undefined, options: CallOptions & { manual?: boolean }): Promise<GetPromptResult | InputRequiredResult>
  async getPrompt(name: string, args: Record<string, string> = {}, options: CallOptions & { manual?: boolean } = {}): Promise<GetPromptResult | InputRequiredResult> {
    return this.#drive('prompts/get', { name, arguments: args }, name, GetPromptResult, options)
  }

  /**
   * `resources/read`, driving the same input-required loop as {@link Client.callTool}.
   * @throws McpError -32602 with `data.uri` when the resource does not exist; otherwise as {@link Client.callTool}.
   */
  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult>
  readResource(uri: string, options: ManualCallOptions): Promise<ReadResourceResult | InputRequiredResult>
  readResource(uri: string, options: CallOptions & { manual?: boolean }): Promise<ReadResourceResult | InputRequiredResult>
  async readResource(uri: string, options: CallOptions & { manual?: boolean } = {}): Promise<ReadResourceResult | InputRequiredResult> {
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
    const result = await this.request('completion/complete', { ref, argument, context: { arguments: context } }, options)
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
    const meta: Record<string, unknown> = {
      [META.protocolVersion]: this.options.protocolVersion ?? LATEST_PROTOCOL_VERSION,
      [META.clientCapabilities]: this.capabilities,
      [META.clientInfo]: this.options.clientInfo ?? { name: 'edge-mcp-client', version: '0.1.0' },
    }
    const request = { jsonrpc: '2.0' as const, id, method: 'subscriptions/listen', params: { notifications: filter, _meta: meta } }
    const warn = this.options.onWarning ?? ((m: string) => console.warn(`[edge-mcp] ${m}`))
    return openSubscription(this.options.transport, request, options, this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, warn)
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

  async #walk<T, S extends v.GenericSchema>(method: string, field: string, schema: S, options: CallOptions): Promise<T[]> {
    const items: T[] = []
    let cursor: string | undefined
    const seen = new Set<string>()
    do {
      if (seen.size >= MAX_LIST_PAGES) throw new InvalidResultError(`${method} returned more than ${MAX_LIST_PAGES} pages`)
      const page = parseResult(schema, await this.request(method, cursor === undefined ? {} : { cursor }, options), method) as Record<string, unknown>
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
  async #drive<R>(method: string, base: Record<string, unknown>, target: string, complete: v.GenericSchema<unknown, R>, options: CallOptions & { manual?: boolean; headers?: Record<string, string> }): Promise<R | InputRequiredResult> {
    const send = async (inputResponses: InputResponses | undefined, requestState: string | undefined) => {
      const params: Record<string, unknown> = { ...base }
      if (inputResponses !== undefined) params.inputResponses = inputResponses
      if (requestState !== undefined) params.requestState = requestState
      return parseCarrierResult(method, await this.request(method, params, options), complete)
    }
    const first = await send(options.inputResponses, options.requestState)
    if (options.manual) return first
    const driveOptions: Parameters<typeof driveInputRequired<R>>[1] = {
      dispatch: (key, request, signal) => this.#answer(key, request, { key, method, target, signal }),
      retry: send,
      isInputRequired: (value): value is InputRequiredResult => (value as { resultType?: unknown }).resultType === 'input_required',
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

function parseCarrierResult<R>(method: string, result: Record<string, unknown>, complete: v.GenericSchema<unknown, R>): R | InputRequiredResult {
  const type = result.resultType
  if (type === 'input_required') {
    const irr = parseResult(InputRequiredResult, result, method)
    if (Object.keys(irr.inputRequests ?? {}).length === 0 && irr.requestState === undefined) {
      throw new InvalidResultError(`${method} returned an InputRequiredResult with neither inputRequests nor requestState`)
    }
    return irr
  }
  if (type !== undefined && type !== 'complete') throw new InvalidResultError(`Unknown resultType '${String(type)}' in ${method} result`)
  return parseResult(complete, result, method)
}
