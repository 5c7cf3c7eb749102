/**
 * `edge-mcp/oauth`: token verifiers for an MCP server that is an OAuth 2.1 protected resource (pass one
 * as `FetchHandlerOptions.oauth.verifyToken`): {@link jwtVerifier} for JWT access tokens (RFC 9068,
 * keys from the issuer's JWKS, by jose) and {@link introspectionVerifier} for opaque tokens (RFC 7662).
 * A Worker that imports neither carries no JOSE code. `InvalidTokenError` and the `VerifyToken` type (for a
 * verifier of your own) come from `edge-mcp/server`; `AuthInfo` from `edge-mcp`.
 * @module
 */
export { jwtVerifier, type JwtVerifierOptions } from './jwt.ts'
export { introspectionVerifier, type IntrospectionVerifierOptions } from './introspection.ts'
