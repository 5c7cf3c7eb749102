/**
 * Server middleware: code around every request, every tool / prompt / resource handler run, every
 * resolver and every question, registered with `Server#use` (or `McpServer#use`). Middleware sees what the
 * server has checked, never a sealed token's contents: a request's `params` come without `requestState`,
 * and an `InputRequiredResult` reaches it with its `requestState` already sealed. Registration order is
 * nesting order: the first registered runs outermost.
 * @module
 */
import type { RequestId } from '../protocol/schemas/index.ts'
import { addHooks, hasHook, runHooks, withAddedMeta } from '../protocol/middleware.ts'
import type { RequestInfo, ResultObject } from './context.ts'

/** One request, as a request middleware sees it (both eras; HTTP, stdio, or `Server.handle`). */
export interface RequestCall {
  /** The JSON-RPC method, e.g. `tools/call`. */
  readonly method: string
  /** The JSON-RPC id (each round of a multi-round call has its own). */
  readonly requestId: RequestId
  /** The params as received, without `requestState` (a sealed token: opaque). A frozen shallow copy. */
  readonly params: Readonly<Record<string, unknown>>
  /** `modern`: 2026-07-28, the `_meta` envelope; `legacy`: the 2025 era, a session. */
  readonly era: 'modern' | 'legacy'
  /** The request's protocol version (2025 era: the session's). */
  readonly protocolVersion: string
  /** The 2025 session's `sid` (128 random bits, base64url) — never the sealed `Mcp-Session-Id` itself. */
  readonly sessionId: string | undefined
  /** The transport that handed the message in; undefined when `Server.handle` was called directly. */
  readonly transport: 'http' | 'stdio' | undefined
  /** The transport's facts: the HTTP `request`, `env`, verified `authInfo`, `signal`. */
  readonly info: RequestInfo
  /**
   * The principal the request is bound to (`RequestStateSecurity.bindPrincipal` of `info`; by default the
   * client id, issuer and subject of verified auth info); undefined when unauthenticated or unbound.
   */
  readonly principal: string | undefined
  /**
   * The 1-based round of the logical call on `tools/call`, `prompts/get` and `resources/read`, counted
   * inside the sealed `requestState` (exact with sealing on; with it off: 1, or 2 for a request carrying
   * answers or state). 2025 era: 1 (the server asks inside the one request). Other methods: 1.
   */
  readonly round: number
  /**
   * Strings that travel with the logical call from round to round, sealed inside `requestState` (the
   * client cannot read them): set before `next()`, read on the next round. At most 1,024 characters in
   * all (keys and values); a carry over that fails the request as a server error (-32603, logged). Empty
   * and not carried with sealing off, in the 2025 era, and on other methods.
   */
  readonly carry: Record<string, string>
  /** Keys set here are added to the result's `_meta` (a JSON-RPC error has none). */
  readonly meta: Record<string, unknown>
}

/**
 * Around one request: `next()` runs the handler and resolves to its result (an `InputRequiredResult`
 * with its `requestState` sealed). Return that, a changed copy, or a result of your own without calling
 * `next()` (checked, then finished like a handler's: `resultType`, cache hints, serverInfo); throw an
 * `McpError` to answer with that JSON-RPC error. Any other throw is logged and answered `-32603`.
 */
export type RequestMiddleware = (
  call: RequestCall,
  next: () => Promise<ResultObject>,
) => ResultObject | Promise<ResultObject>

/** One run of a registered tool, prompt or resource handler (each round; 2025 era: each run in the request). */
export interface InvocationCall {
  readonly kind: 'tool' | 'prompt' | 'resource'
  /** The tool or prompt name, or the resource URI. */
  readonly name: string
  /** The validated arguments the handler gets, resolved parameters not included (resources: the URI's variables). */
  readonly arguments: Readonly<Record<string, unknown>>
  /** As {@link RequestCall.principal}. */
  readonly principal: string | undefined
  /** The 1-based round (2025 era: the handler's run within its request). */
  readonly round: number
  /** The request this run serves. */
  readonly request: RequestCall
}

/**
 * Around one handler run: `next()` runs the resolvers and the handler and resolves to what the handler
 * returned (or the resolvers' `InputRequiredResult`). Return another value to answer instead (a tool
 * error result, say) or throw: thrown errors are treated as the handler's (`tools/call`: an `isError`
 * result with the message; an `McpError`: that JSON-RPC error).
 */
export type InvocationMiddleware = (call: InvocationCall, next: () => Promise<unknown>) => unknown

/** One resolver run (dependency injection), each round it runs in. */
export interface ResolverCall {
  /** The resolver's wire key: the parameter's name, or `name#1`, … for nested ones. */
  readonly key: string
  readonly invocation: InvocationCall
}

/** Around one resolver: `next()` resolves to what the resolver produced (a value, or the question it asks). */
export type ResolverMiddleware = (call: ResolverCall, next: () => Promise<unknown>) => unknown

/** One question put to the client. */
export interface QuestionCall {
  /** The key of the input request (`inputRequests` key, or the resolver's key). */
  readonly key: string
  readonly method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list'
  /**
   * `modern`: an entry of the `InputRequiredResult` being returned — `next()` resolves to the input
   * request once the result is sealed; the answer comes with the next round. `legacy`: a
   * server-to-client request on the response stream — `next()` resolves to the client's answer.
   */
  readonly era: 'modern' | 'legacy'
  readonly request: RequestCall
  /** The resolver that asked, when one did and resolver middleware saw it. */
  readonly resolver: ResolverCall | undefined
}

/**
 * Around one question. Its return value is ignored in the modern era (the question is sent as asked);
 * in the legacy era it is the answer the handler gets.
 */
export type QuestionMiddleware = (call: QuestionCall, next: () => Promise<unknown>) => unknown

/** Middleware for each kind of step; any subset. */
export interface ServerMiddleware {
  request?: RequestMiddleware
  invocation?: InvocationMiddleware
  resolver?: ResolverMiddleware
  question?: QuestionMiddleware
}

/** What `use()` was given, outermost first (a function: `{ request }`). @internal */
export type Middlewares = ServerMiddleware[]

const KINDS = ['request', 'invocation', 'resolver', 'question']

/**
 * Add `middleware` to `stack`.
 * @throws TypeError for anything but a function or an object of the four kinds of middleware functions.
 * @internal
 */
export function addMiddleware(stack: Middlewares, middleware: ServerMiddleware | RequestMiddleware): void {
  addHooks(stack, middleware, KINDS, 'use()')
}

/**
 * Run `inner` inside the `kind` middleware of `stack` (outermost first; see `runHooks`).
 * @internal
 */
export function around<C, R>(
  stack: Middlewares,
  kind: keyof ServerMiddleware,
  call: C,
  inner: () => Promise<R>,
): Promise<R> {
  return runHooks(stack, kind, call, inner, 'server')
}

/** True when `stack` holds middleware of `kind`. @internal */
export function has(stack: Middlewares, kind: keyof ServerMiddleware): boolean {
  return hasHook(stack, kind)
}

/**
 * Where a request's middleware state rides on its context (never enumerable, never shown to a handler).
 * @internal
 */
export const IN_CALL: unique symbol = Symbol('edge-mcp.call')

/** The middleware state of one handler run: its request, the server's middleware, the round. @internal */
export interface CallState {
  readonly call: RequestCall
  readonly mw: Middlewares
  /** The round of this run (2025 era: the handler's run within its request). */
  readonly round: number
  /** The resolver calls of this run, by key (for the questions they ask). */
  readonly resolvers: Map<string, ResolverCall>
}

/** The middleware state a context carries, if any. @internal */
export function callStateOf(ctx: object): CallState | undefined {
  return (ctx as { [IN_CALL]?: CallState })[IN_CALL]
}

/** Give `ctx` its run's middleware state (a hidden property). @internal */
export function withCallState<T extends object>(ctx: T, state: CallState): T {
  Object.defineProperty(ctx, IN_CALL, { value: state, configurable: true })
  return ctx
}

/** One question through the question middleware of `ctx`'s run, if any (else `next()`). @internal */
export function aroundQuestion(
  ctx: object,
  key: string,
  method: string,
  era: 'modern' | 'legacy',
  next: () => Promise<unknown>,
): Promise<unknown> {
  const state = callStateOf(ctx)
  if (!state || !has(state.mw, 'question')) return next()
  const call: QuestionCall = {
    key,
    method: method as QuestionCall['method'],
    era,
    request: state.call,
    resolver: state.resolvers.get(key),
  }
  return around(state.mw, 'question', call, next)
}

/**
 * A request's call for its middleware.
 * @param params - the params as received (`requestState` is left out of the copy).
 * @internal
 */
export function requestCall(
  fields: Omit<RequestCall, 'params' | 'meta'>,
  params: Record<string, unknown>,
): RequestCall {
  const shown: Record<string, unknown> = { ...params }
  delete shown.requestState
  return { ...fields, params: Object.freeze(shown), meta: {} }
}

/**
 * `result` with `meta`'s keys added to its `_meta` (the result itself when `meta` is empty); keys of the
 * protocol's own prefix (`io.modelcontextprotocol/`, e.g. serverInfo) are not middleware's to set, and are
 * left out. @internal
 */
export function withMeta(result: ResultObject, meta: Record<string, unknown>): ResultObject {
  const own = result._meta
  const base = typeof own === 'object' && own !== null ? (own as Record<string, unknown>) : undefined
  const merged = withAddedMeta(base, meta)
  return merged === base ? result : { ...result, _meta: merged }
}
