/**
 * `redisFleet` as a user builds it from `edge-mcp/redis`: its options checked at construction, its three
 * meeting points on the user's client (node-redis and ioredis) under the default prefix, and `close()`
 * ending what the fleet opened while the user's client keeps working.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redisFleet } from '../../src/redis/index.ts'
import { startRedis, type RunningRedis } from '../redis-server.ts'
import { CLIENT_KINDS } from './clients.ts'

let redis: RunningRedis
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.close()
})

describe('redisFleet options', () => {
  const client = { sendCommand: () => Promise.resolve(null), duplicate: () => client, on: () => client }
  it.each([
    [{ commandTimeoutMs: 0 }, RangeError, /commandTimeoutMs/],
    [{ commandTimeoutMs: 2 ** 31 }, RangeError, /commandTimeoutMs/],
    [{ earlyAnswerMs: 1.5 }, RangeError, /earlyAnswerMs/],
    [{ maxAnswerBytes: -1 }, RangeError, /maxAnswerBytes/],
    [{ tasks: { leaseMs: 0 } }, RangeError, /leaseMs/],
    [{ tasks: { maxTasks: Number.NaN } }, RangeError, /maxTasks/],
    [{ prefix: 3 }, TypeError, /prefix/],
    [{ tasks: 'x' }, TypeError, /tasks/],
    [{ logger: {} }, TypeError, /logger/],
  ])('%j is refused at construction', (options, type, message) => {
    expect(() => redisFleet(client, options as never)).toThrow(type)
    expect(() => redisFleet(client, options as never)).toThrow(message)
  })

  it('a client of no known shape is a TypeError saying what fits', () => {
    expect(() => redisFleet({ get: () => null })).toThrow(/node-redis 5.*ioredis 5.*Bun RedisClient/)
  })
})

/** One command through the user's own client (ioredis: call; node-redis: sendCommand). */
function send(client: object, args: string[]): Promise<unknown> {
  const c = client as { sendCommand?: (a: string[]) => Promise<unknown>; call?: (...a: string[]) => Promise<unknown> }
  return c.call ? c.call(...args) : c.sendCommand!(args)
}

describe.each(CLIENT_KINDS)('redisFleet over $name', (kind) => {
  it('two fleets on one Redis meet: an answer, an event; keys under edge-mcp: with a TTL; close() leaves the client working', async () => {
    const one = await kind.open(redis.url)
    const two = await kind.open(redis.url)
    const a = redisFleet(one.client, { commandTimeoutMs: 2_000 })
    const b = redisFleet(two.client, { commandTimeoutMs: 2_000 })
    try {
      expect(typeof a.tasks).toBe('object')
      const events: string[] = []
      const stop = await a.notificationBus.subscribe((e) => events.push(e.kind))
      await b.mailbox.deliver('fleet-q', { result: { ok: true } })
      const ttl = await send(one.client, ['PTTL', 'edge-mcp:q:fleet-q']) // as the user would read it
      expect(Number(ttl)).toBeGreaterThan(0)
      expect(await a.mailbox.wait('fleet-q', 2_000)).toEqual({ result: { ok: true } })
      await b.notificationBus.publish({ kind: 'toolsListChanged' })
      await expect.poll(() => events).toEqual(['toolsListChanged'])
      await stop()
      await a.close()
      const c = one.client as {
        sendCommand?: (a: string[]) => Promise<unknown>
        call?: (...a: string[]) => Promise<unknown>
      }
      expect(await (c.call ? c.call('PING') : c.sendCommand!(['PING']))).toBe('PONG')
    } finally {
      await a.close()
      await b.close()
      await one.close()
      await two.close()
    }
  })
})
