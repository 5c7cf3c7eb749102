/**
 * What both verifiers share: the URL rules for issuers and endpoints (https, or http on loopback), the
 * RFC 8707 audience comparison, and the mapping of token claims (RFC 9068 §2.2, RFC 7662 §2.2) to
 * {@link AuthInfo}.
 * @module
 */
import type { AuthInfo } from '../protocol/auth.ts'
import { isSecureUrl } from '../protocol/oauth-metadata.ts'
import { InvalidTokenError } from '../server/errors.ts'
import type { VerifyTokenContext } from '../server/http/bearer.ts'

/**
 * `value` parsed, when it is an absolute https URL (or http on loopback) without a fragment.
 * @throws TypeError naming `what` otherwise.
 */
export function secureUrl(value: unknown, what: string): URL {
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined
  if (!url || !isSecureUrl(url) || url.hash !== '')
    throw new TypeError(`${what} must be an https URL (http only on a loopback host), got ${JSON.stringify(value)}`)
  return url
}

/** An audience in comparable form: scheme and host lowercased (URL parsing does it), no trailing slash. */
export function normalizeAudience(value: string): string {
  if (!URL.canParse(value)) return value.replace(/\/+$/, '')
  const url = new URL(value)
  return url.href.replace(/\/+$/, '')
}

/**
 * The first of `expected` that the token's `aud` (a string or an array of strings) names, as given in
 * `expected`; undefined when it names none (RFC 8707 §2, RFC 9068 §4: audience binding).
 */
export function matchAudience(aud: unknown, expected: readonly string[]): string | undefined {
  const named = (typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : []).filter(
    (a): a is string => typeof a === 'string',
  )
  const have = new Set(named.map(normalizeAudience))
  return expected.find((e) => have.has(normalizeAudience(e)))
}

/**
 * Refuse a sender-constrained token: a `cnf` claim (RFC 7800) binds it to a key the client must prove,
 * by DPoP (RFC 9449) or mutual TLS (RFC 8705 §3), which a bearer-only resource cannot check; accepting it
 * as `Bearer` would let a stolen bound token work here as a plain one (RFC 9449 §7.2).
 * @throws InvalidTokenError when `claims` has `cnf`.
 */
export function refuseBoundToken(claims: Record<string, unknown>): void {
  if (claims.cnf !== undefined)
    throw new InvalidTokenError('the token is bound to a key (cnf); this resource accepts bearer tokens only')
}

/**
 * The sender constraint of verified `claims` for the way the token came (`context.scheme`): with `DPoP`,
 * the proof checked by `dpop` (RFC 9449 §7.1); as `Bearer`, no `cnf` ({@link refuseBoundToken}), and
 * refused outright when `dpop` requires DPoP.
 * @throws InvalidTokenError (or its DPoPProofError) when the token may not be used so.
 */
export async function checkBinding(
  token: string,
  claims: Record<string, unknown>,
  context: VerifyTokenContext,
  // a DPoPProofChecker (oauth/dpop.ts), by shape: that module imports this one
  dpop:
    | { readonly required: boolean; check(t: string, c: Record<string, unknown>, x: VerifyTokenContext): Promise<void> }
    | undefined,
): Promise<void> {
  if (context.scheme === 'DPoP') {
    if (!dpop) throw new InvalidTokenError('this resource does not accept DPoP-bound tokens')
    return dpop.check(token, claims, context)
  }
  refuseBoundToken(claims)
  if (dpop?.required) throw new InvalidTokenError('this resource accepts DPoP-bound tokens only')
}

/** Scopes from `scope` (space-separated, RFC 9068 §2.2.3) or `scp` (an array or a string). */
function scopesOf(claims: Record<string, unknown>): string[] | undefined {
  const { scope, scp } = claims
  if (typeof scope === 'string') return scope.split(' ').filter(Boolean)
  if (typeof scp === 'string') return scp.split(' ').filter(Boolean)
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === 'string')
  return undefined
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

/** The {@link AuthInfo} of verified claims for `resource`. */
export function authInfoOf(claims: Record<string, unknown>, resource: string, issuer?: string): AuthInfo {
  const info: AuthInfo = {
    clientId: str(claims.client_id) ?? str(claims.azp) ?? str(claims.appid) ?? str(claims.cid) ?? '',
    resource,
    claims,
  }
  const iss = str(claims.iss) ?? issuer
  if (iss !== undefined) info.issuer = iss
  const sub = str(claims.sub)
  if (sub !== undefined) info.subject = sub
  const scopes = scopesOf(claims)
  if (scopes !== undefined) info.scopes = scopes
  if (typeof claims.exp === 'number') info.expiresAt = claims.exp
  return info
}

/**
 * A non-negative finite number option, or its default.
 * @throws TypeError otherwise.
 */
export function duration(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new TypeError(`${what} must be a non-negative number, got ${String(value)}`)
  return value
}

/** A verifier's `audience` option as a list; undefined (the request's resource) when not given. */
export function audienceList(audience: string | readonly string[] | undefined): string[] | undefined {
  if (audience === undefined) return undefined
  return typeof audience === 'string' ? [audience] : [...audience]
}
