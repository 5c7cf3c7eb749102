/* eslint-disable @typescript-eslint/require-await -- stand-in clients answer with promises */
/**
 * The connection seam against a real redis-server, with node-redis and with ioredis: commands, one
 * subscriber connection multiplexing channels, `lost` when it drops (and nothing delivered after it, though
 * the libraries resubscribe on their own), a working subscription again once Redis is back, and the guard's
 * timeouts and `UpstreamError`s that name the command, never its arguments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { guardedConnection, redisConnection, type RedisConnection } from '../../src/redis/connection.ts'
import { UpstreamError } from '../../src/server/errors.ts'
import { startRedis, type RunningRedis } from '../redis-server.ts'
import { CLIENT_KINDS, connectionsFor, until } from './clients.ts'

let redis: RunningRedis
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.close()
})

describe.each(CLIENT_KINDS)('redisConnection over $name', (kind) => {
  const connect = connectionsFor(kind, () => redis)
  const open = (options?: { connected?: boolean }) => connect({ ...options, timeoutMs: 2_000, guarded: false })

  it('sends commands and gives RESP2 replies', async () => {
    const conn = await open()
    expect(await conn.command(['SET', 'c:k', 'v', 'PX', '10000'])).toBe('OK')
    expect(await conn.command(['GETDEL', 'c:k'])).toBe('v')
    expect(await conn.command(['GETDEL', 'c:k'])).toBe(null)
    expect(await conn.command(['PUBLISH', 'c:nobody', 'x'])).toBe(0)
  })

  it('multiplexes channels and handlers over one subscriber connection; unsubscribing stops delivery', async () => {
    const conn = await open()
    const got: string[] = []
    const lost: Error[] = []
    const a1 = await conn.subscribe(
      'c:a',
      (m) => got.push(`a1:${m}`),
      (e) => lost.push(e),
    )
    const a2 = await conn.subscribe(
      'c:a',
      (m) => got.push(`a2:${m}`),
      (e) => lost.push(e),
    )
    const b = await conn.subscribe(
      'c:b',
      (m) => got.push(`b:${m}`),
      (e) => lost.push(e),
    )
    // one subscriber connection holds both channels (other tests' connections may still be closing: not counted)
    const subscribers = String(await conn.command(['CLIENT', 'LIST']))
      .trim()
      .split('\n')
      .filter((line) => / sub=[1-9]/.test(line))
    expect(subscribers).toHaveLength(1)
    expect(subscribers[0]).toMatch(/ sub=2 /)
    expect(await conn.command(['PUBLISH', 'c:a', '1'])).toBe(1) // one Redis subscription per channel
    await conn.command(['PUBLISH', 'c:b', '2'])
    await until('both messages', () => got.length === 3)
    expect(got.sort()).toEqual(['a1:1', 'a2:1', 'b:2'])
    await a1()
    await conn.command(['PUBLISH', 'c:a', '3'])
    await until('a2 hears 3', () => got.includes('a2:3'))
    expect(got).not.toContain('a1:3')
    await a2()
    await b()
    expect(await conn.command(['PUBLISH', 'c:a', '4'])).toBe(0) // unsubscribed from Redis too
    expect(lost).toEqual([])
  })

  it('calls lost for every live subscription when Redis stops, delivers nothing after, and subscribes again once it is back', async () => {
    const conn = await open()
    const got: string[] = []
    const lost: string[] = []
    await conn.subscribe(
      'c:x',
      (m) => got.push(`x:${m}`),
      () => lost.push('x'),
    )
    await conn.subscribe(
      'c:y',
      (m) => got.push(`y:${m}`),
      () => lost.push('y'),
    )
    await redis.stop()
    await until('both lost', () => lost.length === 2)
    expect(lost.sort()).toEqual(['x', 'y'])
    await redis.start()
    // the library may resubscribe its old connection: those handlers must hear nothing
    const again: string[] = []
    await until(
      'a new subscription',
      async () => {
        try {
          await conn.subscribe(
            'c:x',
            (m) => again.push(m),
            () => {},
          )
          return true
        } catch {
          return false
        }
      },
      8_000,
    )
    const publisher = await kind.open(redis.url)
    try {
      const p = redisConnection(publisher.client)
      await p.command(['PUBLISH', 'c:x', 'after'])
      await p.command(['PUBLISH', 'c:y', 'after'])
      await until('the new handler hears', () => again.includes('after'))
      await new Promise((r) => setTimeout(r, 100))
      expect(got).toEqual([])
      expect(lost.length).toBe(2) // once each
    } finally {
      await publisher.close()
    }
  })

  it('close() ends its subscriber connection only: the user client still works', async () => {
    const conn = await open()
    let lost = 0
    await conn.subscribe(
      'c:z',
      () => {},
      () => lost++,
    )
    await conn.close?.()
    expect(lost).toBe(1)
    await until('the subscriber is gone', async () => (await conn.command(['PUBLISH', 'c:z', 'x'])) === 0)
    expect(await conn.command(['PING'])).toBe('PONG')
  })

  describe('guardedConnection', () => {
    it('a command while Redis is down fails within the timeout with an UpstreamError naming the command, not its arguments', async () => {
      const conn = await open()
      const guarded = guardedConnection(conn, { timeoutMs: 500, address: `127.0.0.1:${redis.port}` })
      await redis.stop()
      const started = Date.now()
      const error = await guarded.command(['SET', 'c:k', 'secret-answer', 'PX', '1000']).catch((e: unknown) => e)
      expect(Date.now() - started).toBeLessThan(2_000)
      expect(error).toBeInstanceOf(UpstreamError)
      expect((error as Error).message).toMatch(new RegExp(`^Redis at 127\\.0\\.0\\.1:${redis.port} .*SET`))
      expect((error as Error).message).toMatch(/retried/)
      expect((error as Error).message).not.toMatch(/secret-answer|c:k/)
    })

    it('a subscription while Redis is down fails within the timeout with an UpstreamError', async () => {
      const conn = await open()
      const guarded = guardedConnection(conn, { timeoutMs: 500 })
      await redis.stop()
      const started = Date.now()
      const error = await guarded
        .subscribe(
          'c:s',
          () => {},
          () => {},
        )
        .catch((e: unknown) => e)
      expect(Date.now() - started).toBeLessThan(2_500)
      expect(error).toBeInstanceOf(UpstreamError)
      expect((error as Error).message).toMatch(/^Redis .*SUBSCRIBE.*retried/)
    })

    it('a client that never reached Redis (unreachable at start) fails commands with an UpstreamError, no hang', async () => {
      await redis.stop()
      const conn = await open({ connected: false })
      const guarded = guardedConnection(conn, { timeoutMs: 500 })
      const started = Date.now()
      await expect(guarded.command(['GET', 'c:k'])).rejects.toThrow(UpstreamError)
      expect(Date.now() - started).toBeLessThan(2_000)
    })

    it('a refused command is an UpstreamError naming it', async () => {
      const conn = await open()
      const guarded = guardedConnection(conn, { timeoutMs: 2_000 })
      await guarded.command(['SET', 'c:str', 'v'])
      await expect(guarded.command(['LPUSH', 'c:str', 'x'])).rejects.toThrow(/^Redis failed LPUSH \(WRONGTYPE/)
    })
  })
})

describe('redisConnection by shape', () => {
  it('refuses what is no Redis client, naming what it takes', () => {
    expect(() => redisConnection({})).toThrow(/node-redis 5.*ioredis 5.*Bun RedisClient/)
  })

  it('uses a RedisConnection as is, leaving its close to its owner', async () => {
    let closed = false
    const given: RedisConnection = {
      command: async (args) => args.join(' '),
      subscribe: async () => async () => {},
      close: async () => {
        closed = true
      },
    }
    const conn = redisConnection(given)
    expect(await conn.command(['PING'])).toBe('PING')
    await conn.close?.()
    expect(closed).toBe(false)
  })

  it("fits Bun's RedisClient shape (send, duplicate, subscribe, onclose)", async () => {
    const sent: unknown[] = []
    let onMessage: ((m: string, c: string) => void) | undefined
    const sub = {
      connected: true,
      onclose: null as ((e?: unknown) => void) | null,
      subscribe: async (_c: string, l: (m: string, c: string) => void) => {
        onMessage = l
        return 1
      },
      unsubscribe: async () => {},
      close: () => {},
    }
    const bun = { send: async (cmd: string, args: string[]) => sent.push([cmd, args]), duplicate: async () => sub }
    const conn = redisConnection(bun)
    await conn.command(['SET', 'k', 'v'])
    expect(sent).toEqual([['SET', ['k', 'v']]])
    const got: string[] = []
    let lost: Error | undefined
    await conn.subscribe(
      'ch',
      (m) => got.push(m),
      (e) => (lost = e),
    )
    onMessage!('hello', 'ch')
    expect(got).toEqual(['hello'])
    sub.onclose!(new Error('Connection closed'))
    expect(lost).toBeInstanceOf(UpstreamError)
    onMessage!('late', 'ch')
    expect(got).toEqual(['hello'])
  })
})
