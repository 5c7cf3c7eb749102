/**
 * Prompts: the definition `prompts/list` lists, and the results of `prompts/list` and `prompts/get`.
 * @module
 */
import * as v from 'valibot'
import { icon, MetaObject } from './common.ts'
import { contentBlock } from './content.ts'
import { complete, listResult } from './results.ts'

export const PromptArgument = v.looseObject({
  name: v.string(),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  required: v.optional(v.boolean()),
})
export type PromptArgument = v.InferOutput<typeof PromptArgument>

/** `Prompt`: a prompt definition as listed by `prompts/list`. */
export const Prompt = v.looseObject({
  name: v.string(),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  arguments: v.optional(v.array(PromptArgument)),
  icons: v.optional(v.array(icon())),
  _meta: v.optional(MetaObject),
})
export type Prompt = v.InferOutput<typeof Prompt>

export const PromptMessage = v.looseObject({ role: v.picklist(['user', 'assistant']), content: contentBlock() })
export type PromptMessage = v.InferOutput<typeof PromptMessage>

export const ListPromptsResult = listResult<'prompts', Prompt>('prompts', Prompt)
export type ListPromptsResult = v.InferOutput<typeof ListPromptsResult>

/** `GetPromptResult`: the messages of a prompt. */
export const GetPromptResult = complete({
  description: v.optional(v.string()),
  messages: v.array(PromptMessage),
})
export type GetPromptResult = v.InferOutput<typeof GetPromptResult>
