/**
 * The request-state sealing boundary. On `tools/call`, `prompts/get` and `resources/read`, an inbound
 * `requestState` is opened (verified and unsealed) before the handler runs, and the `requestState` of an
 * `InputRequiredResult` is sealed after it. Both are bound to the method, the target (tool or prompt
 * name, resource URI), the canonical arguments as received, the principal and the audience, so a token
 * replayed anywhere else fails with the one frozen `-32602 "Invalid or expired requestState"`.
 *
 * The handler never sees a field change meaning: `params.requestState` stays what came over the wire;
 * the plaintext goes to `ctx.requestState` (see {@link handlerState}).
 * @module
 */
import { INPUT_REQUIRED_METHODS, targetParamOf } from '../protocol/constants.ts'
import { ErrorCode, McpError, invalidRequestStateError } from '../protocol/errors.ts'
import { canonicalArguments } from '../encoding/canonical.ts'
import { InvalidRequestStateError } from '../request-state/errors.ts'
import { HandlerResultError } from './errors.ts'
import type { LegacySession, RequestBinding, RequestStateSecurity, SealedQuestion } from '../request-state/security.ts'
import type { RequestStateValue, RoundExtension } from '../request-state/claims.ts'
import { encodeBase64Url } from '../encoding/base64url.ts'
import type { Logger, RequestContext, RequestInfo, RequestParams, ResultObject } from './context.ts'
import { inputRequiredResult, withProp } from './finish.ts'
import { logError, logWarn } from './log.ts'
import { onWorkers } from './runtime.ts'

/** The warning an isolate logs once when it seals with the ephemeral key on Workers. */
export const EPHEMERAL_ON_WORKERS =
  'requestState and session ids are sealed with an ephemeral key, one per isolate: on Workers a retry or a ' +
  "2025 client's next request that lands on another isolate (or after a deploy) is refused, and the call " +
  'fails. Share keys across isolates: `npx wrangler secret put REQUEST_STATE_KEYS` (comma-separated ' +
  'base64url keys of 32 bytes, newest first) and pass `requestStateSecurity: new RequestStateSecurity({ keys: ' +
  'parseRequestStateKeys(env.REQUEST_STATE_KEYS) })`.'

/** Whether this isolate has warned about its ephemeral key (once per isolate). */
let warnedEphemeral = false

/** The longest `Mcp-Session-Id` minted, in characters; past it the client is served statelessly. */
export const MAX_SESSION_ID_LENGTH = 4096

/** The active policy and the audience claim its tokens carry (undefined: audience-free tokens). */
interface Sealer {
  readonly policy: RequestStateSecurity
  readonly audience: string | undefined
}

/** One request's passage through the boundary: what was opened, and what sealing its answer needs. */
export interface SealingRound {
  /** The policy in force when the request arrived (it seals the answer too). */
  readonly sealer: Sealer
  readonly method: string
  readonly info: RequestInfo
  /** The opened state of the inbound token (any JSON value); undefined on a first round. */
  readonly plaintext: RequestStateValue | undefined
  /** The tool or prompt name, or the resource URI, as received (a non-string cannot be bound). */
  readonly target: unknown
  /** The canonical JSON of the arguments as received (resources: `{}`), taken before the handler ran. */
  readonly canonicalArgs: string
  /** The binding the inbound token was opened with; the answer is sealed with the same. */
  readonly binding: RequestBinding | undefined
  /** What the inbound token carried beside the state (a server with middleware writes it); undefined without. */
  readonly extension: RoundExtension | undefined
}

/**
 * Params with a `requestState: null` removed on the methods that carry state (null means "none"), so
 * the handler and the boundary see one absent value. Other params are returned as they are.
 */
export function withoutNullState(method: string, params: RequestParams): RequestParams {
  if (params.requestState !== null || !INPUT_REQUIRED_METHODS.has(method)) return params
  const out = { ...params }
  delete out.requestState
  return out
}

/**
 * The state the handler reads as `ctx.requestState`: the opened plaintext when sealing is on; with
 * sealing off, the wire string verbatim (nothing was sealed, so it is plaintext). Undefined on methods
 * that carry no state.
 */
export function handlerState(
  round: SealingRound | undefined,
  method: string,
  params: RequestParams,
): RequestStateValue | undefined {
  if (round) return round.plaintext
  return INPUT_REQUIRED_METHODS.has(method) && typeof params.requestState === 'string' ? params.requestState : undefined
}

/** The boundary of one server: the policy, switched on by `Server.useRequestStateSecurity`. */
export class RequestStateSealing {
  readonly #logger: Logger
  #sealer: Sealer | undefined
  constructor(logger: Logger) {
    this.#logger = logger
  }

  /** Seal with `policy` from now on; `audience` undefined: audience-free tokens. */
  use(policy: RequestStateSecurity, audience: string | undefined): void {
    this.#sealer = { policy, audience }
  }

  /** The active policy; undefined while sealing is off. */
  get policy(): RequestStateSecurity | undefined {
    return this.#sealer?.policy
  }

  /**
   * Before the handler: bind the request and open its `requestState`, if any.
   * @returns undefined when there is nothing to open or seal (sealing off, or a method that carries no state);
   *   a promise only when there is a token to open — without one the round is returned at once, so the
   *   handler starts in the same tick (a listen handler subscribes before `handle()` returns).
   * @throws McpError -32602 "Invalid params" when the arguments cannot be bound (too deep, non-finite numbers);
   *   the frozen -32602 "Invalid or expired requestState" for any token that does not open (reason logged;
   *   as a rejected promise).
   */
  open(method: string, params: RequestParams, info: RequestInfo): SealingRound | undefined | Promise<SealingRound> {
    const sealer = this.#sealer
    if (!sealer || !INPUT_REQUIRED_METHODS.has(method)) return undefined
    // Bind before the handler runs: what a handler does to its arguments must not change the binding.
    // The canonical form is taken (and checked) now; a "v2." token binds it as it is (in the AAD).
    const canonicalArgs = canonicalArgumentsOf(method, params)
    const target = params[targetParamOf(method) ?? 'name']
    const token = params.requestState
    if (token === undefined) {
      const round: SealingRound = {
        sealer,
        method,
        info,
        plaintext: undefined,
        target,
        canonicalArgs,
        binding: undefined,
        extension: undefined,
      }
      return round
    }
    return this.#unseal(sealer, method, info, target, canonicalArgs, token).then(
      ({ binding, plaintext, extension }) => ({
        sealer,
        method,
        info,
        plaintext,
        target,
        canonicalArgs,
        binding,
        extension,
      }),
    )
  }

  /**
   * After the handler: seal the `requestState` of a checked `InputRequiredResult` (a result without one
   * is returned as it is), with `extension` beside it when given (a server with middleware).
   * @throws McpError -32603 "Internal error" when it cannot be sealed (a non-string target, a failing
   *   `bindPrincipal` or codec, a token over `maxTokenLength` characters); the cause is logged, never sent.
   */
  async seal(round: SealingRound, result: ResultObject, extension?: RoundExtension): Promise<ResultObject> {
    if (result.requestState === undefined) return result
    const { sealer, method } = round
    const binding = round.binding ?? this.#bindingToSeal(round)
    let token: string
    try {
      // a checked InputRequiredResult: its requestState is a JSON value
      token = await sealer.policy.seal(result.requestState as RequestStateValue, binding, sealer.audience, extension)
      this.#warnIfEphemeralOnWorkers(sealer.policy)
      if (token.length > sealer.policy.maxTokenLength) {
        throw new HandlerResultError(
          `the sealed requestState is ${token.length} characters, over maxTokenLength (${sealer.policy.maxTokenLength}); keep handler state small`,
        )
      }
    } catch (error) {
      this.#refuseToSeal(method, error)
    }
    return withProp(result, 'requestState', token)
  }

  /**
   * A handler's `InputRequiredResult`, checked (`inputRequiredResult`), its `requestState` sealed with
   * `extension` when sealing is on (`round`), else checked to be a string (it is sent verbatim).
   * @throws HandlerResultError (-32603, logged) for an invalid result or a non-string state with sealing off.
   */
  async sealInputRequired(
    method: string,
    result: ResultObject,
    ctx: RequestContext,
    round: SealingRound | undefined,
    extension?: RoundExtension,
  ): Promise<ResultObject> {
    const out = inputRequiredResult(method, result, ctx)
    if (round && out.requestState !== undefined) return this.seal(round, out, extension)
    // no state of the handler's, but middleware's round and carry to keep: a token for them alone
    if (round && extension) return this.seal(round, withProp(out, 'requestState', null), { ...extension, e: 1 })
    if (out.requestState !== undefined && typeof out.requestState !== 'string')
      throw new HandlerResultError(
        `handler for ${method} returned a non-string requestState, but sealing is off (it would be sent verbatim)`,
      )
    return out
  }

  /**
   * On Workers, the first token an isolate seals with the default ephemeral key gets one warning: a retry
   * (or a 2025 session's next request) that lands on another isolate fails, intermittently and silently.
   */
  #warnIfEphemeralOnWorkers(policy: RequestStateSecurity): void {
    if (warnedEphemeral || !policy.isEphemeral || !onWorkers()) return
    warnedEphemeral = true
    logWarn(this.#logger, 'sealing.ephemeralOnWorkers', EPHEMERAL_ON_WORKERS)
  }

  /**
   * Mint the `Mcp-Session-Id` of a legacy `initialize` (see `LegacySession`), bound to the request's
   * principal and this server's audience.
   * @returns undefined when this server seals no sessions (sealing off, or a policy with a custom codec),
   *   or when the id cannot be minted (logged) or would be longer than {@link MAX_SESSION_ID_LENGTH}
   *   characters (huge declared capabilities): the client then goes on statelessly.
   */
  async mintSession(session: Omit<LegacySession, 'sid'>, info: RequestInfo): Promise<string | undefined> {
    const sealer = this.#sealer
    if (!sealer?.policy.sealsSessions) return undefined
    try {
      const principal = sealer.policy.principalOf(info)
      const sid = encodeBase64Url(crypto.getRandomValues(new Uint8Array(16)))
      const id = await sealer.policy.sealSession({ sid, ...session }, principal, sealer.audience)
      this.#warnIfEphemeralOnWorkers(sealer.policy)
      if (id.length <= MAX_SESSION_ID_LENGTH) return id
      // a header this long would not come back through common HTTP stacks (8-16 KiB header limits)
      const why = `no session id: it would be ${id.length} characters (over ${MAX_SESSION_ID_LENGTH})`
      logWarn(this.#logger, 'sessionId.tooLong', why, { method: 'initialize' })
      return undefined
    } catch (error) {
      logError(this.#logger, 'sessionId.mintFailed', 'minting a session id failed', messageOf(error), {
        method: 'initialize',
      })
      return undefined
    }
  }

  /**
   * Open a legacy request's `Mcp-Session-Id`.
   * @returns undefined when this server seals no sessions (the id is ignored: it cannot be one of ours).
   * @throws InvalidRequestStateError (reason logged here) for an id that does not open: forged, tampered,
   *   expired, another audience's, or another principal's.
   */
  async openSession(token: string, info: RequestInfo): Promise<LegacySession | undefined> {
    const sealer = this.#sealer
    if (!sealer?.policy.sealsSessions) return undefined
    try {
      const principal = this.#principal(sealer.policy, info, 'a session request')
      return await sealer.policy.openSession(token, principal, sealer.audience)
    } catch (error) {
      throw this.#rejected('session id', error)
    }
  }

  /**
   * Mint the id of a server-to-client request asked in session `sid` (see `SealedQuestion`): a fresh
   * mailbox key, bound to the request's principal and this server's audience, valid `ttlSeconds`.
   * @returns undefined when this server seals no sessions.
   */
  async mintQuestion(
    sid: string,
    info: RequestInfo,
    ttlSeconds: number,
  ): Promise<{ id: string; qid: string } | undefined> {
    const sealer = this.#sealer
    if (!sealer?.policy.sealsSessions) return undefined
    const qid = encodeBase64Url(crypto.getRandomValues(new Uint8Array(16)))
    const principal = this.#principal(sealer.policy, info, 'a question')
    return { id: await sealer.policy.sealQuestion({ qid, sid }, principal, sealer.audience, ttlSeconds), qid }
  }

  /**
   * Open the id of an answer a client POSTed.
   * @returns undefined when this server seals no sessions (it asks no questions).
   * @throws InvalidRequestStateError (reason logged here) for an id that does not open.
   */
  async openQuestion(token: unknown, info: RequestInfo): Promise<SealedQuestion | undefined> {
    const sealer = this.#sealer
    if (!sealer?.policy.sealsSessions) return undefined
    try {
      const principal = this.#principal(sealer.policy, info, 'an answer')
      return await sealer.policy.openQuestion(token, principal, sealer.audience)
    } catch (error) {
      throw this.#rejected('answer id', error)
    }
  }

  /**
   * A token (`what`: `session id`, `answer id`) that did not open, its reason logged: the codec's
   * `InvalidRequestStateError`, or one for any other failure (fail closed: a codec's rejection without a
   * reason is still a rejection).
   */
  #rejected(what: string, error: unknown): InvalidRequestStateError {
    const reason = reasonOf(error)
    logWarn(
      this.#logger,
      what === 'session id' ? 'sessionId.rejected' : 'answerId.rejected',
      `${what} rejected: ${reason}`,
    )
    return error instanceof InvalidRequestStateError ? error : new InvalidRequestStateError(reason)
  }

  /** Open an inbound token against this request's binding; every failure is the frozen error. */
  async #unseal(
    sealer: Sealer,
    method: string,
    info: RequestInfo,
    target: unknown,
    canonicalArgs: string,
    token: unknown,
  ): Promise<{
    binding: RequestBinding
    plaintext: RequestStateValue | undefined
    extension: RoundExtension | undefined
  }> {
    try {
      if (typeof target !== 'string') throw new InvalidRequestStateError('non-string target')
      const principal = this.#principal(sealer.policy, info, method)
      const binding = { method, target, canonicalArgs, principal }
      const { state, extension } = await sealer.policy.openRound(token, binding, sealer.audience)
      // a token that carried only middleware's extension: the handler had no state
      return { binding, plaintext: extension?.e ? undefined : state, extension }
    } catch (error) {
      // fail closed: a codec's rejection without a reason is still a rejection
      logWarn(this.#logger, 'requestState.rejected', `requestState rejected on ${method}: ${reasonOf(error)}`, {
        method,
      })
      throw invalidRequestStateError()
    }
  }

  /** The binding of a first round that seals: its target must be a string, its principal known. */
  #bindingToSeal(round: SealingRound): RequestBinding {
    const { method, target } = round
    let principal: string | undefined
    try {
      if (typeof target !== 'string') throw new Error(`the request's ${targetParamOf(method)} is not a string`)
      principal = this.#principal(round.sealer.policy, round.info, method)
    } catch (error) {
      this.#refuseToSeal(method, error)
    }
    return { method, target, canonicalArgs: round.canonicalArgs, principal }
  }

  /** The principal via `bindPrincipal`; a failure is logged (without detail on the wire) and rethrown as a reason. */
  #principal(policy: RequestStateSecurity, info: RequestInfo, method: string): string | undefined {
    try {
      return policy.principalOf(info)
    } catch (error) {
      logError(this.#logger, 'principal.failed', `bindPrincipal failed on ${method}`, messageOf(error))
      throw new InvalidRequestStateError('principal error')
    }
  }

  /** @throws McpError -32603, after logging why (the message only: it never holds the state). */
  #refuseToSeal(method: string, error: unknown): never {
    const message = `refusing to seal requestState on ${method}`
    logError(this.#logger, 'requestState.sealFailed', message, messageOf(error), { method })
    throw new McpError(ErrorCode.InternalError, 'Internal error')
  }
}

/**
 * The canonical JSON the arguments are bound by (resources: `{}`).
 * @throws McpError -32602 for arguments that cannot be bound — nested too deeply, or holding non-finite
 *   numbers: a client mistake.
 */
function canonicalArgumentsOf(method: string, params: RequestParams): string {
  try {
    return canonicalArguments(method === 'resources/read' ? undefined : params.arguments)
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^canonicalJson: /, '') : 'not JSON'
    throw new McpError(ErrorCode.InvalidParams, `Invalid params: arguments cannot be bound (${why})`)
  }
}

/** What is logged of a failure: an Error's message only (never the error, whose cause may hold state). */
function messageOf(error: unknown): string | undefined {
  return error instanceof Error ? error.message : undefined
}

/** The log-only reason of a token that did not open. */
function reasonOf(error: unknown): string {
  return error instanceof InvalidRequestStateError ? error.reason || 'no reason given' : 'codec error'
}
