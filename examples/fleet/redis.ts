// The Redis client, node-redis 5 (default) or ioredis 5 (REDIS_LIBRARY=ioredis): redisFleet takes either as it is.
import { Redis } from 'ioredis'
import { createClient } from 'redis'

export async function connectRedis(url: string, library = process.env.REDIS_LIBRARY ?? 'redis') {
  if (library === 'ioredis') {
    const client = new Redis(url, { lazyConnect: true })
    client.on('error', (error: Error) => console.error(`Redis: ${error.message}`))
    await client.connect()
    return { client, orders: client, close: async () => void (await client.quit()) }
  }
  const client = createClient({ url })
  client.on('error', (error: Error) => console.error(`Redis: ${error.message}`)) // without it, an error ends the process
  await client.connect()
  return { client, orders: client, close: () => client.close() }
}
