/**
 * Completion (`completion/complete`): argument suggestions for a prompt or a resource template.
 * @module
 */
import * as v from 'valibot'
import { request } from './jsonrpc.ts'
import { RequestParamsBase } from './requests.ts'
import { complete } from './results.ts'

export const PromptReference = v.looseObject({
  type: v.literal('ref/prompt'),
  name: v.string(),
  title: v.optional(v.string()),
})
export const ResourceTemplateReference = v.looseObject({ type: v.literal('ref/resource'), uri: v.string() })

export const CompleteRequestParams = v.looseObject({
  ...RequestParamsBase,
  ref: v.variant('type', [PromptReference, ResourceTemplateReference]),
  argument: v.looseObject({ name: v.string(), value: v.string() }),
  context: v.optional(v.looseObject({ arguments: v.optional(v.record(v.string(), v.string())) })),
})
export type CompleteRequestParams = v.InferOutput<typeof CompleteRequestParams>
export const CompleteRequest = request('completion/complete', CompleteRequestParams)

/** `CompleteResult`: at most 100 suggested values. */
export const CompleteResult = complete({
  completion: v.looseObject({
    values: v.pipe(v.array(v.string()), v.maxLength(100)),
    total: v.optional(v.pipe(v.number(), v.integer())),
    hasMore: v.optional(v.boolean()),
  }),
})
export type CompleteResult = v.InferOutput<typeof CompleteResult>
