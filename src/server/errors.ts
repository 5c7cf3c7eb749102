/**
 * The errors the server side raises itself (never a JSON-RPC error as such: an error meant for the wire is
 * an `McpError`), each a `ServerError` with its own `code`: a resolver graph that cannot work, a resolver
 * that could not produce a value, a question to a 2025-era client left unanswered, a request its client
 * cancelled, a bearer token refused. A rejected `requestState` is `InvalidRequestStateError`, in
 * `request-state/errors.ts` (the codecs sit below the server).
 * @module
 */
import { ServerError } from '../protocol/errors.ts'

/** A resolver graph or a form schema that cannot work, found when it is declared or registered. */
export class InvalidSignatureError extends ServerError {
  static readonly code = 'ERR_INVALID_SIGNATURE' as const
  readonly code = 'ERR_INVALID_SIGNATURE' as const
  override readonly name: string = 'InvalidSignatureError'
}

/**
 * A resolver could not produce a value (decline, cancel, a wrong answer): the call ends as a tool error.
 * Its subclasses (`RefusalError`) keep its `code`.
 */
export class ResolutionError extends ServerError {
  static readonly code = 'ERR_RESOLUTION' as const
  readonly code = 'ERR_RESOLUTION' as const
  override readonly name: string = 'ResolutionError'
}

/**
 * The user declined or cancelled a question whose answer a resolver's consumer needed as a plain value:
 * the call ends with "The user declined: <question>" (or "cancelled"), said in the user's terms.
 */
export class RefusalError extends ResolutionError {
  override readonly name: string = 'RefusalError'
  /** What the user did. */
  readonly action: 'decline' | 'cancel'
  /** The question's message, as the user saw it. */
  readonly question: string
  constructor(action: 'decline' | 'cancel', question: string) {
    super(`The user ${refusalVerb(action)}: ${question}`)
    this.action = action
    this.question = question
  }
}

/** `declined` / `cancelled`. */
export function refusalVerb(action: 'decline' | 'cancel'): string {
  return action === 'decline' ? 'declined' : 'cancelled'
}

/**
 * A handler broke the one-channel rule (resolvers and its own `InputRequiredResult`): a server bug.
 * @internal not in the public API: thrown and told apart inside `server/mcp/invoke.ts`
 */
export class HandlerContractError extends ResolutionError {
  override readonly name: string = 'HandlerContractError'
}

/** No answer to a server-to-client request came in time. */
export class QuestionTimeoutError extends ServerError {
  static readonly code = 'ERR_QUESTION_TIMEOUT' as const
  readonly code = 'ERR_QUESTION_TIMEOUT' as const
  override readonly name: string = 'QuestionTimeoutError'
  /** @param timeoutMs - the wait that passed, in **milliseconds** (the message says it in seconds). */
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs / 1000} s`)
  }
}

/**
 * A legacy request that ended because its client went away or cancelled it: no response is sent (spec
 * 2025-11-25: cancellation.mdx "receivers SHOULD NOT send a response for the cancelled request"). Not an
 * `McpError`: it is never answered on the wire, and nothing is logged.
 * @internal not in the public API: thrown by `legacy-questions.ts`, caught by `Server.handle`
 */
export class RequestCancelledError extends ServerError {
  static readonly code = 'ERR_REQUEST_CANCELLED' as const
  readonly code = 'ERR_REQUEST_CANCELLED' as const
  override readonly name: string = 'RequestCancelledError'
  constructor() {
    super('Request cancelled: the client went away or cancelled it')
  }
}

/**
 * A token that is not valid for this resource: bad signature, unknown key, wrong issuer or audience,
 * expired, not yet valid, malformed, inactive. Answered with 401 and `error="invalid_token"`
 * (RFC 6750 §3.1); the message is sent as `error_description`, so it must not carry secrets.
 */
export class InvalidTokenError extends ServerError {
  static readonly code = 'ERR_INVALID_TOKEN' as const
  readonly code = 'ERR_INVALID_TOKEN' as const
  override readonly name: string = 'InvalidTokenError'
}

/**
 * A DPoP proof (RFC 9449 §4.3) that is not valid for its request — answered with 401 and
 * `error="invalid_dpop_proof"` (§7.1) — or one without the nonce this resource requires: `use_dpop_nonce`
 * with the nonce to use in `DPoP-Nonce` (§9). Thrown by `edge-mcp/oauth`'s DPoP proof check.
 * @internal not in the public API: thrown in `oauth/dpop.ts`, answered in `server/http/bearer.ts`
 */
export class DPoPProofError extends InvalidTokenError {
  override readonly name: string = 'DPoPProofError'
  constructor(
    message: string,
    /** The challenge's `error` code. */
    readonly error: 'invalid_dpop_proof' | 'use_dpop_nonce' = 'invalid_dpop_proof',
    /** With `use_dpop_nonce`: the nonce the client must put in its next proof (`DPoP-Nonce` header). */
    readonly nonce?: string,
  ) {
    super(message)
  }
}

/**
 * A failure to get what a token verifier needs from the authorization server — its metadata, its keys
 * (JWKS), an introspection answer (network, non-200, an unusable document): never the token's fault, so not
 * an {@link InvalidTokenError} (the request gets 503).
 * @internal not in the public API: thrown inside `oauth/` and told apart inside `oauth/jwt.ts`
 */
export class KeySourceError extends ServerError {
  static readonly code = 'ERR_KEY_SOURCE' as const
  readonly code = 'ERR_KEY_SOURCE' as const
  override readonly name: string = 'KeySourceError'
}

/**
 * A handler returned what its method cannot answer with: not an object, a `tools/call` result or
 * `structuredContent` its schema refuses, an invalid `InputRequiredResult` or cache hints, a non-string
 * `requestState` with sealing off, a sealed `requestState` over `maxTokenLength`. A server bug: logged, and
 * answered with `-32603`.
 * @internal not in the public API: raised on the server's result path, seen only in its logger
 */
export class HandlerResultError extends ServerError {
  static readonly code = 'ERR_HANDLER_RESULT' as const
  readonly code = 'ERR_HANDLER_RESULT' as const
  override readonly name: string = 'HandlerResultError'
}

/**
 * A 2025-era client answered a server-to-client question (elicitation, sampling, roots) with a JSON-RPC
 * error, or with a result its method's schema refuses: the call ends as a tool error naming the question.
 * @internal not in the public API: raised on the 2025 lane's question path
 */
export class InvalidAnswerError extends ServerError {
  static readonly code = 'ERR_INVALID_ANSWER' as const
  readonly code = 'ERR_INVALID_ANSWER' as const
  override readonly name: string = 'InvalidAnswerError'
}

/**
 * A service the server relies on — the question mailbox or the notification bus (a Durable Object on
 * Workers) — failed or answered badly: never the client's fault (logged; the request fails with `-32603`,
 * a listener's stream ends).
 * @internal not in the public API: raised by `edge-mcp/cloudflare`'s mailbox and bus clients
 */
export class UpstreamError extends ServerError {
  static readonly code = 'ERR_UPSTREAM' as const
  readonly code = 'ERR_UPSTREAM' as const
  override readonly name: string = 'UpstreamError'
}

/** The message of what was thrown, for an error that wraps it (`String(value)` for a non-Error). */
export function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown)
}
