/**
 * The Redis question mailbox against a real redis-server, with node-redis and with ioredis, as two instances
 * (two clients, two mailboxes) sharing one Redis: an answer delivered through one reaches the wait on the
 * other, early answers are kept under a TTL, limits, and what Redis failing looks like (unreachable at
 * start, stopped mid-wait, restarted). Then what a 2025-era client sees through two McpServers.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { guardedConnection, redisConnection } from '../../src/redis/connection.ts'
import { redisMailbox } from '../../src/redis/mailbox.ts'
import { McpError } from '../../src/protocol/errors.ts'
import { QuestionTimeoutError, UpstreamError } from '../../src/server/errors.ts'
import { answer, legacyPost, sseReader } from '../legacy-wire.ts'
import { callTool, initialize, makeServer, toolText } from '../fixtures/asker.ts'
import { startRedis, type RunningRedis } from '../redis-server.ts'
import { CLIENT_KINDS, connectionsFor, type TestClient } from './clients.ts'

let redis: RunningRedis
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.close()
})

const OPTIONS = { prefix: 'mb:', earlyAnswerMs: 30_000, maxAnswerBytes: 1024 }
const YES = { result: { action: 'accept', content: { name: 'Ada' } } }

describe.each(CLIENT_KINDS)('redisMailbox over $name', (kind) => {
  const connect = connectionsFor(kind, () => redis)
  /** One instance: its own client, connection and mailbox. */
  const instance = async (options: { connected?: boolean; timeoutMs?: number } = {}) => {
    const conn = await connect(options)
    return { conn, mailbox: redisMailbox(conn, OPTIONS) }
  }

  it('an answer delivered through one instance reaches the wait on the other, and is taken (GETDEL)', async () => {
    const a = await instance()
    const b = await instance()
    const waiting = a.mailbox.wait('q1', 5_000)
    await new Promise((r) => setTimeout(r, 50)) // the wait is subscribed (it would also find the key on its own)
    await b.mailbox.deliver('q1', YES)
    expect(await waiting).toEqual(YES)
    expect(await a.conn.command(['EXISTS', 'mb:q:q1'])).toBe(0)
  })

  it('an early answer is kept under its TTL (PTTL > 0) and taken by a wait that comes later, elsewhere', async () => {
    const a = await instance()
    const b = await instance()
    await b.mailbox.deliver('q2', { error: { code: -1, message: 'no' } })
    const pttl = Number(await a.conn.command(['PTTL', 'mb:q:q2']))
    expect(pttl).toBeGreaterThan(0)
    expect(pttl).toBeLessThanOrEqual(30_000)
    expect(await a.mailbox.wait('q2', 5_000)).toEqual({ error: { code: -1, message: 'no' } })
  })

  it('a stored answer whose message was missed is found by the poll (within about a second)', async () => {
    const a = await instance()
    const waiting = a.mailbox.wait('q3', 5_000)
    await new Promise((r) => setTimeout(r, 100))
    await a.conn.command(['SET', 'mb:q:q3', JSON.stringify(YES), 'PX', '10000']) // no PUBLISH
    const started = Date.now()
    expect(await waiting).toEqual(YES)
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('times out with QuestionTimeoutError, and aborts with the reason', async () => {
    const { mailbox } = await instance()
    await expect(mailbox.wait('q4', 200)).rejects.toThrow(QuestionTimeoutError)
    const abort = new AbortController()
    const waiting = mailbox.wait('q5', 5_000, abort.signal)
    abort.abort(new Error('gone'))
    await expect(waiting).rejects.toThrow('gone')
    await expect(mailbox.wait('q6', 5_000, AbortSignal.abort(new Error('before')))).rejects.toThrow('before')
  })

  it('limits: a qid over 256 characters is refused; an oversized answer is refused loudly and its wait hears it', async () => {
    const a = await instance()
    const b = await instance()
    await expect(b.mailbox.deliver('x'.repeat(257), YES)).rejects.toThrow(RangeError)
    await expect(a.mailbox.wait('x'.repeat(257), 100)).rejects.toThrow(RangeError)
    const waiting = a.mailbox.wait('q7', 5_000)
    const error = await b.mailbox.deliver('q7', { result: { text: 'é'.repeat(600) } }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(McpError)
    expect((error as McpError).httpStatus).toBe(413)
    expect((error as Error).message).toMatch(/more than the 1024/)
    expect(await waiting).toMatchObject({ error: { code: -32603, message: expect.stringMatching(/1024/) as unknown } })
  })

  it('Redis unreachable at start: wait and deliver fail promptly with an UpstreamError, no hang', async () => {
    await redis.stop()
    const { mailbox } = await instance({ connected: false, timeoutMs: 500 })
    const started = Date.now()
    const waitError = await mailbox.wait('q8', 60_000).catch((e: unknown) => e)
    expect(waitError).toBeInstanceOf(UpstreamError)
    expect((waitError as Error).message).toMatch(/lost Redis.*call the tool again/)
    await expect(mailbox.deliver('q8', YES)).rejects.toThrow(UpstreamError)
    expect(Date.now() - started).toBeLessThan(3_000)
  })

  it('Redis stopped mid-wait: the wait rejects promptly, saying to call the tool again; after a restart it works again', async () => {
    const a = await instance()
    const b = await instance()
    const waiting = a.mailbox.wait('q9', 60_000)
    waiting.catch(() => {})
    await new Promise((r) => setTimeout(r, 100))
    const started = Date.now()
    await redis.stop()
    const error = await waiting.catch((e: unknown) => e)
    expect(Date.now() - started).toBeLessThan(3_000)
    expect(error).toBeInstanceOf(UpstreamError)
    expect((error as Error).message).toMatch(/call the tool again/)
    await redis.start()
    let delivered = false
    for (const deadline = Date.now() + 6_000; !delivered && Date.now() < deadline;) {
      delivered = await b.mailbox.deliver('q10', YES).then(
        () => true,
        () => new Promise((r) => setTimeout(r, 100)).then(() => false),
      )
    }
    expect(delivered).toBe(true)
    expect(await a.mailbox.wait('q10', 5_000)).toEqual(YES)
  })
})

describe.each(CLIENT_KINDS)('two McpServers sharing one Redis mailbox ($name)', (kind) => {
  const clients: TestClient[] = []
  const server = async (timeoutMs = 1_000) => {
    const client = await kind.open(redis.url)
    clients.push(client)
    const raw = redisConnection(client.client, timeoutMs)
    const mailbox = redisMailbox(guardedConnection(raw, { timeoutMs }), OPTIONS)
    return makeServer({ mailbox })
  }
  afterEach(async () => {
    if (!redis.running) await redis.start()
    for (const client of clients.splice(0)) await client.close()
  })

  it("a 2025 client's question asked through server A and answered through server B completes the tool call", async () => {
    const a = await server()
    const b = await server()
    const session = await initialize(a.handler)
    const stream = sseReader(await legacyPost(a.handler, callTool('greet'), session))
    const q = await stream.next()
    expect(q.method).toBe('elicitation/create')
    const res = await legacyPost(b.handler, answer(q.id, { action: 'accept', content: { name: 'Ada' } }), session)
    expect(res.status).toBe(202)
    expect(toolText(await stream.next())).toBe('Hello, Ada!')
  })

  it('Redis stopped while the question waits: the tool call ends in a tool error saying to retry, logged; the answer POST gets 503 saying to send it again', async () => {
    const a = await server()
    const b = await server()
    const session = await initialize(a.handler)
    const stream = sseReader(await legacyPost(a.handler, callTool('greet'), session))
    const q = await stream.next()
    await redis.stop()
    let final = await stream.next()
    while (final.method === 'notifications/cancelled') final = await stream.next() // the question is not waited for
    expect((final.result as { isError?: boolean }).isError).toBe(true)
    expect(toolText(final)).toMatch(/lost Redis.*call the tool again/)
    expect(toolText(final)).not.toContain('127.0.0.1') // where Redis is: for the log, not for the client
    expect(a.error.join('\n')).toMatch(/question to a 2025-era client failed/)
    const res = await legacyPost(b.handler, answer(q.id, { action: 'accept', content: { name: 'Ada' } }), session)
    expect(res.status).toBe(503)
    const body = (await res.json()) as { error: { code: number; message: string } }
    expect(body.error.code).toBe(-32603)
    expect(body.error.message).toMatch(/send it again/)
    expect(b.error.join('\n')).toMatch(/an answer could not be delivered: Redis/)
  })
})
