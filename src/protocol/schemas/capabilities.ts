/**
 * Who is talking and what it can do: `Implementation`, client and server capabilities, the per-request
 * `_meta` envelope, and the `server/discover` result.
 * @module
 */
/* eslint @typescript-eslint/no-empty-object-type: ['error', { allowInterfaces: 'with-single-extends' }]
  -- `interface X extends v.InferOutput<typeof X> {}` names a schema's type: declarations derive it lazily (TS2589, index.ts) */
import * as v from 'valibot'
import { LOGGING_LEVELS, META } from '../constants.ts'
import { icon, jsonObject, JsonObject, once } from './common.ts'
import { cacheable, complete } from './results.ts'

/** `Implementation`: the name and version of a client or server. */
const buildImplementation = /* @__PURE__ */ once(() =>
  v.looseObject({
    name: v.string(),
    version: v.string(),
    title: v.optional(v.string()),
    description: v.optional(v.string()),
    websiteUrl: v.optional(v.string()),
    icons: v.optional(v.array(icon())),
  }),
)
export const Implementation = /* @__PURE__ */ buildImplementation()
export interface Implementation extends v.InferOutput<typeof Implementation> {}
const implementation: () => v.GenericSchema<Implementation> = buildImplementation

/** `ClientCapabilities`, declared per request in the envelope. `elicitation: {}` means form mode only. */
const buildClientCapabilities = /* @__PURE__ */ once(() => {
  const json = jsonObject()
  return v.looseObject({
    experimental: v.optional(json),
    extensions: v.optional(json),
    roots: v.optional(json),
    sampling: v.optional(v.looseObject({ context: v.optional(json), tools: v.optional(json) })),
    elicitation: v.optional(v.looseObject({ form: v.optional(json), url: v.optional(json) })),
  })
})
export const ClientCapabilities = /* @__PURE__ */ buildClientCapabilities()
export interface ClientCapabilities extends v.InferOutput<typeof ClientCapabilities> {}
const clientCapabilities: () => v.GenericSchema<ClientCapabilities> = buildClientCapabilities

/** `ServerCapabilities`, advertised by `server/discover`. */
export const ServerCapabilities = /* @__PURE__ */ (() =>
  v.looseObject({
    experimental: v.optional(JsonObject),
    extensions: v.optional(JsonObject),
    logging: v.optional(JsonObject),
    completions: v.optional(JsonObject),
    prompts: v.optional(v.looseObject({ listChanged: v.optional(v.boolean()) })),
    resources: v.optional(v.looseObject({ subscribe: v.optional(v.boolean()), listChanged: v.optional(v.boolean()) })),
    tools: v.optional(v.looseObject({ listChanged: v.optional(v.boolean()) })),
  }))()
export type ServerCapabilities = v.InferOutput<typeof ServerCapabilities>

/** `LoggingLevel`: the syslog severities (RFC 5424), least severe first. */
export const loggingLevel = /* @__PURE__ */ once(() => v.picklist(LOGGING_LEVELS))
export const LoggingLevel = /* @__PURE__ */ loggingLevel()
export type LoggingLevel = v.InferOutput<typeof LoggingLevel>

/** `RequestMetaObject`: the per-request envelope. protocolVersion and clientCapabilities are required. */
const buildRequestMeta = /* @__PURE__ */ once(() =>
  v.looseObject({
    [META.protocolVersion]: v.string(),
    [META.clientCapabilities]: clientCapabilities(),
    [META.clientInfo]: v.optional(implementation()),
    [META.logLevel]: v.optional(loggingLevel()),
    progressToken: v.optional(v.union([v.string(), v.number()])),
  }),
)
export const RequestMeta = /* @__PURE__ */ buildRequestMeta()
export interface RequestMeta extends v.InferOutput<typeof RequestMeta> {}
/** `RequestMeta`'s getter, typed by its interface, for embedding in request params. */
export const requestMeta: () => v.GenericSchema<RequestMeta> = buildRequestMeta

/** `DiscoverResult`: versions, capabilities and cache hints; serverInfo travels in `_meta`. */
export const DiscoverResult = /* @__PURE__ */ (() =>
  complete({
    supportedVersions: v.array(v.string()),
    capabilities: ServerCapabilities,
    instructions: v.optional(v.string()),
    ...cacheable(),
  }))()
export type DiscoverResult = v.InferOutput<typeof DiscoverResult>
