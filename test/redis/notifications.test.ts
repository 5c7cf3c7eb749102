/**
 * The Redis notification bus against a real redis-server, with node-redis and with ioredis, as two instances
 * (two clients, two buses) sharing one Redis: fan-out to the listeners of both, one Redis subscription per
 * bus, events checked on both ends, and what Redis failing looks like (unreachable at start, stopped
 * mid-listen: `dropped`, publish rejects; restarted: listening again works). Then what a client's listen
 * stream sees through two McpServers.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { guardedConnection, redisConnection } from '../../src/redis/connection.ts'
import { redisNotificationBus } from '../../src/redis/notifications.ts'
import { MAX_BUS_EVENT_BYTES } from '../../src/server/bus-events.ts'
import { UpstreamError } from '../../src/server/errors.ts'
import type { ServerEvent } from '../../src/server/notifications.ts'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'
import { env, recordingLogger, std } from '../helpers.ts'
import { startRedis, type RunningRedis } from '../redis-server.ts'
import { CLIENT_KINDS, connectionsFor, until, type TestClient } from './clients.ts'

let redis: RunningRedis
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.close()
})

const CHANGED: ServerEvent = { kind: 'toolsListChanged' }

describe.each(CLIENT_KINDS)('redisNotificationBus over $name', (kind) => {
  const connect = connectionsFor(kind, () => redis)
  const instance = async (options: { connected?: boolean; timeoutMs?: number } = {}) => {
    const conn = await connect(options)
    return { conn, bus: redisNotificationBus(conn, { prefix: 'nb:' }) }
  }

  it('an event published on one instance reaches the listeners of both; one Redis subscription per bus', async () => {
    const a = await instance()
    const b = await instance()
    const got: string[] = []
    const stops = [
      await a.bus.subscribe((e) => got.push(`a1:${e.kind}`)),
      await a.bus.subscribe((e) => got.push(`a2:${e.kind}`)),
      await b.bus.subscribe((e) => got.push(`b:${e.kind}`)),
    ]
    expect(await a.conn.command(['PUBSUB', 'NUMSUB', 'nb:events'])).toEqual(['nb:events', 2])
    await b.bus.publish(CHANGED)
    await b.bus.publish({ kind: 'resourceUpdated', uri: 'file:///x' })
    await until('six deliveries', () => got.length === 6)
    expect(got.sort()).toEqual([
      'a1:resourceUpdated',
      'a1:toolsListChanged',
      'a2:resourceUpdated',
      'a2:toolsListChanged',
      'b:resourceUpdated',
      'b:toolsListChanged',
    ])
    for (const stop of stops) await stop()
    await until('unsubscribed', async () => (await a.conn.command(['PUBLISH', 'nb:events', '{}'])) === 0)
  })

  it('checks events on both ends: not an event is a TypeError, an overlong URI is dropped, junk on the channel is skipped', async () => {
    const { conn, bus } = await instance()
    await expect(bus.publish({ kind: 'nope' } as unknown as ServerEvent)).rejects.toThrow(TypeError)
    const got: ServerEvent[] = []
    const stop = await bus.subscribe((e) => got.push(e))
    await bus.publish({ kind: 'resourceUpdated', uri: 'a:' + 'x'.repeat(5000) }) // published nowhere
    await conn.command(['PUBLISH', 'nb:events', 'not json'])
    await conn.command(['PUBLISH', 'nb:events', JSON.stringify({ kind: 'bogus' })])
    const big = JSON.stringify({ kind: 'resourceUpdated', uri: 'a:' + 'é'.repeat(MAX_BUS_EVENT_BYTES / 2) })
    await conn.command(['PUBLISH', 'nb:events', big])
    await conn.command(['PUBLISH', 'nb:events', JSON.stringify({ kind: 'promptsListChanged', extra: 1 })])
    await until('the one valid event', () => got.length === 1)
    await new Promise((r) => setTimeout(r, 50))
    expect(got).toEqual([{ kind: 'promptsListChanged' }])
    await stop()
  })

  it('Redis unreachable at start: subscribe and publish reject promptly with an UpstreamError', async () => {
    await redis.stop()
    const { bus } = await instance({ connected: false, timeoutMs: 500 })
    const started = Date.now()
    await expect(bus.subscribe(() => {})).rejects.toThrow(UpstreamError)
    await expect(bus.publish(CHANGED)).rejects.toThrow(UpstreamError)
    expect(Date.now() - started).toBeLessThan(3_000)
  })

  it("Redis stopped mid-listen: every listener's dropped fires once, publish rejects; after a restart listening again works", async () => {
    const a = await instance()
    const b = await instance()
    const dropped: unknown[] = []
    const got: string[] = []
    await a.bus.subscribe(
      (e) => got.push(`old1:${e.kind}`),
      (error) => dropped.push(error),
    )
    await a.bus.subscribe(
      (e) => got.push(`old2:${e.kind}`),
      (error) => dropped.push(error),
    )
    await redis.stop()
    await until('both dropped', () => dropped.length === 2, 3_000)
    expect(dropped[0]).toBeInstanceOf(UpstreamError)
    expect(String(dropped[0])).toMatch(/lost its Redis subscription.*listen again/)
    await expect(b.bus.publish(CHANGED)).rejects.toThrow(UpstreamError)
    await redis.start()
    await until(
      'a new subscription',
      () =>
        Promise.resolve(a.bus.subscribe((e) => got.push(`new:${e.kind}`))).then(
          () => true,
          () => false,
        ),
      8_000,
    )
    await until(
      'a publish',
      () =>
        Promise.resolve(b.bus.publish(CHANGED)).then(
          () => true,
          () => false,
        ),
      8_000,
    )
    await until('the new listener hears', () => got.includes('new:toolsListChanged'))
    // nothing for the dropped ones (the event may come twice: node-redis sends a PUBLISH that timed out once it is back)
    expect(new Set(got)).toEqual(new Set(['new:toolsListChanged']))
    expect(dropped).toHaveLength(2)
  })
})

/** Open a listen stream on `handler`; its JSON-RPC messages one by one. */
async function listen(handler: (r: Request) => Promise<Response>, id: number) {
  const res = await handler(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: std('subscriptions/listen'),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true }, _meta: env({}) },
      }),
    }),
  )
  expect(res.status).toBe(200)
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  const messages: Record<string, unknown>[] = []
  return async function next(): Promise<Record<string, unknown> | undefined> {
    for (;;) {
      const m = messages.shift()
      if (m) return m
      const { done, value } = await reader.read()
      if (done) return undefined
      buffer += decoder.decode(value, { stream: true })
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        if (!event.startsWith(':'))
          messages.push(JSON.parse(event.replace(/^event: message\ndata: /, '')) as Record<string, unknown>)
      }
    }
  }
}

describe.each(CLIENT_KINDS)('two McpServers sharing one Redis bus ($name)', (kind) => {
  const clients: TestClient[] = []
  const server = async () => {
    const client = await kind.open(redis.url)
    clients.push(client)
    const raw = redisConnection(client.client, 1_000)
    const rec = recordingLogger()
    const notificationBus = redisNotificationBus(guardedConnection(raw, { timeoutMs: 1_000 }), { prefix: 'nb2:' })
    const mcp = new McpServer({ name: 'lib', version: '1' }, { notificationBus, logger: rec.logger })
    mcp.tool('a', {}, () => 'a')
    return Object.assign(mcp, { logged: rec })
  }
  afterEach(async () => {
    if (!redis.running) await redis.start()
    for (const client of clients.splice(0)) await client.close()
  })

  it('a listen stream on server A hears tools/list_changed from a tool added on server B; with Redis stopped it ends with -32603', async () => {
    const a = await server()
    const b = await server()
    // B serves (a request handled): its list changes are news from then on
    await b.server.handle({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: env() } },
    })
    const next = await listen(createFetchHandler(a), 7)
    expect((await next())?.method).toBe('notifications/subscriptions/acknowledged')
    b.tool('added', {}, () => 'x')
    const heard = await next()
    expect(heard?.method).toBe('notifications/tools/list_changed')
    await redis.stop()
    const end = await next()
    expect(end).toMatchObject({ id: 7, error: { code: -32603 } })
    expect(await next()).toBeUndefined() // the stream ended: the client listens again
    expect(a.logged.error.join('\n')).toMatch(/lost its Redis subscription/)
  })
})
