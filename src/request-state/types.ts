/**
 * What a sealed token is bound to and what the legacy lane's tokens hold (see `security.ts`).
 * @module
 */
import type { AuthInfo } from '../protocol/auth.ts'

/** What `bindPrincipal` sees: the request's verified auth info, if any. */
export interface PrincipalSource {
  authInfo?: AuthInfo
}

/**
 * The request a token is bound to.
 * @internal not in the public API: what the server binds a token to
 */
export interface RequestBinding {
  /** `tools/call`, `prompts/get` or `resources/read`. */
  method: string
  /** The tool or prompt name, or the resource URI. */
  target: string
  /**
   * The canonical JSON of the arguments as received: compact, object keys sorted by UTF-16 code units at
   * every depth, lone surrogates escaped, `-0` written `-0`; absent, `null` and `{}` are all `"{}"`
   * (resources: `"{}"`). `createRequestStateCodec` computes it for you. A `"v2."` token binds it verbatim
   * in the AAD (not transmitted; the AAD is as long as the arguments, which the request body cap bounds);
   * a custom codec's claims bind its digest (`a`, computed only on that path).
   */
  canonicalArgs: string
  /** The principal string from `bindPrincipal`, or undefined when unauthenticated / unbound. */
  principal: string | undefined
}

/**
 * What a legacy session id holds: the `initialize` a 2025-era client made, carried back on every request.
 * Client input, unverified (except that it is what this client declared).
 * @internal not in the public API: what the server's 2025-era session id holds
 */
export interface LegacySession {
  /** 128 random bits, base64url: tells sessions apart (non-deterministic ids). */
  sid: string
  /** The protocol version `initialize` negotiated. */
  protocolVersion: string
  /** The capabilities the client declared at `initialize`. */
  clientCapabilities: Record<string, unknown>
  /** The client info it sent at `initialize`, if any. */
  clientInfo?: Record<string, unknown>
}

/** What the id of a server-to-client request holds: where its answer goes, and the session it was asked in. */
export interface SealedQuestion {
  /** The mailbox key of the question: 128 random bits, base64url. */
  qid: string
  /** The `sid` of the session the question was asked in. */
  sid: string
}
