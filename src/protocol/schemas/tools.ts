/**
 * Tools: the definition `tools/list` lists, and the results of `tools/list` and `tools/call`.
 * @module
 */
/* eslint @typescript-eslint/no-empty-object-type: ['error', { allowInterfaces: 'with-single-extends' }]
  -- `interface X extends v.InferOutput<typeof X> {}` names a schema's type: declarations derive it lazily (TS2589, index.ts) */
import * as v from 'valibot'
import { icon, jsonObject, once } from './common.ts'
import { contentBlock } from './content.ts'
import { complete, listResult } from './results.ts'

const toolAnnotations = /* @__PURE__ */ once(() =>
  v.looseObject({
    title: v.optional(v.string()),
    readOnlyHint: v.optional(v.boolean()),
    destructiveHint: v.optional(v.boolean()),
    idempotentHint: v.optional(v.boolean()),
    openWorldHint: v.optional(v.boolean()),
  }),
)
export const ToolAnnotations = /* @__PURE__ */ toolAnnotations()

/** `Tool`: a tool definition as listed by `tools/list`. */
const buildTool = /* @__PURE__ */ once(() =>
  v.looseObject({
    name: v.string(),
    title: v.optional(v.string()),
    description: v.optional(v.string()),
    inputSchema: v.looseObject({ type: v.literal('object') }),
    outputSchema: v.optional(jsonObject()),
    annotations: v.optional(toolAnnotations()),
    icons: v.optional(v.array(icon())),
    execution: v.optional(jsonObject()),
    _meta: v.optional(jsonObject()),
  }),
)
export const Tool = /* @__PURE__ */ buildTool()
export interface Tool extends v.InferOutput<typeof Tool> {}
/** `Tool`'s getter, typed by its interface, for embedding. */
export const tool: () => v.GenericSchema<Tool> = buildTool

/** `CallToolResult`: a complete tool result. Tool failures are `isError: true`, not JSON-RPC errors. */
export const callToolResult = /* @__PURE__ */ once(() =>
  complete({
    content: v.array(contentBlock()),
    structuredContent: v.optional(v.unknown()),
    isError: v.optional(v.boolean()),
  }),
)
export const CallToolResult = /* @__PURE__ */ callToolResult()
export type CallToolResult = v.InferOutput<typeof CallToolResult>

export const ListToolsResult = /* @__PURE__ */ (() => listResult('tools', tool()))()
export type ListToolsResult = v.InferOutput<typeof ListToolsResult>
