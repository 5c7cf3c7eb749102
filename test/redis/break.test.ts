/**
 * Adversarial cases of the Redis meeting points against a real redis-server, with node-redis and ioredis.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { redisConnection, type RedisConnection } from '../../src/redis/connection.ts'
import { redisFleet, type RedisFleet } from '../../src/redis/fleet.ts'
import { startRedis, type RunningRedis } from '../redis-server.ts'
import { CLIENT_KINDS, until, type TestClient } from './clients.ts'

let redis: RunningRedis
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.close()
})

describe.each(CLIENT_KINDS)('break over $name', (kind) => {
  const clients: TestClient[] = []
  const conns: RedisConnection[] = []
  const fleets: RedisFleet[] = []
  const open = async () => {
    const client = await kind.open(redis.url)
    clients.push(client)
    return client
  }
  afterEach(async () => {
    if (!redis.running) await redis.start()
    for (const f of fleets.splice(0)) await f.close()
    for (const c of conns.splice(0)) await c.close?.()
    for (const c of clients.splice(0)) await c.close()
  })

  it('a subscribe racing the last unsubscribe of the same channel still hears messages', async () => {
    const client = await open()
    const conn = redisConnection(client.client, 2_000)
    conns.push(conn)
    for (let ticks = 0; ticks < 6; ticks++) {
      const channel = `b:race${ticks}`
      const first = await conn.subscribe(
        channel,
        () => {},
        () => {},
      )
      const got: string[] = []
      let later: Promise<unknown> = Promise.resolve()
      for (let i = 0; i < ticks; i++) later = later.then(() => {})
      await Promise.all([
        conn.subscribe(
          channel,
          (m) => got.push(m),
          () => {},
        ),
        later.then(first),
      ])
      await until(
        `the second subscription hears a message (unsubscribe after ${ticks} ticks)`,
        async () => {
          await conn.command(['PUBLISH', channel, 'x'])
          return got.length > 0
        },
        1_000,
      )
    }
  })

  it('a listen opened while the last one closes hears events (bus)', async () => {
    const client = await open()
    const fleet = redisFleet(client.client, { prefix: 'b1:' })
    fleets.push(fleet)
    for (let ticks = 0; ticks < 8; ticks++) {
      const stop = await fleet.notificationBus.subscribe(
        () => {},
        () => {},
      )
      const got: unknown[] = []
      let later: Promise<unknown> = Promise.resolve()
      for (let i = 0; i < ticks; i++) later = later.then(() => {})
      const [next] = await Promise.all([
        fleet.notificationBus.subscribe(
          (e) => got.push(e),
          () => {},
        ),
        later.then(stop),
      ])
      await until(
        `the new listener hears an event (close after ${ticks} ticks)`,
        async () => {
          await fleet.notificationBus.publish({ kind: 'toolsListChanged' })
          return got.length > 0
        },
        1_000,
      )
      await next()
    }
  })

  it('many concurrent waits, answered one by one: each hears its answer by message, not by the 1 s poll', async () => {
    const a = redisFleet((await open()).client, { prefix: 'b2:' })
    const b = redisFleet((await open()).client, { prefix: 'b2:' })
    fleets.push(a, b)
    const n = 40
    const waits = Array.from({ length: n }, (_, i) => a.mailbox.wait(`mq${i}`, 10_000))
    await new Promise((r) => setTimeout(r, 200)) // all subscribed
    const slow: string[] = []
    for (let i = 0; i < n; i++) {
      const started = Date.now()
      await b.mailbox.deliver(`mq${i}`, { result: { i } })
      expect(await waits[i]).toEqual({ result: { i } })
      if (Date.now() - started > 500) slow.push(`mq${i}: ${Date.now() - started} ms`)
    }
    expect(slow).toEqual([])
  })
})
