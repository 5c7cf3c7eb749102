/**
 * A 2025-era request refused with `-32042` "URL elicitation required" (spec 2025-11-25: client/elicitation.mdx
 * "URL Elicitation Required Error"): each URL-mode elicitation the error lists goes to the `elicitation`
 * callback (the consent view of `edge-mcp/browser`), and once all were accepted the request is sent again —
 * after `notifications/elicitation/complete` arrived for each, when a stream can bring it. 2026-07-28 has no
 * such error: a URL-mode elicitation is an input request of an `InputRequiredResult` there, answered by the
 * same callback through the same `answerInput`.
 * @module
 */
import { McpError } from '../protocol/errors.ts'
import { problem } from '../protocol/check.ts'
import type { ElicitResult } from '../protocol/schemas/index.ts'
import { rejectOnAbort } from './abort.ts'
import { answerInput } from './carrier.ts'
import { ElicitRequestURLParams } from './checks.gen.ts'
import type { ClientOptions } from './options.ts'

/** The JSON-RPC code of `URLElicitationRequiredError` (2025-11-25 only). */
export const URL_ELICITATION_REQUIRED = -32042

/** Distinct `-32042` answers (sets of elicitations) one request goes through before the error is thrown. */
export const MAX_URL_ELICITATION_ROUNDS = 3

/** A URL-mode elicitation listed by a `-32042` error. */
export type RequiredUrlElicitation = ElicitRequestURLParams & { elicitationId: string }

/** What {@link withUrlElicitation} needs. */
export interface UrlElicitationDeps {
  /** The callbacks (only `elicitation` is used). */
  callbacks: Pick<ClientOptions, 'elicitation' | 'sampling' | 'roots'>
  /** The request sent (e.g. `tools/call`) and its tool or prompt name or resource URI, for the callback's context. */
  method: string
  target: string
  /** The caller's abort: the callback's context signal, and the end of any wait. */
  signal?: AbortSignal | undefined
  /**
   * Start watching for `notifications/elicitation/complete` of these ids: `done` resolves once each has
   * arrived, or when the connection stops waiting (its request timeout); `stop` ends the watch. Undefined
   * when no stream can bring the notification (no standalone stream).
   */
  watchCompletions(ids: string[]): { done: Promise<void>; stop(): void } | undefined
}

/**
 * The URL-mode elicitations of a `-32042` error (`error.data.elicitations`, each with `mode: 'url'`,
 * `elicitationId`, `url` and `message`); undefined for any other error or when none is valid.
 */
export function requiredUrlElicitations(error: unknown): RequiredUrlElicitation[] | undefined {
  if (!(error instanceof McpError) || error.code !== URL_ELICITATION_REQUIRED) return undefined
  const listed = (error.data as { elicitations?: unknown } | undefined)?.elicitations
  if (!Array.isArray(listed)) return undefined
  const valid = listed.filter(
    (e): e is RequiredUrlElicitation =>
      problem(ElicitRequestURLParams, e) === undefined &&
      typeof (e as { elicitationId?: unknown }).elicitationId === 'string',
  )
  return valid.length > 0 ? valid : undefined
}

/**
 * Send a request with `send`; when it fails with `-32042`, ask the `elicitation` callback about each listed
 * URL-mode elicitation, one after the other (`ctx.key` is `url-elicitation-<elicitationId>`). When all were
 * accepted, wait (bounded) for their completion notifications if a stream can bring them, then send
 * again. Bounded: an elicitation id seen before, or more than {@link MAX_URL_ELICITATION_ROUNDS} rounds, and
 * the `-32042` is thrown.
 * @throws the McpError -32042 as the server sent it when there is no `elicitation` callback, when the user
 *   declined or cancelled one, or past the bounds; what the callback throws (e.g. InvalidInputResponseError);
 *   the abort reason; whatever `send` throws otherwise.
 */
export async function withUrlElicitation<T>(send: () => Promise<T>, deps: UrlElicitationDeps): Promise<T> {
  const seen = new Set<string>()
  for (let round = 0; ; round++) {
    try {
      return await send()
    } catch (error) {
      const required = requiredUrlElicitations(error)
      if (
        !required ||
        !deps.callbacks.elicitation ||
        round >= MAX_URL_ELICITATION_ROUNDS ||
        required.some((e) => seen.has(e.elicitationId))
      )
        throw error
      await consent(required, deps, seen, error)
    }
  }
}

/** Ask about each elicitation, then wait for their completions when they can come. @throws `refusal` unless all were accepted. */
async function consent(
  required: RequiredUrlElicitation[],
  deps: UrlElicitationDeps,
  seen: Set<string>,
  refusal: unknown,
): Promise<void> {
  const ids = required.map((e) => e.elicitationId)
  for (const id of ids) seen.add(id)
  const watch = deps.watchCompletions(ids) // before asking: the user may finish before the callback returns
  try {
    const signal = deps.signal ?? new AbortController().signal
    for (const elicitation of required) {
      const key = `url-elicitation-${elicitation.elicitationId}`
      const request = { method: 'elicitation/create' as const, params: elicitation }
      const answer = (await answerInput(deps.callbacks, key, request, {
        key,
        method: deps.method,
        target: deps.target,
        signal,
      })) as ElicitResult
      if (answer.action !== 'accept') throw refusal
    }
    // without a watch nothing can tell when the user is done: the acceptance is the go-ahead
    if (watch) await Promise.race(deps.signal ? [watch.done, rejectOnAbort(deps.signal)] : [watch.done])
  } finally {
    watch?.stop()
  }
}
