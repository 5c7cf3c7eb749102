// Node 20+: npx tsx node.ts   (serves http://127.0.0.1:8787/mcp)
import { serve } from '@hono/node-server'
import { createServer, mcpEndpoint } from './server.ts'

const port = Number(process.env.PORT ?? 8787)
const handler = mcpEndpoint(createServer(), { allowedHosts: ['localhost', '127.0.0.1', '[::1]'] })

serve({ fetch: (request) => handler(request), port, hostname: '127.0.0.1' }, (info) => {
  console.log(`MCP server at http://127.0.0.1:${info.port}/mcp`)
})
