// Deno 2: REDIS_URL=redis://… REQUEST_STATE_KEYS=… deno run --unstable-no-legacy-abort --allow-net --allow-env --allow-read deno.ts
import { redisFleet } from 'edge-mcp/redis'
import { connectRedis } from './redis.ts'
import { createServer, mcpEndpoint } from './server.ts'

const port = Number(Deno.env.get('PORT') ?? 8787)
const redis = await connectRedis(Deno.env.get('REDIS_URL') ?? 'redis://127.0.0.1:6379')
const fleet = redisFleet(redis.client, { prefix: 'bookshop:mcp:' })
const mcp = createServer(fleet, Deno.env.get('REQUEST_STATE_KEYS')!, redis.orders)
const handler = mcpEndpoint(mcp, { allowedHosts: ['localhost', '127.0.0.1', '[::1]'] })

// Pass the request only: Deno's second argument (ServeHandlerInfo) is not an env object.
const server = Deno.serve({ port, hostname: '127.0.0.1' }, (request) => handler(request))

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  Deno.addSignalListener(signal, async () => {
    mcp.server.closeSubscriptions()
    await server.shutdown()
    await fleet.close()
    await redis.close()
    console.log('closed')
    Deno.exit(0)
  })
