/**
 * `edge-mcp/oauth`: authorization for an MCP server that is an OAuth 2.1 protected resource. Pass
 * {@link protectedResource} as `FetchHandlerOptions.oauth`, with a token verifier: {@link jwtVerifier}
 * for JWT access tokens (RFC 9068, keys from the issuer's JWKS, by jose), {@link introspectionVerifier}
 * for opaque tokens (RFC 7662), or your own {@link VerifyToken} (throwing {@link InvalidTokenError}). A
 * handler throws {@link InsufficientScopeError} for scopes its arguments decide. Either verifier accepts
 * DPoP-bound tokens (RFC 9449) with `dpop: dpopProofChecker(…)`. A Worker that imports
 * neither verifier carries no JOSE code. `AuthInfo` (what a verifier returns) comes from `edge-mcp`.
 * @module
 */
export { InvalidTokenError } from '../server/errors.ts'
export { protectedResource, type VerifyToken, type VerifyTokenContext } from '../server/http/bearer.ts'
export { InsufficientScopeError } from '../server/scopes.ts'
export { jwtVerifier } from './jwt.ts'
export { introspectionVerifier } from './introspection.ts'
export { dpopProofChecker, type DPoPReplayStore } from './dpop.ts'
