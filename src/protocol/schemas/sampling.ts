/**
 * Sampling (`sampling/createMessage`) and roots (`roots/list`): the requests a server makes of the client
 * inside an `InputRequiredResult`, with their results.
 * @module
 */
/* eslint @typescript-eslint/no-empty-object-type: ['error', { allowInterfaces: 'with-single-extends' }]
  -- `interface X extends v.InferOutput<typeof X> {}` names a schema's type: declarations derive it lazily (TS2589, index.ts) */
import * as v from 'valibot'
import { JsonObject, MetaObject } from './common.ts'
import { SamplingContentBlock, SamplingMessageSchema } from './content.ts'
import { ToolSchema } from './tools.ts'

/** `ModelPreferences`: hints for the client's model choice; each priority is 0 (unimportant) to 1. */
export const ModelPreferences = v.looseObject({
  hints: v.optional(v.array(v.looseObject({ name: v.optional(v.string()) }))),
  costPriority: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
  speedPriority: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
  intelligencePriority: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
})

export const CreateMessageRequestParams = v.looseObject({
  messages: v.array(SamplingMessageSchema),
  maxTokens: v.number(),
  modelPreferences: v.optional(ModelPreferences),
  systemPrompt: v.optional(v.string()),
  includeContext: v.optional(v.picklist(['none', 'thisServer', 'allServers'])),
  temperature: v.optional(v.number()),
  stopSequences: v.optional(v.array(v.string())),
  metadata: v.optional(JsonObject),
  tools: v.optional(v.array(ToolSchema)),
  toolChoice: v.optional(v.looseObject({ mode: v.optional(v.picklist(['auto', 'required', 'none'])) })),
  _meta: v.optional(MetaObject),
})
export type CreateMessageRequestParams = v.InferOutput<typeof CreateMessageRequestParams>

export const CreateMessageResult = v.looseObject({
  role: v.picklist(['user', 'assistant']),
  content: v.union([SamplingContentBlock, v.array(SamplingContentBlock)]),
  model: v.string(),
  stopReason: v.optional(v.string()),
  _meta: v.optional(MetaObject),
})
export interface CreateMessageResult extends v.InferOutput<typeof CreateMessageResult> {}

export const Root = v.looseObject({ uri: v.string(), name: v.optional(v.string()), _meta: v.optional(MetaObject) })
export type Root = v.InferOutput<typeof Root>
export const ListRootsResult = v.looseObject({ roots: v.array(Root), _meta: v.optional(MetaObject) })
export interface ListRootsResult extends v.InferOutput<typeof ListRootsResult> {}
