/**
 * What the server knows of an authenticated caller: your auth layer (e.g. the fetch handler's
 * `authenticate` option) produces it; handlers read it as `ctx.authInfo`, and request-state sealing binds
 * its principal to it (MCP 2026-07-28 authorization).
 * @module
 */

/** Verified authentication facts about the caller, supplied by your auth layer. */
export interface AuthInfo {
  /** The OAuth client id (or your own caller id). */
  clientId: string
  /** The token issuer (`iss`), when known. */
  issuer?: string
  /** The end user (`sub`), when known. */
  subject?: string
  /** Granted scopes. */
  scopes?: string[]
  /** Anything else your auth layer knows. */
  extra?: Record<string, unknown>
}
