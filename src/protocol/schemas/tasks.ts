/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, ext-tasks specification/2026-07-28/tasks.md): the
 * `Task` a long-running request becomes, the `DetailedTask` `tasks/get` (and `notifications/tasks`) answers
 * with, and the `CreateTaskResult` (`resultType: "task"`) a server returns in lieu of a `CallToolResult`.
 * Progress rides on a task as `statusMessage` and, in edge-mcp, `_meta["edge-mcp/progress"]` =
 * `{ progress, total? }`.
 * @module
 */
/* eslint @typescript-eslint/no-empty-object-type: ['error', { allowInterfaces: 'with-single-extends' }]
  -- `interface X extends v.InferOutput<typeof X> {}` names a schema's type: declarations derive it lazily (TS2589, index.ts) */
import * as v from 'valibot'
import { jsonObject, once } from './common.ts'
import { ErrorObject } from './jsonrpc.ts'
import { InputRequests } from './input-required.ts'

/** The members every task shape has (spec: "Tasks"). */
const taskEntries = /* @__PURE__ */ once(() => ({
  /** Unguessable id, chosen by the server. */
  taskId: v.string(),
  /** One of working, input_required, completed, failed, cancelled. */
  status: v.picklist(['working', 'input_required', 'completed', 'failed', 'cancelled']),
  /** Human-readable state (progress text, what the task waits for, why it failed). */
  statusMessage: v.optional(v.string()),
  /** ISO 8601 timestamps. */
  createdAt: v.string(),
  lastUpdatedAt: v.string(),
  /** Time to live from creation, integer **milliseconds**; null for unlimited. */
  ttlMs: v.nullable(v.pipe(v.number(), v.integer())),
  /** Suggested polling interval, integer **milliseconds**. */
  pollIntervalMs: v.optional(v.pipe(v.number(), v.integer())),
  _meta: v.optional(jsonObject()),
}))

/** `Task`: a task's operational state (spec: "Tasks"). */
const task = /* @__PURE__ */ once(() => v.looseObject(taskEntries()))
export const Task = /* @__PURE__ */ task()
export interface Task extends v.InferOutput<typeof Task> {}

const withStatus = <S extends string, E extends v.ObjectEntries>(status: S, entries: E) =>
  v.looseObject({ ...taskEntries(), status: v.literal(status), ...entries })

/**
 * `DetailedTask`: a `Task` with its status's payload inlined — `inputRequests` (input_required: every
 * outstanding request, keys unique over the task's life), `result` (completed: the original request's result,
 * e.g. a `CallToolResult`, `isError` included), `error` (failed: the JSON-RPC error). What `tasks/get` returns
 * (with `resultType: "complete"`) and `notifications/tasks` carries.
 */
export const detailedTask = /* @__PURE__ */ once(() =>
  v.variant('status', [
    withStatus('working', {}),
    withStatus('input_required', { inputRequests: InputRequests }),
    withStatus('completed', { result: jsonObject() }),
    withStatus('failed', { error: ErrorObject }),
    withStatus('cancelled', {}),
  ]),
)
export const DetailedTask = /* @__PURE__ */ detailedTask()
export type DetailedTask = v.InferOutput<typeof DetailedTask>

/**
 * `CreateTaskResult`: the flat `Result & Task` with `resultType: "task"` a server returns in lieu of the
 * request's result once the task is durably created (a `tasks/get` for its id resolves).
 */
export const createTaskResult = /* @__PURE__ */ once(() =>
  v.looseObject({ resultType: v.literal('task'), ...taskEntries() }),
)
export const CreateTaskResult = /* @__PURE__ */ createTaskResult()
export interface CreateTaskResult extends v.InferOutput<typeof CreateTaskResult> {}
