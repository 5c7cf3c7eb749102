/**
 * A 2026-07-28 request through the server's middleware: the request middleware around the handler, the
 * round and carry sealed beside the handler's state, the questions of an `InputRequiredResult` through the
 * question middleware, and whatever the middleware returns finished as a handler's result.
 * @module
 */
import { INPUT_REQUIRED_METHODS } from '../protocol/constants.ts'
import { parse } from '../protocol/check.ts'
import { CallToolResult } from '../protocol/checks.gen.ts'
import type { RequestEnvelope } from '../protocol/envelope.ts'
import type { RoundExtension } from '../request-state/claims.ts'
import type { JSONRPCRequest } from '../protocol/schemas/index.ts'
import { authenticatedPrincipal, type RequestStateSecurity } from '../request-state/security.ts'
import type { Channel, RequestContext, RequestInfo, RequestParams, ResultObject } from './context.ts'
import { HandlerResultError } from './errors.ts'
import { checkedResult } from './finish.ts'
import {
  around,
  aroundQuestion,
  requestCall,
  withCallState,
  withMeta,
  type Middlewares,
  type RequestCall,
} from './middleware.ts'
import { isInputRequired } from './results.ts'
import type { Era } from './era.ts'
import { negotiatedVersion } from './legacy.ts'
import type { SealingRound } from './sealing.ts'

/**
 * The era, round and carry of a modern request's call: the round counted in its sealed state (a token sealed
 * without one: 2; no token: 1; with sealing off, 2 for a request carrying answers or state, else 1).
 */
export function modernCallFields(
  method: string,
  params: RequestParams,
  envelope: RequestEnvelope,
  round: SealingRound | undefined,
): Pick<RequestCall, 'era' | 'protocolVersion' | 'sessionId' | 'round' | 'carry'> {
  const extension = round?.extension
  // with sealing on, only a token makes a later round (answers alone do not: a client could add them to any
  // request); with it off, the client's word is all there is
  const token = params.requestState !== undefined
  const later = round ? token : token || params.inputResponses !== undefined
  return {
    era: 'modern',
    protocolVersion: envelope.protocolVersion,
    sessionId: undefined,
    round: !INPUT_REQUIRED_METHODS.has(method) ? 1 : (extension?.r ?? (later ? 2 : 1)),
    carry: extension?.c ? { ...extension.c } : {},
  }
}

/**
 * The era, version and round of a 2025-era request's call: `initialize`'s version is the one its answer
 * negotiates (the envelope holds the one assumed without a header); the round is 1, nothing is carried.
 */
export function legacyCallFields(
  request: JSONRPCRequest,
  era: Era,
): Pick<RequestCall, 'era' | 'protocolVersion' | 'sessionId' | 'round' | 'carry'> {
  const protocolVersion =
    request.method === 'initialize' ? negotiatedVersion(request.params ?? {}) : era.envelope.protocolVersion
  return { era: 'legacy', protocolVersion, sessionId: era.session?.sid, round: 1, carry: {} }
}

/** What {@link modernThroughMiddleware} needs of the server. */
export interface Through {
  mw: Middlewares
  call: RequestCall
  /** The handler's context (given the run's middleware state here). */
  ctx: RequestContext
  /** Run the handler: its checked result, an `InputRequiredResult` sealed with `extension()`. */
  run: (extension: () => RoundExtension) => Promise<ResultObject>
  /** Finish a complete result (`resultType`, cache hints, serverInfo). */
  finish: (result: ResultObject) => ResultObject
  /** Stamp serverInfo on a sealed `InputRequiredResult`. */
  stamp: (result: ResultObject) => ResultObject
}

/**
 * Run one modern request through the middleware.
 * @throws HandlerResultError (-32603, logged) when request middleware returns an `InputRequiredResult`
 *   other than the handler's (only handlers ask), or a carry that cannot be sealed; whatever the
 *   middleware or the handler throws.
 */
export async function modernThroughMiddleware(through: Through): Promise<ResultObject> {
  const { mw, call, ctx } = through
  const { method } = call
  withCallState(ctx, { call, mw, round: call.round, resolvers: new Map() })
  let sealed: ResultObject | undefined
  let inner: ResultObject | undefined
  const out = checkedResult(
    method,
    await around(mw, 'request', call, async () => {
      const result = (inner = await through.run(() => extensionOf(call)))
      if (!isInputRequired(result)) return result
      sealed = result
      const requests = (result.inputRequests ?? {}) as Record<string, { method: string }>
      for (const [key, question] of Object.entries(requests))
        await aroundQuestion(ctx, key, question.method, 'modern', () => Promise.resolve(question))
      return result
    }),
  )
  if (!isInputRequired(out)) {
    if (out !== inner) checkOwnResult(method, out)
    return through.finish(withMeta(out, call.meta))
  }
  if (sealed === undefined || out.requestState !== sealed.requestState)
    throw new HandlerResultError(
      `request middleware on ${method} returned an InputRequiredResult of its own; only handlers ask`,
    )
  return through.stamp(withMeta(out, call.meta))
}

/**
 * The {@link RequestCall} of one request: its principal from `policy` (the request-state policy in force;
 * without one, the default binding of verified auth info), undefined when `bindPrincipal` throws (the
 * sealing boundary refuses such a request with its reason).
 */
export function callOf(
  policy: RequestStateSecurity | undefined,
  request: JSONRPCRequest,
  params: RequestParams,
  info: RequestInfo,
  channel: Channel,
  fields: Pick<RequestCall, 'era' | 'protocolVersion' | 'sessionId' | 'round' | 'carry'>,
): RequestCall {
  let principal: string | undefined
  try {
    principal = policy ? policy.principalOf(info) : authenticatedPrincipal(info)
  } catch {
    principal = undefined
  }
  const { method, id: requestId } = request
  return requestCall({ method, requestId, transport: channel.transport, info, principal, ...fields }, params)
}

/** Largest carry, in characters of its JSON. */
const MAX_CARRY_CHARS = 1024

/**
 * What the next round's token carries: the round and the carry (when not empty).
 * @throws TypeError for a carry with a non-string value or over 1,024 characters of JSON (a middleware bug:
 *   -32603, logged).
 */
function extensionOf(call: RequestCall): RoundExtension {
  const c = call.carry
  const json = JSON.stringify(c)
  if (json.length > MAX_CARRY_CHARS || Object.values(c).some((v) => typeof v !== 'string'))
    throw new TypeError(
      `middleware carry must be strings, at most ${MAX_CARRY_CHARS} characters of JSON (it is ${json.length})`,
    )
  return json === '{}' ? { r: call.round + 1 } : { r: call.round + 1, c }
}

/**
 * A result request middleware returned of its own: never an `InputRequiredResult` (only handlers ask); on
 * `tools/call`, a valid `CallToolResult`.
 * @throws HandlerResultError (-32603, logged) for anything else.
 */
export function checkOwnResult(method: string, result: ResultObject): void {
  if (isInputRequired(result))
    throw new HandlerResultError(
      `request middleware on ${method} returned an InputRequiredResult of its own; only handlers ask`,
    )
  if (method !== 'tools/call') return
  const [issue] = parse(CallToolResult(), result)
  if (issue !== undefined)
    throw new HandlerResultError(`request middleware on tools/call returned an invalid CallToolResult: ${issue}`)
}
