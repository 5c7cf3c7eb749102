/**
 * The stand-alone request-state codec: seal and open a state outside a handler (a queue consumer,
 * another service sharing the keys) exactly as the server does on each round.
 * @module
 */
import { canonicalArguments } from '../encoding/canonical.ts'
import type { AuthInfo } from '../protocol/auth.ts'
import type { RequestStateValue } from './claims.ts'
import type { RequestBinding, RequestStateSecurity } from './security.ts'

/** The request a stand-alone token is bound to: the retry that will carry it must match it exactly. */
export interface RequestStateTarget {
  /** `tools/call`, `prompts/get` or `resources/read`. */
  method: 'tools/call' | 'prompts/get' | 'resources/read'
  /** The tool or prompt name, or the resource URI. */
  target: string
  /**
   * The request's arguments as the client sends them (any JSON; absent, `null` and `{}` bind alike).
   * Ignored on `resources/read`, which binds the URI only.
   */
  arguments?: unknown
  /**
   * The verified auth info of the request that will carry the token; its principal comes from the
   * policy's `bindPrincipal`, as on the server. Absent: an unauthenticated request.
   */
  authInfo?: AuthInfo
}

/** Seals and opens one kind of state `S` for a request, under one policy and audience. */
export interface BoundStateCodec<S = RequestStateValue> {
  /**
   * Seal `state` for `to`, valid the policy's `ttlSeconds`: the token the server would mint had a handler
   * returned `inputRequired(…, state)` on that request.
   * @returns the token (`"v2."…` with keys; the custom codec's with one).
   * @throws Error for arguments that cannot be bound (nested deeper than 256 levels, non-finite numbers);
   *   TypeError for a state that is not JSON or a `bindPrincipal` that does not return a string.
   */
  seal(state: S, to: RequestStateTarget): Promise<string>
  /**
   * Open a token minted for `to` (by this codec, or by a server with the same keys and audience): what a
   * handler would read as `ctx.requestState`.
   * @throws InvalidRequestStateError for every failure — forged, tampered, expired, another request,
   *   principal or audience — its `reason` log-only; Error for arguments that cannot be bound.
   */
  open(token: string, to: RequestStateTarget): Promise<S>
}

/** Options of {@link createRequestStateCodec}. */
export interface BoundStateCodecOptions {
  /**
   * The audience of the tokens. Default: the policy's `audience`; `null`: audience-free tokens. A server
   * without an explicit audience uses its name: pass it here to exchange tokens with that server.
   */
  audience?: string | null
}

/**
 * A stand-alone codec over a `RequestStateSecurity`: `seal(state, to)` / `open(token, to)` bind the token to
 * the method, target, the canonical arguments, the principal and the audience, with the
 * policy's keys and `ttlSeconds` — byte for byte what an `McpServer` with that policy mints and accepts.
 * @example
 * const codec = createRequestStateCodec<{ step: number }>(security, { audience: 'billing' })
 * const to = { method: 'tools/call', target: 'deploy', arguments: { env: 'prod' } } as const
 * const token = await codec.seal({ step: 2 }, to)
 * const state = await codec.open(token, to) // { step: 2 }
 */
export function createRequestStateCodec<S = RequestStateValue>(
  security: RequestStateSecurity,
  options: BoundStateCodecOptions = {},
): BoundStateCodec<S> {
  const audience = options.audience === null ? undefined : (options.audience ?? security.audience)
  const bind = (to: RequestStateTarget): RequestBinding => ({
    method: to.method,
    target: to.target,
    canonicalArgs: canonicalArguments(to.method === 'resources/read' ? undefined : to.arguments),
    principal: security.principalOf(to.authInfo === undefined ? {} : { authInfo: to.authInfo }),
  })
  return {
    seal: (state, to) => security.seal(state as RequestStateValue, bind(to), audience),
    open: async (token, to) => (await security.open(token, bind(to), audience)) as S,
  }
}
