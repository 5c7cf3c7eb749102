/**
 * Questions for 2025-era clients. A handler (or its resolvers) answers with an `InputRequiredResult`; a
 * 2026 client would retry with `inputResponses`, a 2025 client cannot. So the server asks for it: each
 * input request goes out as a real server-to-client request (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`) on the SSE stream of the client's POST (spec 2025-11-25:
 * basic/transports.mdx "the server MAY send JSON-RPC requests … before sending the JSON-RPC response"),
 * the client POSTs its answer (202), and the handler runs again with this round's `inputResponses` and
 * the previous round's `requestState`, until it completes. The answer may reach another instance: its id
 * is sealed (`"q1."` token: question, session, principal, expiry) and a {@link QuestionMailbox} carries it
 * to the waiting instance.
 *
 * Bounded: at most `maxRounds` rounds, each question `timeoutMs`, the whole walk aborted when the client
 * goes away (the stream's keep-alive comments notice it). A question that cannot be asked fails at once:
 * a tool error on `tools/call`, -32603 elsewhere; -32021 when the client did not declare the capability.
 * @module
 */
import type { RequestStateValue } from '../request-state/claims.ts'
import { ErrorCode, McpError } from '../protocol/errors.ts'
import { type Check, parse } from '../protocol/check.ts'
import { CreateMessageResult, ElicitResult, ListRootsResult } from '../protocol/checks.gen.ts'
import type { InputRequest, JSONRPCRequest, RequestId } from '../protocol/schemas/index.ts'
import type { InboundResponse } from '../protocol/jsonrpc.ts'
import type { LegacySession, SealedQuestion } from '../request-state/security.ts'
import type { Channel, Logger, RequestContext, RequestInfo, ResultObject } from './context.ts'
import { InvalidAnswerError, RequestCancelledError, UpstreamError } from './errors.ts'
import { inputRequiredResult } from './finish.ts'
import { InMemoryQuestionMailbox, undelivered, type QuestionAnswer, type QuestionMailbox } from './mailbox.ts'
import { isInputRequired } from './results.ts'
import { cancellationKey, requestKey, TrackedRequest, UNTRACKED, type Tracked } from './legacy-cancel.ts'
import { MAX_TIMER_MS, onWorkers } from './runtime.ts'
import { aroundQuestion } from './middleware.ts'
import { logError, logWarn } from './log.ts'

/** Options of the questions a server asks 2025-era clients (`ServerOptions.legacyQuestions`). */
export interface LegacyQuestionOptions {
  /**
   * Where answers meet their waiting request: a mailbox, or a function of each request's info (a Worker
   * reads its Durable Object binding from `info.env`; throw to say why there is none, the message goes to
   * the client). `null`: ask no questions. Default: a new {@link InMemoryQuestionMailbox} on Node, Deno and
   * Bun; none on Workers (`navigator.userAgent` `Cloudflare-Workers`), where an answer can reach another
   * isolate: use `durableObjectMailbox` from `edge-mcp/cloudflare`.
   */
  mailbox?: QuestionMailbox | ((info: RequestInfo) => QuestionMailbox) | null
  /**
   * Most rounds in one request: each `InputRequiredResult` the handler returns counts, a state-only one
   * (no questions, re-run at once) included. Past it the request fails (a tool error on `tools/call`).
   * Default 8.
   */
  maxRounds?: number
  /**
   * How long each question waits for its answer, in **milliseconds** (at most 2,147,483,647, what a timer
   * holds). Default 300,000 (5 minutes).
   */
  timeoutMs?: number
}

const DEFAULT_MAX_ROUNDS = 8
const DEFAULT_TIMEOUT_MS = 300_000

/** What asking needs from the server: the session, and sealing of question ids. */
export interface AskDeps {
  session: LegacySession | undefined
  /** Where the questions go: the request's channel to the client (undefined: the transport cannot stream). */
  notify: Channel['notify']
  /** Mint a sealed question id for session `sid`, valid `ttlSeconds` (undefined: no sealing). */
  mint(sid: string, info: RequestInfo, ttlSeconds: number): Promise<{ id: string; qid: string } | undefined>
  /** Run the handler again with this round's answers and state. */
  rerun(
    inputResponses: Record<string, unknown> | undefined,
    requestState: RequestStateValue | undefined,
  ): Promise<ResultObject>
}

/** The questions of one server: its options checked, its default mailbox made once. */
export class LegacyQuestions {
  readonly maxRounds: number
  readonly timeoutMs: number
  readonly #mailbox: LegacyQuestionOptions['mailbox']
  readonly #logger: Logger | undefined
  #warned = false
  /** Whether this runs on Workers, where a request watches for its own cancellation (see {@link track}). */
  readonly #onWorkers = onWorkers()
  /** The legacy requests of sessions running on this instance, by {@link requestKey}. */
  readonly #inflight = new Map<string, TrackedRequest>()

  /**
   * @throws RangeError for a `maxRounds` that is not a positive integer, or a `timeoutMs` not in
   *   (0, 2,147,483,647].
   */
  constructor(options: LegacyQuestionOptions = {}, logger?: Logger) {
    this.#logger = logger
    this.maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    if (!(Number.isInteger(this.maxRounds) && this.maxRounds > 0))
      throw new RangeError(`legacyQuestions.maxRounds must be a positive integer, got ${String(this.maxRounds)}`)
    if (!(Number.isFinite(this.timeoutMs) && this.timeoutMs > 0 && this.timeoutMs <= MAX_TIMER_MS))
      throw new RangeError(`legacyQuestions.timeoutMs must be a positive number of ms, got ${String(this.timeoutMs)}`)
    this.#mailbox = 'mailbox' in options ? options.mailbox : onWorkers() ? null : new InMemoryQuestionMailbox()
  }

  /**
   * Follow a legacy request of a session so that `notifications/cancelled` naming it (spec 2025-11-25:
   * basic/utilities/cancellation.mdx) aborts its handler's signal (see {@link cancel}): on this instance
   * directly, and on Workers through the mailbox, which a request running past `WATCH_AFTER_MS` (200 ms)
   * waits on until it ends (the notification may land on any isolate). Without a mailbox (none bound),
   * only the client's going away aborts it there.
   * @returns `withSignal`, which gives a context of the request a `signal` that also aborts on cancellation
   *   (without a session: the context as it is), and `done`, to call when it ends.
   */
  track(session: LegacySession | undefined, requestId: RequestId, info: RequestInfo): Tracked {
    if (!session) return UNTRACKED
    const tracked = new TrackedRequest(this.#inflight, requestKey(session.sid, requestId), info)
    this.#inflight.set(tracked.key, tracked)
    if (this.#onWorkers && this.#mailbox)
      try {
        tracked.watch(this.mailboxFor(info), session.sid, requestId)
      } catch {
        // no mailbox bound: questions fail at once, and only the connection's end aborts the request
      }
    return tracked
  }

  /**
   * A client cancelled request `params.requestId` of session `sid`: abort it if this instance runs it (not
   * on Workers), else tell the instance running it (on Workers, this one too) through the mailbox, under a
   * fixed-size key (the notification may reach another isolate than the one holding the request). A
   * request this server cannot be running elsewhere (its mailbox is in this process's memory) and does not
   * run here is unknown: nothing is kept for it (spec: cancellation.mdx "Invalid cancellation notifications SHOULD be
   * ignored", unknown request IDs among them). Never throws; a malformed notification is ignored.
   */
  async cancel(sid: string, params: Record<string, unknown>, info: RequestInfo): Promise<void> {
    const { requestId } = params
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return
    const running = this.#inflight.get(requestKey(sid, requestId))
    // On Workers a request's signal cannot be aborted from another request (its I/O, e.g. a Durable Object
    // fetch, belongs to that request: workerd throws): there the cancellation only goes through the mailbox,
    // which the running request waits on in its own context (see track).
    if (running && !this.#onWorkers) return running.controller().abort(new Error('cancelled by the client'))
    try {
      const mailbox = this.mailboxFor(info)
      const key = await cancellationKey(sid, requestId)
      // in this process's memory: only a wait there now (another server sharing the mailbox) can want it
      if (mailbox instanceof InMemoryQuestionMailbox) mailbox.offer(key, { result: {} })
      else await mailbox.deliver(key, { result: {} }) // shared: the request may run on another instance
    } catch {
      // no mailbox (no question can be waiting), or it failed: the question's timeout still bounds the wait
    }
  }

  /**
   * The mailbox for this request.
   * @throws Error saying why there is none (its message is sent to the client).
   */
  mailboxFor(info: RequestInfo): QuestionMailbox {
    const mailbox = this.#mailbox
    if (typeof mailbox === 'function') return mailbox(info)
    if (mailbox) return mailbox
    throw new Error(
      onWorkers()
        ? 'this Worker has no mailbox for answers (bind a Durable Object: see durableObjectMailbox in edge-mcp/cloudflare)'
        : 'this server asks no questions of 2025-era clients (legacyQuestions.mailbox is null)',
    )
  }

  /**
   * Hand a client's answer to the request waiting for it (whichever instance holds it), after checking that
   * its id is a question this server asked in the session the answer comes with, for the same principal.
   * @throws McpError -32600 (HTTP 400) for an answer without a session or with an id that is not such a
   *   question (one message for every reason: the id tells nothing); -32603 (HTTP 503) when the mailbox failed.
   */
  async deliverAnswer(
    response: InboundResponse,
    info: RequestInfo,
    session: LegacySession | undefined,
    open: (token: unknown, info: RequestInfo) => Promise<SealedQuestion | undefined>,
  ): Promise<void> {
    if (!session) throw badAnswer('an answer needs the Mcp-Session-Id of the session it was asked in')
    let question: SealedQuestion | undefined
    try {
      question = await open(response.id, info)
    } catch {
      question = undefined
    }
    let mailbox: QuestionMailbox | undefined
    try {
      mailbox = this.mailboxFor(info)
    } catch {
      mailbox = undefined // no question can have been asked
    }
    if (!question || question.sid !== session.sid || !mailbox)
      throw badAnswer('the id of this response is not that of a question asked in this session')
    const answer = response.error ? { error: response.error } : { result: response.result ?? {} }
    await mailbox.deliver(question.qid, answer).catch((error: unknown) => undelivered(error, this.#logger))
  }

  /**
   * Ask until the handler completes: each round's input requests sent as server-to-client requests on the
   * POST's stream, their answers awaited (all at once; the first failure ends the round), the handler run
   * again with them.
   * @returns the complete result, or a tool error (`isError`) on `tools/call` when a question could not be
   *   asked or answered.
   * @throws McpError -32021 when the client did not declare a capability a question needs; -32603 on
   *   other methods for what is a tool error on `tools/call`.
   * @throws RequestCancelledError once the client has gone away (`ctx.signal` aborted: nothing more is
   *   asked, the handler is not run again; no response is sent).
   */
  async ask(request: JSONRPCRequest, first: ResultObject, ctx: RequestContext, deps: AskDeps): Promise<ResultObject> {
    const { method } = request
    let result = first
    for (let round = 1; isInputRequired(result); round++) {
      if (ctx.signal.aborted) throw new RequestCancelledError() // no more rounds for nobody
      if (round > this.maxRounds) return failed(method, `it would take more than ${this.maxRounds} rounds of questions`)
      const checked = inputRequiredResult(method, result, ctx) // -32021 when a capability is missing
      const requests = (checked.inputRequests ?? {}) as Record<string, InputRequest>
      let answers: Record<string, unknown> | undefined
      if (Object.keys(requests).length > 0) {
        const asked = await this.#askAll(requests, ctx, deps)
        if (typeof asked === 'string') return failed(method, asked)
        answers = asked
      }
      result = await deps.rerun(answers, checked.requestState as RequestStateValue | undefined)
    }
    return result
  }

  /** Every request of one round, concurrently: the answers by key, or why they could not all be had. */
  async #askAll(
    requests: Record<string, InputRequest>,
    ctx: RequestContext,
    deps: AskDeps,
  ): Promise<Record<string, unknown> | string> {
    let mailbox: QuestionMailbox
    try {
      mailbox = this.mailboxFor(ctx)
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error)
      if (!this.#warned && this.#logger)
        logWarn(this.#logger, 'question.unaskable', `a question to a 2025-era client could not be asked: ${why}`)
      this.#warned = true // once per server: the operator needs to know, the log does not need a flood
      return why
    }
    const notify = deps.notify
    if (!notify) return 'the client does not accept a text/event-stream response, on which questions are sent'
    const session = deps.session
    if (!session) return 'the request has no session (Mcp-Session-Id), which answers are checked against'
    const round = new AbortController()
    const onAbort = () => round.abort(ctx.signal.reason)
    if (ctx.signal.aborted)
      onAbort() // gone while the handler ran: ask nothing
    else ctx.signal.addEventListener('abort', onAbort, { once: true })
    const unanswered = new Set<string>() // ids of the questions sent whose answer has not come
    const signals = fanOut(round.signal) // a signal per wait: no signal gathers a listener per question
    const waitFor = (qid: string) => {
      const { signal, close } = signals()
      return mailbox.wait(qid, this.timeoutMs, signal).finally(close)
    }
    if (!this.#onWorkers) this.#watchCancellation(session.sid, ctx.requestId, waitFor) // on Workers the request watches (track)
    try {
      const entries = await Promise.all(
        Object.entries(requests).map(async ([key, question]) => {
          // asked inside the question middleware, if any: next() resolves to the checked answer
          const checked = await aroundQuestion(ctx, key, question.method, 'legacy', async () => {
            const minted = await deps.mint(session.sid, ctx, Math.ceil(this.timeoutMs / 1000) + 60)
            if (!minted) throw new Error('this server seals no question ids')
            round.signal.throwIfAborted() // another question of the round failed while this one was minted
            const answer = waitFor(minted.qid)
            answer.catch(() => {}) // awaited below; a rejection is never unhandled if sending fails first
            notify({ jsonrpc: '2.0', id: minted.id, method: question.method, params: legacyParams(question, session) })
            unanswered.add(minted.id)
            const got = await answer
            unanswered.delete(minted.id)
            return resultOf(question.method, got)
          })
          return [key, checked] as const
        }),
      )
      return Object.fromEntries(entries)
    } catch (error) {
      round.abort(error)
      const gone = ctx.signal.aborted // the client went away or cancelled
      const why = gone ? 'the request was cancelled' : error instanceof Error ? error.message : String(error)
      // the client may still show these questions: tell it they are no longer waited for (spec: cancellation.mdx)
      for (const requestId of unanswered)
        notify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: why } })
      // nobody reads the answer, and it is no failure of the handler (nothing is logged)
      if (gone) throw new RequestCancelledError()
      if (error instanceof UpstreamError && this.#logger)
        logError(
          this.#logger,
          'question.failed',
          `a question to a 2025-era client failed: ${why}`,
          error.cause ?? error,
        )
      return why
    } finally {
      round.abort() // ends the wait for a cancellation
      ctx.signal.removeEventListener('abort', onAbort)
    }
  }

  /**
   * While the round waits (`waitFor`, a wait on the round's mailbox), a cancellation of request
   * `requestId` of session `sid` that reached another instance comes through the mailbox, and aborts the
   * request here. Not on Workers: there the request watches for it as long as it runs (see {@link track}).
   */
  #watchCancellation(sid: string, requestId: RequestId, waitFor: (key: string) => Promise<QuestionAnswer>): void {
    cancellationKey(sid, requestId)
      .then(waitFor)
      .then(
        () => this.#inflight.get(requestKey(sid, requestId))?.controller().abort(new Error('cancelled by the client')),
        () => {}, // the round ended (or timed out) first
      )
  }
}

function badAnswer(why: string): McpError {
  return new McpError(ErrorCode.InvalidRequest, `Bad Request: ${why}`, undefined, 400)
}

/**
 * Signals that abort with `parent`, through one listener on it however many are handed out: each call
 * gives a new signal (aborted at once if `parent` is) and its `close`, which forgets it (call it when the
 * wait on it ends). One listener per round, not one per question: Node warns of a leak past 10 listeners
 * on one signal, and each wait keeps its own until it settles.
 */
function fanOut(parent: AbortSignal): () => { signal: AbortSignal; close: () => void } {
  const open = new Set<AbortController>()
  parent.addEventListener('abort', () => open.forEach((child) => child.abort(parent.reason)), { once: true })
  return () => {
    const child = new AbortController()
    if (parent.aborted) child.abort(parent.reason)
    else open.add(child)
    return {
      signal: child.signal,
      close() {
        open.delete(child)
      },
    }
  }
}

/** A question's params as a client of the session's version expects them. */
function legacyParams(question: InputRequest, session: LegacySession): Record<string, unknown> {
  const params: Record<string, unknown> = { ...question.params }
  if (question.method !== 'elicitation/create') return params
  if (params.mode === 'url' && typeof params.elicitationId !== 'string') params.elicitationId = crypto.randomUUID() // required in 2025-11-25 URL mode
  if (params.mode === 'form' && session.protocolVersion < '2025-11-25') delete params.mode // 2025-06-18 has no mode
  return params
}

/** The result schema of each question's method: an answer is checked before the handler sees it. */
const RESULT_SCHEMAS: Record<InputRequest['method'], () => Check> = {
  'elicitation/create': ElicitResult,
  'sampling/createMessage': CreateMessageResult,
  'roots/list': ListRootsResult,
}

/**
 * The result of an answer, checked against its method's result schema (the handler gets only valid
 * `inputResponses`, as on the 2026 lane): an `elicitation/create` decline or cancel is one whatever
 * `content` it carries (ignored), and `content: null` is no content.
 * @throws InvalidAnswerError naming the question when the client answered with an error or an invalid result.
 */
function resultOf(method: InputRequest['method'], answer: QuestionAnswer): Record<string, unknown> {
  if ('error' in answer)
    throw new InvalidAnswerError(
      `the client answered ${method} with error ${answer.error.code}: ${answer.error.message}`,
    )
  const [issue, output] = parse(RESULT_SCHEMAS[method](), answer.result)
  if (issue !== undefined) throw new InvalidAnswerError(`the client sent an invalid answer to ${method}: ${issue}`)
  return output as Record<string, unknown> // as parsed: a decline's or cancel's content is dropped, not checked
}

/**
 * A -32021 of a request without a session, saying why its client's capabilities are unknown; any other
 * error as it is.
 */
export function withSessionNote(error: unknown, session: LegacySession | undefined): unknown {
  if (session || !(error instanceof McpError) || error.code !== ErrorCode.MissingRequiredClientCapability) return error
  const why = `${error.message} (no session: this request carries no Mcp-Session-Id, or came before initialize was answered, so what its client declared at initialize is unknown)`
  return new McpError(error.code, why, error.data, error.httpStatus)
}

/** A question that could not be asked or answered: a tool error on `tools/call`, else -32603. */
function failed(method: string, why: string): ResultObject {
  const text = `This ${method} needed an answer from the client and did not get one: ${why}.`
  if (method !== 'tools/call') throw new McpError(ErrorCode.InternalError, text)
  return { content: [{ type: 'text', text }], isError: true }
}
