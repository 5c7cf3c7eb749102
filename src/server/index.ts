/**
 * `edge-mcp/server`: the low-level `Server`, the high-level `McpServer`, the fetch handler, request-state sealing.
 * @module
 */
export * from './context.ts'
export * from './results.ts'
export * from './server.ts'
export * from './mcp-server.ts'
export {
  InvalidSignatureError,
  ResolutionError,
  MAX_REASKS,
  arg,
  context,
  elicit,
  formSchema,
  listRoots,
  outcome,
  resolver,
  sample,
  type Answered,
  type AnyResolver,
  type ArgBuilder,
  type ArgNeed,
  type CheckedUses,
  type ContextNeed,
  type FormSchema,
  type Need,
  type NeedValue,
  type NeedValues,
  type Outcome,
  type OutcomeNeed,
  type Question,
  type ResolvedOf,
  type Resolver,
  type Uses,
} from './resolve/index.ts'
export {
  createFetchHandler,
  MAX_UNREAD_BYTES,
  type FetchHandler,
  type FetchHandlerOptions,
} from '../transport/http-server.ts'
export {
  RequestStateSecurity,
  authenticatedPrincipal,
  type RequestStateSecurityOptions,
  type PrincipalSource,
} from '../request-state/security.ts'
export {
  AesGcmKeyRing,
  parseRequestStateKeys,
  type RequestStateCodec,
  type RequestStateKey,
} from '../request-state/codec.ts'
export { InvalidRequestStateError } from '../request-state/errors.ts'
export * from '../protocol/index.ts'
export {
  InMemoryNotificationBus,
  type NotificationBus,
  type ServerEvent,
  type ServerEventListener,
  type Unsubscribe,
} from './notifications.ts'
