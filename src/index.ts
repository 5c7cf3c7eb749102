/**
 * `edge-mcp`: the protocol shared by server and client — the MCP 2026-07-28 wire types a handler builds or a
 * client reads, as valibot schemas (each with a same-named type), error codes and the error classes,
 * protocol versions, header and `_meta` names, RFC 6570 URI templates and the authenticated caller's shape.
 * Import `edge-mcp/server`, `edge-mcp/client`, `edge-mcp/oauth`, `edge-mcp/hono`, `edge-mcp/browser` or
 * `edge-mcp/cloudflare` for the rest.
 * @module
 */

// Errors: the wire error (McpError, JSON-RPC codes) and the bases of the errors edge-mcp raises itself
export {
  ClientError,
  EdgeMcpError,
  ErrorCode,
  McpError,
  ServerError,
  UriTemplateError,
  type EdgeMcpErrorCode,
} from './protocol/errors.ts'

// Protocol versions, standard header names and `_meta` keys
export { HEADER, LATEST_PROTOCOL_VERSION, META, SUPPORTED_PROTOCOL_VERSIONS } from './protocol/constants.ts'

// Who is calling, as your auth layer reports it
export type { AuthInfo } from './protocol/auth.ts'

// RFC 6570 URI templates (resource templates)
export { UriTemplate } from './protocol/uri-template.ts'

// Wire schemas (valibot, each with a same-named type) of what handlers build and clients read
// JSON-RPC framing, identity and capabilities
export {
  ClientCapabilities,
  Implementation,
  JSONRPCErrorResponse,
  JSONRPCNotification,
  JSONRPCRequest,
  JSONRPCResponse,
  JSONRPCResultResponse,
  RequestId,
  ServerCapabilities,
} from './protocol/schemas/index.ts'

// Content blocks
export {
  AudioContent,
  BlobResourceContents,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  ResourceLink,
  TextContent,
  TextResourceContents,
} from './protocol/schemas/index.ts'

// Tools, prompts, resources and their results
export {
  CallToolResult,
  GetPromptResult,
  Prompt,
  PromptMessage,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from './protocol/schemas/index.ts'

// Multi-round-trip requests: what a server asks (elicitation, sampling, roots) and what a client answers
export {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  InputRequest,
  InputRequiredResult,
  InputResponses,
  PrimitiveSchemaDefinition,
  RequestedSchema,
  Root,
  SamplingMessage,
} from './protocol/schemas/index.ts'

// MCP Apps (io.modelcontextprotocol/ui): the extension's names, the _meta.ui shapes, who may call a tool
export { APP_MIME_TYPE, APPS_EXTENSION, toolVisibility } from './protocol/apps.ts'
export type {
  AppToolMeta,
  McpUiResourceCsp,
  McpUiResourceMeta,
  McpUiResourcePermissions,
  McpUiToolMeta,
  McpUiVisibility,
} from './protocol/apps.ts'

// Tasks (io.modelcontextprotocol/tasks): a long-running tool call as a task the client polls
export { CreateTaskResult, DetailedTask, Task } from './protocol/schemas/index.ts'
