/**
 * Tasks in this process's memory (Node, Deno, Bun): each task a {@link TaskEngine} in a map, its run on
 * this event loop, deleted at its TTL. They do not survive a restart; on Workers use `durableObjectTasks`
 * from `edge-mcp/cloudflare`.
 * @module
 */
import { ErrorCode, McpError } from '../../protocol/errors.ts'
import type { RequestInfo } from '../context.ts'
import { MAX_TIMER_MS, onWorkers } from '../runtime.ts'
import { DEFAULT_POLL_INTERVAL_MS, DEFAULT_TTL_MS, newTaskRecord, TaskEngine } from './engine.ts'
import { defineTaskStore } from './install.ts'
import type { TaskStore, TaskTimingOptions } from './types.ts'

/** Options of {@link inMemoryTasks}. */
export interface InMemoryTasksOptions extends TaskTimingOptions {
  /**
   * Most tasks kept at once (finished ones count until their TTL); past it a call that would start a task
   * fails with -32603. Default 1,000.
   */
  maxTasks?: number
}

/** Default {@link InMemoryTasksOptions.maxTasks}. */
const DEFAULT_MAX_TASKS = 1_000

/**
 * Tasks kept in this process's memory: pass as `McpServerOptions.tasks` on Node, Deno or Bun. On Workers
 * (`navigator.userAgent` `Cloudflare-Workers`) a call that would start a task fails with -32603 naming
 * `durableObjectTasks`: a Worker's request can neither keep working nor be reached after its response.
 * @throws RangeError unless `ttlMs` and `pollIntervalMs` are positive integers (`ttlMs` at most
 *   2,147,483,647, what a timer holds) and `maxTasks` a positive integer.
 * @example new McpServer(info, { tasks: inMemoryTasks({ ttlMs: 600_000 }) })
 */
export function inMemoryTasks(options: InMemoryTasksOptions = {}): TaskStore {
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS
  const maxTasks = options.maxTasks ?? DEFAULT_MAX_TASKS
  check('ttlMs', ttlMs, MAX_TIMER_MS)
  check('pollIntervalMs', pollIntervalMs, Number.MAX_SAFE_INTEGER)
  check('maxTasks', maxTasks, Number.MAX_SAFE_INTEGER)
  const tasks = new Map<string, TaskEngine>()
  /** The caller's live task, or undefined (unknown, expired, another principal's: one answer). */
  const find = (taskId: string, principal: string | undefined): TaskEngine | undefined => {
    const engine = tasks.get(taskId)
    return engine && !engine.expired() && engine.owns(principal) ? engine : undefined
  }
  return defineTaskStore<TaskStore>({
    start(job, host, info: RequestInfo) {
      // a Worker's request cannot keep working, nor be reached, once its response is sent
      if (onWorkers())
        return Promise.reject(
          new McpError(
            ErrorCode.InternalError,
            'inMemoryTasks cannot run a task on Cloudflare Workers: use durableObjectTasks from edge-mcp/cloudflare',
          ),
        )
      if (tasks.size >= maxTasks)
        return Promise.reject(
          new McpError(ErrorCode.InternalError, `Too many tasks: this server keeps at most ${maxTasks} (maxTasks)`),
        )
      const engine = new TaskEngine(newTaskRecord(job, { ttlMs, pollIntervalMs }))
      const id = engine.taskId
      tasks.set(id, engine)
      const timer = setTimeout(() => {
        engine.expire()
        tasks.delete(id)
      }, ttlMs)
      ;(timer as { unref?: () => void }).unref?.() // a kept task does not keep the process alive
      const seed = engine.seed()
      const runInfo: RequestInfo = {}
      if (info.env !== undefined) runInfo.env = info.env
      if (info.executionCtx !== undefined) runInfo.executionCtx = info.executionCtx
      void engine.run(host, runInfo)
      return Promise.resolve(seed)
    },
    get(taskId, principal) {
      return Promise.resolve(find(taskId, principal)?.view())
    },
    async update(taskId, principal, inputResponses) {
      const engine = find(taskId, principal)
      if (!engine) return false
      await engine.update(inputResponses)
      return true
    },
    async cancel(taskId, principal) {
      const engine = find(taskId, principal)
      if (!engine) return false
      await engine.cancel()
      return true
    },
  })
}

function check(name: string, value: number, max: number): void {
  if (!(Number.isInteger(value) && value > 0 && value <= max))
    throw new RangeError(`inMemoryTasks: ${name} must be a positive integer, got ${String(value)}`)
}
