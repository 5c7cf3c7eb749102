/**
 * What a 2025-era session needs besides the connection itself (legacy.ts): its results read as 2026 results,
 * `server/discover` answered from `initialize`, and the server's own requests answered through the
 * client's callbacks.
 * @module
 */
import { META } from '../protocol/constants.ts'
import { ErrorCode, McpError } from '../protocol/errors.ts'
import { parse } from '../protocol/check.ts'
import type { JSONRPCRequest, JSONRPCResponse, RequestId } from '../protocol/schemas/index.ts'
import { HttpError } from './errors.ts'
import { answerInput } from './carrier.ts'
import { MissingInputHandlerError } from './errors.ts'
import { InputRequest } from './checks.gen.ts'
import type { ClientOptions } from './options.ts'

/** What `initialize` told about the server. */
export interface LegacyServer {
  protocolVersion: string
  capabilities: Record<string, unknown>
  serverInfo: Record<string, unknown>
  instructions?: string
}

/** Runs the answering `step` of one question through the client's `answer` middleware (see middleware.ts). */
export type AnswerAround = (
  key: string,
  method: InputRequest['method'],
  step: () => Promise<unknown>,
) => Promise<unknown>

/**
 * The response to one server-to-client request: `ping` → `{}`; `elicitation/create`,
 * `sampling/createMessage` and `roots/list` through the callbacks (-32602 for params that do not fit the
 * schema, -32601 when there is no callback, the code and message of an McpError the callback threw, -32603
 * when it fails otherwise or answers wrongly — with a generic message, so that nothing private leaks); anything
 * else -32601. `method` and `target` name the call whose stream brought it (empty on the GET stream).
 * `around` (middleware) wraps the answering of elicitation, sampling and roots requests: what it throws is
 * answered like a callback's error.
 */
export async function answerServerRequest(
  options: ClientOptions,
  request: JSONRPCRequest,
  method: string,
  target: string,
  signal: AbortSignal | undefined,
  around?: AnswerAround,
): Promise<JSONRPCResponse> {
  try {
    const result = await resultOf(options, request, method, target, signal ?? new AbortController().signal, around)
    return { jsonrpc: '2.0', id: request.id, result }
  } catch (error) {
    const code =
      error instanceof McpError
        ? error.code
        : error instanceof MissingInputHandlerError
          ? ErrorCode.MethodNotFound
          : ErrorCode.InternalError
    // only what is meant for the server: an McpError, or that no callback answers this; never the text of
    // another error or of a wrong answer (it may quote private data)
    const message =
      error instanceof McpError || error instanceof MissingInputHandlerError
        ? error.message
        : `Internal error: the client could not answer ${request.method}`
    return { jsonrpc: '2.0', id: request.id, error: { code, message } }
  }
}

async function resultOf(
  options: ClientOptions,
  request: JSONRPCRequest,
  method: string,
  target: string,
  signal: AbortSignal,
  around: AnswerAround | undefined,
): Promise<Record<string, unknown>> {
  if (request.method === 'ping') return {}
  if (!['elicitation/create', 'sampling/createMessage', 'roots/list'].includes(request.method))
    throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`)
  const parsed = parse(InputRequest, { method: request.method, params: request.params })
  if (parsed[0] !== undefined) throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${parsed[0]}`)
  const key = keyOf(request.id)
  const step = () => answerInput(options, key, parsed[1], { key, method, target, signal })
  return (await (around ? around(key, parsed[1].method, step) : step())) as Record<string, unknown>
}

/**
 * A 2025-era result as the 2026-07-28 result types read it: `resultType: 'complete'` (2025 has no
 * rounds); the cache hints a 2025 server cannot give read as "do not cache" (`withUsableHints`, for both
 * eras). What the server sent is kept.
 */
export function asModern(result: Record<string, unknown>): Record<string, unknown> {
  return { resultType: 'complete', ...result }
}

/**
 * What `server/discover` would have said, from the `initialize` result: the negotiated version as the one
 * supported, the capabilities, instructions, serverInfo in `_meta`, and "do not cache" hints.
 */
export function discoverResult(server: LegacyServer): Record<string, unknown> {
  const result: Record<string, unknown> = {
    resultType: 'complete',
    supportedVersions: [server.protocolVersion],
    capabilities: server.capabilities,
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { [META.serverInfo]: server.serverInfo },
  }
  if (server.instructions !== undefined) result.instructions = server.instructions
  return result
}

/** A session the server no longer knows: HTTP 404, or its -32001 "Session not found". */
export function isSessionGone(error: unknown): boolean {
  return (error instanceof HttpError && error.status === 404) || (error instanceof McpError && error.code === -32001)
}

function keyOf(id: RequestId): string {
  return `server-request-${String(id)}`
}

/** Notifications about the session, not the request whose stream brought them: they go to the stream listeners too. */
export const SESSION_WIDE = new Set([
  'notifications/elicitation/complete',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
])

/** Why subscriptions over a 2025 session dropped (named for SubscriptionDroppedError's message). */
export function sessionEnded(message: string): Error {
  const error = new Error(message)
  error.name = 'SessionEnded'
  return error
}
