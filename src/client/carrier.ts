/**
 * The client's half of input-required rounds (spec: basic/patterns/mrtr.mdx) for the carrier requests
 * `tools/call`, `prompts/get` and `resources/read`: tell a complete result from an `InputRequiredResult`,
 * and answer each input request through the matching callback. The round loop itself is
 * `driveInputRequired` (input-required.ts).
 * @module
 */
import { problem, type Check } from '../protocol/check.ts'
import type { InputRequest, InputResponse } from '../protocol/schemas/index.ts'
import { InvalidInputResponseError, InvalidResultError, MissingInputHandlerError } from './errors.ts'
import { parseResult } from './exchange.ts'
import { CreateMessageResult, ElicitResult, InputRequiredResult, ListRootsResult } from './checks.gen.ts'
import type { ClientOptions, InputContext } from './options.ts'
import { readTask } from './task-result.ts'

/**
 * A carrier request's result: an `InputRequiredResult` (`resultType: "input_required"`), else the
 * complete result (`resultType` `"complete"` or absent) checked against `complete`, or — for `tools/call`
 * only — a task handle (`resultType: "task"`), checked as a task and returned as it is.
 * @throws InvalidResultError for an unknown `resultType`, an `InputRequiredResult` with neither
 *   `inputRequests` nor `requestState`, or a result that fails its schema.
 */
export function parseCarrierResult<R>(
  method: string,
  result: Record<string, unknown>,
  complete: Check<R>,
): R | InputRequiredResult {
  const type = result.resultType
  if (type === 'input_required') {
    const irr = parseResult(InputRequiredResult, result, method)
    if (Object.keys(irr.inputRequests ?? {}).length === 0 && irr.requestState === undefined) {
      throw new InvalidResultError(
        `${method} returned an InputRequiredResult with neither inputRequests nor requestState`,
      )
    }
    return irr
  }
  // a task handle (io.modelcontextprotocol/tasks, tools/call only): checked and polled by callTool (tasks.ts)
  if (type === 'task' && method === 'tools/call') return (readTask(result, method, true), result as R)
  if (type !== undefined && type !== 'complete')
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- echoes a wire value in a diagnostic as String() always has; an object reading '[object Object]' is acceptable there
    throw new InvalidResultError(`Unknown resultType '${String(type)}' in ${method} result`)
  return parseResult(complete, result, method)
}

/** Whether a parsed carrier result asks for input (see {@link parseCarrierResult}). */
export function isInputRequiredResult<R>(value: R | InputRequiredResult): value is InputRequiredResult {
  return (value as { resultType?: unknown }).resultType === 'input_required'
}

/**
 * Answer one input request through its callback, and check the answer's shape before it is sent.
 * @throws MissingInputHandlerError when `callbacks` has none for the request's method.
 * @throws InvalidInputResponseError when the callback's answer does not fit the method's result schema.
 */
export async function answerInput(
  callbacks: Pick<ClientOptions, 'elicitation' | 'sampling' | 'roots'>,
  key: string,
  request: InputRequest,
  ctx: InputContext,
): Promise<InputResponse> {
  let answer: unknown
  let check: Check
  switch (request.method) {
    case 'elicitation/create': {
      if (!callbacks.elicitation) throw new MissingInputHandlerError('elicitation', key)
      answer = await callbacks.elicitation(request.params, ctx)
      check = ElicitResult
      break
    }
    case 'sampling/createMessage': {
      if (!callbacks.sampling) throw new MissingInputHandlerError('sampling', key)
      answer = await callbacks.sampling(request.params, ctx)
      check = CreateMessageResult
      break
    }
    case 'roots/list': {
      if (!callbacks.roots) throw new MissingInputHandlerError('roots', key)
      answer = await callbacks.roots(ctx)
      check = ListRootsResult
      break
    }
  }
  const issue = problem(check, answer)
  if (issue !== undefined) throw new InvalidInputResponseError(key, issue)
  return answer as InputResponse
}
