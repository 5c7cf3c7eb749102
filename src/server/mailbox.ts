/**
 * Where a 2025-era client's answer to a server-to-client request meets the request waiting for it. The
 * question goes out on the SSE stream of the client's POST; the answer comes back in another POST, which
 * may reach another instance (another Worker isolate). A mailbox is the rendezvous: one instance waits on
 * a question id, whichever instance receives the answer delivers it. In memory within one process
 * (Node, Deno, Bun); a Durable Object across Worker isolates (`edge-mcp/cloudflare`).
 * @module
 */
import { ErrorCode, McpError } from '../protocol/errors.ts'
import type { Logger } from './context.ts'
import { QuestionTimeoutError, UpstreamError } from './errors.ts'
import { logError } from './log.ts'
import { MAX_TIMER_MS } from './runtime.ts'

/** A client's answer to a server-to-client request: its result object, or its JSON-RPC error. */
export type QuestionAnswer =
  { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } }

/** The rendezvous of questions and answers (see the module). Implementations must never hang past `timeoutMs`. */
export interface QuestionMailbox {
  /**
   * The answer delivered for question `qid` (one that came before the wait counts).
   * @param timeoutMs - how long to wait, in **milliseconds**.
   * @param signal - aborts the wait (the client went away).
   * @throws QuestionTimeoutError when no answer came within `timeoutMs`; the signal's reason when it aborts.
   */
  wait(qid: string, timeoutMs: number, signal?: AbortSignal): Promise<QuestionAnswer>
  /**
   * Hand the answer to question `qid` to its waiter, or keep it a while for a waiter still on its way.
   * Keys are short (a question's random id, or a fixed-size digest naming a request whose cancellation it
   * carries), but clients choose which of them arrive, any number (a cancellation may name any request):
   * bound what is kept for waits to come, in entries and in bytes, keys included.
   */
  deliver(qid: string, answer: QuestionAnswer): Promise<void>
}

/** Options of {@link InMemoryQuestionMailbox}. */
export interface InMemoryQuestionMailboxOptions {
  /**
   * How long an answer that arrived before its waiter is kept, in **milliseconds** (at most 2,147,483,647,
   * what a timer holds). Default 60,000.
   */
  earlyAnswerMs?: number
  /** Most early answers kept at once; past it the oldest is dropped. Default 1,024. */
  maxEarlyAnswers?: number
  /**
   * Most early answers kept at once, in **bytes** (the length of their JSON text plus that of their key);
   * past it the oldest are dropped, and an answer larger than this is never kept. Default 8,388,608
   * (8 MiB). Answers to questions nobody waits for any more (late, replayed, abandoned) land here too:
   * this bounds what a client can park in memory.
   */
  maxEarlyAnswerBytes?: number
}

/**
 * A mailbox in this process's memory: right for one process (Node, Deno, Bun; the default there), wrong
 * across Worker isolates, where an answer can land on an isolate that holds no waiter (use the Durable
 * Object mailbox of `edge-mcp/cloudflare`; it keeps one of these inside).
 */
export class InMemoryQuestionMailbox implements QuestionMailbox {
  readonly #waiters = new Map<string, (answer: QuestionAnswer) => void>()
  readonly #early = new Map<string, { answer: QuestionAnswer; bytes: number; timer: ReturnType<typeof setTimeout> }>()
  readonly #earlyAnswerMs: number
  readonly #maxEarlyAnswers: number
  readonly #maxEarlyAnswerBytes: number
  /** Bytes of the answers in `#early` (their JSON and their keys). */
  #earlyBytes = 0

  /** @throws RangeError for a non-positive or non-finite option, or an `earlyAnswerMs` over 2,147,483,647. */
  constructor(options: InMemoryQuestionMailboxOptions = {}) {
    this.#earlyAnswerMs = positive('earlyAnswerMs', options.earlyAnswerMs ?? 60_000)
    if (this.#earlyAnswerMs > MAX_TIMER_MS)
      throw new RangeError(`earlyAnswerMs must be at most ${MAX_TIMER_MS}, got ${this.#earlyAnswerMs}`)
    this.#maxEarlyAnswers = positive('maxEarlyAnswers', options.maxEarlyAnswers ?? 1024)
    this.#maxEarlyAnswerBytes = positive('maxEarlyAnswerBytes', options.maxEarlyAnswerBytes ?? 8 * 1024 * 1024)
  }

  /** Questions waited on now (for diagnostics and tests). */
  get waiting(): number {
    return this.#waiters.size
  }

  wait(qid: string, timeoutMs: number, signal?: AbortSignal): Promise<QuestionAnswer> {
    const early = this.#early.get(qid)
    if (early) {
      this.#forget(qid)
      return Promise.resolve(early.answer)
    }
    if (signal?.aborted) return Promise.reject(abortReason(signal))
    if (this.#waiters.has(qid)) return Promise.reject(new Error(`question ${qid} is already waited on`))
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        this.#waiters.delete(qid)
      }
      const onAbort = () => {
        done()
        reject(abortReason(signal!))
      }
      const timer = setTimeout(() => {
        done()
        reject(new QuestionTimeoutError(timeoutMs))
      }, timeoutMs)
      signal?.addEventListener('abort', onAbort, { once: true })
      this.#waiters.set(qid, (answer) => {
        done()
        resolve(answer)
      })
    })
  }

  deliver(qid: string, answer: QuestionAnswer): Promise<void> {
    if (this.offer(qid, answer)) return Promise.resolve()
    this.#forget(qid)
    const bytes = qid.length + JSON.stringify(answer).length // the key is held too: it counts
    if (bytes > this.#maxEarlyAnswerBytes) return Promise.resolve() // never kept: no waiter would want it whole
    while (this.#early.size >= this.#maxEarlyAnswers || this.#earlyBytes + bytes > this.#maxEarlyAnswerBytes)
      this.#forget(this.#early.keys().next().value!) // the oldest
    const timer = setTimeout(() => this.#forget(qid), this.#earlyAnswerMs)
    ;(timer as { unref?: () => void }).unref?.() // a kept answer does not keep a Node process alive
    this.#early.set(qid, { answer, bytes, timer })
    this.#earlyBytes += bytes
    return Promise.resolve()
  }

  /**
   * Hand `answer` to the wait on `qid` if one is waiting now; unlike {@link deliver}, nothing is kept for
   * a wait still to come.
   * @returns whether a wait took it.
   */
  offer(qid: string, answer: QuestionAnswer): boolean {
    const waiter = this.#waiters.get(qid)
    waiter?.(answer)
    return waiter !== undefined
  }

  /** Drop the early answer of `qid`, if one is kept. */
  #forget(qid: string): void {
    const early = this.#early.get(qid)
    if (!early) return
    clearTimeout(early.timer)
    this.#early.delete(qid)
    this.#earlyBytes -= early.bytes
  }
}

/**
 * What a failed `deliver` becomes for the answering client: a mailbox's own failure (`UpstreamError`: Redis,
 * a Durable Object) is logged and thrown as an McpError -32603 with HTTP status 503 saying to send the
 * answer again (it is not the client's fault); anything else is thrown as it is.
 * @internal not in the public API: used by `legacy-questions.ts`
 */
export function undelivered(error: unknown, logger: Logger | undefined): never {
  if (!(error instanceof UpstreamError)) throw error
  if (logger) logError(logger, 'answer.undelivered', `an answer could not be delivered: ${error.message}`, error)
  const why = "the answer could not be handed to the request waiting for it (the server's question mailbox failed)"
  throw new McpError(ErrorCode.InternalError, `Internal error: ${why}; send it again`, undefined, 503)
}

function positive(name: string, value: number): number {
  if (!(typeof value === 'number' && Number.isFinite(value) && value > 0))
    throw new RangeError(`${name} must be a positive finite number, got ${String(value)}`)
  return value
}

/**
 * The error an aborted wait rejects with: the signal's reason when it is an Error, else `Error('aborted')` with it as cause.
 * @internal not in the public API: shared by the mailboxes (in memory, Redis)
 */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  return reason instanceof Error ? reason : new Error('aborted', { cause: reason })
}
