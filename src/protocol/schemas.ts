/**
 * MCP 2026-07-28 wire types as valibot schemas (source: `schema/2026-07-28/schema.ts` of the spec).
 * Objects are loose: unknown members are kept, as the spec asks receivers to tolerate them.
 * Each schema has a same-named type: `type CallToolResult = v.InferOutput<typeof CallToolResult>`.
 *
 * Declarations: a consumer compiling against the .d.ts (with `skipLibCheck`) derives a schema's type
 * top-down in one go, and a deep tree exceeds TypeScript's instantiation depth (TS2589, see
 * test/dts.test.ts). So the big subtrees are cut: their types are interfaces (or unions of interfaces)
 * and the composites embed them through a `…Schema: v.GenericSchema<T>` alias of the same schema object,
 * so each subtree is derived on its own, when first needed.
 * @module
 */
import * as v from 'valibot'
import { META } from './constants.ts'

const JsonObject = v.record(v.string(), v.unknown())

/** `_meta` on any object: a map of namespaced keys. */
export const MetaObject = JsonObject
export type MetaObject = v.InferOutput<typeof MetaObject>

/** `RequestId`: a string or a number (never null). */
export const RequestId = v.union([v.string(), v.number()])
export type RequestId = v.InferOutput<typeof RequestId>

export const Icon = v.looseObject({
  src: v.string(),
  mimeType: v.optional(v.string()),
  sizes: v.optional(v.array(v.string())),
  theme: v.optional(v.picklist(['light', 'dark'])),
})
export interface Icon extends v.InferOutput<typeof Icon> {}
const IconSchema: v.GenericSchema<Icon> = Icon

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
const RequestMetaSchema: v.GenericSchema<RequestMeta> = RequestMeta

// ---------------------------------------------------------------- JSON-RPC framing

export const JSONRPCRequest = v.object({
  jsonrpc: v.literal('2.0'),
  id: RequestId,
  method: v.string(),
  params: v.optional(JsonObject),
})
export type JSONRPCRequest = v.InferOutput<typeof JSONRPCRequest>

export const JSONRPCNotification = v.object({
  jsonrpc: v.literal('2.0'),
  method: v.string(),
  params: v.optional(JsonObject),
})
export type JSONRPCNotification = v.InferOutput<typeof JSONRPCNotification>

export const ErrorObject = v.looseObject({
  code: v.pipe(v.number(), v.integer()),
  message: v.string(),
  data: v.optional(v.unknown()),
})
export type ErrorObject = v.InferOutput<typeof ErrorObject>

export const JSONRPCResultResponse = v.object({ jsonrpc: v.literal('2.0'), id: RequestId, result: JsonObject })
export type JSONRPCResultResponse = v.InferOutput<typeof JSONRPCResultResponse>

export const JSONRPCErrorResponse = v.object({
  jsonrpc: v.literal('2.0'),
  id: v.optional(v.nullable(RequestId)),
  error: ErrorObject,
})
export type JSONRPCErrorResponse = v.InferOutput<typeof JSONRPCErrorResponse>

export const JSONRPCResponse = v.union([JSONRPCResultResponse, JSONRPCErrorResponse])
export type JSONRPCResponse = v.InferOutput<typeof JSONRPCResponse>

// ---------------------------------------------------------------- content

const Annotations = v.looseObject({
  audience: v.optional(v.array(v.picklist(['user', 'assistant']))),
  priority: v.optional(v.number()),
  lastModified: v.optional(v.string()),
})
const base = { annotations: v.optional(Annotations), _meta: v.optional(MetaObject) }

export const TextContent = v.looseObject({ type: v.literal('text'), text: v.string(), ...base })
export interface TextContent extends v.InferOutput<typeof TextContent> {}
export const ImageContent = v.looseObject({ type: v.literal('image'), data: v.string(), mimeType: v.string(), ...base })
export interface ImageContent extends v.InferOutput<typeof ImageContent> {}
export const AudioContent = v.looseObject({ type: v.literal('audio'), data: v.string(), mimeType: v.string(), ...base })
export interface AudioContent extends v.InferOutput<typeof AudioContent> {}

export const TextResourceContents = v.looseObject({
  uri: v.string(),
  mimeType: v.optional(v.string()),
  text: v.string(),
  _meta: v.optional(MetaObject),
})
export const BlobResourceContents = v.looseObject({
  uri: v.string(),
  mimeType: v.optional(v.string()),
  blob: v.string(),
  _meta: v.optional(MetaObject),
})
export const ResourceContents = v.union([TextResourceContents, BlobResourceContents])

export const ResourceLink = v.looseObject({
  type: v.literal('resource_link'),
  uri: v.string(),
  name: v.string(),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  mimeType: v.optional(v.string()),
  size: v.optional(v.number()),
  icons: v.optional(v.array(IconSchema)),
  ...base,
})
export interface ResourceLink extends v.InferOutput<typeof ResourceLink> {}
export const EmbeddedResource = v.looseObject({ type: v.literal('resource'), resource: ResourceContents, ...base })
export interface EmbeddedResource extends v.InferOutput<typeof EmbeddedResource> {}

/** `ContentBlock`: what tools and prompts return. */
export const ContentBlock = v.variant('type', [TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource])
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource
const ContentBlockSchema: v.GenericSchema<ContentBlock> = ContentBlock

export const ToolUseContent = v.looseObject({
  type: v.literal('tool_use'),
  id: v.string(),
  name: v.string(),
  input: JsonObject,
  _meta: v.optional(MetaObject),
})
export type ToolUseContent = v.InferOutput<typeof ToolUseContent>
export const ToolResultContent = v.looseObject({
  type: v.literal('tool_result'),
  toolUseId: v.string(),
  content: v.array(ContentBlockSchema),
  structuredContent: v.optional(v.unknown()),
  isError: v.optional(v.boolean()),
  _meta: v.optional(MetaObject),
})
export type ToolResultContent = v.InferOutput<typeof ToolResultContent>

const SamplingContentBlock = v.variant('type', [
  TextContent,
  ImageContent,
  AudioContent,
  ToolUseContent,
  ToolResultContent,
])
export const SamplingMessage = v.looseObject({
  role: v.picklist(['user', 'assistant']),
  content: v.union([SamplingContentBlock, v.array(SamplingContentBlock)]),
  _meta: v.optional(MetaObject),
})
export interface SamplingMessage extends v.InferOutput<typeof SamplingMessage> {}
const SamplingMessageSchema: v.GenericSchema<SamplingMessage> = SamplingMessage

// ---------------------------------------------------------------- tools

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
const ToolSchema: v.GenericSchema<Tool> = Tool

// ---------------------------------------------------------------- elicitation, sampling, roots

const StringSchema = v.looseObject({
  type: v.literal('string'),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  minLength: v.optional(v.number()),
  maxLength: v.optional(v.number()),
  format: v.optional(v.string()),
  default: v.optional(v.string()),
  enum: v.optional(v.array(v.string())),
  enumNames: v.optional(v.array(v.string())),
  oneOf: v.optional(v.array(v.looseObject({ const: v.string(), title: v.string() }))),
})
const NumberSchema = v.looseObject({
  type: v.picklist(['number', 'integer']),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  minimum: v.optional(v.number()),
  maximum: v.optional(v.number()),
  default: v.optional(v.number()),
})
const BooleanSchema = v.looseObject({
  type: v.literal('boolean'),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  default: v.optional(v.boolean()),
})
const MultiSelectSchema = v.looseObject({
  type: v.literal('array'),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  minItems: v.optional(v.number()),
  maxItems: v.optional(v.number()),
  items: v.union([
    v.looseObject({ type: v.literal('string'), enum: v.array(v.string()) }),
    v.looseObject({ anyOf: v.array(v.looseObject({ const: v.string(), title: v.string() })) }),
  ]),
  default: v.optional(v.array(v.string())),
})
/** `PrimitiveSchemaDefinition`: one field of a form-mode elicitation schema (flat: no nesting). */
export const PrimitiveSchemaDefinition = v.union([StringSchema, NumberSchema, BooleanSchema, MultiSelectSchema])
export type PrimitiveSchemaDefinition = v.InferOutput<typeof PrimitiveSchemaDefinition>
export { StringSchema, NumberSchema, BooleanSchema, MultiSelectSchema }

/** The `requestedSchema` of a form-mode elicitation: a flat object of primitives. */
export const RequestedSchema = v.looseObject({
  $schema: v.optional(v.string()),
  type: v.literal('object'),
  properties: v.record(v.string(), PrimitiveSchemaDefinition),
  required: v.optional(v.array(v.string())),
})
export interface RequestedSchema extends v.InferOutput<typeof RequestedSchema> {}
const RequestedSchemaSchema: v.GenericSchema<RequestedSchema> = RequestedSchema

export const ElicitRequestFormParams = v.looseObject({
  mode: v.optional(v.literal('form')),
  message: v.string(),
  requestedSchema: RequestedSchemaSchema,
  _meta: v.optional(MetaObject),
})
export type ElicitRequestFormParams = v.InferOutput<typeof ElicitRequestFormParams>

export const ElicitRequestURLParams = v.looseObject({
  mode: v.literal('url'),
  message: v.string(),
  url: v.pipe(v.string(), v.url()),
  _meta: v.optional(MetaObject),
})
export type ElicitRequestURLParams = v.InferOutput<typeof ElicitRequestURLParams>

export const ElicitRequestParams = v.union([ElicitRequestURLParams, ElicitRequestFormParams])
export type ElicitRequestParams = v.InferOutput<typeof ElicitRequestParams>

/** `ElicitResult`: the user's answer. `content` only with `accept` in form mode. */
export const ElicitResult = v.looseObject({
  action: v.picklist(['accept', 'decline', 'cancel']),
  content: v.optional(v.record(v.string(), v.union([v.string(), v.number(), v.boolean(), v.array(v.string())]))),
  _meta: v.optional(MetaObject),
})
export interface ElicitResult extends v.InferOutput<typeof ElicitResult> {}

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

// ---------------------------------------------------------------- MRTR

/** An elicitation request embedded in `inputRequests` (bare `{method, params}`, no id). */
export const ElicitRequest = v.looseObject({ method: v.literal('elicitation/create'), params: ElicitRequestParams })
export interface ElicitRequest extends v.InferOutput<typeof ElicitRequest> {}
export const CreateMessageRequest = v.looseObject({
  method: v.literal('sampling/createMessage'),
  params: CreateMessageRequestParams,
})
export interface CreateMessageRequest extends v.InferOutput<typeof CreateMessageRequest> {}
export const ListRootsRequest = v.looseObject({
  method: v.literal('roots/list'),
  params: v.optional(v.looseObject({ _meta: v.optional(MetaObject) })),
})
export interface ListRootsRequest extends v.InferOutput<typeof ListRootsRequest> {}

/** `InputRequest`: what a server may ask the client for inside an `InputRequiredResult`. */
export const InputRequest = v.variant('method', [ElicitRequest, CreateMessageRequest, ListRootsRequest])
export type InputRequest = ElicitRequest | CreateMessageRequest | ListRootsRequest
const InputRequestSchema: v.GenericSchema<InputRequest> = InputRequest
export const InputRequests = v.record(v.string(), InputRequestSchema)
export type InputRequests = v.InferOutput<typeof InputRequests>

/** `InputResponse`: the bare result answering one `InputRequest` (no `resultType`). */
export const InputResponse = v.union([ElicitResult, CreateMessageResult, ListRootsResult])
export type InputResponse = ElicitResult | CreateMessageResult | ListRootsResult
const InputResponseSchema: v.GenericSchema<InputResponse> = InputResponse
export const InputResponses = v.record(v.string(), InputResponseSchema)
export type InputResponses = v.InferOutput<typeof InputResponses>

/** `InputRequiredResult`: "ask the client, then retry" (spec: basic/patterns/mrtr.mdx). */
export const InputRequiredResult = v.looseObject({
  resultType: v.literal('input_required'),
  inputRequests: v.optional(InputRequests),
  requestState: v.optional(v.string()),
  _meta: v.optional(MetaObject),
})
export type InputRequiredResult = v.InferOutput<typeof InputRequiredResult>

// ---------------------------------------------------------------- requests and results

const RequestParamsBase = { _meta: RequestMetaSchema }

export const CallToolRequestParams = v.looseObject({
  ...RequestParamsBase,
  name: v.string(),
  arguments: v.optional(v.nullable(JsonObject)),
  inputResponses: v.optional(InputResponses),
  requestState: v.optional(v.nullable(v.string())),
})
export type CallToolRequestParams = v.InferOutput<typeof CallToolRequestParams>

export const CallToolRequest = v.object({
  jsonrpc: v.literal('2.0'),
  id: RequestId,
  method: v.literal('tools/call'),
  params: CallToolRequestParams,
})

export const PaginatedRequestParams = v.looseObject({ ...RequestParamsBase, cursor: v.optional(v.string()) })
export const ListToolsRequest = v.object({
  jsonrpc: v.literal('2.0'),
  id: RequestId,
  method: v.literal('tools/list'),
  params: PaginatedRequestParams,
})
export const DiscoverRequest = v.object({
  jsonrpc: v.literal('2.0'),
  id: RequestId,
  method: v.literal('server/discover'),
  params: v.looseObject(RequestParamsBase),
})

const ResultBase = { _meta: v.optional(MetaObject) }
const Cacheable = {
  ttlMs: v.pipe(v.number(), v.integer(), v.minValue(0)),
  cacheScope: v.picklist(['public', 'private']),
}

/** `CallToolResult`: a complete tool result. Tool failures are `isError: true`, not JSON-RPC errors. */
export const CallToolResult = v.looseObject({
  resultType: v.optional(v.literal('complete')),
  content: v.array(ContentBlockSchema),
  structuredContent: v.optional(v.unknown()),
  isError: v.optional(v.boolean()),
  ...ResultBase,
})
export type CallToolResult = v.InferOutput<typeof CallToolResult>

export const ListToolsResult = v.looseObject({
  resultType: v.optional(v.literal('complete')),
  tools: v.array(ToolSchema),
  nextCursor: v.optional(v.string()),
  ...Cacheable,
  ...ResultBase,
})
export type ListToolsResult = v.InferOutput<typeof ListToolsResult>

/** `DiscoverResult`: versions, capabilities and cache hints; serverInfo travels in `_meta`. */
export const DiscoverResult = v.looseObject({
  resultType: v.optional(v.literal('complete')),
  supportedVersions: v.array(v.string()),
  capabilities: ServerCapabilities,
  instructions: v.optional(v.string()),
  ...Cacheable,
  ...ResultBase,
})
export type DiscoverResult = v.InferOutput<typeof DiscoverResult>

export const CancelledNotificationParams = v.looseObject({
  requestId: v.optional(RequestId),
  reason: v.optional(v.string()),
  _meta: v.optional(MetaObject),
})
export const CancelledNotification = v.object({
  jsonrpc: v.literal('2.0'),
  method: v.literal('notifications/cancelled'),
  params: CancelledNotificationParams,
})

// ---------------------------------------------------------------- prompts

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
  icons: v.optional(v.array(IconSchema)),
  _meta: v.optional(MetaObject),
})
export type Prompt = v.InferOutput<typeof Prompt>

export const PromptMessage = v.looseObject({ role: v.picklist(['user', 'assistant']), content: ContentBlockSchema })
export type PromptMessage = v.InferOutput<typeof PromptMessage>

export const ListPromptsResult = v.looseObject({
  resultType: v.optional(v.literal('complete')),
  prompts: v.array(Prompt),
  nextCursor: v.optional(v.string()),
  ...Cacheable,
  ...ResultBase,
})
export type ListPromptsResult = v.InferOutput<typeof ListPromptsResult>

/** `GetPromptResult`: the messages of a prompt. */
export const GetPromptResult = v.looseObject({
  resultType: v.optional(v.literal('complete')),
  description: v.optional(v.string()),
  messages: v.array(PromptMessage),
  ...ResultBase,
})
export type GetPromptResult = v.InferOutput<typeof GetPromptResult>

export const GetPromptRequestParams = v.looseObject({
  ...RequestParamsBase,
  name: v.string(),
  arguments: v.optional(v.record(v.string(), v.string())),
  inputResponses: v.optional(InputResponses),
  requestState: v.optional(v.nullable(v.string())),
})
export const GetPromptRequest = v.object({
  jsonrpc: v.literal('2.0'),
  id: RequestId,
  method: v.literal('prompts/get'),
  params: GetPromptRequestParams,
})
export const ListPromptsRequest = v.object({
  jsonrpc: v.literal('2.0'),
  id: RequestId,
  method: v.literal('prompts/list'),
  params: PaginatedRequestParams,
})

// ---------------------------------------------------------------- resources

/** `Resource`: a concrete resource as listed by `resources/list`. */
export const Resource = v.looseObject({
  uri: v.string(),
  name: v.string(),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  mimeType: v.optional(v.string()),
  size: v.optional(v.number()),
  annotations: v.optional(Annotations),
  icons: v.optional(v.array(IconSchema)),
  _meta: v.optional(MetaObject),
})
export type Resource = v.InferOutput<typeof Resource>

/** `ResourceTemplate`: an RFC 6570 URI template as listed by `resources/templates/list`. */
export const ResourceTemplate = v.looseObject({
  uriTemplate: v.string(),
  name: v.string(),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  mimeType: v.optional(v.string()),
  annotations: v.optional(Annotations),
  icons: v.optional(v.array(IconSchema)),
  _meta: v.optional(MetaObject),
})
export type ResourceTemplate = v.InferOutput<typeof ResourceTemplate>

export const ListResourcesResult = v.looseObject({
  resultType: v.optional(v.literal('complete')),
  resources: v.array(Resource),
  nextCursor: v.optional(v.string()),
  ...Cacheable,
  ...ResultBase,
})
export type ListResourcesResult = v.InferOutput<typeof ListResourcesResult>

export const ListResourceTemplatesResult = v.looseObject({
  resultType: v.optional(v.literal('complete')),
  resourceTemplates: v.array(ResourceTemplate),
  nextCursor: v.optional(v.string()),
  ...Cacheable,
  ...ResultBase,
})
export type ListResourceTemplatesResult = v.InferOutput<typeof ListResourceTemplatesResult>

/** `ReadResourceResult`: the contents of a resource; cacheable (ttlMs/cacheScope) when complete. */
export const ReadResourceResult = v.looseObject({
  resultType: v.optional(v.literal('complete')),
  contents: v.array(ResourceContents),
  ttlMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  cacheScope: v.optional(v.picklist(['public', 'private'])),
  ...ResultBase,
})
export type ReadResourceResult = v.InferOutput<typeof ReadResourceResult>

export const ReadResourceRequestParams = v.looseObject({
  ...RequestParamsBase,
  uri: v.string(),
  inputResponses: v.optional(InputResponses),
  requestState: v.optional(v.nullable(v.string())),
})
export const ReadResourceRequest = v.object({
  jsonrpc: v.literal('2.0'),
  id: RequestId,
  method: v.literal('resources/read'),
  params: ReadResourceRequestParams,
})
export const ListResourcesRequest = v.object({
  jsonrpc: v.literal('2.0'),
  id: RequestId,
  method: v.literal('resources/list'),
  params: PaginatedRequestParams,
})
export const ListResourceTemplatesRequest = v.object({
  jsonrpc: v.literal('2.0'),
  id: RequestId,
  method: v.literal('resources/templates/list'),
  params: PaginatedRequestParams,
})

// ---------------------------------------------------------------- completion

export const PromptReference = v.looseObject({
  type: v.literal('ref/prompt'),
  name: v.string(),
  title: v.optional(v.string()),
})
export const ResourceTemplateReference = v.looseObject({ type: v.literal('ref/resource'), uri: v.string() })

export const CompleteRequestParams = v.looseObject({
  ...RequestParamsBase,
  ref: v.variant('type', [PromptReference, ResourceTemplateReference]),
  argument: v.looseObject({ name: v.string(), value: v.string() }),
  context: v.optional(v.looseObject({ arguments: v.optional(v.record(v.string(), v.string())) })),
})
export type CompleteRequestParams = v.InferOutput<typeof CompleteRequestParams>
export const CompleteRequest = v.object({
  jsonrpc: v.literal('2.0'),
  id: RequestId,
  method: v.literal('completion/complete'),
  params: CompleteRequestParams,
})

/** `CompleteResult`: at most 100 suggested values. */
export const CompleteResult = v.looseObject({
  resultType: v.optional(v.literal('complete')),
  completion: v.looseObject({
    values: v.pipe(v.array(v.string()), v.maxLength(100)),
    total: v.optional(v.pipe(v.number(), v.integer())),
    hasMore: v.optional(v.boolean()),
  }),
  ...ResultBase,
})
export type CompleteResult = v.InferOutput<typeof CompleteResult>

// ---------------------------------------------------------------- subscriptions (spec: basic/patterns/subscriptions.mdx)

/** `SubscriptionFilter`: the notification kinds a client opts in to on `subscriptions/listen` (all optional). */
export const SubscriptionFilter = v.looseObject({
  toolsListChanged: v.optional(v.boolean()),
  promptsListChanged: v.optional(v.boolean()),
  resourcesListChanged: v.optional(v.boolean()),
  resourceSubscriptions: v.optional(v.array(v.string())),
})
export type SubscriptionFilter = v.InferOutput<typeof SubscriptionFilter>

export const SubscriptionsListenRequestParams = v.looseObject({
  ...RequestParamsBase,
  notifications: SubscriptionFilter,
})
export type SubscriptionsListenRequestParams = v.InferOutput<typeof SubscriptionsListenRequestParams>
export const SubscriptionsListenRequest = v.object({
  jsonrpc: v.literal('2.0'),
  id: RequestId,
  method: v.literal('subscriptions/listen'),
  params: SubscriptionsListenRequestParams,
})

/** `_meta` of every message on a listen stream: the JSON-RPC id of the `subscriptions/listen` request. */
const SubscriptionMeta = v.looseObject({ [META.subscriptionId]: RequestId })

/** `SubscriptionsListenResult`: the graceful end of a subscription (no other data). */
export const SubscriptionsListenResult = v.looseObject({ resultType: v.string(), _meta: SubscriptionMeta })
export type SubscriptionsListenResult = v.InferOutput<typeof SubscriptionsListenResult>
export const SubscriptionsListenResultResponse = v.object({
  jsonrpc: v.literal('2.0'),
  id: RequestId,
  result: SubscriptionsListenResult,
})

/** `notifications/subscriptions/acknowledged`: the first message of a listen stream, with the honoured subset. */
export const SubscriptionsAcknowledgedNotification = v.object({
  jsonrpc: v.literal('2.0'),
  method: v.literal('notifications/subscriptions/acknowledged'),
  params: v.looseObject({ _meta: v.optional(MetaObject), notifications: SubscriptionFilter }),
})
export type SubscriptionsAcknowledgedNotification = v.InferOutput<typeof SubscriptionsAcknowledgedNotification>

const listChanged = <M extends string>(method: M) =>
  v.object({
    jsonrpc: v.literal('2.0'),
    method: v.literal(method),
    params: v.optional(v.looseObject({ _meta: v.optional(MetaObject) })),
  })
export const ToolListChangedNotification = listChanged('notifications/tools/list_changed')
export const PromptListChangedNotification = listChanged('notifications/prompts/list_changed')
export const ResourceListChangedNotification = listChanged('notifications/resources/list_changed')

export const ResourceUpdatedNotificationParams = v.looseObject({ _meta: v.optional(MetaObject), uri: v.string() })
export const ResourceUpdatedNotification = v.object({
  jsonrpc: v.literal('2.0'),
  method: v.literal('notifications/resources/updated'),
  params: ResourceUpdatedNotificationParams,
})
export type ResourceUpdatedNotification = v.InferOutput<typeof ResourceUpdatedNotification>
