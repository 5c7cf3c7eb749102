/**
 * The stateless legacy lane: what a 2025-era client (no `_meta` envelope, `initialize` first) gets
 * from the same registrations as a 2026-07-28 client (spec 2026: basic/versioning.mdx "serve both eras
 * concurrently on the same endpoint"; spec 2025-11-25: basic/lifecycle.mdx, basic/transports.mdx).
 * Sessions need no storage: when request-state sealing is on, `initialize` mints a sealed
 * `Mcp-Session-Id` (see {@link sessionOf}) that later requests carry back. Questions to a client in a
 * session are `legacy-questions.ts`.
 * @module
 */
import { HEADER, LEGACY_PROTOCOL_VERSIONS, LOGGING_LEVELS, TASKS_EXTENSION } from '../protocol/constants.ts'
import { readEnvelope, type RequestEnvelope } from '../protocol/envelope.ts'
import { ErrorCode, McpError } from '../protocol/errors.ts'
import { isPlainObject } from '../protocol/jsonrpc.ts'
import { once } from '../protocol/schemas/common.ts'
import type { Implementation, JSONRPCRequest, ServerCapabilities } from '../protocol/schemas/index.ts'
import type { LegacySession } from '../request-state/security.ts'
import type { RequestInfo, ResultObject } from './context.ts'

/** Whether the server answers 2025-era clients (`'serve'`) or only 2026-07-28 ones (`'reject'`). */
export type LegacyMode = 'serve' | 'reject'

/** The version a legacy request without `MCP-Protocol-Version` is taken to speak (spec 2025-11-25: transports.mdx). */
const HEADERLESS_VERSION = '2025-03-26'

/** Legacy methods of session state this stateless lane acknowledges with `{}` and does not keep. */
export const ACKNOWLEDGED_METHODS: ReadonlySet<string> = new Set([
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
])

const logLevels = /* @__PURE__ */ once((): ReadonlySet<string> => new Set(LOGGING_LEVELS))

/**
 * Check the params of an acknowledged method (its answer is `{}`).
 * @throws McpError -32602 for a `logging/setLevel` without a valid `level`, or a `resources/(un)subscribe`
 *   without a string `uri` (spec 2025-11-25: server/utilities/logging.mdx, server/resources.mdx).
 */
export function checkAcknowledged(method: string, params: Record<string, unknown>): void {
  if (method === 'logging/setLevel' && !(typeof params.level === 'string' && logLevels().has(params.level)))
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid params: level must be one of ${[...logLevels()].join(', ')}, got ${JSON.stringify(params.level) ?? 'none'}`,
    )
  if (method.startsWith('resources/') && typeof params.uri !== 'string')
    throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${method} needs a string uri`)
}

/** Methods of 2026-07-28 only: a legacy client gets -32601 for them. */
export const MODERN_ONLY_METHODS: ReadonlySet<string> = new Set(['server/discover', 'subscriptions/listen'])

/** The version an `initialize` negotiates: the one it asks for when this server speaks it, else the newest. */
export function negotiatedVersion(params: Record<string, unknown>): string {
  const requested = params.protocolVersion
  return typeof requested === 'string' && LEGACY_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LEGACY_PROTOCOL_VERSIONS[0]!
}

/**
 * The `InitializeResult` of 2025-11-25: the requested version if the lane speaks it, else the newest;
 * the capabilities without what needs a push channel (`listChanged`, `subscribe`), with `logging` (log
 * messages go on the POST's stream) and its extensions but Tasks; the server's info and instructions.
 */
export function initializeResult(
  params: Record<string, unknown>,
  capabilities: ServerCapabilities,
  serverInfo: Implementation,
  instructions: string | undefined,
): ResultObject {
  const protocolVersion = negotiatedVersion(params)
  const result: ResultObject = { protocolVersion, capabilities: legacyCapabilities(capabilities), serverInfo }
  if (instructions !== undefined) result.instructions = instructions
  return result
}

/**
 * The 2025 capability keys, each without `listChanged` and `subscribe` (nothing can be pushed without a session),
 * and the declared extensions but Tasks.
 */
function legacyCapabilities(capabilities: ServerCapabilities): Record<string, unknown> {
  const out: Record<string, unknown> = { logging: {} }
  for (const key of ['experimental', 'logging', 'completions', 'prompts', 'resources', 'tools'] as const) {
    const value = capabilities[key] as Record<string, unknown> | undefined
    if (value === undefined) continue
    const rest = { ...value }
    if (key !== 'experimental') {
      delete rest.listChanged
      delete rest.subscribe
    }
    out[key] = rest
  }
  // extensions too (SEP-1724 negotiates them in `initialize` as well), but Tasks: a 2025-era call never runs as one
  const extensions = { ...capabilities.extensions }
  delete extensions[TASKS_EXTENSION]
  if (Object.keys(extensions).length > 0) out.extensions = extensions
  return out
}

/**
 * What a handler sees of a legacy request: the version of its `MCP-Protocol-Version` header (2025-03-26
 * when absent), no client capabilities (unknowable without a session), its `progressToken`, and every
 * log level (the 2025 client chose none per request).
 * @param header - the request's {@link versionHeader} (null for `initialize`, whose header is not read).
 * @param modern - the 2026-era versions this server serves: such a header without an envelope is a
 *   modern client's mistake, answered as today (-32602, HTTP 400).
 */
export function legacyEnvelope(
  request: JSONRPCRequest,
  header: string | null,
  modern: readonly string[],
): RequestEnvelope {
  if (header !== null && modern.includes(header)) return readEnvelope(request.params)
  const envelope: RequestEnvelope = {
    protocolVersion: header ?? HEADERLESS_VERSION,
    clientCapabilities: {},
    logLevel: 'debug',
  }
  const meta = request.params?._meta as Record<string, unknown> | undefined
  const token = meta?.progressToken
  if (typeof token === 'string' || typeof token === 'number') envelope.progressToken = token
  return envelope
}

/**
 * The `MCP-Protocol-Version` header of a request, notification or answer without an envelope; null
 * without one.
 * @param modern - the 2026-era versions this server serves (a modern client's header is the caller's to judge).
 * @throws McpError -32600 (HTTP 400) for a header naming a version neither era speaks (spec 2025-11-25:
 *   transports.mdx "MUST respond with 400 Bad Request").
 */
export function versionHeader(info: RequestInfo, modern: readonly string[]): string | null {
  const header = info.request?.headers.get(HEADER.protocolVersion) ?? null
  if (header !== null && !LEGACY_PROTOCOL_VERSIONS.includes(header) && !modern.includes(header)) {
    throw new McpError(
      ErrorCode.InvalidRequest,
      `Bad Request: unsupported MCP-Protocol-Version '${header}' (supported: ${[...LEGACY_PROTOCOL_VERSIONS, ...modern].join(', ')})`,
      undefined,
      400,
    )
  }
  return header
}

/**
 * Check that a request, notification or answer in a session speaks the session's version.
 * @param header - its `MCP-Protocol-Version` header (see {@link versionHeader}); null without one.
 * @throws McpError -32600 (HTTP 400) when the header names another version.
 */
export function checkSessionVersion(session: LegacySession, header: string | null): void {
  if (header !== null && header !== session.protocolVersion) {
    throw new McpError(
      ErrorCode.InvalidRequest,
      `Bad Request: MCP-Protocol-Version '${header}' differs from the session's '${session.protocolVersion}'`,
      undefined,
      400,
    )
  }
}

/** The JSON-RPC code of an unknown or expired session (HTTP 404), as the TypeScript and Python SDKs send it. */
export const SESSION_NOT_FOUND = -32001

/** -32001 "Session not found" with HTTP 404: the client must re-initialize (spec 2025-11-25: transports.mdx). */
export function sessionNotFound(): McpError {
  return new McpError(SESSION_NOT_FOUND, 'Session not found', undefined, 404)
}

/**
 * The session a legacy `initialize` starts (without its `sid`): the version its result negotiated, and
 * the capabilities and client info its params declared (a non-object counts as none).
 */
export function sessionOf(params: Record<string, unknown>, result: ResultObject): Omit<LegacySession, 'sid'> {
  const session: Omit<LegacySession, 'sid'> = {
    protocolVersion: result.protocolVersion as string,
    clientCapabilities: isPlainObject(params.capabilities) ? params.capabilities : {},
  }
  if (isPlainObject(params.clientInfo)) session.clientInfo = params.clientInfo
  return session
}

/**
 * The envelope of a request in a valid session (its version checked: {@link checkSessionVersion}): its
 * version, capabilities and client info are the session's, written into `envelope` (the request's own,
 * from {@link legacyEnvelope}), which is returned.
 */
export function sessionEnvelope(envelope: RequestEnvelope, session: LegacySession): RequestEnvelope {
  envelope.protocolVersion = session.protocolVersion
  envelope.clientCapabilities = session.clientCapabilities
  if (session.clientInfo !== undefined) envelope.clientInfo = session.clientInfo as unknown as Implementation
  return envelope
}
