/**
 * MCP 2026-07-28 wire types as valibot schemas (source: `schema/2026-07-28/schema.ts` of the spec), one
 * file per concern. Objects are loose: unknown members are kept, as the spec asks receivers to tolerate
 * them.
 *
 * Names: one per wire type, the spec's. `CallToolResult` is the schema and its type
 * (`type CallToolResult = v.InferOutput<typeof CallToolResult>`); on the client, src/client/checks.gen.ts
 * (generated from these schemas) exports the check and the type under the same name. The one other
 * spelling is the schema's getter, the name in lowerCamelCase (`callToolResult()`, see common.ts), which
 * returns the same object. No `…Schema` or `…Check` suffixes: `StringSchema` and `RequestedSchema` are
 * spec names.
 *
 * Declarations: a consumer compiling against the .d.ts (with `skipLibCheck`) derives a schema's type
 * top-down in one go, and a deep tree exceeds TypeScript's instantiation depth (TS2589, see
 * test/e2e/dts.test.ts). So the big subtrees are cut: their types are interfaces (or unions of interfaces),
 * their getters are typed by them (`tool: () => v.GenericSchema<Tool>`, widening the private `buildTool`
 * the type is derived from) and the composites embed them through the getter, so each subtree is derived
 * on its own, when first needed. The result helpers (results.ts) have explicit return types for the same
 * reason, and a list names its item's type (`listResult<'prompts', Prompt>`).
 *
 * This file is the public list: the files also export internals (the getters, the helpers), which stay
 * out of it.
 * @module
 */
export { MetaObject, RequestId, Icon } from './common.ts'
export {
  Implementation,
  ClientCapabilities,
  ServerCapabilities,
  LoggingLevel,
  RequestMeta,
  DiscoverResult,
} from './capabilities.ts'
export {
  JSONRPCRequest,
  JSONRPCNotification,
  ErrorObject,
  JSONRPCResultResponse,
  JSONRPCErrorResponse,
  JSONRPCResponse,
} from './jsonrpc.ts'
export {
  TextContent,
  ImageContent,
  AudioContent,
  TextResourceContents,
  BlobResourceContents,
  ResourceContents,
  ResourceLink,
  EmbeddedResource,
  ContentBlock,
  ToolUseContent,
  ToolResultContent,
  SamplingMessage,
} from './content.ts'
export { ToolAnnotations, Tool, CallToolResult, ListToolsResult } from './tools.ts'
export { PromptArgument, Prompt, PromptMessage, ListPromptsResult, GetPromptResult } from './prompts.ts'
export {
  Resource,
  ResourceTemplate,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
} from './resources.ts'
export {
  StringSchema,
  NumberSchema,
  BooleanSchema,
  MultiSelectSchema,
  PrimitiveSchemaDefinition,
  RequestedSchema,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitRequestParams,
  ElicitResult,
} from './elicitation.ts'
export { ModelPreferences, CreateMessageRequestParams, CreateMessageResult, Root, ListRootsResult } from './sampling.ts'
export {
  ElicitRequest,
  CreateMessageRequest,
  ListRootsRequest,
  InputRequest,
  InputRequests,
  InputResponse,
  InputResponses,
  InputRequiredResult,
} from './input-required.ts'
export {
  PaginatedRequestParams,
  DiscoverRequest,
  CallToolRequestParams,
  CallToolRequest,
  ListToolsRequest,
  GetPromptRequestParams,
  GetPromptRequest,
  ListPromptsRequest,
  ReadResourceRequestParams,
  ReadResourceRequest,
  ListResourcesRequest,
  ListResourceTemplatesRequest,
} from './requests.ts'
export {
  PromptReference,
  ResourceTemplateReference,
  CompleteRequestParams,
  CompleteRequest,
  CompleteResult,
} from './completion.ts'
export {
  CancelledNotificationParams,
  CancelledNotification,
  SubscriptionFilter,
  SubscriptionsListenRequestParams,
  SubscriptionsListenRequest,
  SubscriptionsListenResult,
  SubscriptionsListenResultResponse,
  SubscriptionsAcknowledgedNotification,
  ToolListChangedNotification,
  PromptListChangedNotification,
  ResourceListChangedNotification,
  ResourceUpdatedNotificationParams,
  ResourceUpdatedNotification,
} from './notifications.ts'
export { Task, DetailedTask, CreateTaskResult } from './tasks.ts'
