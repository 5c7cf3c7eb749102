/**
 * Client middleware (`Client#use`): code around every request the client sends, around each logical
 * `callTool` / `getPrompt` / `readResource` and each of its input-required rounds, and around each input
 * request this client's callbacks answer — in both eras. Parents are reached through object links
 * (`request.round.call`, `answer.round` / `answer.request`), so that tracing needs no async context.
 *
 * Order: registration order is outermost first (the first registered runs first, and its `next()` runs
 * the second). With nothing registered, nothing here runs and nothing is allocated per request.
 * @module
 */
import { addHooks, runHooks, withAddedMeta as addMeta } from '../protocol/middleware.ts'
import type { ClientTransport } from './transport.ts'

/** The logical call of `callTool` / `getPrompt` / `readResource`: every round of it (and, for `callTool`, its `-32020` re-list and retry). */
export interface ClientCall {
  readonly method: 'tools/call' | 'prompts/get' | 'resources/read'
  /** The tool or prompt name, or the resource URI. */
  readonly target: string
  /** The arguments as given (a frozen shallow copy); undefined for `resources/read`. */
  readonly arguments: Readonly<Record<string, unknown>> | undefined
}

/**
 * One input-required round of a logical call (spec: basic/patterns/mrtr.mdx): its request, then the answers
 * to the input requests its result carries (the next round sends them).
 */
export interface ClientRoundCall {
  readonly call: ClientCall
  /**
   * 1-based, counted per attempt: a call started over after the frozen requestState error (see
   * `ClientOptions.restartOnInvalidRequestState`) counts from 1 again, as the server does.
   */
  readonly round: number
}

/** Every request the client sends (each round's included; the era probe and the 2025 `initialize` too). */
export interface ClientRequestCall {
  readonly method: string
  /** The params being sent, without `_meta`. Frozen (shallow). */
  readonly params: Readonly<Record<string, unknown>>
  /**
   * Keys set here (before calling `next()`) are added to the request's `_meta` (e.g. `traceparent`, SEP-414):
   * after the caller's own keys, and never over the 2026 envelope's keys (`io.modelcontextprotocol/*`) or
   * `progressToken`, which the client sets last.
   */
  readonly meta: Record<string, unknown>
  /** `'modern'` (2026-07-28, the `_meta` envelope) or `'legacy'` (2025-era session). */
  readonly era: 'modern' | 'legacy'
  /** The protocol version the request is sent at (2025 `initialize`: the version offered). */
  readonly protocolVersion: string
  /** The transport's kind: `'http'` (a transport with a `url`), `'stdio'` (one with `probeTimeoutMs`), else `'other'`. */
  readonly transport: string
  /** The round this request is, for a carrier request of a logical call. */
  readonly round?: ClientRoundCall
  /** The JSON-RPC id the request is sent with. */
  readonly requestId: string | number
}

/** One input request answered by this client's callbacks (2026: an `inputRequests` entry; 2025: a server-to-client request). */
export interface ClientAnswerCall {
  /** The `inputRequests` key (2026), or `server-request-<id>` (2025). */
  readonly key: string
  readonly method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list'
  readonly era: 'modern' | 'legacy'
  /** 2026: the round whose result asked (undefined for a task's question, asked in a `tasks/get` result). */
  readonly round?: ClientRoundCall
  /** 2025: the request during which the server asked (undefined for a question on the session's `GET` stream). */
  readonly request?: ClientRequestCall
}

/**
 * Middleware of a `Client` (`client.use(middleware)`); every hook optional. Each gets the call and
 * `next`, which runs the inner middleware and then the work itself; it returns (or resolves to) the result:
 * `next()`'s, or another one (a short-circuit: then the work does not run). A hook that throws (or rejects)
 * makes the caller's promise reject with that very error (for a 2025 `answer`: the server is told `-32603`
 * instead of the answer, like a callback that throws); a hook that returns `undefined` makes it reject with
 * a TypeError naming the hook. `next()` called twice runs the rest once (its second call gets the first's promise).
 * `subscriptions/listen` (see `listen`), the 2025-era `notifications/initialized` and `DELETE` (`close`), and the
 * URL-mode elicitations a 2025 server's `-32042` error asks for do not pass through middleware.
 *
 * @example
 * client.use({
 *   request: (call, next) => ((call.meta.traceparent = currentTraceparent()), next()),
 *   round: async (round, next) => {
 *     console.log(`${round.call.method} ${round.call.target}: round ${round.round}`)
 *     return next()
 *   },
 * })
 */
export interface ClientMiddleware {
  /** Around each JSON-RPC request sent; `next()` resolves to the raw result object (the `result` member), before it is checked. */
  request?(
    call: ClientRequestCall,
    next: () => Promise<Record<string, unknown>>,
  ): Record<string, unknown> | Promise<Record<string, unknown>>
  /** Around the whole logical call; `next()` resolves to its result (the `InputRequiredResult` with `manual: true`). */
  call?(call: ClientCall, next: () => Promise<unknown>): unknown
  /** Around each round; `next()` resolves to the round's checked result (complete, or an `InputRequiredResult` once answered). */
  round?(call: ClientRoundCall, next: () => Promise<unknown>): unknown
  /** Around each answer given by a callback; `next()` resolves to the answer (checked), before it is sent. */
  answer?(call: ClientAnswerCall, next: () => Promise<unknown>): unknown
}

/** The middleware registered on one client, outermost first (a bare function kept as `{ request }`). @internal */
export type Middlewares = ClientMiddleware[]

/**
 * Run `call` through the `kind` hooks of `stack` (outermost first; see `runHooks`), the innermost `next`
 * being `last`.
 * @throws (rejects with) what a hook throws; TypeError when a hook returns undefined, or a `request` hook a
 *   result that is not an object.
 */
export function through<C, R>(stack: Middlewares, kind: keyof ClientMiddleware, call: C, last: () => Promise<R>) {
  return runHooks(stack, kind, call, last, 'client', kind === 'request' ? notAnObject : undefined)
}

/** Why a `request` hook's result is refused: undefined for an object. */
function notAnObject(result: unknown): string | undefined {
  return typeof result === 'object' && result !== null ? undefined : `${typeof result}, not a result object`
}

/** Run a logical call (see {@link ClientCall}) through the `call` hooks; `run` drives it. */
export function throughCall<T>(
  stack: Middlewares,
  method: ClientCall['method'],
  target: string,
  args: Record<string, unknown> | undefined,
  run: (call: ClientCall) => Promise<T>,
): Promise<T> {
  const call: ClientCall = { method, target, arguments: args && Object.freeze({ ...args }) }
  return through(stack, 'call', call, () => run(call))
}

/** A {@link ClientRequestCall}: the params without `_meta`, frozen; an empty `meta`. */
export function requestCall(
  method: string,
  params: Record<string, unknown>,
  era: 'modern' | 'legacy',
  protocolVersion: string,
  { url, probeTimeoutMs }: ClientTransport,
  round: ClientRoundCall | undefined,
  requestId: string | number,
): ClientRequestCall {
  const shown = { ...params }
  delete shown._meta
  const transport = typeof url === 'string' ? 'http' : probeTimeoutMs !== undefined ? 'stdio' : 'other'
  const call = { method, params: Object.freeze(shown), meta: {}, era, protocolVersion, transport, requestId }
  return round ? { ...call, round } : call
}

/**
 * The request `_meta` a middleware added to, after the caller's own keys (undefined when both are empty); the
 * protocol's own keys (`io.modelcontextprotocol/…`, `progressToken`) are the client's, and left out.
 */
export function withAddedMeta(
  own: Record<string, unknown> | undefined,
  added: Record<string, unknown>,
): Record<string, unknown> | undefined {
  return addMeta(own, added, 'progressToken')
}

const KINDS = ['request', 'call', 'round', 'answer']

/**
 * Add `middleware` to `stack`: a function is a `request` hook.
 * @throws TypeError for anything but a function or an object of the four hooks, naming a key that is not one.
 */
export function addMiddleware(stack: Middlewares, middleware: unknown): void {
  addHooks(stack, middleware, KINDS, 'Client#use')
}
