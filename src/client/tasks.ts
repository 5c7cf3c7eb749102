/**
 * The client's half of the Tasks extension (`io.modelcontextprotocol/tasks`, ext-tasks
 * specification/2026-07-28/tasks.md): a `tools/call` answered with a `CreateTaskResult` is polled with
 * `tasks/get` until it ends, its `input_required` questions answered through the same callbacks as the
 * multi-round-trip loop (each key once over the task's life) and sent back with `tasks/update`; an abort
 * sends `tasks/cancel`. The same loop resumes a task by its id (`Client.resumeTask`, e.g. after a restart).
 *
 * Limits: each `tasks/*` request has the request timeout (`CallOptions.timeoutMs`, else
 * `ClientOptions.requestTimeoutMs`); the whole loop ends with a `RequestTimeoutError` after
 * `maxTotalTimeoutMs` (the call's, else the client's) when one is set, and with a {@link TaskEndedError}
 * (`'expired'`) once the task's TTL (`createdAt + ttlMs`, plus a minute for clock skew) has passed while it
 * still is not done. A task with `ttlMs: null` and no `maxTotalTimeoutMs` is polled until it ends or the call is aborted.
 * @module
 */
import { TASKS_EXTENSION } from '../protocol/constants.ts'
import { ErrorCode, McpError } from '../protocol/errors.ts'
import type {
  ClientCapabilities,
  CreateTaskResult,
  DetailedTask,
  InputRequest,
  InputResponse,
  InputResponses,
} from '../protocol/schemas/index.ts'
import { anySignal, sleep as defaultSleep } from './abort.ts'
import { answerInput } from './carrier.ts'
import { CallToolResult } from './checks.gen.ts'
import { InvalidResultError, RequestTimeoutError, TaskEndedError } from './errors.ts'
import { parseResult } from './exchange.ts'
import { dispatchAll } from './input-required.ts'
import { readTask } from './task-result.ts'
import { watchTask } from './task-watch.ts'
import { through, type ClientAnswerCall, type Middlewares } from './middleware.ts'
import { defined, type CallOptions, type ClientOptions } from './options.ts'
import type { ExchangeOptions } from './exchange.ts'

/** The `_meta` key of a task's progress (`{ progress, total? }`), edge-mcp's own. */
export const TASK_PROGRESS_META = 'edge-mcp/progress'
/** Bounds of a server's `pollIntervalMs`, in milliseconds. */
export const MIN_POLL_MS = 100
export const MAX_POLL_MS = 30_000
/** Without `pollIntervalMs`: the first wait, in milliseconds, growing ×1.5 per poll up to {@link BACKOFF_CAP_MS}. */
export const BACKOFF_INITIAL_MS = 500
export const BACKOFF_CAP_MS = 5_000
/** Slack on the TTL backstop for the server's clock, in milliseconds. */
const TTL_SKEW_MS = 60_000
/** Longest wait for the best-effort `tasks/cancel` of an aborted call, in milliseconds. */
const CANCEL_TIMEOUT_MS = 5_000

/**
 * The capabilities a request declares: on `tools/call`, `tasks/*` and `subscriptions/listen`, `caps` with the
 * tasks extension added to `extensions` (the caller's own entries kept); else `caps` itself.
 */
export function declaredCapabilities(method: string, caps: ClientCapabilities): ClientCapabilities {
  if (method !== 'tools/call' && !method.startsWith('tasks/') && method !== 'subscriptions/listen') return caps
  const extensions = caps.extensions as Record<string, unknown> | undefined
  if (extensions?.[TASKS_EXTENSION]) return caps
  return { ...caps, extensions: { ...extensions, [TASKS_EXTENSION]: {} } }
}

/** What the task loop needs of its `Client` (a part of drive.ts's `CarrierDeps`). @internal */
export interface TaskDeps {
  readonly options: ClientOptions
  /** `Client.request`. */
  request(method: string, params: Record<string, unknown>, options: ExchangeOptions): Promise<Record<string, unknown>>
  /** The registered middleware, if any. */
  middleware(): Middlewares | undefined
}

/** Whether a `tools/call` result is a task handle (`resultType: "task"`, see `parseCarrierResult`). */
export function isTaskHandle(result: object): result is CreateTaskResult {
  return (result as { resultType?: unknown }).resultType === 'task'
}

/**
 * `tasks/get`: the task's current state.
 * @throws TypeError unless `taskId` is a non-empty string; McpError -32602 for an unknown, expired or foreign task id.
 */
export async function getTask(deps: TaskDeps, taskId: string, options: CallOptions = {}): Promise<DetailedTask> {
  checkTaskId('getTask', taskId)
  return readTask(await deps.request('tasks/get', { taskId }, requestOptions(options)), 'tasks/get')
}

/**
 * `tasks/cancel` (an acknowledgement; cancelling a finished task changes nothing).
 * @throws TypeError unless `taskId` is a non-empty string; McpError -32602 for an unknown task.
 */
export async function cancelTask(deps: TaskDeps, taskId: string, options: CallOptions = {}): Promise<void> {
  checkTaskId('cancelTask', taskId)
  await deps.request('tasks/cancel', { taskId }, requestOptions(options))
}

/** {@link runTask} from a saved id (`Client.resumeTask`). @throws TypeError unless `taskId` is a non-empty string. */
export async function resumeTask(deps: TaskDeps, taskId: string, options: TaskCallOptions): Promise<CallToolResult> {
  checkTaskId('resumeTask', taskId)
  return runTask(deps, taskId, options)
}

/** A caller's task id, before anything is sent. @throws TypeError naming the method unless a non-empty string. */
function checkTaskId(method: string, taskId: unknown): void {
  if (typeof taskId !== 'string' || taskId === '')
    throw new TypeError(
      `${method}: taskId must be a non-empty string (the taskId of a CreateTaskResult), got ${typeof taskId === 'string' ? "''" : typeof taskId}`,
    )
}

/** What one `tasks/*` request of the loop is sent with: the call's signal and timeout, nothing else of it. */
function requestOptions(options: CallOptions): CallOptions {
  return defined({ signal: options.signal, timeoutMs: options.timeoutMs })
}

/** Per-call options of a task-run tool call. */
export interface TaskCallOptions extends CallOptions {
  /** The tool the task runs, for the callbacks' `InputContext.target` (a resumed task: its id). */
  target?: string
}

/**
 * Drive a task until it ends: `first` is the `CreateTaskResult` (then the first `tasks/get` waits a poll
 * interval) or the id of a task to resume (then it is read at once).
 * @returns the completed task's `result`, checked as a `CallToolResult` (`isError` results included).
 * @throws McpError with the task's error (`failed`); TaskEndedError when it is `cancelled`, vanishes
 *   (`tasks/get` or `tasks/update` answers -32602) or outlives its TTL; InvalidResultError for a malformed
 *   task or one whose `taskId` is not this task's; RequestTimeoutError after `maxTotalTimeoutMs`;
 *   the abort reason when `options.signal` aborts (after a best-effort `tasks/cancel`); whatever an input
 *   callback throws (the task is left as it is: resume it with `resumeTask`).
 */
export async function runTask(
  deps: TaskDeps,
  first: CreateTaskResult | string,
  options: TaskCallOptions,
): Promise<CallToolResult> {
  const taskId = typeof first === 'string' ? first : first.taskId
  const { signal } = options
  const wait = deps.options.sleep ?? defaultSleep
  const maxTotal = options.maxTotalTimeoutMs ?? deps.options.maxTotalTimeoutMs
  const deadline = maxTotal === undefined ? Infinity : Date.now() + maxTotal
  const asked = new Set<string>() // every inputRequests key dispatched over the task's life
  const ending = new AbortController() // the callbacks still running when the loop ends
  let fail!: (error: unknown) => void
  const failed = new Promise<never>((_resolve, reject) => (fail = reject))
  failed.catch(() => {}) // raced below; never an unhandled rejection
  let shown: string | undefined // what onTask last showed
  let backoff = BACKOFF_INITIAL_MS
  const report = (task: DetailedTask) => {
    const now = JSON.stringify([task.status, task.statusMessage, task._meta?.[TASK_PROGRESS_META]])
    if (now === shown) return
    shown = now
    options.onTask?.(task)
  }
  let task: DetailedTask | undefined = typeof first === 'string' ? undefined : readTask(first, 'tools/call', true)
  let notified: DetailedTask | undefined // a state `notifications/tasks` brought (task-watch.ts), newer than `task`
  let wake: (() => void) | undefined
  const unwatch = watchTask(deps.options.transport, taskId, (state) => {
    if (task && Date.parse(state.lastUpdatedAt) < Date.parse(task.lastUpdatedAt)) return // older than seen
    notified = state
    wake?.()
  })
  try {
    signal?.throwIfAborted()
    for (;;) {
      if (task) {
        report(task)
        const polled = typeof task.pollIntervalMs === 'number'
        const ms = polled ? Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, task.pollIntervalMs!)) : backoff
        if (!polled) backoff = Math.min(BACKOFF_CAP_MS, backoff * 1.5)
        if (Date.now() + ms > deadline) throw new RequestTimeoutError(`task ${taskId}`, maxTotal!)
        if (!notified) await Promise.race([waitOrWake(ms), failed])
      }
      let next: DetailedTask
      try {
        next = notified ?? (await Promise.race([getTask(deps, taskId, options), failed]))
        notified = undefined
      } catch (error) {
        throw vanished(error)
      }
      if (next.taskId !== taskId)
        throw new InvalidResultError(`Invalid tasks/get result: field 'taskId' is '${next.taskId}', not '${taskId}'`)
      task = next
      switch (task.status) {
        case 'completed':
          report(task)
          return parseResult(CallToolResult, task.result, 'tasks/get')
        case 'failed': {
          report(task)
          const { code, message, data } = task.error as { code: number; message: string; data?: unknown }
          throw new McpError(code, message, data)
        }
        case 'cancelled':
          report(task)
          throw new TaskEndedError(taskId, 'cancelled', task)
        case 'input_required': {
          const fresh = Object.entries(task.inputRequests).filter(([key]) => !asked.has(key))
          if (fresh.length === 0) break
          for (const [key] of fresh) asked.add(key)
          report(task) // before the callbacks run: a UI shows the task waiting for them
          answer(deps, taskId, Object.fromEntries(fresh), options, ending.signal).then(
            () => (backoff = BACKOFF_INITIAL_MS), // the server is about to move on
            (error: unknown) => fail(vanished(error)), // tasks/update -32602: gone while answered
          )
          break
        }
      }
      const ttl = task.ttlMs
      if (typeof ttl === 'number' && Date.now() > Date.parse(task.createdAt) + ttl + TTL_SKEW_MS)
        throw new TaskEndedError(taskId, 'expired', task)
    }
  } catch (error) {
    if (signal?.aborted) {
      await cancelTask(deps, taskId, { timeoutMs: CANCEL_TIMEOUT_MS }).catch(() => {}) // best effort
      throw signal.reason
    }
    throw error
  } finally {
    ending.abort()
    unwatch()
  }

  /** A `-32602` from `tasks/get` or `tasks/update` (not an abort): the task is gone. */
  function vanished(error: unknown): unknown {
    if (error instanceof McpError && error.code === ErrorCode.InvalidParams && !signal?.aborted)
      return new TaskEndedError(taskId, 'not_found', task, error)
    return error
  }

  /** `wait(ms)`, cut short by a notification; rejects with the abort reason when `signal` aborts. */
  async function waitOrWake(ms: number): Promise<void> {
    const woken = new AbortController()
    wake = () => woken.abort()
    try {
      // the loop's end (a callback failed) stops the timer too
      await wait(ms, anySignal(signal ? [signal, woken.signal, ending.signal] : [woken.signal, ending.signal]))
    } catch (error) {
      if (!woken.signal.aborted || signal?.aborted || ending.signal.aborted) throw error
    } finally {
      wake = undefined
    }
  }
}

/**
 * Answer `requests` through the callbacks (concurrently, each through the `answer` middleware when some is
 * registered), then send the answers with `tasks/update`.
 */
async function answer(
  deps: TaskDeps,
  taskId: string,
  requests: Record<string, InputRequest>,
  options: TaskCallOptions,
  ending: AbortSignal,
): Promise<void> {
  const mw = deps.middleware()
  const target = options.target ?? taskId
  const one = (key: string, request: InputRequest, signal: AbortSignal) => {
    const run = () => answerInput(deps.options, key, request, { key, method: 'tools/call', target, signal })
    if (!mw) return run()
    return through<ClientAnswerCall, InputResponse>(mw, 'answer', { key, method: request.method, era: 'modern' }, run)
  }
  const outer = options.signal ? anySignal([options.signal, ending]) : ending
  const inputResponses: InputResponses = await dispatchAll(requests, one, outer)
  if (ending.aborted) return
  await deps.request('tasks/update', { taskId, inputResponses }, requestOptions(options))
}
