/**
 * The requests a client sends for tools, prompts, resources and discovery: their params (each with the
 * required `_meta` envelope) and their JSON-RPC envelopes.
 * @module
 */
import * as v from 'valibot'
import { JsonObject } from './common.ts'
import { requestMeta } from './capabilities.ts'
import { retryParams } from './input-required.ts'
import { request } from './jsonrpc.ts'

/** The entries every request's params have: the `_meta` envelope (required). */
export const requestParamsBase = () => ({ _meta: requestMeta() })

export const PaginatedRequestParams = /* @__PURE__ */ (() =>
  v.looseObject({ ...requestParamsBase(), cursor: v.optional(v.string()) }))()

export const DiscoverRequest = /* @__PURE__ */ request(
  'server/discover',
  /* @__PURE__ */ v.looseObject(/* @__PURE__ */ requestParamsBase()),
)

// ---------------------------------------------------------------- tools

export const CallToolRequestParams = /* @__PURE__ */ (() =>
  v.looseObject({
    ...requestParamsBase(),
    name: v.string(),
    arguments: v.optional(v.nullable(JsonObject)),
    ...retryParams(),
  }))()
export type CallToolRequestParams = v.InferOutput<typeof CallToolRequestParams>
export const CallToolRequest = /* @__PURE__ */ request('tools/call', CallToolRequestParams)
export const ListToolsRequest = /* @__PURE__ */ request('tools/list', PaginatedRequestParams)

// ---------------------------------------------------------------- prompts

export const GetPromptRequestParams = /* @__PURE__ */ (() =>
  v.looseObject({
    ...requestParamsBase(),
    name: v.string(),
    arguments: v.optional(v.record(v.string(), v.string())),
    ...retryParams(),
  }))()
export const GetPromptRequest = /* @__PURE__ */ request('prompts/get', GetPromptRequestParams)
export const ListPromptsRequest = /* @__PURE__ */ request('prompts/list', PaginatedRequestParams)

// ---------------------------------------------------------------- resources

export const ReadResourceRequestParams = /* @__PURE__ */ (() =>
  v.looseObject({ ...requestParamsBase(), uri: v.string(), ...retryParams() }))()
export const ReadResourceRequest = /* @__PURE__ */ request('resources/read', ReadResourceRequestParams)
export const ListResourcesRequest = /* @__PURE__ */ request('resources/list', PaginatedRequestParams)
export const ListResourceTemplatesRequest = /* @__PURE__ */ request('resources/templates/list', PaginatedRequestParams)
