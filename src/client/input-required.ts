/**
 * The input-required driver shared by `callTool`, `getPrompt` and `readResource`: answer each
 * round's `inputRequests` concurrently, retry with `inputResponses` and the byte-exact `requestState`,
 * within a round limit; state-only rounds back off (spec: basic/patterns/mrtr.mdx).
 * @module
 */
import type { InputRequest, InputRequiredResult, InputResponse, InputResponses } from '../protocol/schemas/index.ts'
import { rejectOnAbort } from './abort.ts'
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
  /** 1 for the first `InputRequiredResult`. */
  round: number
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
}

/** `setTimeout`-based sleep that rejects with the signal's reason on abort. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted() // thrown in the executor: rejects with the reason, unchanged
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the abort reason is whatever the caller aborted with (any value); callers catch it unchanged
      reject(signal!.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * Drive an input-required exchange to its terminal result.
 * @throws InputRequiredRoundsExceededError after `maxRounds` retries (checked before dispatching).
 * @throws whatever a dispatch throws first; the other dispatches of that round are aborted.
 */
export async function driveInputRequired<R>(first: R | InputRequiredResult, options: DriveOptions<R>): Promise<R> {
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS
  const wait = options.sleep ?? sleep
  let current = first
  let rounds = 0
  let delay = STATE_ONLY_BACKOFF_INITIAL_MS
  while (options.isInputRequired(current)) {
    options.signal?.throwIfAborted()
    rounds++
    if (rounds > maxRounds) throw new InputRequiredRoundsExceededError(maxRounds)
    const requests = current.inputRequests ?? {}
    let responses: InputResponses | undefined
    if (Object.keys(requests).length > 0) {
      delay = STATE_ONLY_BACKOFF_INITIAL_MS
      responses = await dispatchAll(requests, options.dispatch, options.signal)
    } else {
      await wait(delay, options.signal)
      delay = Math.min(delay * 2, STATE_ONLY_BACKOFF_CAP_MS)
    }
    const info: RoundInfo = {
      round: rounds,
      inputRequests: requests,
      hasRequestState: current.requestState !== undefined,
    }
    if (current.requestState !== undefined) info.requestState = current.requestState
    if (responses) info.inputResponses = responses
    options.onRound?.(info)
    current = await options.retry(responses, current.requestState)
  }
  return current
}

/**
 * Run every dispatch concurrently. The first failure, or the caller's abort, aborts the others and
 * rejects at once — even when a callback ignores its signal.
 */
async function dispatchAll(
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
