/**
 * The two Node Redis clients the tests run every behaviour with: node-redis 5 and ioredis 5, each made the
 * way its README says, and closed quietly (a test may have stopped the server under them).
 */
import { Redis } from 'ioredis'
import { createClient } from 'redis'
import { afterEach } from 'vitest'
import { guardedConnection, redisConnection, type RedisConnection } from '../../src/redis/connection.ts'
import type { RunningRedis } from '../redis-server.ts'

/** A user's client, opened on `url`, and how to end it. */
export interface TestClient {
  client: object
  close(): Promise<void>
}

/** One Redis library, as a test sees it. */
export interface ClientKind {
  name: string
  /** Open a client on `url`. `connected: false`: do not wait for it to connect (Redis may be down). */
  open(url: string, options?: { connected?: boolean }): Promise<TestClient>
}

export const CLIENT_KINDS: ClientKind[] = [
  {
    name: 'node-redis',
    async open(url, { connected = true } = {}) {
      const client = createClient({ url })
      client.on('error', () => {}) // reconnect attempts while a test has stopped the server
      if (connected) await client.connect()
      else void client.connect().catch(() => {})
      return {
        client,
        close: () => {
          try {
            client.destroy()
          } catch {
            // already closed
          }
          return Promise.resolve()
        },
      }
    },
  },
  {
    name: 'ioredis',
    async open(url, { connected = true } = {}) {
      const client = new Redis(url, { lazyConnect: true })
      client.on('error', () => {})
      if (connected) await client.connect()
      else void client.connect().catch(() => {})
      return { client, close: () => Promise.resolve(client.disconnect()) }
    },
  },
]

/** Resolve once `check()` holds, or reject after `ms` naming `what`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/**
 * Connections of `kind` to the test file's Redis, opened per test and all closed after each (the server
 * started again first when the test stopped it). `guarded`: bounded by `timeoutMs` (default 1,000) as
 * `redisFleet` builds them; otherwise the bare adapter (its subscriber connection opens within `timeoutMs`).
 */
export function connectionsFor(
  kind: ClientKind,
  redis: () => RunningRedis,
): (options?: { connected?: boolean; timeoutMs?: number; guarded?: boolean }) => Promise<RedisConnection> {
  const opened: { client: TestClient; conn: RedisConnection }[] = []
  afterEach(async () => {
    if (!redis().running) await redis().start()
    for (const { client, conn } of opened.splice(0)) {
      await conn.close?.()
      await client.close()
    }
  })
  return async ({ connected, timeoutMs = 1_000, guarded = true } = {}) => {
    const client = await kind.open(redis().url, connected === undefined ? {} : { connected })
    const raw = redisConnection(client.client, timeoutMs)
    const conn = guarded ? guardedConnection(raw, { timeoutMs, address: raw.address }) : raw
    opened.push({ client, conn })
    return conn
  }
}
