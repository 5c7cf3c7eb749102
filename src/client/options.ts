/**
 * What a `Client` is configured with: its options, the per-call options, and the input callbacks
 * (elicitation, sampling, roots) that answer a server's input requests.
 * @module
 */
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  DetailedTask,
  ElicitRequestParams,
  ElicitResult,
  Implementation,
  InputResponses,
  JSONRPCNotification,
  ListRootsResult,
  LoggingLevel,
} from '../protocol/schemas/index.ts'
import type { ClientTransport } from './transport.ts'
import type { ResponseCacheOptions } from './cache.ts'
import type { EraStore } from './era.ts'
import type { RoundInfo } from './input-required.ts'

/** What an input callback knows about the request it answers. */
export interface InputContext {
  /** The `inputRequests` key being answered. */
  key: string
  /** The call that asked: `tools/call` (a task's questions too), `prompts/get` or `resources/read`. */
  method: string
  /** The tool or prompt name, or the resource URI (a task resumed by `resumeTask`: its task id). */
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

/** Options of `Client` (client.ts). */
export interface ClientOptions {
  /** How messages reach the server, e.g. `new StreamableHttpClientTransport(url)`. */
  transport: ClientTransport
  /** Sent as `_meta` clientInfo. Default `{ name: 'edge-mcp-client', version: '0.1.0' }`. */
  clientInfo?: Implementation
  /** The protocol version to request. Default `"2026-07-28"`. */
  protocolVersion?: string
  /**
   * Which protocol era to speak. `'auto'` (default): the first request probes with `server/discover` and
   * the answer decides (spec 2026-07-28: basic/versioning.mdx) — kept for the client's life (and in
   * `eraStore` when given); a probe that gives no evidence (a network failure, 5xx, 401/403 the transport
   * could not authorize) is thrown to that request and made again by the next. On a transport with
   * `probeTimeoutMs` (stdio) a probe unanswered that long means a 2025-era server. `'modern'`: 2026-07-28
   * only, the `_meta` envelope on every request. `'legacy'`: a 2025-era server — `initialize` at
   * 2025-11-25 (accepting 2025-06-18 or 2025-03-26), a session (`Mcp-Session-Id`, started again once after
   * a 404, ended by `close()`), and the server's `elicitation/create`, `sampling/createMessage` and
   * `roots/list` requests answered through the same callbacks.
   */
  versionNegotiation?: 'modern' | 'legacy' | 'auto'
  /**
   * Where `'auto'` remembers each server's era (by URL) between clients, e.g. over `localStorage`; a
   * verdict is trusted for 24 hours, and forgotten when a request fails the way a server of the other era
   * fails it. Default: none (each client probes once).
   */
  eraStore?: EraStore
  /**
   * Capabilities to declare on every request. Default: derived from the callbacks — elicitation
   * `{ form: {}, url: {} }`, sampling `{}`, roots `{}` — for each callback given.
   */
  capabilities?: ClientCapabilities
  /**
   * Extensions to declare, merged into `capabilities.extensions` (the entries of `capabilities` kept, these
   * win) in both eras: the 2025 `initialize` and every 2026 request's envelope. A browser host of MCP Apps
   * declares `{ 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } }`
   * (`APPS_EXTENSION`, `APP_MIME_TYPE`; ext-apps apps.mdx "Client (Host) Capabilities"). Each value an object.
   */
  extensions?: Record<string, object>
  /** Answers `elicitation/create` input requests (form and URL mode); declares `elicitation`. */
  elicitation?: ElicitationCallback
  /** Answers `sampling/createMessage` input requests; declares `sampling`. */
  sampling?: SamplingCallback
  /** Answers `roots/list` input requests; declares `roots`. */
  roots?: RootsCallback
  /** Retries allowed per call (per attempt, see `restartOnInvalidRequestState`) before `InputRequiredRoundsExceededError`. Default 10. */
  maxRounds?: number
  /**
   * When a retry is refused with the frozen requestState error (`-32602 "Invalid or expired requestState"`:
   * the state expired, or the retry reached a server instance that cannot open it, e.g. another Worker
   * isolate without `REQUEST_STATE_KEYS`), start the call over once, answering every question already
   * answered in this call (same key, method and params but `_meta`) from those answers, each once and in order,
   * so your callbacks are asked only new questions. `RoundInfo.attempt` and `recalled` show it. Default
   * `true`; `false` throws the error. Manual mode (`{ manual: true }`) and a resumed call (`inputResponses`
   * or `requestState` given: what was answered before is not known) never restart.
   */
  restartOnInvalidRequestState?: boolean
  /**
   * Longest wait for the answer to one request (each round of a call is its own request), in
   * **milliseconds**; then `RequestTimeoutError`. Default 60,000. Time spent in your callbacks is not counted.
   */
  requestTimeoutMs?: number
  /**
   * The default of every call's {@link CallOptions.resetTimeoutOnProgress}: progress for a request starts
   * its timeout again. Default `true`.
   */
  resetTimeoutOnProgress?: boolean
  /** The default of every call's {@link CallOptions.maxTotalTimeoutMs}, in **milliseconds**. Default: no cap. */
  maxTotalTimeoutMs?: number
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
  /**
   * Start the timeout (`timeoutMs`) of a request again on each `notifications/progress` for it, so that a
   * long call that reports progress is not cut off (as the official SDKs' `resetTimeoutOnProgress`).
   * While it is on, a `tools/call` sends a `progressToken` even without `onProgress`. Default `true`.
   */
  resetTimeoutOnProgress?: boolean
  /**
   * With `resetTimeoutOnProgress`, the most time one request may take however much progress it reports, in
   * **milliseconds** (time in your input callbacks not counted); then `RequestTimeoutError` naming this
   * limit. Default: no cap. @throws RangeError (from the call) when not a positive integer.
   */
  maxTotalTimeoutMs?: number
  /** Seed the first request with answers (resume a flow from stored state). */
  inputResponses?: InputResponses
  /** Seed the first request with a `requestState` from an earlier `InputRequiredResult` (byte-exact). */
  requestState?: string
  /** Observe each input-required round (what was asked, what was answered). */
  onRound?: (info: RoundInfo) => void
  /** This call's {@link ClientOptions.restartOnInvalidRequestState} (the client's when unset). */
  restartOnInvalidRequestState?: boolean
  /** Receives notifications sent on this request's stream. */
  onNotification?: (notification: JSONRPCNotification) => void
  /**
   * Receives progress (`notifications/progress`) for this call; setting it sends a `progressToken`.
   * `total` and `message` when the server gives them.
   */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void
  /**
   * Observes a tool call the server runs as a task (`io.modelcontextprotocol/tasks`): called with the task
   * when it is created (or first read, by `resumeTask`), then on each change of its `status`,
   * `statusMessage` or progress (`_meta["edge-mcp/progress"]` = `{ progress, total? }`), the last time with
   * its terminal state. Persist `task.taskId` here to resume the call after a restart (`Client.resumeTask`).
   */
  onTask?: (task: DetailedTask) => void
  /** Ask for log messages of at least this severity (sent as `_meta` logLevel); they arrive via `onNotification`. */
  logLevel?: LoggingLevel
}

/** Per-call options of manual mode: the first `InputRequiredResult` is returned, not answered. */
export interface ManualCallOptions extends CallOptions {
  manual: true
}

/**
 * Whether a request sends a `progressToken` (spec: basic/utilities/progress.mdx): when the caller listens
 * (`onProgress`), or when progress resets the timeout (`resetTimeoutOnProgress`, on by default) of a
 * `tools/call`.
 */
export function wantsProgress(method: string, options: CallOptions): boolean {
  return options.onProgress !== undefined || (method === 'tools/call' && options.resetTimeoutOnProgress !== false)
}

/** A call's options with the client's defaults (`resetTimeoutOnProgress`, `maxTotalTimeoutMs`) where it sets none. */
export function withClientDefaults<O extends CallOptions>(client: ClientOptions, call: O): O {
  const out = { ...call }
  if (out.resetTimeoutOnProgress === undefined && client.resetTimeoutOnProgress !== undefined)
    out.resetTimeoutOnProgress = client.resetTimeoutOnProgress
  if (out.maxTotalTimeoutMs === undefined && client.maxTotalTimeoutMs !== undefined)
    out.maxTotalTimeoutMs = client.maxTotalTimeoutMs
  return out
}

/** Default per-request timeout, in milliseconds. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000

/**
 * Check the options `Client` validates.
 * @returns the version negotiation (default `'auto'`).
 * @throws RangeError when `maxRounds` is not a non-negative integer, `requestTimeoutMs` or
 *   `maxTotalTimeoutMs` not a positive integer, or `versionNegotiation` not one of `'modern'`, `'legacy'`, `'auto'`.
 * @throws TypeError when an `extensions` value is not an object.
 */
export function checkClientOptions(options: ClientOptions): 'modern' | 'legacy' | 'auto' {
  checkInteger('maxRounds', options.maxRounds, 0)
  checkInteger('requestTimeoutMs', options.requestTimeoutMs)
  checkInteger('maxTotalTimeoutMs', options.maxTotalTimeoutMs)
  for (const [id, value] of Object.entries(options.extensions ?? {}))
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new TypeError(`extensions[${JSON.stringify(id)}] must be an object, got ${JSON.stringify(value)}`)
  const negotiation = options.versionNegotiation ?? 'auto'
  if (negotiation !== 'modern' && negotiation !== 'legacy' && negotiation !== 'auto')
    throw new RangeError(`versionNegotiation must be 'modern', 'legacy' or 'auto', got ${String(negotiation)}`)
  return negotiation
}

/**
 * @throws RangeError when `value` is given and is not an integer of at least `min` (1: "a positive integer",
 *   0: "a non-negative integer"), naming the option `name`.
 */
export function checkInteger(name: string, value: number | undefined, min: 0 | 1 = 1): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= min))
    throw new RangeError(`${name} must be a ${min ? 'positive' : 'non-negative'} integer, got ${String(value)}`)
}

/** Say `message` through `onWarning` (default: `console.warn`, prefixed `[edge-mcp]`). */
export function warnWith(options: Pick<ClientOptions, 'onWarning'>, message: string): undefined {
  ;(options.onWarning ?? ((m: string) => console.warn(`[edge-mcp] ${m}`)))(message)
  return undefined
}

/** The `clientInfo` a client sends: the option, else `{ name: 'edge-mcp-client', version: '0.1.0' }`. */
export function clientInfoOf(options: ClientOptions): NonNullable<ClientOptions['clientInfo']> {
  return options.clientInfo ?? { name: 'edge-mcp-client', version: '0.1.0' }
}

/**
 * The capabilities a client declares: `options.capabilities`, else derived from its callbacks; then
 * `options.extensions` merged into `extensions`.
 */
export function capabilitiesOf(options: ClientOptions): ClientCapabilities {
  let caps: ClientCapabilities = options.capabilities ?? {}
  if (!options.capabilities) {
    if (options.elicitation) caps.elicitation = { form: {}, url: {} }
    if (options.sampling) caps.sampling = {}
    if (options.roots) caps.roots = {}
  }
  if (options.extensions) caps = { ...caps, extensions: { ...caps.extensions, ...options.extensions } }
  return caps
}

/** `o` without its undefined properties (for `exactOptionalPropertyTypes`). */
export function defined<T extends object>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, value]) => value !== undefined)) as never
}
