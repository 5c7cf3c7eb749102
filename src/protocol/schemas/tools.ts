/**
 * Tools: the definition `tools/list` lists, and the results of `tools/list` and `tools/call`.
 * @module
 */
/* eslint @typescript-eslint/no-empty-object-type: ['error', { allowInterfaces: 'with-single-extends' }]
  -- `interface X extends v.InferOutput<typeof X> {}` names a schema's type: declarations derive it lazily (TS2589, index.ts) */
import * as v from 'valibot'
import { IconSchema, JsonObject, MetaObject } from './common.ts'
import { ContentBlockSchema } from './content.ts'
import { complete, listResult } from './results.ts'

export const ToolAnnotations = v.looseObject({
  title: v.optional(v.string()),
  readOnlyHint: v.optional(v.boolean()),
  destructiveHint: v.optional(v.boolean()),
  idempotentHint: v.optional(v.boolean()),
  openWorldHint: v.optional(v.boolean()),
})

/** `Tool`: a tool definition as listed by `tools/list`. */
export const Tool = v.looseObject({
  name: v.string(),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  inputSchema: v.looseObject({ type: v.literal('object') }),
  outputSchema: v.optional(JsonObject),
  annotations: v.optional(ToolAnnotations),
  icons: v.optional(v.array(IconSchema)),
  execution: v.optional(JsonObject),
  _meta: v.optional(MetaObject),
})
export interface Tool extends v.InferOutput<typeof Tool> {}
/** `Tool` typed by its interface, for embedding. */
export const ToolSchema: v.GenericSchema<Tool> = Tool

/** `CallToolResult`: a complete tool result. Tool failures are `isError: true`, not JSON-RPC errors. */
export const CallToolResult = complete({
  content: v.array(ContentBlockSchema),
  structuredContent: v.optional(v.unknown()),
  isError: v.optional(v.boolean()),
})
export type CallToolResult = v.InferOutput<typeof CallToolResult>

export const ListToolsResult = /* @__PURE__ */ listResult('tools', ToolSchema)
export type ListToolsResult = v.InferOutput<typeof ListToolsResult>
