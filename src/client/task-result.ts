/**
 * The check of a task as the server sends it (`CreateTaskResult`, `tasks/get`'s `DetailedTask`), for the
 * client: the members the task loop reads, and the payload of its status (`inputRequests`, `result`, `error`).
 * @module
 */
import { integer, object, optional, picklist, pipe, record, string, number, unknown } from '../protocol/check.ts'
import type { DetailedTask } from '../protocol/schemas/index.ts'
import { InputRequest } from './checks.gen.ts'
import { InvalidResultError } from './errors.ts'
import { parseResult } from './exchange.ts'

const STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const
/** The members the loop reads of a task (the others are kept as sent). */
const TaskFields = /* @__PURE__ */ object<DetailedTask>({
  taskId: string,
  status: picklist(STATUSES),
  statusMessage: optional(string),
  pollIntervalMs: optional(pipe(number, integer)),
  _meta: optional(record(unknown)),
})
const ErrorFields = /* @__PURE__ */ object<{ code: number; message: string }>({
  code: pipe(number, integer),
  message: string,
})
const InputRequestsCheck = /* @__PURE__ */ record(InputRequest)

/**
 * A task as `tasks/get` sent it (or, `handle`, a `CreateTaskResult`: a bare `Task`, no status payload),
 * checked, without `resultType`.
 * @throws InvalidResultError naming the first issue (an unknown status, a missing payload, a malformed error).
 */
export function readTask(result: Record<string, unknown>, method: string, handle = false): DetailedTask {
  const task = { ...parseResult(TaskFields, result, method) } as DetailedTask & { resultType?: unknown }
  delete task.resultType
  if (handle) return task
  if (task.status === 'input_required') task.inputRequests = parseResult(InputRequestsCheck, task.inputRequests, method)
  if (task.status === 'completed' && (typeof task.result !== 'object' || task.result === null))
    throw new InvalidResultError(`Invalid ${method} result: a completed task without a result object`)
  if (task.status === 'failed') parseResult(ErrorFields, task.error, `${method} error`)
  return task
}
