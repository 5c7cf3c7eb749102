/**
 * `ctx.task` of a task tool's handler ({@link TaskContext}): status, progress and questions, on top of a
 * task's run context (or, in a synchronous run, of the request itself). A question is one of the
 * resolvers' (`elicit`, `elicit.url`, `sample`, `listRoots`), its answer checked as a resolver's is.
 * @module
 */
import { REQUIRED_CAPABILITY_DATA, capabilitiesNeededBy, hasCapability } from '../../protocol/envelope.ts'
import { missingCapabilityError } from '../../protocol/errors.ts'
import type { ClientCapabilities, CreateMessageResult, InputRequest, Root } from '../../protocol/schemas/index.ts'
import { ResolutionError } from '../errors.ts'
import { take } from '../resolve/answers.ts'
import {
  QUESTION,
  render,
  type ElicitQuestion,
  type Question,
  type RootsQuestion,
  type SampleQuestion,
  type UrlQuestion,
} from '../resolve/questions.ts'
import { MAX_REASKS } from '../resolve/run.ts'

/** The user's answer to an `elicit` question: the form's checked value, or a refusal. */
export type ElicitAnswer<T> = { action: 'accept'; value: T } | { action: 'decline' | 'cancel' }

/**
 * `ctx.task` of a tool registered with `task` (ext-tasks specification/2026-07-28/tasks.md). Inside a task:
 * `status` and `progress` update what `tasks/get` shows, `ask` sets the task `input_required` until the
 * client answers through `tasks/update`, `ctx.signal` aborts on `tasks/cancel` and at the TTL. In a
 * synchronous run (`taskId` undefined): `progress` sends `notifications/progress` when the request has a
 * `progressToken` (`status` alone sends nothing: a progress notification needs a new value); `ask` asks a
 * 2025-era client with a server-to-client request on the request's stream (within `legacyQuestions`' limits),
 * and throws McpError -32021 (naming the tasks extension) to a 2026 client that did not declare the extension.
 */
export interface TaskContext {
  /** The task's id; undefined in a synchronous run. */
  readonly taskId: string | undefined
  /** Set the task's `statusMessage`. @throws TypeError (at the call) unless `message` is a string. */
  status(message: string): Promise<void>
  /**
   * Report progress (`_meta["edge-mcp/progress"]` = `{ progress, total? }`; `message` as `statusMessage`).
   * @throws TypeError (at the call) unless `progress` and `total` are finite numbers and `message` a string.
   */
  progress(progress: number, total?: number, message?: string): Promise<void>
  /**
   * Ask the client and wait for the answer. `elicit(…)` resolves to `{ action: 'accept', value }` (value
   * checked by the form; an answer that does not fit is asked again under a new key, at most twice, then
   * ResolutionError) or `{ action: 'decline' | 'cancel' }`; `elicit.url(…)` likewise with `value: true`;
   * `sample(…)` to the `CreateMessageResult`; `listRoots()` to the roots.
   * @throws McpError -32021 when the client did not declare what the question needs (or, in a
   *   synchronous 2026 run, the tasks extension); ResolutionError for an answer of the wrong kind; an
   *   Error when the task is cancelled or ends meanwhile. An ask left pending when the handler returns
   *   or throws is dropped quietly (no unhandled rejection).
   */
  ask<T>(question: ElicitQuestion<T>): Promise<ElicitAnswer<T>>
  ask(question: UrlQuestion): Promise<ElicitAnswer<true>>
  ask(question: SampleQuestion): Promise<CreateMessageResult>
  ask(question: RootsQuestion): Promise<Root[]>
}

/** What a {@link TaskContext} is built on: a task's run context, or a synchronous run's stand-in. */
export interface TaskSide {
  readonly taskId: string | undefined
  status(message: string): Promise<void>
  progress(progress: number, total?: number, message?: string): Promise<void>
  /** Ask these requests; the answers by the same keys. */
  ask(requests: Record<string, InputRequest>): Promise<Record<string, unknown>>
}

/** A {@link TaskContext} over `side`, asking only what `capabilities` declare. */
export function taskContext(side: TaskSide, capabilities: ClientCapabilities): TaskContext {
  return {
    taskId: side.taskId,
    status: (message) => {
      checkText('status(message)', message)
      return handled(side.status(message))
    },
    progress: (progress, total, message) => {
      if (!Number.isFinite(progress) || (total !== undefined && !Number.isFinite(total)))
        throw new TypeError(
          `ctx.task.progress(progress, total?): finite numbers only, got ${String(progress)}, ${String(total)}`,
        )
      if (message !== undefined) checkText('progress(…, message)', message)
      return handled(side.progress(progress, total, message))
    },
    ask: ((question: Question) => handled(askQuestion(side, capabilities, question))) as TaskContext['ask'],
  }
}

/** @throws TypeError naming the call unless `text` is a string. */
function checkText(call: string, text: unknown): void {
  if (typeof text !== 'string') throw new TypeError(`ctx.task.${call}: a string, got ${typeof text}`)
}

/**
 * `promise`, marked handled: one the handler left floating when the task ended (an ask still pending when
 * the handler threw) rejects without an unhandled rejection, which would end a Node process. Awaited, it
 * still rejects as before.
 */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined)
  return promise
}

/**
 * Ask one question until its answer fits (at most {@link MAX_REASKS} re-asks).
 * @throws McpError -32021 for a capability the client did not declare; ResolutionError for a wrong-kind
 *   answer or one that still does not fit.
 */
async function askQuestion(side: TaskSide, capabilities: ClientCapabilities, question: Question): Promise<unknown> {
  if (typeof question !== 'object' || question === null || !(QUESTION in question))
    throw new TypeError('ctx.task.ask takes a question: elicit(…), elicit.url(…), sample(…) or listRoots()')
  const request = render(question)
  for (const need of capabilitiesNeededBy(request)) {
    if (!hasCapability(capabilities, need))
      throw missingCapabilityError(REQUIRED_CAPABILITY_DATA[need], `Client did not declare the ${need} capability`)
  }
  const key = question[QUESTION]
  let misfit: string | undefined
  for (let asked = 0; ; asked++) {
    const answers = await side.ask({ [key]: misfit === undefined ? request : withReason(request, misfit) })
    const taken = take(key, question, answers[key])
    if ('misfit' in taken) {
      if (asked >= MAX_REASKS)
        throw new ResolutionError(
          `The answer to '${key}' still does not fit its form after ${MAX_REASKS} re-asks (${taken.misfit})`,
        )
      misfit = taken.misfit
      continue
    }
    const result = taken.result
    if (result.kind === 'refused') return { action: result.action }
    if (result.kind !== 'value') continue // never: a taken answer is a value or a refusal
    if (key === 'elicit' || key === 'url') return { action: 'accept', value: result.value }
    if (key === 'roots') return (result.value as { roots: Root[] }).roots
    return result.value
  }
}

/** An elicitation asked again: its message says why the last answer did not fit. */
function withReason(request: InputRequest, misfit: string): InputRequest {
  if (request.method !== 'elicitation/create') return request
  const params = request.params
  return { ...request, params: { ...params, message: `The last answer did not fit (${misfit}). ${params.message}` } }
}
