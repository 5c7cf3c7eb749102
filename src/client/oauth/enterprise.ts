/**
 * Enterprise-managed authorization (MCP extension `io.modelcontextprotocol/enterprise-managed-authorization`,
 * SEP-990; the Identity Assertion Authorization Grant, draft-ietf-oauth-identity-assertion-authz-grant): the
 * enterprise's identity provider, where the user signed in, decides which MCP servers they may use. The
 * client exchanges the user's ID token at the IdP for an ID-JAG (RFC 8693 token exchange) and presents that
 * to the MCP server's authorization server with the JWT bearer grant (RFC 7523 §2.1).
 * @module
 */
import { OAuthError } from '../errors.ts'
import { isSecureUrl } from '../../protocol/oauth-metadata.ts'
import {
  checkClientCredentials,
  lazySigner,
  tokenEndpointAuth,
  type AssertionSigner,
  type ClientCredentials,
} from './client-auth.ts'
import { JWT_BEARER_GRANT_TYPE, shapeOf, type AssertionContext } from './jwt-bearer.ts'
import { MachineProvider, type GrantContext, type MachineProviderOptions } from './machine.ts'
import { requestToken } from './token.ts'

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange'
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token'
/** The token type of an Identity Assertion JWT Authorization Grant. */
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag'

/** The identity provider's side of {@link EnterpriseManagedAuthProvider}. */
export interface IdentityProviderOptions extends ClientCredentials {
  /** The IdP's token endpoint, where the token exchange happens (https; http only on a loopback host). */
  tokenEndpoint: string
  /**
   * The IdP's issuer identifier: the `aud` of a `private_key_jwt` assertion (unless `assertionAudience` is
   * `token_endpoint`). Default: `tokenEndpoint`.
   */
  issuer?: string
}

/** Options of {@link EnterpriseManagedAuthProvider}: the client at the MCP server's authorization server, and the IdP. */
export interface EnterpriseManagedAuthProviderOptions extends ClientCredentials, MachineProviderOptions {
  /**
   * The user's OpenID Connect ID token from the IdP (from your single sign-on), called for every token
   * request so that a renewed one is used. A rejection fails the request.
   */
  idToken: (context: AssertionContext) => string | Promise<string>
  /** The IdP: its token endpoint and this client's credentials there. */
  idp: IdentityProviderOptions
}

/**
 * Obtains access tokens through the enterprise's identity provider (SEP-990), for a
 * {@link StreamableHttpClientTransport} (option `auth`). On a `401` it discovers the MCP server's
 * authorization server (as the authorization-code flow does), then
 * 1. at the IdP's token endpoint, exchanges the ID token (RFC 8693: `subject_token_type` id_token,
 *    `requested_token_type` `urn:ietf:params:oauth:token-type:id-jag`, `audience` = the authorization
 *    server's issuer, `resource` = the MCP server, `scope`) for an ID-JAG, authenticated with `idp`'s
 *    credentials;
 * 2. at the authorization server, presents the ID-JAG with the JWT bearer grant, authenticated with the
 *    top-level credentials (`clientId` and `clientSecret` or `privateKey`).
 * A refusal at either fails the request with an OAuthError carrying the server's `error`, without retrying.
 *
 * @throws TypeError from the constructor naming a missing or wrong option (`clientId`, `idToken`,
 *   `idp.tokenEndpoint`, `idp.clientId`, …); RangeError for `maxStepUps`.
 * @example
 * const auth = new EnterpriseManagedAuthProvider({
 *   clientId: 'mcp-client', clientSecret: env.MCP_CLIENT_SECRET,
 *   idToken: () => session.idToken,
 *   idp: { tokenEndpoint: 'https://idp.example.com/oauth2/token', clientId: 'mcp-client-at-idp' },
 * })
 */
export class EnterpriseManagedAuthProvider extends MachineProvider {
  readonly #idToken: EnterpriseManagedAuthProviderOptions['idToken']
  readonly #idp: IdentityProviderOptions
  readonly #idpSigner: () => Promise<AssertionSigner>

  constructor(options: EnterpriseManagedAuthProviderOptions) {
    super(options, options, 'options')
    if (typeof options.idToken !== 'function')
      throw new TypeError('options.idToken must be a function returning the ID token (a string)')
    const idp = options.idp as IdentityProviderOptions | undefined
    const endpoint = idp?.tokenEndpoint
    // the user's ID token goes there
    if (!idp || typeof endpoint !== 'string' || !URL.canParse(endpoint) || !isSecureUrl(new URL(endpoint))) {
      throw new TypeError(
        `options.idp.tokenEndpoint must be an https URL (http only on a loopback host), got ${JSON.stringify(endpoint)}`,
      )
    }
    checkClientCredentials(idp, 'options.idp')
    this.#idpSigner = lazySigner(idp, 'options.idp')
    this.#idToken = options.idToken
    this.#idp = idp
  }

  /**
   * The token exchange at the IdP (RFC 8693 §2.1), then RFC 7523 §2.1 with the ID-JAG.
   * @throws OAuthError the IdP's `error`, or `invalid_response` when it issued no ID-JAG; TypeError when
   *   `idToken` gave no non-empty string.
   */
  protected async grant(context: GrantContext): Promise<Record<string, string>> {
    const { issuer, resource, scope, signal } = context
    const idToken = await this.#idToken({ issuer, resource, scope, signal })
    if (typeof idToken !== 'string' || idToken.trim() === '')
      // its type, never its value: a wrong shape may still hold the credential (e.g. a metadata server's JSON)
      throw new TypeError(`options.idToken must give the JWT as a non-empty string, got ${shapeOf(idToken)}`)
    const idp = this.#idp
    const params: Record<string, string> = {
      grant_type: TOKEN_EXCHANGE,
      requested_token_type: ID_JAG,
      subject_token: idToken.trim(),
      subject_token_type: ID_TOKEN,
      audience: issuer,
      resource,
    }
    if (scope !== undefined) params.scope = scope
    const audience = idp.assertionAudience === 'token_endpoint' ? idp.tokenEndpoint : (idp.issuer ?? idp.tokenEndpoint)
    const auth = tokenEndpointAuth(idp, undefined, audience, this.#idpSigner)
    const exchanged = await requestToken({ tokenEndpoint: idp.tokenEndpoint, auth, params, fetch: this.fetch, signal })
    if (exchanged.issued_token_type !== ID_JAG) {
      throw new OAuthError(
        'invalid_response',
        `The identity provider at ${idp.tokenEndpoint} issued ${JSON.stringify(exchanged.issued_token_type)}, not an ID-JAG (${ID_JAG})`,
      )
    }
    return { grant_type: JWT_BEARER_GRANT_TYPE, assertion: exchanged.access_token }
  }
}
