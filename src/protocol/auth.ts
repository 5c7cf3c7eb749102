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

/**
 * Scope hierarchies (spec: basic/authorization "Servers MUST account for scope hierarchies"): each granted
 * scope → the narrower scopes it implies, followed transitively.
 * @example { 'books:admin': ['books:order', 'books:read'], 'books:order': ['books:read'] }
 */
export type ImpliedScopes = Readonly<Record<string, readonly string[]>>

/**
 * The `required` scopes that `granted` (with what it implies) does not cover, in `required` order.
 * Scope names compare exactly (RFC 6749 §3.3: case-sensitive).
 */
export function missingScopes(
  required: readonly string[],
  granted: readonly string[] | undefined,
  implied?: ImpliedScopes,
): string[] {
  if (required.length === 0) return []
  const have = new Set(granted ?? [])
  if (implied) {
    const queue = [...have]
    for (let s = queue.pop(); s !== undefined; s = queue.pop()) {
      const narrower = Object.hasOwn(implied, s) ? implied[s] : undefined
      for (const n of narrower ?? []) {
        if (!have.has(n)) {
          have.add(n)
          queue.push(n)
        }
      }
    }
  }
  return required.filter((s) => !have.has(s))
}

/** RFC 6749 §3.3 `scope-token`: visible ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/

/**
 * Check a list of scope names given at registration or in options.
 * @throws TypeError naming `where` when it is not an array of RFC 6749 scope tokens.
 */
export function checkScopes(where: string, scopes: unknown): readonly string[] | undefined {
  if (scopes === undefined) return undefined
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string' && SCOPE_TOKEN.test(s)))
    throw new TypeError(
      `${where}: scopes must be an array of scope names (visible ASCII, no spaces, quotes or backslashes)`,
    )
  return [...new Set(scopes as string[])]
}
