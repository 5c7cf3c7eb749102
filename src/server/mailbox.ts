/**
 * Where a 2025-era client's answer to a server-to-client request meets the request waiting for it. The
 * question goes out on the SSE stream of the client's POST; the answer comes back in another POST, which
 * may reach another instance (another Worker isolate). A mailbox is the rendezvous: one instance waits on
 * a question id, whichever instance receives the answer delivers it. In memory within one process
 * (Node, Deno, Bun); a Durable Object across Worker isolates (`edge-mcp/cloudflare`).
 * @module
 */

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
  /** Hand the answer to question `qid` to its waiter, or keep it a while for a waiter still on its way. */
  deliver(qid: string, answer: QuestionAnswer): Promise<void>
}

/** No answer to a server-to-client request came in time. */
export class QuestionTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs / 1000} s`)
    this.name = 'QuestionTimeoutError'
  }
}

/** Options of {@link InMemoryQuestionMailbox}. */
export interface InMemoryQuestionMailboxOptions {
  /** How long an answer that arrived before its waiter is kept, in **milliseconds**. Default 60,000. */
  earlyAnswerMs?: number
  /** Most early answers kept at once; past it the oldest is dropped. Default 1,024. */
  maxEarlyAnswers?: number
}

/**
 * A mailbox in this process's memory: right for one process (Node, Deno, Bun; the default there), wrong
 * across Worker isolates, where an answer can land on an isolate that holds no waiter (use the Durable
 * Object mailbox of `edge-mcp/cloudflare`; it keeps one of these inside).
 */
export class InMemoryQuestionMailbox implements QuestionMailbox {
  readonly #waiters = new Map<string, (answer: QuestionAnswer) => void>()
  readonly #early = new Map<string, { answer: QuestionAnswer; timer: ReturnType<typeof setTimeout> }>()
  readonly #earlyAnswerMs: number
  readonly #maxEarlyAnswers: number

  /** @throws RangeError for a non-positive or non-finite option. */
  constructor(options: InMemoryQuestionMailboxOptions = {}) {
    this.#earlyAnswerMs = positive('earlyAnswerMs', options.earlyAnswerMs ?? 60_000)
    this.#maxEarlyAnswers = positive('maxEarlyAnswers', options.maxEarlyAnswers ?? 1024)
  }

  /** Questions waited on now (for diagnostics and tests). */
  get waiting(): number {
    return this.#waiters.size
  }

  wait(qid: string, timeoutMs: number, signal?: AbortSignal): Promise<QuestionAnswer> {
    const early = this.#early.get(qid)
    if (early) {
      clearTimeout(early.timer)
      this.#early.delete(qid)
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
    const waiter = this.#waiters.get(qid)
    if (waiter) {
      waiter(answer)
      return Promise.resolve()
    }
    const previous = this.#early.get(qid)
    if (previous) clearTimeout(previous.timer)
    else if (this.#early.size >= this.#maxEarlyAnswers) this.#dropOldest()
    const timer = setTimeout(() => this.#early.delete(qid), this.#earlyAnswerMs)
    ;(timer as { unref?: () => void }).unref?.() // a kept answer does not keep a Node process alive
    this.#early.set(qid, { answer, timer })
    return Promise.resolve()
  }

  #dropOldest(): void {
    const [oldest] = this.#early
    if (!oldest) return
    clearTimeout(oldest[1].timer)
    this.#early.delete(oldest[0])
  }
}

function positive(name: string, value: number): number {
  if (!(typeof value === 'number' && Number.isFinite(value) && value > 0))
    throw new RangeError(`${name} must be a positive finite number, got ${String(value)}`)
  return value
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  return reason instanceof Error ? reason : new Error('aborted', { cause: reason })
}
