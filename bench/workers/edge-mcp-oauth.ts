/**
 * The one-tool Worker of `bench/workers/edge-mcp.ts` as an OAuth protected resource: `createFetchHandler`
 * with `oauth` and a `jwtVerifier` from `edge-mcp/oauth` (jose's JWT verification and remote JWKS), to
 * measure what token verification adds to the bundle.
 */
import * as v from 'valibot'
import { jwtVerifier, protectedResource } from '../../src/oauth/index.ts'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'

const mcp = new McpServer({ name: 'bench', version: '1.0.0' })
mcp.tool('echo', { input: { text: v.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }))

const issuer = 'https://auth.example.com'
export default {
  fetch: createFetchHandler(mcp, {
    oauth: protectedResource({ authorizationServers: [issuer], verifyToken: jwtVerifier({ issuer }) }),
    allowedHosts: ['mcp.example.com'],
  }),
}
