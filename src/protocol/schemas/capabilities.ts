/**
 * Who is talking and what it can do: `Implementation`, client and server capabilities, the per-request
 * `_meta` envelope, and the `server/discover` result.
 * @module
 */
/* eslint @typescript-eslint/no-empty-object-type: ['error', { allowInterfaces: 'with-single-extends' }]
  -- `interface X extends v.InferOutput<typeof X> {}` names a schema's type: declarations derive it lazily (TS2589, index.ts) */
import * as v from 'valibot'
import { META } from '../constants.ts'
import { IconSchema, JsonObject } from './common.ts'
import { Cacheable, complete } from './results.ts'

/** `Implementation`: the name and version of a client or server. */
export const Implementation = v.looseObject({
  name: v.string(),
  version: v.string(),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  websiteUrl: v.optional(v.string()),
  icons: v.optional(v.array(IconSchema)),
})
export interface Implementation extends v.InferOutput<typeof Implementation> {}
const ImplementationSchema: v.GenericSchema<Implementation> = Implementation

/** `ClientCapabilities`, declared per request in the envelope. `elicitation: {}` means form mode only. */
export const ClientCapabilities = v.looseObject({
  experimental: v.optional(JsonObject),
  extensions: v.optional(JsonObject),
  roots: v.optional(JsonObject),
  sampling: v.optional(v.looseObject({ context: v.optional(JsonObject), tools: v.optional(JsonObject) })),
  elicitation: v.optional(v.looseObject({ form: v.optional(JsonObject), url: v.optional(JsonObject) })),
})
export interface ClientCapabilities extends v.InferOutput<typeof ClientCapabilities> {}
const ClientCapabilitiesSchema: v.GenericSchema<ClientCapabilities> = ClientCapabilities

/** `ServerCapabilities`, advertised by `server/discover`. */
export const ServerCapabilities = v.looseObject({
  experimental: v.optional(JsonObject),
  extensions: v.optional(JsonObject),
  logging: v.optional(JsonObject),
  completions: v.optional(JsonObject),
  prompts: v.optional(v.looseObject({ listChanged: v.optional(v.boolean()) })),
  resources: v.optional(v.looseObject({ subscribe: v.optional(v.boolean()), listChanged: v.optional(v.boolean()) })),
  tools: v.optional(v.looseObject({ listChanged: v.optional(v.boolean()) })),
})
export type ServerCapabilities = v.InferOutput<typeof ServerCapabilities>

/** `LoggingLevel`: the syslog severities (RFC 5424), least severe first. */
export const LoggingLevel = v.picklist([
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
])
export type LoggingLevel = v.InferOutput<typeof LoggingLevel>

/** `RequestMetaObject`: the per-request envelope. protocolVersion and clientCapabilities are required. */
export const RequestMeta = v.looseObject({
  [META.protocolVersion]: v.string(),
  [META.clientCapabilities]: ClientCapabilitiesSchema,
  [META.clientInfo]: v.optional(ImplementationSchema),
  [META.logLevel]: v.optional(LoggingLevel),
  progressToken: v.optional(v.union([v.string(), v.number()])),
})
export interface RequestMeta extends v.InferOutput<typeof RequestMeta> {}
/** `RequestMeta` typed by its interface, for embedding in request params. */
export const RequestMetaSchema: v.GenericSchema<RequestMeta> = RequestMeta

/** `DiscoverResult`: versions, capabilities and cache hints; serverInfo travels in `_meta`. */
export const DiscoverResult = complete({
  supportedVersions: v.array(v.string()),
  capabilities: ServerCapabilities,
  instructions: v.optional(v.string()),
  ...Cacheable,
})
export type DiscoverResult = v.InferOutput<typeof DiscoverResult>
