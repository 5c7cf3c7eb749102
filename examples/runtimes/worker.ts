// Cloudflare Workers: npx wrangler dev (local) / npx wrangler deploy, with wrangler.toml beside it.
import type { McpServer } from 'edge-mcp/server'
import { createServer, mcpEndpoint } from './server.ts'

interface Env {
  /** Secret (`npx wrangler secret put REQUEST_STATE_KEYS`): comma-separated keys, newest first. */
  REQUEST_STATE_KEYS?: string
  /** Var: comma-separated host names /mcp answers under (wrangler.toml `[vars]`); `*` for any. */
  ALLOWED_HOSTS?: string
}

let endpoint: ((request: Request) => Promise<Response>) | undefined

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    // Built on the first request: bindings are only known then (and Workers forbid randomness at load).
    if (!endpoint) {
      const mcp: McpServer = createServer({ requestStateKeys: env.REQUEST_STATE_KEYS })
      const hosts = env.ALLOWED_HOSTS?.split(',').map((h) => h.trim()) ?? [] // unset: none (403 on /mcp)
      endpoint = mcpEndpoint(mcp, hosts.includes('*') ? {} : { allowedHosts: hosts })
    }
    return endpoint(request)
  },
}
