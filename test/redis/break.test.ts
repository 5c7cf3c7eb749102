/**
 * Adversarial cases of the Redis meeting points against a real redis-server, with node-redis and ioredis.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { redisConnection, type RedisConnection } from '../../src/redis/connection.ts'
import { redisFleet, type RedisFleet } from '../../src/redis/fleet.ts'
import { QuestionTimeoutError } from '../../src/server/errors.ts'
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

  it('Redis SIGKILLed mid-wait and mid-listen: both end promptly; restarted, a wait and a listen work again', async () => {
    const a = redisFleet((await open()).client, { prefix: 'b3:', commandTimeoutMs: 1_000 })
    const b = redisFleet((await open()).client, { prefix: 'b3:', commandTimeoutMs: 1_000 })
    fleets.push(a, b)
    const dropped: unknown[] = []
    await a.notificationBus.subscribe(
      () => {},
      (e) => dropped.push(e),
    )
    const waiting = a.mailbox.wait('k1', 60_000).catch((e: unknown) => e)
    await new Promise((r) => setTimeout(r, 100))
    await kill()
    const started = Date.now()
    expect(await waiting).toBeInstanceOf(Error)
    await until('the listener is dropped', () => dropped.length === 1, 3_000)
    expect(Date.now() - started).toBeLessThan(3_000)
    await redis.start()
    let ok = false
    for (const deadline = Date.now() + 8_000; !ok && Date.now() < deadline;) {
      ok = await b.mailbox.deliver('k2', { result: { n: 2 } }).then(
        () => true,
        () => new Promise((r) => setTimeout(r, 100)).then(() => false),
      )
    }
    expect(await a.mailbox.wait('k2', 5_000)).toEqual({ result: { n: 2 } })
    const got: unknown[] = []
    await a.notificationBus.subscribe(
      (e) => got.push(e),
      () => {},
    )
    await b.notificationBus.publish({ kind: 'promptsListChanged' })
    await until('a listener after the restart hears an event', () => got.length === 1, 2_000)
  })

  it('two fleets with different prefixes on one Redis do not see each other', async () => {
    const a = redisFleet((await open()).client, { prefix: 'app-a:' })
    const b = redisFleet((await open()).client, { prefix: 'app-b:' })
    fleets.push(a, b)
    const heard: unknown[] = []
    await b.notificationBus.subscribe(
      (e) => heard.push(e),
      () => {},
    )
    await a.notificationBus.publish({ kind: 'toolsListChanged' })
    await a.mailbox.deliver('same', { result: { from: 'a' } })
    await expect(b.mailbox.wait('same', 300)).rejects.toThrow(QuestionTimeoutError)
    expect(await a.mailbox.wait('same', 1_000)).toEqual({ result: { from: 'a' } })
    expect(heard).toEqual([])
  })

  it('hostile qids (glob, braces, non-ASCII, 256 characters) stay in the mailbox namespace, with a TTL', async () => {
    const client = await open()
    const a = redisFleet(client.client, { prefix: 'b4{x}:' })
    fleets.push(a)
    const conn = redisConnection(client.client)
    conns.push(conn)
    const qids = ['*', 'b4{x}:q:*', '}{', 'é€😀', 'q'.repeat(256), 'a\r\nPING', ' ']
    for (const qid of qids) await a.mailbox.deliver(qid, { result: { qid } })
    const keys = (await conn.command(['KEYS', 'b4*'])) as string[]
    expect(keys.sort()).toEqual(qids.map((q) => `b4{x}:q:${q}`).sort())
    for (const key of keys) expect(Number(await conn.command(['PTTL', key]))).toBeGreaterThan(0)
    for (const qid of qids) expect(await a.mailbox.wait(qid, 1_000)).toEqual({ result: { qid } })
    expect(await conn.command(['KEYS', 'b4*'])).toEqual([])
  })

  it('events near the bound: a resourceUpdated of a 4096-character URI (non-ASCII, 3 bytes each) reaches listeners', async () => {
    const a = redisFleet((await open()).client, { prefix: 'b5:' })
    const b = redisFleet((await open()).client, { prefix: 'b5:' })
    fleets.push(a, b)
    const got: { kind: string; uri?: string }[] = []
    await a.notificationBus.subscribe(
      (e) => got.push(e),
      () => {},
    )
    const uri = 'urn:' + '€'.repeat(4092)
    await b.notificationBus.publish({ kind: 'resourceUpdated', uri })
    await b.notificationBus.publish({ kind: 'resourceUpdated', uri: uri + '€' }) // too long: dropped
    await b.notificationBus.publish({ kind: 'toolsListChanged' })
    await until('the events arrived', () => got.length === 2, 2_000)
    expect(got[0]).toEqual({ kind: 'resourceUpdated', uri })
    expect(got[1]).toEqual({ kind: 'toolsListChanged' })
  })

  it('after fleet.close(), a wait or a listen fails saying the instance is shutting down, not that Redis is unreachable', async () => {
    const fleet = redisFleet((await open()).client, { prefix: 'b6:' })
    await fleet.close()
    const waited = await fleet.mailbox.wait('c1', 5_000).then(
      () => 'answered',
      (e: Error) => e.message,
    )
    const listened = await Promise.resolve()
      .then(() => fleet.notificationBus.subscribe(() => {}))
      .then(
        () => 'subscribed',
        (e: Error) => e.message,
      )
    for (const message of [waited, listened]) {
      expect(message).toMatch(/shutting down/)
      expect(message).not.toMatch(/reachable/)
    }
  })

  it('listens and waits churning on one fleet (one subscriber): every live listener and wait still hears', async () => {
    const a = redisFleet((await open()).client, { prefix: 'b7:' })
    const b = redisFleet((await open()).client, { prefix: 'b7:' })
    fleets.push(a, b)
    const heard = new Map<number, number>()
    const stops = new Map<number, () => void | Promise<void>>()
    const listen = async (n: number) => {
      heard.set(n, 0)
      stops.set(n, await a.notificationBus.subscribe(() => heard.set(n, heard.get(n)! + 1)))
    }
    await Promise.all(Array.from({ length: 30 }, (_, n) => listen(n)))
    // 30 rounds: a listener leaves while another joins; a wait starts as the previous one ends (its unsubscribe)
    let current = a.mailbox.wait('w0', 5_000)
    const slow: string[] = []
    for (let round = 0; round < 30; round++) {
      const stop = stops.get(round)!
      stops.delete(round)
      heard.delete(round)
      let next!: Promise<unknown>
      const chained = current.then(() => void (next = a.mailbox.wait(`w${round + 1}`, 5_000)))
      const started = Date.now()
      await b.mailbox.deliver(`w${round}`, { result: { round } })
      await Promise.all([stop(), listen(100 + round), chained])
      if (Date.now() - started > 500) slow.push(`w${round}: ${Date.now() - started} ms`)
      await new Promise((r) => setTimeout(r, 30)) // the next wait subscribes
      current = next as Promise<never>
    }
    const started = Date.now()
    await b.mailbox.deliver('w30', { result: {} })
    await current
    if (Date.now() - started > 500) slow.push(`w30: ${Date.now() - started} ms`)
    expect(slow, 'answers heard by message, not by the 1 s poll').toEqual([])
    await b.notificationBus.publish({ kind: 'toolsListChanged' })
    await until('every live listener heard the event', () => [...heard.values()].every((n) => n === 1), 2_000)
    expect(heard.size).toBe(30)
  })
})

describe('redisFleet on a RedisConnection of the user', () => {
  it('close() calls its close, as the docs of redisFleet say', async () => {
    let closed = 0
    const given: RedisConnection = {
      command: () => Promise.resolve('OK'),
      subscribe: () => Promise.resolve(() => Promise.resolve()),
      close: () => {
        closed++
        return Promise.resolve()
      },
    }
    await redisFleet(given).close()
    expect(closed).toBe(1)
  })
})

/** SIGKILL the test's redis-server (not a graceful stop). */
async function kill(): Promise<void> {
  const pid = Number(/process_id:(\d+)/.exec(await infoServer())?.[1])
  process.kill(pid, 'SIGKILL')
  await until('redis-server is gone', () => !redis.running, 3_000)
}
async function infoServer(): Promise<string> {
  const { execFileSync } = await import('node:child_process')
  return execFileSync('redis-cli', ['-p', String(redis.port), 'INFO', 'server']).toString()
}
