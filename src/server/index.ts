/**
 * `edge-mcp/server`: the high-level `McpServer` and the low-level `Server`, result builders, dependency
 * injection (resolvers that ask the user, the client's model or its roots), request-state sealing, the
 * notification bus, the Streamable HTTP fetch handler and stdio. Protocol types and errors come from
 * `edge-mcp`; authorization (`protectedResource`, token verifiers, scope errors) from `edge-mcp/oauth`.
 * @module
 */

// Servers: McpServer (tools, prompts, resources, templates) and the low-level Server (a handler per method)
export { McpServer } from './mcp-server.ts'
export type { McpServerOptions, HandlerContext } from './mcp/types.ts'
export { Server, type ServerOptions } from './server.ts'
export type { Logger, LogRecord, RequestContext } from './context.ts'
export type {
  InvocationCall,
  InvocationMiddleware,
  QuestionCall,
  QuestionMiddleware,
  RequestCall,
  RequestMiddleware,
  ResolverCall,
  ResolverMiddleware,
  ServerMiddleware,
} from './middleware.ts'

// Results: complete results, tool errors, and InputRequiredResult with its embedded questions
export { acceptedContent, elicitForm, elicitUrl, inputRequired, textResult, toolError } from './results.ts'

// Dependency injection: needs, resolvers and the questions they may ask
export { arg, context, outcome, type Resolver } from './resolve/needs.ts'
export { resolver } from './resolve/resolver.ts'
export { elicit, listRoots, sample } from './resolve/questions.ts'
export { formSchema } from './resolve/forms.ts'
export { withJsonSchema } from './schema.ts'
export { InvalidSignatureError, QuestionTimeoutError, ResolutionError } from './errors.ts'

// Sealed requestState: the policy, your own codec, sealing outside a handler, the one error codecs throw
export { RequestStateSecurity } from '../request-state/security.ts'
export { parseRequestStateKeys, type RequestStateCodec } from '../request-state/codec.ts'
export { createRequestStateCodec, type RequestStateTarget } from '../request-state/standalone.ts'
export { InvalidRequestStateError } from '../request-state/errors.ts'

// 2025-era clients' answers: where they meet the request waiting for them (bring your own across isolates)
export { InMemoryQuestionMailbox, type QuestionAnswer, type QuestionMailbox } from './mailbox.ts'
export type { LegacyQuestionOptions } from './legacy-questions.ts'

// Notifications: the bus behind subscriptions/listen (in memory by default; bring your own fan-out)
export { InMemoryNotificationBus, type NotificationBus, type ServerEvent } from './notifications.ts'

// Tasks (io.modelcontextprotocol/tasks): where tasks live, and what a task tool's handler gets as ctx.task
export { inMemoryTasks, type InMemoryTasksOptions } from './tasks/memory.ts'
export { defineTaskStore } from './tasks/install.ts'
export type { TaskStore } from './tasks/types.ts'
export type { TaskContext } from './tasks/ask.ts'

// MCP Apps (io.modelcontextprotocol/ui): an App's HTML as a ui:// resource; tools link to it in _meta.ui
export { registerAppResource, type AppResourceConfig } from './apps.ts'

// HTTP: the Streamable HTTP fetch handler
export { createFetchHandler, type FetchHandler, type FetchHandlerOptions } from './http/handler.ts'
// MCP Apps: the sandbox proxy page a browser host (renderApp of edge-mcp/browser) frames on another origin
export { appSandboxResponse, type AppSandboxOptions } from './app-sandbox.ts'
// stdio: one connection over a pair of Web Streams (the process's stdin and stdout, a child's pipes)
export { serveStdio } from './stdio.ts'
