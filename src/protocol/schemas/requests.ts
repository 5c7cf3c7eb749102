/**
 * The requests a client sends for tools, prompts, resources and discovery: their params (each with the
 * required `_meta` envelope) and their JSON-RPC envelopes.
 * @module
 */
import * as v from 'valibot'
import { JsonObject } from './common.ts'
import { RequestMetaSchema } from './capabilities.ts'
import { RetryParams } from './input-required.ts'
import { request } from './jsonrpc.ts'

/** The entries every request's params have: the `_meta` envelope (required). */
export const RequestParamsBase = { _meta: RequestMetaSchema }

export const PaginatedRequestParams = v.looseObject({ ...RequestParamsBase, cursor: v.optional(v.string()) })

export const DiscoverRequest = /* @__PURE__ */ request(
  'server/discover',
  /* @__PURE__ */ v.looseObject(RequestParamsBase),
)

// ---------------------------------------------------------------- tools

export const CallToolRequestParams = v.looseObject({
  ...RequestParamsBase,
  name: v.string(),
  arguments: v.optional(v.nullable(JsonObject)),
  ...RetryParams,
})
export type CallToolRequestParams = v.InferOutput<typeof CallToolRequestParams>
export const CallToolRequest = /* @__PURE__ */ request('tools/call', CallToolRequestParams)
export const ListToolsRequest = /* @__PURE__ */ request('tools/list', PaginatedRequestParams)

// ---------------------------------------------------------------- prompts

export const GetPromptRequestParams = v.looseObject({
  ...RequestParamsBase,
  name: v.string(),
  arguments: v.optional(v.record(v.string(), v.string())),
  ...RetryParams,
})
export const GetPromptRequest = /* @__PURE__ */ request('prompts/get', GetPromptRequestParams)
export const ListPromptsRequest = /* @__PURE__ */ request('prompts/list', PaginatedRequestParams)

// ---------------------------------------------------------------- resources

export const ReadResourceRequestParams = v.looseObject({
  ...RequestParamsBase,
  uri: v.string(),
  ...RetryParams,
})
export const ReadResourceRequest = /* @__PURE__ */ request('resources/read', ReadResourceRequestParams)
export const ListResourcesRequest = /* @__PURE__ */ request('resources/list', PaginatedRequestParams)
export const ListResourceTemplatesRequest = /* @__PURE__ */ request('resources/templates/list', PaginatedRequestParams)
