/**
 * The client credentials grant (RFC 6749 §4.4; MCP extension `io.modelcontextprotocol/oauth-client-credentials`,
 * SEP-1046) for a client acting on its own behalf: a backend job, an agent with no user.
 * @module
 */
import type { ClientCredentials } from './client-auth.ts'
import { MachineProvider, type MachineProviderOptions } from './machine.ts'

/** Options of {@link ClientCredentialsProvider}: the client's credentials and the shared ones. */
export interface ClientCredentialsProviderOptions extends ClientCredentials, MachineProviderOptions {}

/**
 * Obtains access tokens with the client credentials grant, for a {@link StreamableHttpClientTransport}
 * (option `auth`). On a `401` it discovers the authorization server as the authorization-code flow does
 * (protected-resource metadata from the challenge, authorization-server metadata, issuer checked) and asks
 * its token endpoint for a token (`grant_type=client_credentials`, `scope`, `resource`), authenticating with
 * a client secret (`client_secret_basic` or `client_secret_post`) or a private key (`private_key_jwt`,
 * RFC 7523 §2.2, ES256 or RS256 through Web Crypto). Tokens are kept in `store`; after a token expires the
 * server's `401` gets a new one, once per request.
 *
 * @throws TypeError from the constructor naming a missing or wrong option (`clientId`, `clientSecret`,
 *   `privateKey`, `tokenEndpointAuthMethod`, `scope`); RangeError for `maxStepUps`.
 * @example
 * const auth = new ClientCredentialsProvider({ clientId: 'reporting-job', clientSecret: env.CLIENT_SECRET })
 * const transport = new StreamableHttpClientTransport(serverUrl, { auth })
 */
export class ClientCredentialsProvider extends MachineProvider {
  constructor(options: ClientCredentialsProviderOptions) {
    super(options, options, 'options')
  }

  /** RFC 6749 §4.4.2. */
  protected grant(): Promise<Record<string, string>> {
    return Promise.resolve({ grant_type: 'client_credentials' })
  }
}
