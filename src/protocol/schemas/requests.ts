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

export const DiscoverRequest = request('server/discover', v.looseObject(RequestParamsBase))

// ---------------------------------------------------------------- tools

export const CallToolRequestParams = v.looseObject({
  ...RequestParamsBase,
  name: v.string(),
  arguments: v.optional(v.nullable(JsonObject)),
  ...RetryParams,
})
export type CallToolRequestParams = v.InferOutput<typeof CallToolRequestParams>
export const CallToolRequest = request('tools/call', CallToolRequestParams)
export const ListToolsRequest = request('tools/list', PaginatedRequestParams)

// ---------------------------------------------------------------- prompts

export const GetPromptRequestParams = v.looseObject({
  ...RequestParamsBase,
  name: v.string(),
  arguments: v.optional(v.record(v.string(), v.string())),
  ...RetryParams,
})
export const GetPromptRequest = request('prompts/get', GetPromptRequestParams)
export const ListPromptsRequest = request('prompts/list', PaginatedRequestParams)

// ---------------------------------------------------------------- resources

export const ReadResourceRequestParams = v.looseObject({
  ...RequestParamsBase,
  uri: v.string(),
  ...RetryParams,
})
export const ReadResourceRequest = request('resources/read', ReadResourceRequestParams)
export const ListResourcesRequest = request('resources/list', PaginatedRequestParams)
export const ListResourceTemplatesRequest = request('resources/templates/list', PaginatedRequestParams)
