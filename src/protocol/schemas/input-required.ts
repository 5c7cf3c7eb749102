/**
 * Multi-round-trip requests (spec: basic/patterns/mrtr.mdx): the `InputRequiredResult` a server returns to
 * ask the client for input, the requests it may embed, and the responses the client sends on retry.
 * @module
 */
/* eslint @typescript-eslint/no-empty-object-type: ['error', { allowInterfaces: 'with-single-extends' }]
  -- `interface X extends v.InferOutput<typeof X> {}` names a schema's type: declarations derive it lazily (TS2589, index.ts) */
import * as v from 'valibot'
import { MetaObject } from './common.ts'
import { ElicitRequestParams, ElicitResult } from './elicitation.ts'
import { CreateMessageRequestParams, CreateMessageResult, ListRootsResult } from './sampling.ts'

/** An elicitation request embedded in `inputRequests` (bare `{method, params}`, no id). */
export const ElicitRequest = v.looseObject({ method: v.literal('elicitation/create'), params: ElicitRequestParams })
export interface ElicitRequest extends v.InferOutput<typeof ElicitRequest> {}
export const CreateMessageRequest = v.looseObject({
  method: v.literal('sampling/createMessage'),
  params: CreateMessageRequestParams,
})
export interface CreateMessageRequest extends v.InferOutput<typeof CreateMessageRequest> {}
export const ListRootsRequest = v.looseObject({
  method: v.literal('roots/list'),
  params: v.optional(v.looseObject({ _meta: v.optional(MetaObject) })),
})
export interface ListRootsRequest extends v.InferOutput<typeof ListRootsRequest> {}

/** `InputRequest`: what a server may ask the client for inside an `InputRequiredResult`. */
export const InputRequest = v.variant('method', [ElicitRequest, CreateMessageRequest, ListRootsRequest])
export type InputRequest = ElicitRequest | CreateMessageRequest | ListRootsRequest
const InputRequestSchema: v.GenericSchema<InputRequest> = InputRequest
export const InputRequests = v.record(v.string(), InputRequestSchema)
export type InputRequests = v.InferOutput<typeof InputRequests>

/** `InputResponse`: the bare result answering one `InputRequest` (no `resultType`). */
export const InputResponse = v.union([ElicitResult, CreateMessageResult, ListRootsResult])
export type InputResponse = ElicitResult | CreateMessageResult | ListRootsResult
const InputResponseSchema: v.GenericSchema<unknown, InputResponse> = InputResponse
export const InputResponses = v.record(v.string(), InputResponseSchema)
export type InputResponses = v.InferOutput<typeof InputResponses>

/** `InputRequiredResult`: "ask the client, then retry" (spec: basic/patterns/mrtr.mdx). */
export const InputRequiredResult = v.looseObject({
  resultType: v.literal('input_required'),
  inputRequests: v.optional(InputRequests),
  requestState: v.optional(v.string()),
  _meta: v.optional(MetaObject),
})
export type InputRequiredResult = v.InferOutput<typeof InputRequiredResult>

/** The members a retried request adds to its params: the answers, and the server's opaque state. */
export const RetryParams = {
  inputResponses: v.optional(InputResponses),
  requestState: v.optional(v.nullable(v.string())),
}
