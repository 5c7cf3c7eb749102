/**
 * `edge-mcp`: the protocol shared by server and client — MCP 2026-07-28 wire types as valibot schemas
 * (each with a same-named type), error codes and the error classes, protocol versions, header and `_meta`
 * names, RFC 6570 URI templates and the authenticated caller's shape. Import `edge-mcp/server`,
 * `edge-mcp/client`, `edge-mcp/hono` or `edge-mcp/browser` for the rest.
 * @module
 */

// Errors: the wire error (McpError, JSON-RPC codes) and the bases of the errors edge-mcp raises itself
export { ClientError, EdgeMcpError, ErrorCode, McpError, ServerError } from './protocol/errors.ts'

// Protocol versions, standard header names and `_meta` keys
export { HEADER, LATEST_PROTOCOL_VERSION, META, SUPPORTED_PROTOCOL_VERSIONS } from './protocol/constants.ts'

// Who is calling, as your auth layer reports it
export type { AuthInfo } from './protocol/auth.ts'

// RFC 6570 URI templates (resource templates)
export { UriTemplate } from './protocol/uri-template.ts'
export { UriTemplateError } from './protocol/uri-template-syntax.ts'

// Wire schemas: shared shapes
export { Icon, MetaObject, RequestId } from './protocol/schemas/index.ts'

// Wire schemas: capabilities, implementation info, server/discover
export {
  ClientCapabilities,
  DiscoverResult,
  Implementation,
  LoggingLevel,
  RequestMeta,
  ServerCapabilities,
} from './protocol/schemas/index.ts'

// Wire schemas: JSON-RPC framing
export {
  ErrorObject,
  JSONRPCErrorResponse,
  JSONRPCNotification,
  JSONRPCRequest,
  JSONRPCResponse,
  JSONRPCResultResponse,
} from './protocol/schemas/index.ts'

// Wire schemas: content blocks
export {
  AudioContent,
  BlobResourceContents,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  ResourceContents,
  ResourceLink,
  SamplingMessage,
  TextContent,
  TextResourceContents,
  ToolResultContent,
  ToolUseContent,
} from './protocol/schemas/index.ts'

// Wire schemas: tools
export { CallToolResult, ListToolsResult, Tool, ToolAnnotations } from './protocol/schemas/index.ts'

// Wire schemas: prompts
export { GetPromptResult, ListPromptsResult, Prompt, PromptArgument, PromptMessage } from './protocol/schemas/index.ts'

// Wire schemas: resources and templates
export {
  ListResourceTemplatesResult,
  ListResourcesResult,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from './protocol/schemas/index.ts'

// Wire schemas: elicitation
export {
  BooleanSchema,
  ElicitRequestFormParams,
  ElicitRequestParams,
  ElicitRequestURLParams,
  ElicitResult,
  MultiSelectSchema,
  NumberSchema,
  PrimitiveSchemaDefinition,
  RequestedSchema,
  StringSchema,
} from './protocol/schemas/index.ts'

// Wire schemas: sampling and roots
export {
  CreateMessageRequestParams,
  CreateMessageResult,
  ListRootsResult,
  ModelPreferences,
  Root,
} from './protocol/schemas/index.ts'

// Wire schemas: multi-round-trip requests (MRTR)
export {
  CreateMessageRequest,
  ElicitRequest,
  InputRequest,
  InputRequests,
  InputRequiredResult,
  InputResponse,
  InputResponses,
  ListRootsRequest,
} from './protocol/schemas/index.ts'

// Wire schemas: requests
export {
  CallToolRequest,
  CallToolRequestParams,
  DiscoverRequest,
  GetPromptRequest,
  GetPromptRequestParams,
  ListPromptsRequest,
  ListResourceTemplatesRequest,
  ListResourcesRequest,
  ListToolsRequest,
  PaginatedRequestParams,
  ReadResourceRequest,
  ReadResourceRequestParams,
} from './protocol/schemas/index.ts'

// Wire schemas: completion
export {
  CompleteRequest,
  CompleteRequestParams,
  CompleteResult,
  PromptReference,
  ResourceTemplateReference,
} from './protocol/schemas/index.ts'

// Wire schemas: notifications and subscriptions/listen
export {
  CancelledNotification,
  CancelledNotificationParams,
  PromptListChangedNotification,
  ResourceListChangedNotification,
  ResourceUpdatedNotification,
  ResourceUpdatedNotificationParams,
  SubscriptionFilter,
  SubscriptionsAcknowledgedNotification,
  SubscriptionsListenRequest,
  SubscriptionsListenRequestParams,
  SubscriptionsListenResult,
  SubscriptionsListenResultResponse,
  ToolListChangedNotification,
} from './protocol/schemas/index.ts'
