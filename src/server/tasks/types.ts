/**
 * The seam between `McpServer` and where tasks live (ext-tasks specification/2026-07-28/tasks.md): the
 * job a task runs (JSON: it may cross to a Durable Object and be stored), the host that runs it, what a
 * run may do to its task ({@link TaskRunContext}), and the store ({@link TaskStore}) that creates tasks and
 * answers `tasks/get`, `tasks/update` and `tasks/cancel`.
 * @module
 */
import type { AuthInfo } from '../../protocol/auth.ts'
import type { DetailedTask, Implementation, InputRequest, Task } from '../../protocol/schemas/index.ts'
import type { Logger, RequestInfo } from '../context.ts'

/** The `_meta` key of a task's progress (`{ progress, total? }`) on a `DetailedTask` or `CreateTaskResult`. */
export const PROGRESS_META = 'edge-mcp/progress'

/**
 * What the McpServer gives a tasks value at construction: it runs a task's job. A Durable Object store
 * reaches the host of the server its factory builds through `taskHostOf(mcp)`.
 */
export interface TaskHost {
  /**
   * Run a task's job: the `tools/call` of `job` inside a task whose run context is `task`. Resolves to the
   * outcome (never rejects).
   * @param info - the facts the run's handler sees as `ctx.env` / `ctx.executionCtx` (the creating request's
   *   in memory; the Durable Object's own on Workers); never its `request` or `signal`.
   */
  run(job: TaskJob, task: TaskRunContext, info?: RequestInfo): Promise<TaskOutcome>
  readonly logger: Logger
}

/** The call a task runs. JSON only: it crosses to a Durable Object and may be stored. */
export interface TaskJob {
  /** The tool's name. */
  name: string
  arguments: Record<string, unknown>
  /** The final MRTR round's answers (original keys) and its opened `requestState` (plaintext). */
  inputResponses?: Record<string, unknown>
  requestState?: unknown
  /** The principal the task is bound to (`RequestStateSecurity.principalOf` of the creating request). */
  principal?: string
  authInfo?: AuthInfo
  protocolVersion: string
  clientCapabilities: Record<string, unknown>
  clientInfo?: Implementation
  /** The creating request's `_meta` minus the envelope keys (trace context, …). */
  meta?: Record<string, unknown>
}

/** How a task's run ended: a result (`completed`, a tool error included) or a JSON-RPC error (`failed`). */
export type TaskOutcome =
  { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } }

/** What a run may do to its task (the {@link TaskEngine} implements it). */
export interface TaskRunContext {
  readonly taskId: string
  /** Aborts on `tasks/cancel` and at the task's TTL. */
  readonly signal: AbortSignal
  /** Set the task's `statusMessage`. */
  status(message: string): Promise<void>
  /** Set the task's progress (`_meta["edge-mcp/progress"]`) and, with `message`, its `statusMessage`. */
  progress(progress: number, total?: number, message?: string): Promise<void>
  /**
   * Ask these requests (original keys; each goes out under a key unique over the task's life) and set the
   * task `input_required` until every one is answered; resolves to the answers by original key.
   * Rejects with the signal's reason when the task is cancelled or expires meanwhile.
   */
  ask(requests: Record<string, InputRequest>): Promise<Record<string, unknown>>
}

/**
 * Where tasks live and run: `inMemoryTasks()` (this process) or `durableObjectTasks()` (`edge-mcp/cloudflare`:
 * one Durable Object per task, which runs the job itself). Pass one as `McpServerOptions.tasks`.
 */
export interface TaskStore {
  /**
   * Create the task durably (`get` finds it once this resolves) and start its work.
   * @returns the seed task (status `working`).
   * @throws McpError -32603 when the task cannot be created (e.g. the store is full).
   */
  start(job: TaskJob, host: TaskHost, info: RequestInfo): Promise<Task>
  /** The task as `tasks/get` returns it; undefined when unknown, expired, or another principal's. */
  get(taskId: string, principal: string | undefined, info: RequestInfo): Promise<DetailedTask | undefined>
  /** Hand answers to the task (unknown and answered keys are ignored). @returns false when unknown (as `get`). */
  update(
    taskId: string,
    principal: string | undefined,
    inputResponses: Record<string, unknown>,
    info: RequestInfo,
  ): Promise<boolean>
  /** Cancel the task (a terminal task stays as it is). @returns false when unknown (as `get`). */
  cancel(taskId: string, principal: string | undefined, info: RequestInfo): Promise<boolean>
}

/** One pending input request of a task, under its task-unique key. */
export interface PendingRequest {
  request: InputRequest
  /** The key the run asked it under. */
  originalKey: string
  /** Which `ask` call it belongs to (its answers resolve together). */
  batch: number
  /** The answer, once given (the key is no longer outstanding; the batch waits for its others). */
  answer?: unknown
}

/**
 * A task's whole state, JSON: what a Durable Object stores and rebuilds a {@link TaskEngine} from.
 * `task` is what `tasks/get` shows (without `inputRequests`, `result`, `error`, which are derived).
 */
export interface TaskRecord {
  task: Task
  principal?: string
  job: TaskJob
  /** Outstanding and partly answered requests, by task-unique key. */
  pending: Record<string, PendingRequest>
  /** The next number for a task-unique key and an ask batch. */
  counter: number
  /** When the task expires, epoch milliseconds (createdAt + ttlMs). */
  expiresAt: number
  result?: Record<string, unknown>
  error?: { code: number; message: string; data?: unknown }
}

/** Task options shared by the stores. */
export interface TaskTimingOptions {
  /** How long a task is kept from its creation, integer **milliseconds** (> 0). Default 3,600,000 (1 h). */
  ttlMs?: number
  /** The polling interval suggested to clients, integer **milliseconds** (> 0). Default 1,000. */
  pollIntervalMs?: number
}

/**
 * Where a tasks value keeps its installer (see `defineTaskStore`): McpServer calls it with itself, its
 * registry and its note sink, and gets the `tools/call` hook.
 * @internal
 */
export const INSTALL_TASKS: unique symbol = Symbol.for('edge-mcp.installTasks')
