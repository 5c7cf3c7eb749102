/**
 * Completion (`completion/complete`): argument suggestions for a prompt or a resource template.
 * @module
 */
import * as v from 'valibot'
import { once } from './common.ts'
import { request } from './jsonrpc.ts'
import { requestParamsBase } from './requests.ts'
import { complete } from './results.ts'

const promptReference = /* @__PURE__ */ once(() =>
  v.looseObject({ type: v.literal('ref/prompt'), name: v.string(), title: v.optional(v.string()) }),
)
export const PromptReference = /* @__PURE__ */ promptReference()
const resourceTemplateReference = /* @__PURE__ */ once(() =>
  v.looseObject({ type: v.literal('ref/resource'), uri: v.string() }),
)
export const ResourceTemplateReference = /* @__PURE__ */ resourceTemplateReference()

/** The entries of `completion/complete`'s params but `_meta`, in their order. */
const completeEntries = () => ({
  ref: v.variant('type', [promptReference(), resourceTemplateReference()]),
  argument: v.looseObject({ name: v.string(), value: v.string() }),
  context: v.optional(v.looseObject({ arguments: v.optional(v.record(v.string(), v.string())) })),
})

/**
 * The params of `completion/complete` without their `_meta` envelope (the server checks that itself; a
 * 2025-era request has none): `CompleteRequestParams` but `_meta`.
 */
export const completeParamsWithoutMeta = /* @__PURE__ */ once(() => v.looseObject(completeEntries()))

export const completeRequestParams = /* @__PURE__ */ once(() =>
  v.looseObject({ ...requestParamsBase(), ...completeEntries() }),
)
export const CompleteRequestParams = /* @__PURE__ */ completeRequestParams()
export type CompleteRequestParams = v.InferOutput<typeof CompleteRequestParams>
export const CompleteRequest = /* @__PURE__ */ request('completion/complete', CompleteRequestParams)

/** `CompleteResult`: at most 100 suggested values. */
export const CompleteResult = /* @__PURE__ */ complete({
  completion: /* @__PURE__ */ v.looseObject({
    values: /* @__PURE__ */ v.pipe(
      /* @__PURE__ */ v.array(/* @__PURE__ */ v.string()),
      /* @__PURE__ */ v.maxLength(100),
    ),
    total: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.pipe(/* @__PURE__ */ v.number(), /* @__PURE__ */ v.integer())),
    hasMore: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.boolean()),
  }),
})
export type CompleteResult = v.InferOutput<typeof CompleteResult>
