/**
 * `tools/call` of a tool registered with `task` (ext-tasks specification/2026-07-28/tasks.md "Capability
 * Negotiation", "Task Creation"): whether it runs as a task, its MRTR questions asked first, the task
 * created (returned only once the store has it), or a synchronous run with an inline `ctx.task`.
 * @module
 */
import { META, TASKS_EXTENSION } from '../../protocol/constants.ts'
import { hasEnvelope } from '../../protocol/envelope.ts'
import { ErrorCode, McpError, missingCapabilityError } from '../../protocol/errors.ts'
import type { InputRequest } from '../../protocol/schemas/index.ts'
import type { RequestContext, RequestParams, ResultObject } from '../context.ts'
import { RefusalError } from '../errors.ts'
import { logWarn } from '../log.ts'
import { invoke } from '../mcp/invoke.ts'
import { callTool } from '../mcp/requests.ts'
import type { Registry, RegisteredTool, TaskMode } from '../mcp/types.ts'
import type { RequestStateSecurity } from '../../request-state/security.ts'
import { taskContext, type TaskSide } from './ask.ts'
import type { TaskHost, TaskJob, TaskStore } from './types.ts'

/** The `-32021` data naming the tasks extension. */
export const TASKS_REQUIRED = { extensions: { [TASKS_EXTENSION]: {} } }

/** Whether a request's client declared the tasks extension on it. */
export function declaresTasks(ctx: RequestContext): boolean {
  const extensions = (ctx.clientCapabilities as { extensions?: Record<string, unknown> }).extensions
  return typeof extensions === 'object' && extensions !== null && Object.hasOwn(extensions, TASKS_EXTENSION)
}

/** What the tasks hook needs of its server. */
export interface TaskCallDeps {
  registry: Registry
  store: TaskStore
  host: TaskHost
  note: (message: string) => void
  /** The server's request-state policy (its `principalOf` binds tasks). */
  security: () => RequestStateSecurity | undefined
  /** How long a 2025-era run's question waits for its re-run, ms: the legacy questions' timeout and 10 s. */
  questionWaitMs: number
}

/** Marks {@link CREATE}, also on a copy a middleware makes of it (`{ ...result, _meta }` keeps symbol keys). */
const CREATE_MARK = Symbol('edge-mcp.createTask')
/** What the creating request's handler stands in returns: the task may be created. */
const CREATE = Object.freeze({ content: [], [CREATE_MARK]: true })

/**
 * The hook `callTool` runs for a tool with `task`: undefined to go on synchronously (with `ctx.task`
 * set), else the result to send (a `CreateTaskResult`, an MRTR `InputRequiredResult`, a tool error).
 * @throws McpError -32021 for a `required` tool from a 2026 request without the extension.
 */
export async function taskCall(
  deps: TaskCallDeps,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  params: RequestParams,
  ctx: RequestContext,
): Promise<ResultObject | undefined> {
  const c = ctx as RequestContext & { task?: unknown }
  if (c.task) return undefined // a task's own run
  const name = params.name as string
  const mode = tool.task as TaskMode<never>
  const modern = hasEnvelope(params)
  if (!modern) return inlineLegacy(deps, params, ctx)
  const declared = declaresTasks(ctx)
  if (!declared && mode === 'required')
    throw missingCapabilityError(
      TASKS_REQUIRED,
      `Tool ${name} runs as a task: the request must declare the ${TASKS_EXTENSION} extension`,
    )
  const asTask = declared && (typeof mode === 'function' ? await mode(args as never, ctx) : true)
  if (!asTask) {
    c.task = taskContext(inlineSide(ctx), ctx.clientCapabilities)
    return undefined
  }
  try {
    // MRTR first: the resolvers' questions are asked over the request's own rounds before the task exists; and
    // through the invocation middleware, so a middleware that answers itself (a refusal) is the answer: no task
    const out = await invoke({ ...tool, handler: () => CREATE }, args, params, ctx, name, deps.note)
    if (!(out as { [CREATE_MARK]?: true } | undefined)?.[CREATE_MARK])
      return typeof out === 'string' ? textResult(out, false) : (out as ResultObject)
  } catch (error) {
    // as callTool: a refusal is the user's answer, any other failure but a JSON-RPC error a tool error
    if (error instanceof McpError) throw error
    if (error instanceof RefusalError) return textResult(error.message, true)
    return textResult(`Error executing tool ${name}: ${error instanceof Error ? error.message : String(error)}`, true)
  }
  return start(deps, params, ctx)
}

/** Create the task (the store has it once this resolves) and answer with its `CreateTaskResult`. */
async function start(deps: TaskCallDeps, params: RequestParams, ctx: RequestContext): Promise<ResultObject> {
  const job: TaskJob = {
    name: params.name as string,
    arguments: (params.arguments ?? {}) as Record<string, unknown>,
    protocolVersion: ctx.protocolVersion,
    clientCapabilities: ctx.clientCapabilities,
  }
  if (params.inputResponses !== undefined) job.inputResponses = params.inputResponses as Record<string, unknown>
  if (ctx.requestState !== undefined) job.requestState = ctx.requestState
  if (ctx.clientInfo) job.clientInfo = ctx.clientInfo
  if (ctx.authInfo) job.authInfo = ctx.authInfo
  const principal = principalOf(deps, ctx)
  if (principal !== undefined) job.principal = principal
  const meta = otherMeta(params._meta)
  if (meta) job.meta = meta
  const task = await deps.store.start(job, deps.host, ctx)
  return { resultType: 'task', ...task }
}

/**
 * The principal a task is bound to: the request-state policy's `principalOf` (the same the sealing
 * binds).
 * @throws McpError -32603 when it fails (logged).
 */
export function principalOf(deps: TaskCallDeps, ctx: RequestContext): string | undefined {
  try {
    return deps.security()?.principalOf(ctx)
  } catch (error) {
    logWarn(deps.host.logger, 'principal.failed', `bindPrincipal failed: ${String(error)}`)
    throw new McpError(ErrorCode.InternalError, 'Internal error')
  }
}

/** `_meta` without the envelope's keys (kept for the run: trace context and the like), or undefined. */
function otherMeta(meta: unknown): Record<string, unknown> | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined
  const out: Record<string, unknown> = {}
  const envelope = new Set<string>(Object.values(META))
  for (const [k, v] of Object.entries(meta)) if (!envelope.has(k) && k !== 'progressToken') out[k] = v
  return Object.keys(out).length > 0 ? out : undefined
}

function textResult(text: string, isError: boolean): ResultObject {
  return isError ? { content: [{ type: 'text', text }], isError } : { content: [{ type: 'text', text }] }
}

/**
 * A synchronous run's task side on a 2026 request: progress as `notifications/progress` (when the
 * request has a `progressToken`), a status alone not sent; questions refused with -32021 naming the tasks
 * extension.
 */
function inlineSide(ctx: RequestContext): TaskSide {
  return {
    taskId: undefined,
    status: () => Promise.resolve(), // notifications/progress needs a new progress value: a status alone has none
    progress: (progress, total, message) => {
      ctx.sendProgress(progress, total, message)
      return Promise.resolve()
    },
    ask: () =>
      Promise.reject(
        missingCapabilityError(
          TASKS_REQUIRED,
          `This tool asks questions while it runs: the request must declare the ${TASKS_EXTENSION} extension`,
        ),
      ),
  }
}

// ---- 2025 era: the run goes on in this request; its questions go out through the legacy-questions machinery

const INLINE: unique symbol = Symbol('edge-mcp.inlineTask')

/** A synchronous run of a 2025-era request whose handler is waiting on questions. */
interface InlineRun {
  /** The call's outcome, once it ends. */
  done: Promise<{ result: ResultObject } | { error: unknown }>
  /** Outstanding requests by unique key. */
  pending: Map<string, { request: InputRequest; resolve: (answer: unknown) => void }>
  /** Wakes the request waiting for a question or the end. */
  wake?: () => void
  counter: number
}

/**
 * A 2025-era call: the handler runs in this request; each question it asks is handed to the
 * legacy-questions machinery as an `InputRequiredResult` (a server-to-client request on the POST's
 * stream), whose answers the machinery hands back as a re-run of this call (its `requestState` is this
 * in-memory run: a 2025 request's state never leaves the server).
 */
async function inlineLegacy(
  deps: TaskCallDeps,
  params: RequestParams,
  ctx: RequestContext,
): Promise<ResultObject | undefined> {
  const carried = ctx.requestState as { [INLINE]?: InlineRun } | undefined
  let run = typeof carried === 'object' && carried !== null ? carried[INLINE] : undefined
  if (run) {
    const answers = (params.inputResponses ?? {}) as Record<string, unknown>
    for (const [key, answer] of Object.entries(answers)) {
      const entry = run.pending.get(key)
      run.pending.delete(key)
      entry?.resolve(answer)
    }
  } else {
    const fresh: InlineRun = { pending: new Map(), counter: 0, done: undefined as never }
    const side: TaskSide = {
      taskId: undefined,
      status: () => Promise.resolve(),
      progress: (progress, total, message) => {
        ctx.sendProgress(progress, total, message)
        return Promise.resolve()
      },
      ask: (requests) => askInline(fresh, requests, ctx.signal, deps.questionWaitMs),
    }
    const c = ctx as RequestContext & { task?: unknown }
    c.task = taskContext(side, ctx.clientCapabilities)
    fresh.done = callTool(deps.registry, params, ctx, deps.note).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    )
    run = fresh
  }
  return next(run)
}

/** Wait until the run ends (its result) or asks (an `InputRequiredResult` of its outstanding requests). */
async function next(run: InlineRun): Promise<ResultObject> {
  for (;;) {
    const woken = new Promise<undefined>((resolve) => (run.wake = () => resolve(undefined)))
    if (run.pending.size === 0) {
      const ended = await Promise.race([run.done, woken])
      if (ended) {
        if ('error' in ended) throw ended.error
        return ended.result
      }
      continue
    }
    const inputRequests: Record<string, InputRequest> = {}
    for (const [key, p] of run.pending) inputRequests[key] = p.request
    return { resultType: 'input_required', inputRequests, requestState: { [INLINE]: run } }
  }
}

/**
 * A question of a 2025-era run: its requests under unique keys, answered when the re-run brings them. When
 * no re-run comes (the legacy questions gave up: a timeout, the rounds limit, no mailbox), the wait ends
 * after `waitMs` with an error, so the handler unwinds (its `finally` blocks run).
 */
function askInline(
  run: InlineRun,
  requests: Record<string, InputRequest>,
  signal: AbortSignal,
  waitMs: number,
): Promise<Record<string, unknown>> {
  signal.throwIfAborted()
  const keys: string[] = []
  const answers = Object.entries(requests).map(([originalKey, request]) => {
    const key = `${originalKey}.${++run.counter}`
    keys.push(key)
    return new Promise<[string, unknown]>((resolve, reject) => {
      run.pending.set(key, { request, resolve: (answer) => resolve([originalKey, answer]) })
      signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true })
    })
  })
  let timer: ReturnType<typeof setTimeout> | undefined
  const given = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      for (const key of keys) run.pending.delete(key)
      reject(new Error('the client did not answer the question'))
    }, waitMs)
    ;(timer as { unref?: () => void }).unref?.()
  })
  queueMicrotask(() => run.wake?.())
  return Promise.race([Promise.all(answers), given])
    .then((pairs) => Object.fromEntries(pairs))
    .finally(() => clearTimeout(timer))
}
