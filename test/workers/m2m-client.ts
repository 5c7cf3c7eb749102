/**
 * A Worker that gets a token with edge-mcp/client's ClientCredentialsProvider (`private_key_jwt`, the key
 * signing through workerd's Web Crypto) from an authorization server faked by its own fetch, and answers the
 * client assertion it sent, for test/e2e/m2m-workerd.test.ts to verify with jose.
 */
import { ClientCredentialsProvider, InMemoryOAuthStore } from '../../src/client/index.ts'

const MCP = 'https://mcp.example.com/mcp'
const PRM = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'
const ISSUER = 'https://as.example.com'

export default {
  async fetch(request: Request): Promise<Response> {
    const { clientId, privateKey } = (await request.json()) as { clientId: string; privateKey: string | JsonWebKey }
    const forms: Record<string, string>[] = []
    const fake = async (r: Request): Promise<Response> => {
      if (r.url === PRM) return Response.json({ resource: MCP, authorization_servers: [ISSUER] })
      if (r.url === `${ISSUER}/.well-known/oauth-authorization-server`)
        return Response.json({ issuer: ISSUER, token_endpoint: `${ISSUER}/token` })
      if (r.url === `${ISSUER}/token`) {
        forms.push(Object.fromEntries(new URLSearchParams(await r.text())))
        return Response.json({ access_token: 'issued', token_type: 'Bearer', expires_in: 60 })
      }
      return new Response('not found', { status: 404 })
    }
    const store = new InMemoryOAuthStore()
    const auth = new ClientCredentialsProvider({
      authorizationServer: ISSUER,
      clientId,
      privateKey,
      fetch: fake,
      store,
    })
    try {
      await auth.authorize(MCP, `Bearer resource_metadata="${PRM}"`)
      return Response.json({ form: forms[0], header: (await auth.authorizationHeaders(MCP, 'POST'))?.authorization })
    } catch (error) {
      return Response.json({ error: `${(error as Error).name}: ${(error as Error).message}` })
    }
  },
}
