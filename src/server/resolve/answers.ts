/**
 * Answers across rounds: the resolver state carried (sealed) in `requestState` — each recorded answer
 * pinned to a digest of the exact question — and how an answer is validated, restored or taken.
 * @module
 */
import { type Check, parse } from '../../protocol/check.ts'
import * as checks from '../../protocol/checks.gen.ts'
import type { CreateMessageResult, ListRootsResult } from '../../protocol/schemas/index.ts'
import { ResolutionError } from '../errors.ts'
import { QUESTION, type Question } from './questions.ts'

/** One recorded answer in the state: its action, the raw answer, and the digest of the question. */
export interface Recorded {
  action: 'accept' | 'decline' | 'cancel'
  data?: unknown
  q: string
}
/** The plaintext of a resolver-driven `requestState` (JSON): what was answered and what was asked. */
export interface ResolverState {
  v: 1
  /** Question key → its recorded answer. */
  outcomes: Record<string, Recorded>
  /** Question key → digest of the question sent last round (answers are taken only for it). */
  asked: Record<string, string>
  /** How often each question was asked again because its answer did not fit. */
  reasked?: Record<string, number>
}

/**
 * What a resolver produced this round: a value, a refusal (decline / cancel, with the question's message),
 * or a question still pending.
 */
export type ResolverResult =
  | { kind: 'value'; value: unknown }
  | { kind: 'refused'; action: 'decline' | 'cancel'; question: string }
  | { kind: 'pending' }

/** Rebuild a recorded outcome against the live question; undefined means "ask again". */
export function restore(question: Question, recorded: Recorded): ResolverResult | undefined {
  if (recorded.action !== 'accept') {
    return question[QUESTION] === 'elicit' || question[QUESTION] === 'url'
      ? { kind: 'refused', action: recorded.action, question: question.message }
      : undefined
  }
  return accepted(question, recorded.data)?.result
}

/** Validate an accepted answer: the injected value, and the trimmed data to record (only known fields). */
function accepted(question: Question, data: unknown): { result: ResolverResult; data: unknown } | undefined {
  switch (question[QUESTION]) {
    case 'elicit': {
      const checked = question.form.check(data ?? {})
      return checked.issues ? undefined : { result: { kind: 'value', value: checked.value }, data: checked.value }
    }
    case 'url':
      return { result: { kind: 'value', value: true }, data: undefined }
    case 'sample': {
      if (parse(checks.CreateMessageResult(), data)[0] !== undefined) return undefined
      const { role, content, model, stopReason } = data as CreateMessageResult
      const trimmed = stopReason === undefined ? { role, content, model } : { role, content, model, stopReason }
      return { result: { kind: 'value', value: trimmed }, data: trimmed }
    }
    case 'roots': {
      if (parse(checks.ListRootsResult(), data)[0] !== undefined) return undefined
      const trimmed = {
        roots: (data as ListRootsResult).roots.map((r) =>
          r.name === undefined ? { uri: r.uri } : { uri: r.uri, name: r.name },
        ),
      }
      return { result: { kind: 'value', value: trimmed }, data: trimmed }
    }
  }
}

/**
 * Take a fresh answer: a result and what to record, or `{ misfit }` to ask again — accepted content that
 * does not fit the form, `misfit` saying why ("field 'age': …").
 * @throws ResolutionError for an answer of the wrong kind.
 */
export function take(
  key: string,
  question: Question,
  answer: unknown,
): { result: ResolverResult; recorded: Omit<Recorded, 'q'> } | { misfit: string } {
  const kind = question[QUESTION]
  if (kind === 'elicit' || kind === 'url') {
    const [issue, parsed] = parse(checks.ElicitResult(), answer)
    if (issue !== undefined || !('action' in (answer as object)))
      throw new ResolutionError(`The answer to input request '${key}' is not an elicitation result`)
    const action = parsed.action
    if (action !== 'accept')
      return { result: { kind: 'refused', action, question: question.message }, recorded: { action } }
    const ok = accepted(question, kind === 'url' ? undefined : parsed.content)
    if (!ok) return { misfit: misfitOf(question, parsed.content) } // content missing or not fitting: ask again
    return { result: ok.result, recorded: ok.data === undefined ? { action } : { action, data: ok.data } }
  }
  const wanted = kind === 'sample' ? 'a sampling result' : 'a roots list'
  if (typeof answer === 'object' && answer !== null && 'action' in answer)
    throw new ResolutionError(`The answer to input request '${key}' is an elicitation result, not ${wanted}`)
  const ok = accepted(question, answer)
  if (!ok)
    throw new ResolutionError(
      `The answer to input request '${key}' is not ${wanted}: ${describeShape(question, answer)}`,
    )
  return { result: ok.result, recorded: { action: 'accept', data: ok.data } }
}

/** Why accepted content does not fit an elicitation's form: its first issue. */
function misfitOf(question: Question, content: unknown): string {
  if (question[QUESTION] !== 'elicit') return 'no content'
  const checked = question.form.check(content ?? {})
  return checked.issues?.[0] ?? 'no content'
}

function describeShape(question: Question, answer: unknown): string {
  const check: Check = question[QUESTION] === 'sample' ? checks.CreateMessageResult() : checks.ListRootsResult()
  return parse(check, answer)[0] ?? 'ok'
}

/**
 * The resolver state in an opened `requestState` (the object the previous round sealed); anything else
 * is an empty state ("no progress").
 */
export function readState(plaintext: unknown): ResolverState {
  const empty: ResolverState = { v: 1, outcomes: {}, asked: {} }
  if (!plaintext) return empty
  try {
    const parsed = plaintext as Partial<ResolverState>
    if (
      parsed?.v !== 1 ||
      typeof parsed.outcomes !== 'object' ||
      typeof parsed.asked !== 'object' ||
      !parsed.outcomes ||
      !parsed.asked
    )
      return empty
    // Object.fromEntries defines own properties: a `__proto__` key in the state never sets a prototype
    const outcomes: Record<string, Recorded> = Object.fromEntries(
      Object.entries(parsed.outcomes).filter(
        ([, rec]) =>
          rec &&
          typeof rec.q === 'string' &&
          (rec.action === 'accept' || rec.action === 'decline' || rec.action === 'cancel'),
      ),
    )
    const asked: Record<string, string> = Object.fromEntries(
      Object.entries(parsed.asked).filter(([, q]) => typeof q === 'string'),
    )
    const reasked: Record<string, number> = Object.fromEntries(
      Object.entries(parsed.reasked ?? {}).filter(([, n]) => Number.isInteger(n) && n > 0),
    )
    return { v: 1, outcomes, asked, reasked }
  } catch {
    return empty // tolerant: a state from another deploy means "no progress", not an error
  }
}
