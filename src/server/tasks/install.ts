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
 * Make `store` a tasks value an McpServer accepts as `options.tasks` (it then serves `tasks/*`, runs
 * tools with `task` through it, and advertises the extension).
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
