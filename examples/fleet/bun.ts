// Bun: REDIS_URL=redis://… REQUEST_STATE_KEYS=… bun bun.ts
import { RedisClient } from 'bun'
import { redisFleet } from 'edge-mcp/redis'
import { connectRedis } from './redis.ts'
import { createServer, mcpEndpoint } from './server.ts'

/** Bun's own RedisClient fits redisFleet too (REDIS_LIBRARY=bun); node-redis and ioredis run as on Node. */
async function connect(url: string) {
  if (process.env.REDIS_LIBRARY !== 'bun') return connectRedis(url)
  // maxRetries (at most 2^32 - 1): Bun's client stops reconnecting after 10 failed attempts (its default); a fleet instance must
  // come back whenever Redis does
  const client = new RedisClient(url, { maxRetries: 4_294_967_295 })
  await client.connect()
  return { client, orders: client, close: async () => client.close() }
}

const port = Number(process.env.PORT ?? 8787)
const redis = await connect(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
const fleet = redisFleet(redis.client, { prefix: 'bookshop:mcp:' })
const mcp = createServer(fleet, process.env.REQUEST_STATE_KEYS!, redis.orders)
const handler = mcpEndpoint(mcp, { allowedHosts: ['localhost', '127.0.0.1', '[::1]'] })

// Pass the request only: Bun's second argument is its Server object. idleTimeout 0: listen streams and
// questions stay open longer than Bun's default 10 s.
const server = Bun.serve({ port, hostname: '127.0.0.1', idleTimeout: 0, fetch: (request) => handler(request) })
console.log(`MCP server at http://127.0.0.1:${server.port}/mcp`)

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, async () => {
    mcp.server.closeSubscriptions()
    await server.stop()
    await fleet.close()
    await redis.close()
    console.log('closed')
    process.exit(0)
  })
