// Node 20+: REDIS_URL=redis://… REQUEST_STATE_KEYS=… npx tsx node.ts   (serves http://127.0.0.1:8787/mcp)
import { serve } from '@hono/node-server'
import { redisFleet } from 'edge-mcp/redis'
import { connectRedis } from './redis.ts'
import { createServer, mcpEndpoint } from './server.ts'

const port = Number(process.env.PORT ?? 8787)
const redis = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
const fleet = redisFleet(redis.client, { prefix: 'bookshop:mcp:' })
const mcp = createServer(fleet, process.env.REQUEST_STATE_KEYS!, redis.orders)
const handler = mcpEndpoint(mcp, { allowedHosts: ['localhost', '127.0.0.1', '[::1]'] })

const server = serve({ fetch: (request) => handler(request), port, hostname: '127.0.0.1' }, (info) => {
  console.log(`MCP server at http://127.0.0.1:${info.port}/mcp`)
})

// On SIGTERM (a deploy, a scale-down): stop taking requests, end the listen streams (their clients listen
// again, on another instance), then close the fleet's own Redis connection and the client.
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, async () => {
    server.close()
    mcp.server.closeSubscriptions()
    await fleet.close()
    await redis.close()
    console.log('closed')
    process.exit(0)
  })
