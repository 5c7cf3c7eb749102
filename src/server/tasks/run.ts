/**
 * A task's run: `tools/call` of its job on a context of its own (the creating request's principal, auth,
 * capabilities and client info; the task's abort signal; `ctx.task` set), its `InputRequiredResult`s
 * (a raw handler's, or a resolver asking anew) asked inside the task until it completes.
 * @module
 */
import { META } from '../../protocol/constants.ts'
import { requireCapabilities, type RequestEnvelope, type RequiredCapability } from '../../protocol/envelope.ts'
import { ErrorCode, McpError } from '../../protocol/errors.ts'
import type { ClientCapabilities, InputRequest } from '../../protocol/schemas/index.ts'
import type { RequestStateValue } from '../../request-state/claims.ts'
import type { Logger, RequestContext, RequestInfo, ResultObject } from '../context.ts'
import { inputRequiredResult } from '../finish.ts'
import { logError } from '../log.ts'
import { callTool } from '../mcp/requests.ts'
import type { Registry } from '../mcp/types.ts'
import { isInputRequired } from '../results.ts'
import { taskContext } from './ask.ts'
import type { TaskHost, TaskJob, TaskOutcome, TaskRunContext } from './types.ts'

/** Most rounds of questions one run asks (each `InputRequiredResult` counts); past it the task fails -32603. */
export const MAX_TASK_ROUNDS = 8

/** The {@link TaskHost} of an McpServer: runs jobs through its `tools/call`. */
export function taskHost(registry: Registry, logger: Logger, note: (message: string) => void): TaskHost {
  return {
    logger,
    async run(job: TaskJob, task: TaskRunContext, info?: RequestInfo): Promise<TaskOutcome> {
      try {
        return { result: await runJob(registry, job, task, info, note) }
      } catch (error) {
        if (error instanceof McpError) {
          const out: { code: number; message: string; data?: unknown } = { code: error.code, message: error.message }
          if (error.data !== undefined) out.data = error.data
          return { error: out }
        }
        if (!task.signal.aborted)
          logError(logger, 'handler.failed', `task ${job.name} failed`, error, { method: 'tools/call' })
        return { error: { code: ErrorCode.InternalError, message: 'Internal error' } }
      }
    },
  }
}

/**
 * `tools/call` of the job until it completes: each `InputRequiredResult` asked through `task.ask`, then
 * the call again with its answers and its (plaintext) `requestState`.
 * @throws McpError from the call; -32603 after {@link MAX_TASK_ROUNDS} rounds of questions.
 */
async function runJob(
  registry: Registry,
  job: TaskJob,
  task: TaskRunContext,
  info: RequestInfo | undefined,
  note: (message: string) => void,
): Promise<ResultObject> {
  const params: Record<string, unknown> = { name: job.name, arguments: job.arguments }
  const meta: Record<string, unknown> = { ...job.meta }
  meta[META.protocolVersion] = job.protocolVersion
  meta[META.clientCapabilities] = job.clientCapabilities
  if (job.clientInfo) meta[META.clientInfo] = job.clientInfo
  params._meta = meta
  if (job.inputResponses) params.inputResponses = job.inputResponses
  let requestState = job.requestState as RequestStateValue | undefined
  for (let round = 1; ; round++) {
    const ctx = contextOf(job, task, info, requestState, round)
    const out = await callTool(registry, params, ctx, note)
    if (!isInputRequired(out)) return out
    if (round > MAX_TASK_ROUNDS)
      throw new McpError(ErrorCode.InternalError, `The task asked more than ${MAX_TASK_ROUNDS} rounds of questions`)
    const checked = inputRequiredResult('tools/call', out, ctx) // -32021 for what the client did not declare
    const requests = (checked.inputRequests ?? {}) as Record<string, InputRequest>
    const answers = Object.keys(requests).length > 0 ? await task.ask(requests) : undefined
    if (answers) params.inputResponses = answers
    else delete params.inputResponses
    requestState = checked.requestState as RequestStateValue | undefined
  }
}

/** The context of one round of a task's run: the creating request's facts, the task's signal and `ctx.task`. */
function contextOf(
  job: TaskJob,
  task: TaskRunContext,
  info: RequestInfo | undefined,
  requestState: RequestStateValue | undefined,
  round: number,
): RequestContext {
  const clientCapabilities = job.clientCapabilities as ClientCapabilities
  const envelope: RequestEnvelope = { protocolVersion: job.protocolVersion, clientCapabilities }
  if (job.clientInfo) envelope.clientInfo = job.clientInfo
  const ctx: RequestContext & { task?: unknown } = {
    method: 'tools/call',
    requestId: `${task.taskId}#${round}`,
    envelope,
    protocolVersion: job.protocolVersion,
    clientCapabilities,
    clientInfo: job.clientInfo,
    signal: task.signal,
    requestState,
    requireCapabilities: (...needs: RequiredCapability[]) => requireCapabilities(clientCapabilities, ...needs),
    sendProgress: (progress: number, total?: number, message?: string) => {
      task.progress(progress, total, message).catch(() => {}) // a task reports progress in itself
      return true
    },
    log: () => false,
    task: taskContext(task, clientCapabilities),
  }
  if (info?.env !== undefined) ctx.env = info.env
  if (info?.executionCtx !== undefined) ctx.executionCtx = info.executionCtx
  if (job.authInfo) ctx.authInfo = job.authInfo
  return ctx
}
