/**
 * What a tasks value does to the McpServer it is given to (`McpServerOptions.tasks`): the `tasks/get`,
 * `tasks/update` and `tasks/cancel` handlers (ext-tasks specification/2026-07-28/tasks.md "Task Polling",
 * "Task Update Requests", "Task Cancellation"), the hook `tools/call` runs for tools with `task`, and the
 * server's {@link TaskHost}. Reached only through a store made with {@link defineTaskStore}: a server
 * without tasks bundles none of it.
 * @module
 */
import { ErrorCode, McpError, missingCapabilityError } from '../../protocol/errors.ts'
import { hasEnvelope } from '../../protocol/envelope.ts'
import { isPlainObject } from '../../protocol/jsonrpc.ts'
import type { RequestContext, RequestParams, ResultObject } from '../context.ts'
import type { McpServer } from '../mcp-server.ts'
import type { Registry, RegisteredTool, TaskHook, TaskMode } from '../mcp/types.ts'
import { declaresTasks, principalOf, taskCall, TASKS_REQUIRED, type TaskCallDeps } from './call.ts'
import { taskHost } from './run.ts'
import { MAX_TIMER_MS } from '../runtime.ts'
import { INSTALL_TASKS, type TaskHost, type TaskStore } from './types.ts'
import { TASKS_EXTENSION } from '../../protocol/constants.ts'

/** The answer to an unknown, expired or another principal's task: the same bytes for all three. */
export const TASK_NOT_FOUND = 'Failed to retrieve task: Task not found'

const HOSTS = new WeakMap<McpServer, TaskHost>()

/**
 * The {@link TaskHost} of a server built with `tasks` (a Durable Object runs its jobs through it);
 * undefined for a server without.
 */
export function taskHostOf(mcp: McpServer): TaskHost | undefined {
  return HOSTS.get(mcp)
}

/**
 * Make `store` a value `McpServerOptions.tasks` accepts, to keep tasks where `inMemoryTasks`,
 * `durableObjectTasks` and `redisFleet(…).tasks` do not (Postgres, NATS, …). The server then serves
 * `tasks/get`, `tasks/update` and `tasks/cancel` from it, runs the tools registered with `task` through it,
 * and advertises the extension (ext-tasks specification/2026-07-28/tasks.md). Returns `store` itself.
 *
 * What the store implements ({@link TaskStore}; the parameter types come from it):
 * - `start(job, host, info)`: create the task so that `get` finds it from any instance once this resolves
 *   (status `working`, an unguessable id, `ttlMs` and `pollIntervalMs` in milliseconds, ISO `createdAt` and
 *   `lastUpdatedAt`), resolve to it, and run the job where the task lives: `host.run(job, run, info)`, where
 *   `run` is the task's {@link TaskRunContext} — `taskId`; a `signal` that aborts on cancel and at the TTL;
 *   `status`, `progress` and `ask` (which sets `input_required` until `update` answers every key) writing
 *   the task. `host.run` never rejects; it resolves to `{ result }` (the task `completed`) or `{ error }`
 *   (`failed`), ignored when the task is terminal already. `job` is JSON (it may be stored). To refuse a
 *   task (the store is full, unreachable) throw an `McpError` -32603 with a message for the client; any
 *   other throw is logged and answered -32603 "Internal error".
 * - `get(taskId, principal, info)`: the task as `tasks/get` shows it (`inputRequests` while
 *   `input_required`, `result` once `completed`, `error` once `failed`), or undefined when it is unknown,
 *   expired, or bound to another principal than `principal` (`job.principal`): the server answers all
 *   three alike, -32602.
 * - `update(taskId, principal, inputResponses, info)`: hand the answers to the outstanding keys (others are
 *   ignored); `false` when not found (as `get`).
 * - `cancel(taskId, principal, info)`: the task `cancelled` and its run's signal aborted (a terminal task
 *   stays as it is); `false` when not found.
 * Terminal states (`completed`, `failed`, `cancelled`) never change; a task is deleted at its TTL.
 * @example new McpServer(info, { tasks: defineTaskStore({ start, get, update, cancel }) })
 */
export function defineTaskStore<T extends TaskStore>(store: T): T {
  Object.defineProperty(store, INSTALL_TASKS, { value: install })
  return store
}

/** Install `store` on `mcp`: the `tasks/*` handlers; returns the `tools/call` hook. */
function install(this: TaskStore, mcp: McpServer, registry: Registry, note: (message: string) => void): TaskHook {
  const server = mcp.server
  const host = taskHost(registry, server.logger, note)
  HOSTS.set(mcp, host)
  const store: TaskStore = this // eslint-disable-line @typescript-eslint/no-this-alias -- the handlers below are arrows
  const questionWaitMs = Math.min((server.options.legacyQuestions?.timeoutMs ?? 300_000) + 10_000, MAX_TIMER_MS)
  const deps: TaskCallDeps = {
    registry,
    store,
    host,
    note,
    security: () => server.requestStateSecurity,
    questionWaitMs,
  }
  const handle =
    (
      act: (
        taskId: string,
        principal: string | undefined,
        params: RequestParams,
        ctx: RequestContext,
      ) => Promise<unknown>,
    ) =>
    async (params: RequestParams, ctx: RequestContext): Promise<ResultObject> => {
      // the extension is 2026-07-28's: to a 2025-era session these methods do not exist, as for every 2026-only one
      if (!hasEnvelope(params))
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${ctx.method}`, { reason: 'unknown method' })
      if (!declaresTasks(ctx))
        throw missingCapabilityError(
          TASKS_REQUIRED,
          `${ctx.method} needs the ${TASKS_EXTENSION} extension declared on the request`,
        )
      const taskId = params.taskId
      if (typeof taskId !== 'string')
        throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "taskId" must be a string')
      const found = await act(taskId, principalOf(deps, ctx), params, ctx)
      if (found === undefined || found === false) throw new McpError(ErrorCode.InvalidParams, TASK_NOT_FOUND)
      return found === true ? { resultType: 'complete' } : { resultType: 'complete', ...(found as object) }
    }
  server.setRequestHandler(
    'tasks/get',
    handle((id, principal, _params, ctx) => store.get(id, principal, ctx)),
  )
  server.setRequestHandler(
    'tasks/update',
    handle((id, principal, params, ctx) => {
      const answers = params.inputResponses
      if (!isPlainObject(answers) || !Object.values(answers).every(isPlainObject))
        throw new McpError(
          ErrorCode.InvalidParams,
          'Invalid params: inputResponses must be an object of result objects',
        )
      return store.update(id, principal, answers, ctx)
    }),
  )
  server.setRequestHandler(
    'tasks/cancel',
    handle((id, principal, _params, ctx) => store.cancel(id, principal, ctx)),
  )
  return Object.assign(
    (tool: RegisteredTool, args: Record<string, unknown>, params: RequestParams, ctx: RequestContext) =>
      taskCall(deps, tool, args, params, ctx),
    { mode: checkMode },
  )
}

/**
 * A tool's registration `task`, checked: `'required'`, `'optional'` or a function.
 * @throws TypeError naming the tool and the value for anything else (e.g. `'forbidden'`, `true`).
 */
function checkMode(name: string, task: unknown): TaskMode<never> {
  if (task === 'required' || task === 'optional' || typeof task === 'function') return task as TaskMode<never>
  throw new TypeError(
    `Tool '${name}': task must be 'required', 'optional' or a function (args, ctx) => boolean, got ${typeof task === 'string' ? `'${task}'` : String(task)}; leave it out for a tool that never runs as a task`,
  )
}
