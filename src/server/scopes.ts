/**
 * Scopes required per tool, prompt or resource (registration `scopes`), and the challenge a caller gets
 * without them (spec: basic/authorization "Scope Challenge Handling"; RFC 6750 §3.1): HTTP 403
 * `insufficient_scope` naming every scope the operation needs, or 401 for an anonymous caller.
 * @module
 */
import { missingScopes, type AuthInfo, type ImpliedScopes } from '../protocol/auth.ts'
import { ErrorCode, McpError } from '../protocol/errors.ts'

/**
 * The caller's token lacks scopes an operation needs: answered with HTTP 403 and
 * `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` (401 with `scope` when the request
 * carried no credentials), in both protocol eras, so that an OAuth client can step up (spec:
 * basic/authorization "Step-Up Authorization Flow"). The JSON-RPC error is -32600 with `data.scope`.
 * A handler may throw it for scopes decided from its arguments.
 * @example throw new InsufficientScopeError(['files:write'])
 */
export class InsufficientScopeError extends McpError {
  override readonly name: string = 'InsufficientScopeError'
  /** Every scope the operation needs (the challenge's `scope`), not only the missing ones. */
  readonly scopes: readonly string[]

  /**
   * @param scopes - every scope the operation needs.
   * @param anonymous - the request carried no credentials: 401 instead of 403.
   */
  constructor(scopes: readonly string[], anonymous = false, message?: string) {
    const scope = scopes.join(' ')
    super(
      ErrorCode.InvalidRequest,
      message ??
        (anonymous
          ? `Unauthorized: this operation needs an access token with the scope ${scope}`
          : `Forbidden: insufficient scope; this operation needs ${scope}`),
      { scope },
      anonymous ? 401 : 403,
    )
    this.scopes = [...scopes]
  }
}

/**
 * Throw unless `authInfo` grants every scope of `required` (and of the server-wide `floor`), hierarchies
 * from `implied` applied. Nothing is required when both lists are empty.
 * @param what - the operation, for the message (`tool order_book`).
 * @throws InsufficientScopeError naming every required scope.
 */
export function requireScopes(
  required: readonly string[] | undefined,
  authInfo: AuthInfo | undefined,
  implied: ImpliedScopes | undefined,
  what: string,
): void {
  if (!required?.length) return
  const missing = missingScopes(required, authInfo?.scopes, implied)
  if (missing.length === 0) return
  const scope = required.join(' ')
  throw new InsufficientScopeError(
    required,
    authInfo === undefined,
    authInfo === undefined
      ? `Unauthorized: ${what} needs an access token with the scope ${scope}`
      : `Forbidden: insufficient scope; ${what} needs ${scope} (missing ${missing.join(' ')})`,
  )
}
