/**
 * The JWT bearer grant (RFC 7523 §2.1) for workload identity federation (MCP extension
 * `io.modelcontextprotocol/auth/wif`, SEP-1933): the workload's platform (Kubernetes, a cloud's metadata
 * server, a CI system) issues it a JWT, which the authorization server trusts and exchanges for a token.
 * @module
 */
import type { ClientCredentials } from './client-auth.ts'
import { MachineProvider, type GrantContext, type MachineProviderOptions } from './machine.ts'

/** RFC 7523 §2.1: the `grant_type` of the JWT bearer grant. */
export const JWT_BEARER_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer'

/** What a value is, without its content (for errors about a credential of the wrong shape). */
export function shapeOf(value: unknown): string {
  if (typeof value === 'string') return 'a blank string'
  if (value === null || value === undefined) return String(value)
  return Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/** What the assertion function is told about the token request it is for. */
export interface AssertionContext {
  /** The authorization server's issuer identifier: the `aud` the assertion is expected to carry. */
  issuer: string
  /** The MCP server's resource identifier (RFC 8707). */
  resource: string
  /** The scope asked for, when there is one. */
  scope: string | undefined
  signal: AbortSignal | undefined
}

/** Options of {@link JwtBearerProvider}. */
export interface JwtBearerProviderOptions extends MachineProviderOptions {
  /**
   * The JWT to present (the `assertion` parameter), called for every token request so that a rotating
   * source works: read a projected token file, ask a metadata endpoint. A rejection fails the request.
   */
  assertion: (context: AssertionContext) => string | Promise<string>
  /**
   * The client's authentication at the token endpoint, when the authorization server wants one (RFC 7523
   * §3.1 makes it optional). A `clientId` alone is sent as `client_id`.
   */
  client?: ClientCredentials
}

/**
 * Obtains access tokens with the JWT bearer grant (RFC 7523 §2.1), for a {@link StreamableHttpClientTransport}
 * (option `auth`). On a `401` it discovers the authorization server as the authorization-code flow does,
 * calls `assertion` for a fresh JWT, and asks the token endpoint for a token
 * (`grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`, `assertion`, `scope`, `resource`). A refusal
 * (`invalid_grant`, `invalid_scope`, `unauthorized_client`, …) fails the request with an OAuthError carrying
 * that code: it is not retried, and no other grant is tried (SEP-1933).
 *
 * @throws TypeError from the constructor when `assertion` is not a function or `client` is wrong (named);
 *   RangeError for `maxStepUps`.
 * @example
 * const auth = new JwtBearerProvider({
 *   assertion: () => readFile('/var/run/secrets/tokens/mcp', 'utf8'),
 * })
 * const transport = new StreamableHttpClientTransport(serverUrl, { auth })
 */
export class JwtBearerProvider extends MachineProvider {
  readonly #assertion: JwtBearerProviderOptions['assertion']

  constructor(options: JwtBearerProviderOptions) {
    super(options, options.client, 'options.client')
    if (typeof options.assertion !== 'function')
      throw new TypeError('options.assertion must be a function returning the JWT (a string)')
    this.#assertion = options.assertion
  }

  /**
   * RFC 7523 §2.1.
   * @throws TypeError when `assertion` gave no non-empty string; what it threw.
   */
  protected async grant(context: GrantContext): Promise<Record<string, string>> {
    const { issuer, resource, scope, signal } = context
    const assertion = await this.#assertion({ issuer, resource, scope, signal })
    if (typeof assertion !== 'string' || assertion.trim() === '')
      // its type, never its value: a wrong shape may still hold the credential (e.g. a metadata server's JSON)
      throw new TypeError(`options.assertion must give the JWT as a non-empty string, got ${shapeOf(assertion)}`)
    return { grant_type: JWT_BEARER_GRANT_TYPE, assertion: assertion.trim() }
  }
}
