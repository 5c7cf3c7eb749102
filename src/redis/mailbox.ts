/**
 * The question mailbox on Redis: a 2025-era client's answer, received by any instance, reaches the
 * instance whose request waits for it. The answer is stored under `${prefix}q:${qid}` (for `earlyAnswerMs`,
 * so that an answer that comes before its wait is kept) and its qid published on `${prefix}answers`; the
 * wait takes it with GETDEL when it subscribes, on each message naming it, and every second in case a
 * message was missed. What Redis acknowledged is never lost: it is taken by the wait or expires unwanted.
 * @module
 */
import { ErrorCode, McpError } from '../protocol/errors.ts'
import { QuestionTimeoutError, UpstreamError, messageOf } from '../server/errors.ts'
import { abortReason, type QuestionAnswer, type QuestionMailbox } from '../server/mailbox.ts'
import type { RedisConnection } from './connection.ts'

/** Options of {@link redisMailbox}. */
export interface RedisMailboxOptions {
  /** Prefix of every key and channel, e.g. `'edge-mcp:'`. */
  prefix: string
  /** How long an answer waits in Redis for its wait, in **milliseconds** (the key's PX). */
  earlyAnswerMs: number
  /** Largest answer, in **bytes** of its JSON (UTF-8). */
  maxAnswerBytes: number
  /** How often a wait looks for its answer besides the messages, in **milliseconds**. Default 1,000. */
  pollMs?: number
}

/** The longest qid, in characters (the server's are 22 or 30), as the Durable Object mailbox. */
export const MAX_QID_CHARS = 256

const encoder = new TextEncoder()

/**
 * A {@link QuestionMailbox} on Redis (see the module).
 *
 * - `wait(qid, timeoutMs, signal)` resolves with the answer; rejects with `QuestionTimeoutError` after
 *   `timeoutMs` ms, with the signal's reason when it aborts, and with an `UpstreamError` (`ERR_UPSTREAM`,
 *   "…; call the tool again") when its subscription is lost or Redis fails a command: the answer may have
 *   come meanwhile and is not waited for any longer. A `RangeError` for a qid over 256 characters.
 * - `deliver(qid, answer)` resolves once Redis holds the answer (SET, then PUBLISH; a failed PUBLISH is
 *   made up for by the wait's poll). It rejects with an `UpstreamError` when Redis failed (the answering
 *   client is told to send it again), with a `RangeError` for a qid over 256 characters, and with an
 *   `McpError` -32600 (HTTP 413) for an answer over `maxAnswerBytes`: its wait then ends at once with an
 *   error saying so, rather than waiting for an answer that will not come.
 * @param conn - a guarded connection (its commands bounded in time, failing with `UpstreamError`).
 */
export function redisMailbox(conn: RedisConnection, options: RedisMailboxOptions): QuestionMailbox {
  const { prefix, earlyAnswerMs, maxAnswerBytes } = options
  const pollMs = options.pollMs ?? 1_000
  const channel = `${prefix}answers`
  const keyOf = (qid: string) => {
    if (!validQid(qid)) throw qidError()
    return `${prefix}q:${qid}`
  }
  const store = async (qid: string, json: string) => {
    await conn.command(['SET', keyOf(qid), json, 'PX', String(Math.ceil(earlyAnswerMs))])
    await conn.command(['PUBLISH', channel, qid]).catch(() => {}) // stored: the wait's poll finds it
  }
  return {
    wait(qid, timeoutMs, signal) {
      if (!validQid(qid)) return Promise.reject(qidError())
      const key = keyOf(qid)
      if (signal?.aborted) return Promise.reject(abortReason(signal))
      return new Promise<QuestionAnswer>((resolve, reject) => {
        let settled = false
        let taking = false
        let again = false
        let unsubscribe: (() => Promise<void>) | undefined
        const finish = () => {
          settled = true
          clearTimeout(timer)
          clearInterval(poll)
          signal?.removeEventListener('abort', onAbort)
          unsubscribe?.().catch(() => {})
        }
        const fail = (error: unknown) => {
          if (settled) return
          finish()
          reject(error instanceof Error ? error : new Error(String(error)))
        }
        const lostRedis = (cause: unknown) =>
          fail(
            new UpstreamError(
              `the wait for the client's answer lost Redis (${messageOf(cause)}); the answer may have come ` +
                'meanwhile: call the tool again',
              { cause },
            ),
          )
        const take = async (): Promise<void> => {
          if (settled) return
          if (taking) {
            again = true
            return
          }
          taking = true
          let json: unknown
          try {
            json = await conn.command(['GETDEL', key])
          } catch (error) {
            lostRedis(error)
          } finally {
            taking = false
          }
          if (settled) return
          if (typeof json === 'string') {
            let answer: QuestionAnswer
            try {
              answer = JSON.parse(json) as QuestionAnswer
            } catch (cause) {
              return fail(new UpstreamError(`the answer kept in Redis for the question is not JSON`, { cause }))
            }
            finish()
            return resolve(answer)
          }
          if (again) {
            again = false
            return take()
          }
        }
        const onAbort = () => fail(abortReason(signal!))
        signal?.addEventListener('abort', onAbort, { once: true })
        const timer = setTimeout(() => fail(new QuestionTimeoutError(timeoutMs)), timeoutMs)
        const poll = setInterval(() => void take(), pollMs)
        conn
          .subscribe(channel, (message) => message === qid && void take(), lostRedis)
          .then((stop) => {
            if (settled) return stop()
            unsubscribe = stop
            return take()
          })
          .catch(lostRedis)
      })
    },
    async deliver(qid, answer) {
      keyOf(qid)
      const json = JSON.stringify(answer)
      const bytes = encoder.encode(json).byteLength
      if (bytes > maxAnswerBytes) {
        const why = `the answer is ${bytes} bytes of JSON, more than the ${maxAnswerBytes} this server accepts`
        // the wait hears it now, rather than waiting for an answer that will not come
        await store(qid, JSON.stringify({ error: { code: ErrorCode.InternalError, message: why } })).catch(() => {})
        throw new McpError(ErrorCode.InvalidRequest, `Invalid Request: ${why}`, undefined, 413)
      }
      await store(qid, json)
    },
  }
}

const validQid = (qid: unknown) => typeof qid === 'string' && qid.length <= MAX_QID_CHARS
const qidError = () => new RangeError(`a question id must be a string of at most ${MAX_QID_CHARS} characters`)
