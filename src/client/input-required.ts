/**
 * The input-required driver shared by `callTool`, `getPrompt` and `readResource`: answer each
 * round's `inputRequests` concurrently, retry with `inputResponses` and the byte-exact `requestState`,
 * within a round limit; state-only rounds back off (spec: basic/patterns/mrtr.mdx). A retry refused with
 * the frozen requestState error starts the call over once, answering the questions already answered from
 * the memo of this call's answers (see {@link DriveOptions.restart}).
 * @module
 */
import { canonicalJson } from '../encoding/canonical.ts'
import { ErrorCode, INVALID_REQUEST_STATE_MESSAGE, McpError } from '../protocol/errors.ts'
import type { InputRequest, InputRequiredResult, InputResponse, InputResponses } from '../protocol/schemas/index.ts'
import { rejectOnAbort, sleep } from './abort.ts'
import { InputRequiredRoundsExceededError } from './errors.ts'

/** Default round limit: at most this many retries of one call. */
export const DEFAULT_MAX_ROUNDS = 10
/** First wait before retrying a state-only round, in ms; doubles each state-only round. */
export const STATE_ONLY_BACKOFF_INITIAL_MS = 50
/** Longest wait between state-only rounds, in ms. */
export const STATE_ONLY_BACKOFF_CAP_MS = 250

/** Answers one input request; `signal` aborts when a sibling request of the same round failed. */
export type Dispatch = (key: string, request: InputRequest, signal: AbortSignal) => Promise<InputResponse>

/** One round as seen by an `onRound` observer. */
export interface RoundInfo {
  /** 1 for the first `InputRequiredResult` of the attempt. */
  round: number
  /**
   * 1, or 2 once the call was started over because a retry was refused with the frozen requestState
   * error (`-32602 "Invalid or expired requestState"`; see `ClientOptions.restartOnInvalidRequestState`).
   */
  attempt: number
  /**
   * The keys of `inputRequests` answered from an answer of the first attempt (the same question, compared
   * as rendered: the same key, method and params but `_meta`) instead of by your callbacks. Empty on the first attempt.
   */
  recalled: string[]
  /** What the server asked this round (empty for a state-only round). */
  inputRequests: Record<string, InputRequest>
  /** Whether an opaque `requestState` travels with the retry. */
  hasRequestState: boolean
  /** That `requestState`, byte-exact as the server sent it and as the retry carries it (opaque: never parse it). */
  requestState?: string
  /** The answers sent back (undefined for a state-only round). */
  inputResponses?: InputResponses
}

/** Options of {@link driveInputRequired}. */
export interface DriveOptions<R> {
  dispatch: Dispatch
  retry: (
    inputResponses: InputResponses | undefined,
    requestState: string | undefined,
  ) => Promise<R | InputRequiredResult>
  isInputRequired: (value: R | InputRequiredResult) => value is InputRequiredResult
  /** Retries allowed before {@link InputRequiredRoundsExceededError}. Default 10. */
  maxRounds?: number
  /** Waits `ms` milliseconds (tests inject a fake). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  signal?: AbortSignal
  onRound?: (info: RoundInfo) => void
  /**
   * Sends the call again from the start (no `inputResponses`, no `requestState`). Given, a retry refused
   * with the frozen requestState error starts the call over once; in that second attempt a question equal
   * to one answered in the first (same key, method and params but `_meta`, compared canonically) is answered with
   * that answer, each answer used at most once and in the order asked (a question asked more often than in
   * the first attempt reaches the callbacks again).
   */
  restart?: () => Promise<R | InputRequiredResult>
  /**
   * The memo of an earlier drive of the same call (`callTool` drives again after re-listing on a -32020):
   * when it holds answers, this drive is the second attempt and recalls them.
   */
  memo?: AnswerMemo
  /**
   * Wraps each round (`n` 1-based, per attempt): `step` sends the round's request and, when its result asks
   * for input, answers it; resolves to the result (the client's `round` middleware). The result it resolves
   * to is the one the driver goes on with (answered here when `step` did not answer it).
   */
  around?: (n: number, step: () => Promise<R | InputRequiredResult>) => Promise<R | InputRequiredResult>
}

/**
 * Whether `error` is the frozen requestState error (`-32602 "Invalid or expired requestState"`, spec:
 * basic/patterns/mrtr.mdx; edge-mcp servers also mark it `data.reason: 'invalid_request_state'`).
 */
export function isInvalidRequestStateError(error: unknown): boolean {
  if (!(error instanceof McpError) || error.code !== ErrorCode.InvalidParams) return false
  const data = error.data as { reason?: unknown } | undefined
  return error.message === INVALID_REQUEST_STATE_MESSAGE || data?.reason === 'invalid_request_state'
}

/** What a first attempt returns when a retry was refused with the frozen requestState error: start over. */
const START_OVER = Symbol('start over')

/**
 * The answers given in the first attempt of this call, by question as rendered (canonical JSON of method and
 * params but `_meta`), in the order the questions were asked: the second attempt recalls them in that order,
 * each once, and records nothing (a question it re-asks reaches the callbacks).
 */
export class AnswerMemo {
  readonly #answers = new Map<string, Array<InputResponse | undefined>>()

  /** Whether any answer was recorded (a drive that starts with such a memo is a second attempt). */
  get hasAnswers(): boolean {
    return this.#answers.size > 0
  }

  /** Answer from the memo (second attempt, an answer of this question not yet recalled) or through `dispatch`. */
  dispatch(attempt: number, dispatch: Dispatch, recalled: string[]): Dispatch {
    return async (key, request, signal) => {
      const question = questionOf(key, request)
      if (question === undefined) return dispatch(key, request, signal)
      if (attempt > 1) {
        const known = this.#answers.get(question)?.shift()
        if (known === undefined) return dispatch(key, request, signal)
        recalled.push(key)
        return known
      }
      const answers = this.#answers.get(question) ?? []
      this.#answers.set(question, answers)
      const slot = answers.push(undefined) - 1 // the order asked, not the order answered
      const answer = await dispatch(key, request, signal)
      answers[slot] = answer
      return answer
    }
  }
}

/**
 * The question under its key, as rendered: the `inputRequests` key and the method and params but `_meta`
 * (an answer is never recalled for another key, even to the same words); undefined when it has no canonical form.
 */
function questionOf(key: string, request: InputRequest): string | undefined {
  const params: Record<string, unknown> = { ...request.params }
  delete params._meta
  try {
    return canonicalJson({ key, method: request.method, params })
  } catch {
    return undefined // e.g. nested deeper than canonicalJson allows: never recalled
  }
}

/**
 * Drive an input-required exchange to its terminal result.
 * @param first - the first request's result, or the function that sends it (then inside the first round).
 * @throws InputRequiredRoundsExceededError after `maxRounds` retries of one attempt (checked before dispatching).
 * @throws whatever a dispatch throws first; the other dispatches of that round are aborted.
 * @throws McpError the frozen requestState error when there is no `restart`, or when the restarted call
 *   is refused again (a call starts over at most once).
 */
export async function driveInputRequired<R>(first: First<R>, options: DriveOptions<R>): Promise<R> {
  const memo = options.memo ?? (options.restart ? new AnswerMemo() : undefined)
  if (memo?.hasAnswers) return (await attempt(first, options, 2, memo)) as R // a second attempt never starts over
  const result = await attempt(first, options, 1, memo)
  if (result !== START_OVER) return result
  options.signal?.throwIfAborted()
  const again = await attempt(options.restart!, options, 2, memo)
  return again as R // the second attempt never starts over
}

/**
 * One attempt of a call: rounds until a terminal result. A round is its request, then (when its result asks
 * for input) the answers the next request carries; {@link DriveOptions.around} wraps each.
 */
async function attempt<R>(
  first: First<R>,
  options: DriveOptions<R>,
  attemptNo: number,
  memo: AnswerMemo | undefined,
): Promise<R | typeof START_OVER> {
  if (typeof first !== 'function' && !options.isInputRequired(first)) return first
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS
  const wait = options.sleep ?? sleep
  let rounds = 0
  let delay = STATE_ONLY_BACKOFF_INITIAL_MS
  let answered: unknown // the result whose input requests `next` answers
  let next: [InputResponses | undefined, string | undefined] = [undefined, undefined]
  let refused: unknown // the frozen requestState error a request of this attempt threw
  const answer = async (current: InputRequiredResult) => {
    options.signal?.throwIfAborted()
    rounds++
    if (rounds > maxRounds) throw new InputRequiredRoundsExceededError(maxRounds)
    const requests = current.inputRequests ?? {}
    const recalled: string[] = []
    let responses: InputResponses | undefined
    if (Object.keys(requests).length > 0) {
      delay = STATE_ONLY_BACKOFF_INITIAL_MS
      const dispatch = memo ? memo.dispatch(attemptNo, options.dispatch, recalled) : options.dispatch
      responses = await dispatchAll(requests, dispatch, options.signal)
    } else {
      await wait(delay, options.signal)
      delay = Math.min(delay * 2, STATE_ONLY_BACKOFF_CAP_MS)
    }
    const info: RoundInfo = {
      round: rounds,
      attempt: attemptNo,
      recalled,
      inputRequests: requests,
      hasRequestState: current.requestState !== undefined,
    }
    if (current.requestState !== undefined) info.requestState = current.requestState
    if (responses) info.inputResponses = responses
    options.onRound?.(info)
    answered = current
    next = [responses, current.requestState]
  }
  const step = (send: () => Promise<R | InputRequiredResult>) => async () => {
    let current: R | InputRequiredResult
    try {
      current = await send()
    } catch (error) {
      if (isInvalidRequestStateError(error)) refused = error
      throw error
    }
    if (options.isInputRequired(current)) await answer(current)
    return current
  }
  const round = (n: number, send: () => Promise<R | InputRequiredResult>) =>
    options.around ? options.around(n, step(send)) : step(send)()
  let n = 1
  try {
    let current = typeof first === 'function' || options.around ? await round(1, toThunk(first)) : first
    for (;;) {
      if (!options.isInputRequired(current)) return current
      if (answered !== current) await answer(current) // not (yet) answered: a first result given, or a round middleware's own
      const [responses, requestState] = next
      current = await round(++n, () => options.retry(responses, requestState))
    }
  } catch (error) {
    if (error === refused && n > 1 && attemptNo === 1 && options.restart) return START_OVER
    throw error
  }
}

/** The first result of an attempt, or the function that sends its first request. */
type First<R> = R | InputRequiredResult | (() => Promise<R | InputRequiredResult>)

function toThunk<R>(first: First<R>): () => Promise<R | InputRequiredResult> {
  return typeof first === 'function' ? (first as () => Promise<R | InputRequiredResult>) : () => Promise.resolve(first)
}

/**
 * Run every dispatch concurrently. The first failure, or the caller's abort, aborts the others and
 * rejects at once — even when a callback ignores its signal.
 */
export async function dispatchAll(
  requests: Record<string, InputRequest>,
  dispatch: Dispatch,
  outer?: AbortSignal,
): Promise<InputResponses> {
  const controller = new AbortController()
  let onOuterAbort: (() => void) | undefined
  const aborted = rejectOnAbort(controller.signal)
  aborted.catch(() => {}) // never reported as an unhandled rejection
  if (outer) {
    onOuterAbort = () => controller.abort(outer.reason)
    outer.addEventListener('abort', onOuterAbort, { once: true })
  }
  try {
    const all = Promise.all(
      Object.entries(requests).map(async ([key, request]) => {
        try {
          return [key, await dispatch(key, request, controller.signal)] as const
        } catch (error) {
          controller.abort(error)
          throw error
        }
      }),
    )
    return Object.fromEntries(await Promise.race([all, aborted]))
  } finally {
    if (onOuterAbort) outer?.removeEventListener('abort', onOuterAbort)
  }
}
