/**
 * Sampling (`sampling/createMessage`) and roots (`roots/list`): the requests a server makes of the client
 * inside an `InputRequiredResult`, with their results.
 * @module
 */
/* eslint @typescript-eslint/no-empty-object-type: ['error', { allowInterfaces: 'with-single-extends' }]
  -- `interface X extends v.InferOutput<typeof X> {}` names a schema's type: declarations derive it lazily (TS2589, index.ts) */
import * as v from 'valibot'
import { jsonObject, once } from './common.ts'
import { samplingContentBlock, samplingMessage } from './content.ts'
import { tool } from './tools.ts'

/** `ModelPreferences`: hints for the client's model choice; each priority is 0 (unimportant) to 1. */
const modelPreferences = /* @__PURE__ */ once(() =>
  v.looseObject({
    hints: v.optional(v.array(v.looseObject({ name: v.optional(v.string()) }))),
    costPriority: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
    speedPriority: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
    intelligencePriority: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
  }),
)
export const ModelPreferences = /* @__PURE__ */ modelPreferences()

export const createMessageRequestParams = /* @__PURE__ */ once(() =>
  v.looseObject({
    messages: v.array(samplingMessage()),
    maxTokens: v.number(),
    modelPreferences: v.optional(modelPreferences()),
    systemPrompt: v.optional(v.string()),
    includeContext: v.optional(v.picklist(['none', 'thisServer', 'allServers'])),
    temperature: v.optional(v.number()),
    stopSequences: v.optional(v.array(v.string())),
    metadata: v.optional(jsonObject()),
    tools: v.optional(v.array(tool())),
    toolChoice: v.optional(v.looseObject({ mode: v.optional(v.picklist(['auto', 'required', 'none'])) })),
    _meta: v.optional(jsonObject()),
  }),
)
export const CreateMessageRequestParams = /* @__PURE__ */ createMessageRequestParams()
export type CreateMessageRequestParams = v.InferOutput<typeof CreateMessageRequestParams>

export const createMessageResult = /* @__PURE__ */ once(() => {
  const block = samplingContentBlock()
  return v.looseObject({
    role: v.picklist(['user', 'assistant']),
    content: v.union([block, v.array(block)]),
    model: v.string(),
    stopReason: v.optional(v.string()),
    _meta: v.optional(jsonObject()),
  })
})
export const CreateMessageResult = /* @__PURE__ */ createMessageResult()
export interface CreateMessageResult extends v.InferOutput<typeof CreateMessageResult> {}

const root = /* @__PURE__ */ once(() =>
  v.looseObject({ uri: v.string(), name: v.optional(v.string()), _meta: v.optional(jsonObject()) }),
)
export const Root = /* @__PURE__ */ root()
export type Root = v.InferOutput<typeof Root>
export const listRootsResult = /* @__PURE__ */ once(() =>
  v.looseObject({ roots: v.array(root()), _meta: v.optional(jsonObject()) }),
)
export const ListRootsResult = /* @__PURE__ */ listRootsResult()
export interface ListRootsResult extends v.InferOutput<typeof ListRootsResult> {}
