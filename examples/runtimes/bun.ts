// Bun: bun bun.ts
import { createServer, mcpEndpoint } from './server.ts'

const port = Number(process.env.PORT ?? 8787)
const handler = mcpEndpoint(createServer(), { allowedHosts: ['localhost', '127.0.0.1', '[::1]'] })

// Pass the request only: Bun's second argument is its Server object, not an env object.
const server = Bun.serve({ port, hostname: '127.0.0.1', fetch: (request) => handler(request) })
console.log(`MCP server at http://127.0.0.1:${server.port}/mcp`)
