// The Redis client, node-redis 5 (default) or ioredis 5 (REDIS_LIBRARY=ioredis): redisFleet takes either as it is.
// Both are told to fail a command at once while Redis is unreachable, instead of queueing it until Redis is back:
// a request then gets an error to retry rather than waiting (redisFleet bounds its own commands either way).
import { Redis } from 'ioredis'
import { createClient } from 'redis'

export async function connectRedis(url: string, library = process.env.REDIS_LIBRARY ?? 'redis') {
  if (library === 'ioredis') {
    const client = new Redis(url, { lazyConnect: true, enableOfflineQueue: false })
    client.on('error', (error: Error) => console.error(`Redis: ${error.message}`))
    await client.connect() // rejects when Redis cannot be reached
    return { client, orders: client, close: async () => void (await client.quit()) }
  }
  const client = createClient({ url, disableOfflineQueue: true })
  client.on('error', (error: Error) => console.error(`Redis: ${error.message}`)) // without it, an error ends the process
  await client.connect() // retries until Redis answers
  return { client, orders: client, close: () => client.close() }
}
