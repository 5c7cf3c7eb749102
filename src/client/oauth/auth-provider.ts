/**
 * What {@link StreamableHttpClientTransport} asks of its `auth` option: a token for each request, and a new
 * one after a `401` or `403 insufficient_scope`. The authorization-code flow ({@link OAuthClientProvider}) and
 * the machine-to-machine flows implement it; so can a user's own.
 * @module
 */

/**
 * Obtains the access token the transport sends (spec: basic/authorization/*.mdx).
 *
 * The transport calls {@link ClientAuthProvider.authorizationHeaders} before each request it sends (each
 * retry too), {@link ClientAuthProvider.onResponse} with each answer, and on a `401`
 * {@link ClientAuthProvider.authorize} once, then retries the request once; on a
 * `403 insufficient_scope` it does the same at most {@link ClientAuthProvider.maxStepUps} times per request.
 */
export interface ClientAuthProvider {
  /** Re-authorizations allowed per request after `403 insufficient_scope` (spec §Step-Up); 0 for none. */
  readonly maxStepUps: number
  /**
   * The headers that authorize one `method` request to `serverUrl`, if a token is held: `Authorization`
   * (`Bearer …`, or `DPoP …` with a fresh `DPoP` proof for this method and URL, RFC 9449 §7.1).
   */
  authorizationHeaders(serverUrl: string, method: string): Promise<Record<string, string> | undefined>
  /**
   * Optional: sees each response of the server before the transport reads it; true when the same request
   * must be sent again at once, with new headers — a `401` asking for a DPoP nonce (RFC 9449 §9). The
   * transport does that once per request.
   */
  onResponse?(serverUrl: string, response: Response): boolean
  /**
   * Get a new token for `serverUrl` after a `401` or `403` whose `WWW-Authenticate` value is `wwwAuthenticate`.
   * `interactive`, when given, wraps a wait for the user (e.g. to pause a request timeout meanwhile).
   * @throws OAuthError when no token could be obtained; the transport then fails the request with it.
   */
  authorize(
    serverUrl: string,
    wwwAuthenticate: string | undefined,
    signal?: AbortSignal,
    interactive?: <T>(step: () => Promise<T>) => Promise<T>,
  ): Promise<void>
}
