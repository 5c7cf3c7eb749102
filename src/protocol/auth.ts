/**
 * What the server knows of an authenticated caller: your auth layer (the fetch handler's `oauth` option
 * with a token verifier from `edge-mcp/oauth`, or its `authenticate` hook) produces it; handlers read it as
 * `ctx.authInfo`, and request-state sealing and legacy session ids bind their principal to it (MCP
 * 2026-07-28 basic/authorization).
 * @module
 */

/** Verified authentication facts about the caller, supplied by your auth layer. */
export interface AuthInfo {
  /** The OAuth client id (JWT `client_id`, else `azp`; RFC 9068 §2.2), or your own caller id. */
  clientId: string
  /** The token issuer (`iss`), when known. */
  issuer?: string
  /** The end user (`sub`), when known. */
  subject?: string
  /** Granted scopes (the token's `scope`, split on spaces). */
  scopes?: string[]
  /** When the token expires, in **seconds** since the epoch (`exp`), when known. */
  expiresAt?: number
  /** The resource (RFC 8707 audience) the token was verified for: this server's canonical URL. */
  resource?: string
  /** The verified token's claims (a JWT's payload, or an introspection response), when a verifier made it. */
  claims?: Record<string, unknown>
  /** Anything else your auth layer knows. */
  extra?: Record<string, unknown>
}
