/**
 * redisTasks across two instances (A and B: each its own McpServer, Redis connection and store) sharing one
 * real redis-server, with node-redis and with ioredis (through redisConnection, as redisFleet): a task
 * started on A is polled, answered and cancelled through B; TTL, principals, maxTasks, the 2 MiB record
 * bound; A killed mid-run; Redis stopped and restarted under a running task.
 */
import * as v from 'valibot'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { guardedConnection, redisConnection, type RedisConnection } from '../../src/redis/connection.ts'
import { redisFleet } from '../../src/redis/index.ts'
import { redisTasks, type RedisTasksOptions, type RedisTaskStore } from '../../src/redis/tasks.ts'
import { McpServer, createFetchHandler, elicit, formSchema, type FetchHandler } from '../../src/server/index.ts'
import { INTERRUPTED_MESSAGE } from '../../src/server/tasks/engine.ts'
import { post, recordingLogger, req, std, type Posted } from '../helpers.ts'
import { startRedis, type RunningRedis } from '../redis-server.ts'
import { CLIENT_KINDS, type ClientKind } from './clients.ts'

const EXT = 'io.modelcontextprotocol/tasks'
const TASKS = { elicitation: { form: {} }, extensions: { [EXT]: {} } }

/** A connection as redisFleet makes it: the adapter, every command bounded. */
async function connect(kind: ClientKind, url: string): Promise<{ conn: RedisConnection; kill: () => Promise<void> }> {
  const client = await kind.open(url)
  const raw = redisConnection(client.client, 2_000)
  return {
    conn: guardedConnection(raw, { timeoutMs: 500 }),
    async kill() {
      await client.close()
      await raw.close?.()
    },
  }
}

/** A gate a tool waits on, opened by the test. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void
  const wait = new Promise<void>((resolve) => (open = resolve))
  return { wait, open }
}

interface Instance {
  handler: FetchHandler
  store: RedisTaskStore
  log: ReturnType<typeof recordingLogger>
  signals: AbortSignal[]
  hold: ReturnType<typeof gate>
  /** Opened by the test: the `step` tool then sets its status message. */
  step: ReturnType<typeof gate>
  /** While true, every command of this instance fails (Redis unreachable for it alone). */
  flaky: { down: boolean }
  kill(): Promise<void>
}

const opened: Instance[] = []

/** One instance: an McpServer on its own connection and store. */
async function instance(kind: ClientKind, url: string, options: RedisTasksOptions = {}): Promise<Instance> {
  const { conn, kill } = await connect(kind, url)
  const log = recordingLogger()
  const flaky = { down: false }
  const flakyConn: RedisConnection = {
    command: (args) => (flaky.down ? Promise.reject(new Error('ECONNREFUSED (test)')) : conn.command(args)),
    subscribe: (channel, onMessage, lost) => conn.subscribe(channel, onMessage, lost),
  }
  const store = redisTasks(flakyConn, {
    leaseMs: 600,
    commandTimeoutMs: 500,
    prefix: 'test:',
    logger: log.logger,
    ...options,
  })
  const mcp = new McpServer({ name: 'tasks', version: '1' }, { tasks: store })
  const hold = gate()
  const step = gate()
  const signals: AbortSignal[] = []
  mcp.tool('step', { task: 'required' }, async (_args, ctx) => {
    await step.wait
    await ctx.task!.status('halfway')
    await hold.wait
    return 'stepped'
  })
  mcp.tool('slow', { task: 'required' }, async (_args, ctx) => {
    signals.push(ctx.signal)
    await Promise.race([hold.wait, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))])
    return 'slow done'
  })
  mcp.tool('quick', { task: 'required' }, () => 'quick done')
  mcp.tool('ask_number', { task: 'required' }, async (_args, ctx) => {
    const answer = await ctx.task!.ask(elicit('How many?', formSchema({ n: v.number() })))
    return JSON.stringify(answer)
  })
  mcp.tool('big', { task: 'required' }, () => 'x'.repeat(3 * 1024 * 1024))
  mcp.tool('bigint', { task: 'required' }, () => ({ content: [], _meta: { n: 1n } }))
  const handler = createFetchHandler(mcp, {
    authenticate: (request) => {
      const user = request.headers.get('x-user')
      return user ? { clientId: user } : undefined
    },
  })
  const it: Instance = {
    handler,
    store,
    log,
    signals,
    hold,
    step,
    flaky,
    async kill() {
      await kill()
      await store.close()
    },
  }
  opened.push(it)
  return it
}

const callTool = (handler: FetchHandler, name: string, headers: Record<string, string> = {}): Promise<Posted> =>
  post(handler, req('tools/call', { name, arguments: {} }, TASKS), { ...std('tools/call', name), ...headers })

const tasks = (
  handler: FetchHandler,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Posted> => post(handler, req(method, params, TASKS), { ...std(method, params.taskId as string), ...headers })

/** Poll tasks/get until `until` holds (at most ~5 s). */
async function poll(handler: FetchHandler, taskId: string, until: (r: Posted) => boolean, headers = {}) {
  for (let i = 0; i < 250; i++) {
    const got = await tasks(handler, 'tasks/get', { taskId }, headers)
    if (until(got)) return got
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`task ${taskId} never reached the state`)
}
const statusIs = (status: string) => (r: Posted) => r.body.result?.status === status
const textOf = (r: Posted): string => (r.body.result.result as { content: Array<{ text: string }> }).content[0].text
const started = async (handler: FetchHandler, name: string, headers = {}): Promise<string> => {
  const got = await callTool(handler, name, headers)
  expect(got.body.result).toMatchObject({ resultType: 'task', status: 'working' })
  return got.body.result.taskId as string
}

let redis: RunningRedis
beforeAll(async () => {
  redis = await startRedis()
})
afterEach(async () => {
  const untimed = redis.running ? await keysWithoutTtl(redis.url) : []
  for (const i of opened.splice(0)) {
    i.hold.open()
    await i.kill()
  }
  expect(untimed, 'every key the test left in Redis has a TTL').toEqual([])
})

/** The keys of the Redis at `url` that have no TTL (PTTL -1), as an operator would scan for them. */
async function keysWithoutTtl(url: string): Promise<string[]> {
  const opened = await CLIENT_KINDS[0].open(url)
  const client = opened.client
  const conn = redisConnection(client)
  try {
    const keys = (await conn.command(['KEYS', '*'])) as string[]
    const untimed: string[] = []
    for (const key of keys) if (Number(await conn.command(['PTTL', key])) < 0) untimed.push(key)
    return untimed
  } finally {
    await opened.close()
  }
}
afterAll(async () => {
  await redis.close()
})

describe('redisTasks: options and runtimes', () => {
  it('refuses options that are not positive integers, naming them', () => {
    const conn = { command: () => Promise.resolve(null), subscribe: () => Promise.resolve(() => Promise.resolve()) }
    for (const [name, value] of [
      ['ttlMs', 0],
      ['ttlMs', 2 ** 31],
      ['pollIntervalMs', 1.5],
      ['maxTasks', -1],
      ['leaseMs', Number.NaN],
      ['commandTimeoutMs', 0],
    ] as const)
      expect(() => redisTasks(conn, { [name]: value })).toThrow(
        new RangeError(`redisTasks: ${name} must be a positive integer, got ${String(value)}`),
      )
  })

  it('on Workers refuses to start a task: -32603 naming durableObjectTasks (nothing runs)', async () => {
    const a = await instance(CLIENT_KINDS[0], redis.url)
    vi.stubGlobal('navigator', { userAgent: 'Cloudflare-Workers' })
    try {
      const refused = await callTool(a.handler, 'slow')
      expect(refused.body.error).toMatchObject({
        code: -32603,
        message: expect.stringMatching(
          /^redisTasks cannot run a task on Cloudflare Workers: use durableObjectTasks/,
        ) as unknown,
      })
      expect(a.signals).toHaveLength(0)
    } finally {
      vi.unstubAllGlobals()
    }
  })
})

describe.each(CLIENT_KINDS)('redisTasks over $name: a task on A, seen from B', (kind) => {
  it('is polled on B, its question answered through B reaches A, and the result shows on both', async () => {
    const a = await instance(kind, redis.url)
    const b = await instance(kind, redis.url)
    const id = await started(a.handler, 'ask_number')
    const waiting = await poll(b.handler, id, statusIs('input_required'))
    const keys = Object.keys(waiting.body.result.inputRequests)
    expect(keys).toHaveLength(1)
    const updated = await tasks(b.handler, 'tasks/update', {
      taskId: id,
      inputResponses: { [keys[0]]: { action: 'accept', content: { n: 3 } } },
    })
    expect(updated.body.result).toMatchObject({ resultType: 'complete' })
    const done = await poll(b.handler, id, statusIs('completed'))
    expect(JSON.parse(textOf(done))).toEqual({ action: 'accept', value: { n: 3 } })
    expect(textOf(await tasks(a.handler, 'tasks/get', { taskId: id }))).toBe(textOf(done))
  })

  it('our Client behind a round-robin balancer over A and B: the task’s question is answered and its result returned', async () => {
    const instances = [await instance(kind, redis.url), await instance(kind, redis.url)]
    const served: number[] = []
    let next = 0
    const fetch = (request: Request): Promise<Response> => {
      const at = next++ % 2
      served.push(at)
      return instances[at].handler(request)
    }
    const asked: string[] = []
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://fleet/mcp', { fetch }),
      versionNegotiation: 'modern',
      sleep: (_ms, signal) => new Promise((resolve) => setTimeout(resolve, 10, signal)), // polls come quicker
      elicitation: (params) => (asked.push(params.message), { action: 'accept', content: { n: 7 } }),
    })
    const result = await client.callTool('ask_number', {})
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ action: 'accept', value: { n: 7 } }) }])
    expect(asked).toEqual(['How many?'])
    expect(new Set(served)).toEqual(new Set([0, 1]))
  })

  it('cancelled through B: A’s run sees its signal abort, and the task stays cancelled', async () => {
    const a = await instance(kind, redis.url)
    const b = await instance(kind, redis.url)
    const id = await started(a.handler, 'slow')
    expect((await tasks(b.handler, 'tasks/cancel', { taskId: id })).body.result).toMatchObject({
      resultType: 'complete',
    })
    expect(a.signals[0].aborted).toBe(true)
    expect((await tasks(b.handler, 'tasks/get', { taskId: id })).body.result.status).toBe('cancelled')
    a.hold.open()
    await new Promise((r) => setTimeout(r, 50))
    expect((await tasks(a.handler, 'tasks/get', { taskId: id })).body.result.status).toBe('cancelled')
    expect((await tasks(b.handler, 'tasks/cancel', { taskId: id })).body.result).toMatchObject({
      resultType: 'complete',
    })
  })

  it('at its TTL the task is not found on either instance, and its run is aborted', async () => {
    const a = await instance(kind, redis.url, { ttlMs: 300 })
    const b = await instance(kind, redis.url)
    const id = await started(a.handler, 'slow')
    expect((await tasks(b.handler, 'tasks/get', { taskId: id })).body.result.ttlMs).toBe(300)
    await new Promise((r) => setTimeout(r, 400))
    for (const h of [a.handler, b.handler])
      expect((await tasks(h, 'tasks/get', { taskId: id })).body.error).toMatchObject({ code: -32602 })
    expect(a.signals[0].aborted).toBe(true)
  })

  it('another principal gets, on either instance, byte for byte the answer of an unknown task id', async () => {
    const a = await instance(kind, redis.url)
    const b = await instance(kind, redis.url)
    const id = await started(a.handler, 'slow', { 'x-user': 'alice' })
    expect((await tasks(b.handler, 'tasks/get', { taskId: id }, { 'x-user': 'alice' })).body.result.status).toBe(
      'working',
    )
    const params = (taskId: string) => ({
      'tasks/get': { taskId },
      'tasks/update': { taskId, inputResponses: {} },
      'tasks/cancel': { taskId },
    })
    for (const h of [a.handler, b.handler])
      for (const [method, p] of Object.entries(params(id))) {
        const bob = await tasks(h, method, p, { 'x-user': 'bob' })
        const unknown = await tasks(h, method, params('AAAAAAAAAAAAAAAAAAAAAA')[method as 'tasks/get'])
        expect(bob.body.error).toMatchObject({ code: -32602 })
        expect(JSON.stringify(bob.body.error)).toBe(JSON.stringify(unknown.body.error))
      }
    expect(a.signals[0].aborted).toBe(false)
  })

  it('past maxTasks running on the instance, starting a task fails with -32603 naming it', async () => {
    const a = await instance(kind, redis.url, { maxTasks: 1 })
    await started(a.handler, 'slow')
    const over = await callTool(a.handler, 'slow')
    expect(over.body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/maxTasks/) as unknown })
    a.hold.open()
    await new Promise((r) => setTimeout(r, 100)) // the run ended: room again
    await started(a.handler, 'quick')
  })

  it('a result that is not JSON fails the task with -32603 saying so', async () => {
    const a = await instance(kind, redis.url)
    const id = await started(a.handler, 'bigint')
    const failed = await poll(a.handler, id, statusIs('failed'))
    expect(failed.body.result.error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/^The task's result cannot be stored: it is not JSON/) as unknown,
    })
  })

  it('a result over 2 MiB fails the task with -32603 naming its size and the limit', async () => {
    const a = await instance(kind, redis.url)
    const b = await instance(kind, redis.url)
    const id = await started(a.handler, 'big')
    const failed = await poll(b.handler, id, statusIs('failed'))
    expect(failed.body.result.error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/is \d+ bytes of JSON, over the limit of 2097152 bytes/) as unknown,
    })
  })
})

describe.each(CLIENT_KINDS)('redisTasks over $name: instances and Redis failing', (kind) => {
  it('through redisFleet: a task on A answered through B; A’s fleet closed mid-run: B shows the next one interrupted at once', async () => {
    const clients = [await kind.open(redis.url), await kind.open(redis.url)]
    const fleets = clients.map((c) =>
      redisFleet(c.client, { prefix: 'fleet:', commandTimeoutMs: 500, tasks: { leaseMs: 5_000 } }),
    )
    const signals: AbortSignal[] = []
    const [a, b] = fleets.map((fleet) => {
      const mcp = new McpServer({ name: 'tasks', version: '1' }, { tasks: fleet.tasks })
      mcp.tool('ask_number', { task: 'required' }, async (_args, ctx) => {
        signals.push(ctx.signal)
        return JSON.stringify(await ctx.task!.ask(elicit('How many?', formSchema({ n: v.number() }))))
      })
      return { handler: createFetchHandler(mcp), fleet }
    })
    try {
      const id = await started(a.handler, 'ask_number')
      const waiting = await poll(b.handler, id, statusIs('input_required'))
      const [key] = Object.keys(waiting.body.result.inputRequests)
      await tasks(b.handler, 'tasks/update', {
        taskId: id,
        inputResponses: { [key]: { action: 'accept', content: { n: 2 } } },
      })
      expect(textOf(await poll(b.handler, id, statusIs('completed')))).toBe(
        JSON.stringify({ action: 'accept', value: { n: 2 } }),
      )
      const id2 = await started(a.handler, 'ask_number')
      await poll(b.handler, id2, statusIs('input_required'))
      await a.fleet.close() // its lease released: no need to wait leaseMs (5 s)
      expect(signals[1].aborted).toBe(true)
      const got = await tasks(b.handler, 'tasks/get', { taskId: id2 })
      expect(got.body.result).toMatchObject({ status: 'failed', statusMessage: INTERRUPTED_MESSAGE })
    } finally {
      for (const f of fleets) await f.close()
      for (const c of clients) await c.close()
    }
  })

  it('a lease deleted under a running task: its run is aborted (logged) and B shows it interrupted', async () => {
    const a = await instance(kind, redis.url)
    const b = await instance(kind, redis.url)
    const id = await started(a.handler, 'slow')
    const { conn, kill } = await connect(kind, redis.url)
    try {
      expect(await conn.command(['DEL', `test:task:{${id}}:lease`])).toBe(1)
    } finally {
      await kill()
    }
    const failed = await poll(b.handler, id, statusIs('failed'))
    expect(failed.body.result.statusMessage).toBe(INTERRUPTED_MESSAGE)
    for (let i = 0; i < 50 && !a.signals[0].aborted; i++) await new Promise((r) => setTimeout(r, 20))
    expect(a.signals[0].aborted).toBe(true)
    expect(a.log.error.join('\n')).toContain('lost its lease in Redis')
    a.hold.open() // the run's end writes nothing: the task stays interrupted
    await new Promise((r) => setTimeout(r, 50))
    expect((await tasks(b.handler, 'tasks/get', { taskId: id })).body.result.statusMessage).toBe(INTERRUPTED_MESSAGE)
  })

  it('a write that failed (Redis unreachable for a moment) is written again once Redis answers: nothing lost', async () => {
    const a = await instance(kind, redis.url)
    const b = await instance(kind, redis.url)
    const id = await started(a.handler, 'step')
    a.flaky.down = true
    a.step.open()
    for (let i = 0; i < 50 && !a.log.error.join().includes('could not be saved'); i++)
      await new Promise((r) => setTimeout(r, 10))
    expect(a.log.error.join('\n')).toContain(`task ${id.slice(0, 6)}… could not be saved to Redis (retried)`)
    expect((await tasks(b.handler, 'tasks/get', { taskId: id })).body.result.statusMessage).toBeUndefined()
    a.flaky.down = false // within leaseMs: the lease still holds
    const seen = await poll(b.handler, id, (r) => r.body.result?.statusMessage === 'halfway')
    expect(seen.body.result.status).toBe('working')
    a.hold.open()
    expect(textOf(await poll(b.handler, id, statusIs('completed')))).toBe('stepped')
    expect(a.log.error.join('\n')).not.toContain('lost its lease')
  })

  it('A killed mid-run: B cannot reach it (-32603, retry), then shows the task failed, interrupted', async () => {
    const a = await instance(kind, redis.url)
    const b = await instance(kind, redis.url)
    const id = await started(a.handler, 'slow')
    await a.kill()
    const cancel = await tasks(b.handler, 'tasks/cancel', { taskId: id })
    expect(cancel.body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/retry$/) as unknown })
    expect(cancel.body.error?.message).toContain(id)
    expect(b.log.error.join('\n')).toContain('could not be reached')
    expect(b.log.error.join('\n')).not.toContain(id) // the whole id protects the task: logs show its start
    const failed = await poll(b.handler, id, statusIs('failed'))
    expect(failed.body.result).toMatchObject({
      statusMessage: INTERRUPTED_MESSAGE,
      error: { code: -32603, message: INTERRUPTED_MESSAGE },
    })
    expect(a.signals[0].aborted).toBe(true)
  })

  it('Redis stopped mid-task: -32603 saying to retry on get, update and cancel, logged; after a restart new tasks work', async () => {
    const own = await startRedis()
    try {
      const a = await instance(kind, own.url)
      const b = await instance(kind, own.url)
      const id = await started(a.handler, 'slow')
      await own.stop()
      for (const [method, params] of [
        ['tasks/get', { taskId: id }],
        ['tasks/update', { taskId: id, inputResponses: {} }],
        ['tasks/cancel', { taskId: id }],
      ] as const) {
        const got = await tasks(b.handler, method, params)
        expect(got.body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/retry$/) as unknown })
        expect(got.body.error?.message).toContain(id)
      }
      expect(b.log.error.length).toBeGreaterThanOrEqual(3)
      const refused = await callTool(a.handler, 'quick')
      expect(refused.body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/retry$/) as unknown })
      await new Promise((r) => setTimeout(r, 700)) // past leaseMs without renewal: A gives the run up
      expect(a.signals[0].aborted).toBe(true)
      expect(a.log.error.join('\n')).toMatch(new RegExp(`task ${id.slice(0, 6)}… could not renew its lease`))
      await own.start()
      let id2 = ''
      for (let i = 0; i < 100 && !id2; i++) {
        const got = await callTool(a.handler, 'quick')
        if (got.body.result) id2 = got.body.result.taskId as string
        else await new Promise((r) => setTimeout(r, 50))
      }
      expect(textOf(await poll(b.handler, id2, statusIs('completed')))).toBe('quick done')
      expect((await tasks(b.handler, 'tasks/get', { taskId: id })).body.error).toMatchObject({ code: -32602 })
    } finally {
      for (const i of opened.splice(0)) await i.kill()
      await own.close()
    }
  }, 15_000)
})
