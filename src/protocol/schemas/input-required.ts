/**
 * Multi-round-trip requests (spec: basic/patterns/mrtr.mdx): the `InputRequiredResult` a server returns to
 * ask the client for input, the requests it may embed, and the responses the client sends on retry.
 * @module
 */
/* eslint @typescript-eslint/no-empty-object-type: ['error', { allowInterfaces: 'with-single-extends' }]
  -- `interface X extends v.InferOutput<typeof X> {}` names a schema's type: declarations derive it lazily (TS2589, index.ts) */
import * as v from 'valibot'
import { jsonObject, once } from './common.ts'
import { elicitRequestParams, elicitResult, type ElicitResult } from './elicitation.ts'
import {
  createMessageRequestParams,
  createMessageResult,
  listRootsResult,
  type CreateMessageResult,
  type ListRootsResult,
} from './sampling.ts'

/** An elicitation request embedded in `inputRequests` (bare `{method, params}`, no id). */
const elicitRequest = /* @__PURE__ */ once(() =>
  v.looseObject({ method: v.literal('elicitation/create'), params: elicitRequestParams() }),
)
export const ElicitRequest = /* @__PURE__ */ elicitRequest()
export interface ElicitRequest extends v.InferOutput<typeof ElicitRequest> {}
const createMessageRequest = /* @__PURE__ */ once(() =>
  v.looseObject({ method: v.literal('sampling/createMessage'), params: createMessageRequestParams() }),
)
export const CreateMessageRequest = /* @__PURE__ */ createMessageRequest()
export interface CreateMessageRequest extends v.InferOutput<typeof CreateMessageRequest> {}
const listRootsRequest = /* @__PURE__ */ once(() =>
  v.looseObject({
    method: v.literal('roots/list'),
    params: v.optional(v.looseObject({ _meta: v.optional(jsonObject()) })),
  }),
)
export const ListRootsRequest = /* @__PURE__ */ listRootsRequest()
export interface ListRootsRequest extends v.InferOutput<typeof ListRootsRequest> {}

/** `InputRequest`: what a server may ask the client for inside an `InputRequiredResult`. */
const buildInputRequest = /* @__PURE__ */ once(() =>
  v.variant('method', [elicitRequest(), createMessageRequest(), listRootsRequest()]),
)
export const InputRequest = /* @__PURE__ */ buildInputRequest()
export type InputRequest = ElicitRequest | CreateMessageRequest | ListRootsRequest
const inputRequest: () => v.GenericSchema<InputRequest> = buildInputRequest
const inputRequests = /* @__PURE__ */ once(() => v.record(v.string(), inputRequest()))
export const InputRequests = /* @__PURE__ */ inputRequests()
export type InputRequests = v.InferOutput<typeof InputRequests>

/** `InputResponse`: the bare result answering one `InputRequest` (no `resultType`). */
const buildInputResponse = /* @__PURE__ */ once(() =>
  v.union([elicitResult(), createMessageResult(), listRootsResult()]),
)
export const InputResponse = /* @__PURE__ */ buildInputResponse()
export type InputResponse = ElicitResult | CreateMessageResult | ListRootsResult
const inputResponse: () => v.GenericSchema<unknown, InputResponse> = buildInputResponse
export const inputResponses = /* @__PURE__ */ once(() => v.record(v.string(), inputResponse()))
export const InputResponses = /* @__PURE__ */ inputResponses()
export type InputResponses = v.InferOutput<typeof InputResponses>

/** `InputRequiredResult`: "ask the client, then retry" (spec: basic/patterns/mrtr.mdx). */
export const inputRequiredResult = /* @__PURE__ */ once(() =>
  v.looseObject({
    resultType: v.literal('input_required'),
    inputRequests: v.optional(inputRequests()),
    requestState: v.optional(v.string()),
    _meta: v.optional(jsonObject()),
  }),
)
export const InputRequiredResult = /* @__PURE__ */ inputRequiredResult()
export type InputRequiredResult = v.InferOutput<typeof InputRequiredResult>

/** The members a retried request adds to its params: the answers, and the server's opaque state. */
export const retryParams = /* @__PURE__ */ once(() => ({
  inputResponses: v.optional(inputResponses()),
  requestState: v.optional(v.nullable(v.string())),
}))
