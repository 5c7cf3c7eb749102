/**
 * The one-tool Worker of `bench/workers/edge-mcp.ts` as an OAuth protected resource with a token verifier
 * of its own: `protectedResource` and `InvalidTokenError` from `edge-mcp/oauth`, no `jwtVerifier`. The
 * bundle check proves that importing `edge-mcp/oauth` this way carries no jose.
 */
import * as v from 'valibot'
import { InvalidTokenError, protectedResource } from '../../src/oauth/index.ts'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'

const mcp = new McpServer({ name: 'bench', version: '1.0.0' })
mcp.tool('echo', { input: { text: v.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }))

export default {
  fetch: createFetchHandler(mcp, {
    oauth: protectedResource({
      authorizationServers: ['https://auth.example.com'],
      verifyToken: (token) => {
        if (token !== 'a-token-of-ours') throw new InvalidTokenError('unknown token')
        return { clientId: 'bench', scopes: [] }
      },
    }),
    allowedHosts: ['mcp.example.com'],
  }),
}
