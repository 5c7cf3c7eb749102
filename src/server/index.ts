/**
 * `edge-mcp/server`: the high-level `McpServer` and the low-level `Server`, result builders, dependency
 * injection (resolvers that ask the user, the client's model or its roots), request-state sealing, the
 * notification bus, and the Streamable HTTP fetch handler. Protocol types and errors come from `edge-mcp`.
 * @module
 */

// Servers: McpServer (tools, prompts, resources, templates) and the low-level Server (a handler per method)
export { McpServer } from './mcp-server.ts'
export type {
  Completer,
  McpServerOptions,
  PromptArguments,
  PromptConfig,
  PromptReturn,
  ResourceReturn,
  ResourceTemplateConfig,
  StructuredToolResult,
  ToolArgs,
  ToolConfig,
  ToolContext,
  ToolHandler,
  ToolInput,
  ToolReturn,
} from './mcp/types.ts'
export { Server, type Handled, type ServerOptions } from './server.ts'
export {
  consoleLogger,
  type Logger,
  type NotificationHandler,
  type RequestContext,
  type RequestHandler,
  type RequestInfo,
  type RequestParams,
  type ResultObject,
} from './context.ts'
export type { CacheHints, CacheOptions, CacheableMethod } from './cache.ts'
export type { LegacyMode } from './legacy.ts'
export type { LegacyQuestionOptions } from './legacy-questions.ts'
export {
  InMemoryQuestionMailbox,
  QuestionTimeoutError,
  type InMemoryQuestionMailboxOptions,
  type QuestionAnswer,
  type QuestionMailbox,
} from './mailbox.ts'

// Results: complete results, tool errors, and InputRequiredResult with its embedded questions
export {
  acceptedContent,
  elicitForm,
  elicitUrl,
  inputRequired,
  isInputRequired,
  textResult,
  toolError,
} from './results.ts'

// Dependency injection: needs, resolvers and the questions they may ask
export {
  arg,
  context,
  outcome,
  type AnyResolver,
  type ArgBuilder,
  type ArgNeed,
  type ContextNeed,
  type Need,
  type OutcomeNeed,
  type Resolver,
} from './resolve/needs.ts'
export {
  resolver,
  type Answered,
  type CheckedUses,
  type NeedValue,
  type NeedValues,
  type Outcome,
  type ResolvedOf,
  type Uses,
} from './resolve/resolver.ts'
export {
  elicit,
  listRoots,
  sample,
  type ElicitQuestion,
  type Question,
  type RootsQuestion,
  type SampleQuestion,
  type UrlQuestion,
} from './resolve/questions.ts'
export { formSchema, type FormSchema } from './resolve/forms.ts'
export { MAX_REASKS } from './resolve/run.ts'
export { InvalidSignatureError, ResolutionError } from './resolve/errors.ts'

// Sealed requestState: the policy, the AES-GCM key ring, your own codec, the one error codecs throw
export {
  RequestStateSecurity,
  authenticatedPrincipal,
  type PrincipalSource,
  type LegacySession,
  type RequestBinding,
  type RequestStateSecurityOptions,
} from '../request-state/security.ts'
export type { RequestStateValue } from '../request-state/claims.ts'
export {
  createRequestStateCodec,
  type BoundStateCodec,
  type BoundStateCodecOptions,
  type RequestStateTarget,
} from '../request-state/standalone.ts'
export {
  AesGcmKeyRing,
  parseRequestStateKeys,
  type RequestStateCodec,
  type RequestStateKey,
} from '../request-state/codec.ts'
export { InvalidRequestStateError } from '../request-state/errors.ts'

// Notifications: the bus behind subscriptions/listen (in memory by default; bring your own fan-out)
export {
  InMemoryNotificationBus,
  type NotificationBus,
  type ServerEvent,
  type ServerEventListener,
  type Unsubscribe,
} from './notifications.ts'

// HTTP: the Streamable HTTP fetch handler (a documented re-export from the transport layer above this one)
export { createFetchHandler, type FetchHandler, type FetchHandlerOptions } from './http/handler.ts'
export { MAX_UNREAD_BYTES } from './http/sse.ts'
// stdio: one connection over a pair of Web Streams (the process's stdin and stdout, a child's pipes)
export { serveStdio, type StdioConnection, type StdioServerOptions } from './stdio.ts'
export type { AllowedOrigins } from './http/policy.ts'
