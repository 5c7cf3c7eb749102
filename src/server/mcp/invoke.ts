/**
 * Running a registered handler for one round: validate the client's answers, run its resolvers (if it
 * has any; spec: basic/patterns/mrtr.mdx), then call it with its arguments and a {@link HandlerContext}.
 * @module
 */
import { ErrorCode, McpError } from '../../protocol/errors.ts'
import { type Check, describe, type Issue, parse } from '../../protocol/check.ts'
import * as checks from '../../protocol/checks.gen.ts'
import { isPlainObject } from '../../protocol/jsonrpc.ts'
import type { InputResponses } from '../../protocol/schemas/index.ts'
import { withContext, type RequestContext, type RequestParams } from '../context.ts'
import { HandlerContractError, RefusalError, ResolutionError, refusalVerb } from '../errors.ts'
import type { ResolverPlan } from '../resolve/plan.ts'
import { isInputRequired } from '../results.ts'
import type { Registered, HandlerContext } from './types.ts'
import { around, callStateOf, has, type CallState, type InvocationCall } from '../middleware.ts'

/**
 * Validate answers, run resolvers (if any), then the handler.
 * @param target - the tool or prompt name, or the resource URI (`ctx.target`).
 * @param note - where log-only notes go (a discarded stale answer).
 * @param kind - what runs, for the server's invocation middleware.
 * @returns the handler's return value, or the resolvers' `InputRequiredResult`.
 * @throws McpError -32602 for malformed `inputResponses`; ResolutionError when a resolver could not
 *   produce a value; whatever the handler, a resolver or a middleware throws.
 */
export function invoke(
  item: Registered,
  args: Record<string, unknown>,
  params: RequestParams,
  ctx: RequestContext,
  target: string,
  note: (message: string) => void,
  kind: InvocationCall['kind'] = 'tool',
): Promise<unknown> {
  const state = callStateOf(ctx)
  if (!state || !(has(state.mw, 'invocation') || has(state.mw, 'resolver')))
    return run(item, args, params, ctx, target, note, undefined)
  const call: InvocationCall = {
    kind,
    name: target,
    arguments: Object.freeze({ ...args }),
    principal: state.call.principal,
    round: state.round,
    request: state.call,
  }
  return around(state.mw, 'invocation', call, () => run(item, args, params, ctx, target, note, { state, call }))
}

/** {@link invoke}'s work: validate answers, run resolvers (through resolver middleware), run the handler. */
async function run(
  item: Registered,
  args: Record<string, unknown>,
  params: RequestParams,
  ctx: RequestContext,
  target: string,
  note: (message: string) => void,
  mw: { state: CallState; call: InvocationCall } | undefined,
): Promise<unknown> {
  const inputResponses = inputResponsesOf(params)
  if (!item.plan) {
    // the request's context, made by the server for this one handler call, given what it serves: no copy
    const handlerCtx = ctx as HandlerContext
    handlerCtx.target = target
    handlerCtx.inputResponses = inputResponses
    return item.handler(args as never, handlerCtx)
  }
  // Object.assign (in withContext), not `{ ...ctx, … }`: V8 takes a slow path for properties written
  // after a spread; withContext keeps a signal not yet read unmade.
  // with resolvers, the SDK owns the questions and the state: the handler sees neither
  const handlerCtx: HandlerContext = withContext(ctx, {
    target,
    inputResponses: undefined,
    requestState: undefined,
  })
  const resolution = await item.plan.run({
    plan: item.plan,
    args,
    ctx: handlerCtx,
    inputResponses,
    requestState: ctx.requestState,
    note,
    ...(mw && has(mw.state.mw, 'resolver')
      ? {
          around: (key: string, next: () => Promise<unknown>) => {
            const resolverCall = { key, invocation: mw.call }
            mw.state.resolvers.set(key, resolverCall)
            return around(mw.state.mw, 'resolver', resolverCall, next)
          },
        }
      : {}),
  })
  if (resolution.status === 'input_required') return resolution.result
  const out = await item.handler({ ...args, ...resolution.values } as never, handlerCtx)
  if (isInputRequired(out)) {
    throw new HandlerContractError(
      'the handler returned an InputRequiredResult, but its parameters use resolvers: the questions of a call come from its resolvers or from its handler, not both',
    )
  }
  return out
}

/**
 * {@link invoke} for prompts and resources, which have no `isError`: a question that could not be
 * resolved is `-32602` naming it (a refusal: "Could not get prompt briefing because the user declined:
 * <question>"; a wrong answer); any other failure of a resolver or handler
 * is rethrown (then `-32603`, logged).
 * @param what - `prompt` or `resource`, for the message.
 */
export async function invokeOrFail(
  item: Registered,
  args: Record<string, unknown>,
  params: RequestParams,
  ctx: RequestContext,
  target: string,
  what: 'prompt' | 'resource',
  note: (message: string) => void,
): Promise<unknown> {
  try {
    return await invoke(item, args, params, ctx, target, note, what)
  } catch (error) {
    if (error instanceof RefusalError)
      throw new McpError(
        ErrorCode.InvalidParams,
        `Could not get ${what} ${target} because the user ${refusalVerb(error.action)}: ${error.question}`,
      )
    if (error instanceof ResolutionError && !(error instanceof HandlerContractError)) {
      throw new McpError(ErrorCode.InvalidParams, `Could not get ${what} ${target}: ${error.message}`)
    }
    throw error
  }
}

/**
 * Values a client sends under resolved names are dropped before validation: resolvers alone fill them.
 * Own properties only, each copied as an own property (`Object.fromEntries` defines, never assigns): a
 * `__proto__` key stays a key and never becomes the copy's prototype.
 */
export function withoutResolved(
  args: Record<string, unknown>,
  plan: ResolverPlan | undefined,
): Record<string, unknown> {
  if (!plan) return args
  return Object.fromEntries(Object.entries(args).filter(([k]) => !plan.resolvedNames.has(k)))
}

/**
 * The client's answers to the previous round, validated; undefined when it sent none.
 * @throws McpError -32602 unless an object of result objects, each a valid `InputResponse`.
 */
function inputResponsesOf(params: RequestParams): InputResponses | undefined {
  const raw = params.inputResponses
  if (raw === undefined) return undefined
  if (!isPlainObject(raw) || !Object.values(raw).every(isPlainObject)) {
    throw new McpError(ErrorCode.InvalidParams, 'Invalid params: inputResponses must be an object of result objects')
  }
  const [, issues, output] = checks.InputResponses()(raw)
  if (issues[0])
    throw new McpError(ErrorCode.InvalidParams, `Invalid params: inputResponses ${answerIssue(raw, issues[0])}`)
  return output as InputResponses
}

/**
 * Why an answer is not an `InputResponse`, told by the kind it looks like (one with `action` is an
 * elicitation answer, one with `roots` a roots list, any other a sampling result), so that a malformed
 * sampling answer is not reported as a missing `action`.
 */
function answerIssue(raw: Record<string, unknown>, fallback: Issue): string {
  for (const [key, answer] of Object.entries(raw)) {
    const shape = answer as Record<string, unknown>
    const check: Check = Object.hasOwn(shape, 'action')
      ? checks.ElicitResult()
      : Object.hasOwn(shape, 'roots')
        ? checks.ListRootsResult()
        : checks.CreateMessageResult()
    const [why] = parse(check, answer) // "field 'a.b': …" or the message alone
    if (why === undefined) continue
    return why.startsWith("field '") ? `field '${key}.${why.slice(7)}` : `field '${key}': ${why}`
  }
  return describe(fallback)
}
