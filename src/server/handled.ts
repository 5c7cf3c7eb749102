/**
 * What the server answers for one inbound message, as a transport needs it: an HTTP status, the JSON-RPC
 * response, and the headers the spec ties to it (a minted legacy session id, an authorization challenge).
 * @module
 */
import { errorResponse } from '../protocol/jsonrpc.ts'
import type { McpError } from '../protocol/errors.ts'
import type { JSONRPCResponse, RequestId } from '../protocol/schemas/index.ts'
import { InsufficientScopeError } from './scopes.ts'

/**
 * What the server answers for one inbound message: an HTTP-like status and, for requests, a response.
 * @internal not in the public API: what Server.handle gives its transports
 */
export interface Handled {
  /**
   * 200 for results and in-band errors; 202 for notifications and accepted answers; 400/404 where the
   * spec fixes a status; 401/403 for a scope challenge; 500 when an answer could not be handed on (a
   * failing mailbox).
   */
  status: number
  /** The JSON-RPC response; undefined for notifications. */
  response?: JSONRPCResponse
  /**
   * The `Mcp-Session-Id` a legacy `initialize` was given: the HTTP transport sends it as that header; the
   * stdio transport keeps it as the connection's session (`Channel.sessionId` of its later messages).
   */
  sessionId?: string
  /**
   * The scopes an operation needs, when the caller's token lacks them (status 403) or it had none (401):
   * the transport sends them as a `WWW-Authenticate: Bearer` challenge (RFC 6750 §3).
   */
  challenge?: { scope: string; description: string }
}

/**
 * A failed request's answer: in-band errors are 200 to a 2025-era client, which reads a non-2xx as a
 * transport failure (404: its session expired), else the error's status; a scope challenge is HTTP in
 * both eras, since an OAuth client steps up on it (spec: basic/authorization "Step-Up Authorization Flow").
 */
export function errorHandled(id: RequestId, error: McpError, legacy: boolean): Handled {
  const response = errorResponse(id, error)
  if (error instanceof InsufficientScopeError)
    return {
      status: error.httpStatus ?? 403,
      response,
      challenge: { scope: error.scopes.join(' '), description: error.message },
    }
  return { status: legacy ? 200 : (error.httpStatus ?? 200), response }
}
