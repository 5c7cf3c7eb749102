/**
 * A carrier call (`tools/call`, `prompts/get`, `resources/read`) from its first request to its complete
 * result: the first request (through the response cache when it may be cached), then the input-required
 * rounds answered through the callbacks (`driveInputRequired`) — each round through the `round` middleware
 * and each answer through the `answer` middleware when some is registered.
 * @module
 */
import type { Check } from '../protocol/check.ts'
import type { InputRequiredResult, InputResponse, InputResponses } from '../protocol/schemas/index.ts'
import { answerInput, isInputRequiredResult, parseCarrierResult } from './carrier.ts'
import type { ExchangeOptions } from './exchange.ts'
import { AnswerMemo, driveInputRequired } from './input-required.ts'
import {
  through,
  type ClientAnswerCall,
  type ClientCall,
  type ClientRoundCall,
  type Middlewares,
} from './middleware.ts'
import { defined, type CallOptions, type ClientOptions } from './options.ts'
import { CallToolResult } from './checks.gen.ts'
import { ErrorCode, McpError } from '../protocol/errors.ts'
import { isTaskHandle, runTask } from './tasks.ts'

/** What a carrier call needs of its `Client`. @internal */
export interface CarrierDeps {
  readonly options: ClientOptions
  /** `Client.request` (the era negotiated, the request built and exchanged). */
  request(method: string, params: Record<string, unknown>, options: ExchangeOptions): Promise<Record<string, unknown>>
  /** A cacheable request through the response cache (when it is on). */
  cached<T>(
    method: string,
    params: Record<string, unknown>,
    options: ExchangeOptions,
    parse: (result: Record<string, unknown>) => T,
  ): Promise<T>
  /** The registered middleware, if any. */
  middleware(): Middlewares | undefined
  /** The `Mcp-Param-*` values of a tool call (see tool-headers.ts). */
  routingFor(name: string, args: Record<string, unknown>): Record<string, string | number | boolean>
  /** Drop the cached `tools/list` and list the tools again (their header parameters changed). */
  relist(signal: AbortSignal | undefined): Promise<void>
}

/**
 * `Client.callTool`: the carrier call; on a `-32020` (the tool's headers may have changed, spec:
 * streamable-http.mdx) re-list once and call again, the answers already given recalled from the memo. A task
 * handle (`CreateTaskResult`) is polled until the task ends (tasks.ts).
 * @throws as `Client.callTool`.
 */
export async function callTool(
  deps: CarrierDeps,
  name: string,
  args: Record<string, unknown>,
  options: CallOptions & { manual?: boolean },
  call: ClientCall | undefined,
): Promise<CallToolResult | InputRequiredResult> {
  const memo = new AnswerMemo() // shared by the retry below: the user's answers are not asked again
  const drive = () =>
    driveCarrier(
      deps,
      'tools/call',
      { name, arguments: args },
      name,
      CallToolResult,
      { ...options, routing: deps.routingFor(name, args), memo }, // routing read again after a re-list
      call,
    )
  let result
  try {
    result = await drive()
  } catch (error) {
    if (!(error instanceof McpError && error.code === ErrorCode.HeaderMismatch)) throw error
    await deps.relist(options.signal)
    result = await drive()
  }
  // a CreateTaskResult (see parseCarrierResult): polled to its end, in manual mode too
  return isTaskHandle(result) ? runTask(deps, result, { ...options, target: name }) : result
}

/**
 * Send a carrier request and, unless `manual`, answer its input-required rounds until it completes.
 * With middleware (`call` given) each round runs through the `round` hooks (its requests carry
 * `ClientRequestCall.round`), each answer through the `answer` hooks.
 * @throws as `Client.callTool`.
 */
export async function driveCarrier<R>(
  deps: CarrierDeps,
  method: string,
  base: Record<string, unknown>,
  target: string,
  complete: Check<R>,
  options: ExchangeOptions & { manual?: boolean; memo?: AnswerMemo },
  call: ClientCall | undefined,
): Promise<R | InputRequiredResult> {
  const mw = call && deps.middleware()
  let now: ClientRoundCall | undefined // the round in progress (with middleware; rounds run one after another)
  const round = async (inputResponses?: InputResponses, requestState?: string) => {
    const params = { ...base, ...defined({ inputResponses, requestState }) }
    const sent = await deps.request(method, params, now ? { ...options, round: now } : options)
    return parseCarrierResult(method, sent, complete)
  }
  // only a first request without answers or state may be cached (spec: caching.mdx "Cache Key")
  const cacheable =
    method === 'resources/read' && options.inputResponses === undefined && options.requestState === undefined
  const start = () =>
    cacheable
      ? deps.cached(method, base, now ? { ...options, round: now } : options, (result) =>
          parseCarrierResult(method, result, complete),
        )
      : round(options.inputResponses, options.requestState)
  const around = mw
    ? (n: number, step: () => Promise<R | InputRequiredResult>) =>
        through(mw, 'round', (now = { call, round: n }), step)
    : undefined
  if (options.manual) return around ? around(1, start) : start()
  const first = around ? start : await start()
  const { maxRounds, sleep, restartOnInvalidRequestState: restarts } = deps.options
  const resumed = options.inputResponses !== undefined || options.requestState !== undefined // answers not in the memo
  const restart = (options.restartOnInvalidRequestState ?? restarts) !== false && !resumed ? () => round() : undefined
  return driveInputRequired(first, {
    dispatch: (key, request, signal) =>
      mw
        ? through<ClientAnswerCall, InputResponse>(
            mw,
            'answer',
            { key, method: request.method, era: 'modern', round: now! },
            () => answerInput(deps.options, key, request, { key, method, target, signal }),
          )
        : answerInput(deps.options, key, request, { key, method, target, signal }),
    retry: round,
    isInputRequired: isInputRequiredResult,
    ...defined({
      maxRounds,
      sleep,
      signal: options.signal,
      onRound: options.onRound,
      restart,
      memo: options.memo,
      around,
    }),
  })
}
