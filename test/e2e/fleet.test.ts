/**
 * A real fleet: three instances of the demo server (test/fleet/server.ts) — Node (tsx) with node-redis, Deno
 * with ioredis, Bun with node-redis — sharing request-state keys and the Redis meeting points of
 * `edge-mcp/redis` on one redis-server (test/redis-server.ts), behind a round-robin proxy on loopback that
 * streams responses and records which instance served each request (test/fleet/proxy.ts), as a load
 * balancer without session affinity would. Driven by the official v1 client (`@modelcontextprotocol/sdk`,
 * 2025-11-25, default options), the official v2 client (`@modelcontextprotocol/client`) and our Client
 * (2026-07-28):
 * - every demo question asked on one instance is answered through another (the proxy's log says so);
 * - a `subscriptions/listen` stream held by one instance receives a tools/list_changed and a resource update
 *   published on the two others;
 * - a task started on one instance is polled and answered on the others, and completes;
 * - one instance is killed (SIGKILL) mid-flow: its running task becomes `failed` (interrupted) on the others
 *   once its lease lapses, a 2025-era question pending on it fails on the client, a 2026-07-28 retry of a
 *   question it asked completes on another instance, and new calls through the proxy still work.
 *
 * The control: `FLEET_MEETING=memory npx vitest run test/e2e/fleet.test.ts` runs the same file on the
 * in-memory defaults (no Redis): its cross-instance cases fail.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Client, listen, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { encodeBase64Url } from '../../src/encoding/base64url.ts'
import type { ElicitRequestParams, ElicitResult } from '../../src/index.ts'
import { INTERRUPTED_MESSAGE } from '../../src/server/tasks/engine.ts'
import { startInstance, type Instance } from '../fleet/instances.ts'
import { FleetProxy, type Served } from '../fleet/proxy.ts'
import { env, std } from '../helpers.ts'
import { messages } from '../legacy-wire.ts'
import { startRedis, type RunningRedis } from '../redis-server.ts'

/** `redis` (default): the Redis meeting points; `memory`: the in-memory defaults (the control, which must fail). */
const MEETING = process.env.FLEET_MEETING ?? 'redis'
const KEY = encodeBase64Url(new Uint8Array(32).fill(33))
const TASKS_EXT = 'io.modelcontextprotocol/tasks'

let redis: RunningRedis | undefined
const fleet: Record<'node' | 'deno' | 'bun', Instance> = {} as never
const proxy = new FleetProxy()

beforeAll(async () => {
  if (MEETING === 'redis') redis = await startRedis()
  const shared = {
    MEETING,
    REQUEST_STATE_KEY: KEY,
    REDIS_URL: redis?.url ?? '',
    REDIS_PREFIX: `fleet-${process.pid}:`,
  }
  const [node, deno, bun] = await Promise.all([
    startInstance('node', 'node', { ...shared, REDIS_CLIENT: 'redis' }),
    startInstance('deno', 'deno', { ...shared, REDIS_CLIENT: 'ioredis' }),
    startInstance('bun', 'bun', { ...shared, REDIS_CLIENT: 'redis' }),
  ])
  Object.assign(fleet, { node, deno, bun })
  for (const instance of [node, deno, bun]) proxy.live.set(instance.name, instance.port)
  await proxy.start()
  // one request each, straight to it: every instance has served (an McpServer announces list changes once it
  // serves) and is warm
  await Promise.all(
    [node, deno, bun].map(async (instance) => {
      const client = ours('warm-up', `${instance.base}/mcp`)
      expect((await client.listTools()).map((t) => t.name)).toContain('stock_take')
      await client.close()
    }),
  )
}, 180_000)

afterAll(async () => {
  await Promise.all(Object.values(fleet).map((instance) => instance.kill()))
  await proxy.stop()
  await redis?.close()
}, 30_000)

/** What each demo question's field is answered with. */
const ANSWERS: Record<string, string | number | boolean> = {
  region: 'eu-west-1',
  confirm: true,
  name: 'Ada',
  plan: 'pro',
  audience: 'the board',
  count: 2,
  returns: true,
}
const answerFor = (fields: string[]) => ({
  action: 'accept' as const,
  content: Object.fromEntries(fields.map((field) => [field, ANSWERS[field]])),
})
/** The client model's pick for recommend_book. */
const PICK = { role: 'assistant' as const, content: { type: 'text' as const, text: ' Hyperion \n' }, model: 'fleet' }

/** The results of the demo's questions, whoever asks them. */
const EXPECTED = {
  provision: "Provisioned 'db1' in eu-west-1.",
  order: "Backordered 'Neuromancer'; it ships in 2-3 weeks.",
  recommend: "Today's sci-fi pick: Hyperion",
  account: 'Opened a pro account for Ada.',
  briefing: 'Write a one-page briefing on edge computing for the board.',
  shortlist: 'Dune\nNeuromancer',
}
/** How many questions the demo flows ask: provision 1, order_book 1, recommend_book 1, open_account 3, briefing 1, shortlist 1. */
const QUESTIONS = 8

/** Our Client (2026-07-28 unless told otherwise), its requests tagged `tag` in the proxy's log. */
function ours(tag: string, url = proxy.url, options: Partial<ConstructorParameters<typeof Client>[0]> = {}): Client {
  return new Client({
    transport: new StreamableHttpClientTransport(url, { headers: { 'x-fleet-client': tag } }),
    clientInfo: { name: `fleet-${tag}`, version: '1' },
    elicitation: (params: ElicitRequestParams) =>
      answerFor(Object.keys(params.mode === 'url' ? {} : params.requestedSchema.properties)),
    sampling: () => PICK,
    ...options,
  })
}

interface ToolResult {
  content: Array<{ type: string; text?: string }>
  isError?: boolean
}
const text = (result: { content: unknown[] }) => result.content.map((c) => (c as { text?: string }).text).join('\n')

/** The calls both official clients share, typed as far as these tests read them. */
interface OfficialClient {
  callTool(
    params: { name: string; arguments: Record<string, unknown> },
    schema?: undefined,
    options?: { timeout?: number },
  ): Promise<unknown>
  getPrompt(params: {
    name: string
    arguments: Record<string, string>
  }): Promise<{ messages: Array<{ content: { type: string; text?: string } }> }>
  readResource(params: { uri: string }): Promise<{ contents: Array<{ uri: string; text?: string }> }>
  close(): Promise<void>
}
interface ElicitParams {
  message: string
  requestedSchema?: { properties?: Record<string, unknown> }
}
/** An official client connected through the proxy, what its transport reported, and what it was asked. */
interface Official {
  client: OfficialClient
  protocolVersion: string | undefined
  asked: string[]
  errors: string[]
  /** Called before each elicitation is answered (a test may hold the answer back). */
  beforeAnswer: (params: ElicitParams) => Promise<void>
}

const CAPABILITIES = { elicitation: { form: {} }, sampling: {} }

async function elicited(peer: Official, params: ElicitParams) {
  peer.asked.push(params.message)
  await peer.beforeAnswer(params)
  return answerFor(Object.keys(params.requestedSchema?.properties ?? {}))
}

async function connectV1(tag: string): Promise<Official> {
  const client = new ClientV1({ name: `fleet-${tag}`, version: '1.32.2' }, { capabilities: CAPABILITIES })
  const peer: Official = { client, protocolVersion: undefined, asked: [], errors: [], beforeAnswer: async () => {} }
  client.setRequestHandler(ElicitRequestSchema, (request) => elicited(peer, request.params as ElicitParams))
  client.setRequestHandler(CreateMessageRequestSchema, () => (peer.asked.push('sampling'), PICK))
  const transport = new TransportV1(new URL(proxy.url), { requestInit: { headers: { 'x-fleet-client': tag } } })
  await client.connect(transport)
  transport.onerror = (error) => peer.errors.push(error.message)
  peer.protocolVersion = transport.protocolVersion
  return peer
}

async function connectV2(tag: string): Promise<Official> {
  const client = new ClientV2({ name: `fleet-${tag}`, version: '2.4.0' }, { capabilities: CAPABILITIES })
  const peer: Official = { client, protocolVersion: undefined, asked: [], errors: [], beforeAnswer: async () => {} }
  client.setRequestHandler('elicitation/create', (request) => elicited(peer, request.params as ElicitParams))
  client.setRequestHandler('sampling/createMessage', () => (peer.asked.push('sampling'), PICK))
  const transport = new TransportV2(new URL(proxy.url), { requestInit: { headers: { 'x-fleet-client': tag } } })
  await client.connect(transport)
  peer.protocolVersion = transport.protocolVersion
  return peer
}

/**
 * For each answer a 2025-era client POSTed (a JSON-RPC response), the instance whose stream asked the question
 * and the instance the answer landed on.
 */
function legacyAnswers(sent: Served[]) {
  const askedOn = new Map<string | number, string>()
  for (const s of sent) for (const q of s.asked) askedOn.set(q.id, s.instance)
  return sent.flatMap((s) =>
    s.messages.filter((m) => m.response).map((m) => ({ askedOn: askedOn.get(m.id!), answeredOn: s.instance })),
  )
}

/**
 * For each 2026-07-28 retry carrying answers (`inputResponses`), the instance that asked (the request before it,
 * for the same target) and the one that took the answers.
 */
function modernAnswers(sent: Served[]) {
  const posts = sent.filter((s) => s.messages.length === 1 && s.messages[0].method)
  return posts.flatMap((s, i) => {
    if (!s.messages[0].inputResponses) return []
    const before = posts[i - 1]
    expect(before.messages[0].target).toBe(s.messages[0].target)
    return [{ askedOn: before.instance, answeredOn: s.instance }]
  })
}

/** Every question answered through another instance than the one that asked, `count` in all. */
function expectCrossed(answers: Array<{ askedOn: string | undefined; answeredOn: string }>, count: number) {
  expect(answers).toHaveLength(count)
  for (const answer of answers) {
    expect(answer.askedOn).toBeDefined()
    expect(answer.answeredOn).not.toBe(answer.askedOn)
  }
}

describe.each([
  { label: '@modelcontextprotocol/sdk 1.32.2', connect: connectV1 },
  { label: '@modelcontextprotocol/client 2.4.0', connect: connectV2 },
])('$label (2025-11-25, default options) through the round-robin proxy', ({ label, connect }) => {
  it('every demo question is asked on one instance and answered through another', { timeout: 60_000 }, async () => {
    const tag = `official-${label}`
    const peer = await connect(tag)
    try {
      expect(peer.protocolVersion).toBe('2025-11-25')
      const call = async (name: string, args: Record<string, unknown>) =>
        text((await peer.client.callTool({ name, arguments: args })) as ToolResult)
      expect(await call('provision', { name: 'db1' })).toBe(EXPECTED.provision)
      expect(await call('order_book', { title: 'Neuromancer' })).toBe(EXPECTED.order)
      expect(await call('recommend_book', { genre: 'sci-fi' })).toBe(EXPECTED.recommend)
      expect(await call('open_account', {})).toBe(EXPECTED.account)
      const prompt = await peer.client.getPrompt({ name: 'briefing', arguments: { topic: 'edge computing' } })
      expect(prompt.messages.map((m) => m.content.text)).toEqual([EXPECTED.briefing])
      const read = await peer.client.readResource({ uri: 'books://sci-fi/shortlist' })
      expect(read.contents.map((c) => c.text)).toEqual([EXPECTED.shortlist])
      expect(peer.asked).toHaveLength(QUESTIONS)
      expectCrossed(legacyAnswers(proxy.by(tag)), QUESTIONS)
      // the three runtimes all took part, each request served by the instance the log names
      expect(new Set(proxy.by(tag).map((s) => s.instance))).toEqual(new Set(['node', 'deno', 'bun']))
      // (an answer POST may still be on its way back: its 202 is not what the call waits for)
      await vi.waitFor(() => {
        for (const s of proxy.by(tag)) expect(s.servedBy, JSON.stringify(s)).toBe(s.instance)
      })
    } finally {
      await peer.client.close()
    }
  })
})

describe('our Client (2026-07-28) through the round-robin proxy', () => {
  it('every demo question is asked on one instance and its retry answered on another (shared keys)', async () => {
    const client = ours('modern')
    try {
      expect(text(await client.callTool('provision', { name: 'db1' }))).toBe(EXPECTED.provision)
      expect(client.protocolVersion).toBe('2026-07-28')
      expect(text(await client.callTool('order_book', { title: 'Neuromancer' }))).toBe(EXPECTED.order)
      expect(text(await client.callTool('recommend_book', { genre: 'sci-fi' }))).toBe(EXPECTED.recommend)
      expect(text(await client.callTool('open_account', {}))).toBe(EXPECTED.account)
      const prompt = await client.getPrompt('briefing', { topic: 'edge computing' })
      expect(prompt.messages.map((m) => (m.content as { text?: string }).text)).toEqual([EXPECTED.briefing])
      const read = await client.readResource('books://sci-fi/shortlist')
      expect(read.contents.map((c) => (c as { text?: string }).text)).toEqual([EXPECTED.shortlist])
      expectCrossed(modernAnswers(proxy.by('modern')), QUESTIONS)
    } finally {
      await client.close()
    }
  })

  it('a listen stream held by one instance receives a tools/list_changed and a resource update published on the others', async () => {
    const client = ours('listen', `${fleet.deno.base}/mcp`)
    const updated: string[] = []
    let toolsChanged = 0
    const subscription = await listen(
      client,
      { toolsListChanged: true, resourceSubscriptions: ['books://catalog'] },
      { onToolsListChanged: () => toolsChanged++, onResourceUpdated: (uri) => updated.push(uri) },
    )
    try {
      expect(subscription.acknowledged).toEqual({ toolsListChanged: true, resourceSubscriptions: ['books://catalog'] })
      await publishOn(fleet.node, { kind: 'toolsListChanged' })
      await publishOn(fleet.bun, { kind: 'resourceUpdated', uri: 'books://catalog' })
      await publishOn(fleet.bun, { kind: 'resourceUpdated', uri: 'books://other' }) // not subscribed: not sent
      await vi.waitFor(
        () => {
          expect(toolsChanged).toBe(1)
          expect(updated).toEqual(['books://catalog'])
        },
        { timeout: 10_000, interval: 50 },
      )
    } finally {
      await subscription.close()
      await client.close()
    }
  })

  it('a task started on one instance is polled and answered on the others, and completes', async () => {
    const client = ours('task')
    const seen: string[] = []
    try {
      const result = await client.callTool('stock_take', { seconds: 1.6 }, { onTask: (t) => seen.push(t.status) })
      expect(text(result)).toBe('Stock-take complete: 111 books on 8 shelves (the returns shelf held 5).')
      expect(seen).toContain('input_required')
      const sent = proxy.by('task').filter((s) => s.messages.length === 1)
      const started = sent.filter((s) => s.messages[0].method === 'tools/call')
      expect(started).toHaveLength(1)
      const polls = sent.filter((s) => s.messages[0].method === 'tasks/get')
      const answers = sent.filter((s) => s.messages[0].method === 'tasks/update')
      expect(answers).toHaveLength(1)
      expect(answers[0].instance).not.toBe(started[0].instance)
      const elsewhere = new Set(polls.map((s) => s.instance).filter((name) => name !== started[0].instance))
      expect(elsewhere.size).toBe(2) // both other instances reported the task
    } finally {
      await client.close()
    }
  })
})

describe('one instance killed mid-flow', () => {
  it(
    'its task fails as interrupted elsewhere; its 2025 question fails on the client; a 2026 retry completes elsewhere; new calls work',
    { timeout: 60_000 },
    async () => {
      const victim = fleet.bun
      // 1. a task running on the victim (started straight on it), seen working through the proxy
      const taskId = await startTaskOn(victim, { seconds: 60 })
      const watcher = ours('watch')
      expect((await watcher.getTask(taskId)).status).toBe('working')

      let release!: () => void
      const killed = new Promise<void>((resolve) => (release = resolve))
      const pending: string[] = []
      // the first request of each flow below goes to the victim
      proxy.pin = (sent) =>
        sent[0]?.method === 'tools/call' &&
        !sent[0].inputResponses &&
        ['order_book', 'open_account'].includes(sent[0].target!)
          ? victim.name
          : undefined

      // 2. a 2025-era question pending on the victim: the official v1 client, and our Client in its legacy era
      const v1 = await connectV1('v1-kill')
      v1.beforeAnswer = () => (pending.push('v1'), killed)
      const v1Call = settle(
        v1.client.callTool({ name: 'order_book', arguments: { title: 'Neuromancer' } }, undefined, { timeout: 8_000 }),
      )
      const legacy = ours('legacy-kill', proxy.url, {
        versionNegotiation: 'legacy',
        elicitation: () => (
          pending.push('legacy'),
          killed.then(() => ({ action: 'accept', content: { confirm: true } }))
        ),
      })
      const legacyCall = settle(legacy.callTool('order_book', { title: 'Neuromancer' }))

      // 3. a 2026-07-28 question asked by the victim, its retry held until the victim is dead
      const modern = ours('modern-kill', proxy.url, {
        elicitation: (params: ElicitRequestParams) => {
          pending.push('modern')
          const answer = answerFor(Object.keys(params.mode === 'url' ? {} : params.requestedSchema.properties))
          return killed.then((): ElicitResult => answer)
        },
      })
      const modernCall = settle(modern.callTool('open_account', {}))

      await vi.waitFor(() => expect(pending.sort()).toEqual(['legacy', 'modern', 'v1']), { timeout: 15_000 })
      await victim.kill()
      proxy.remove(victim.name) // as a load balancer's failed health check would
      const killedAt = Date.now()
      release()

      // what the protocol can save is saved: the 2026 retry lands on another instance and completes
      const account = await modernCall
      expect(account.error).toBeUndefined()
      expect(text(account.value as ToolResult)).toBe(EXPECTED.account)
      const accountRequests = proxy.by('modern-kill').filter((s) => s.messages[0]?.method === 'tools/call')
      expect(accountRequests[0].instance).toBe(victim.name)
      expect(accountRequests.slice(1).map((s) => s.instance)).not.toContain(victim.name)
      expect(accountRequests.length).toBe(4) // the first ask, then one retry per answer

      // what it cannot save fails with an error, not a hang: the 2025 questions were on the victim's stream.
      // Both 2025 clients see the stream break and resume it (GET + Last-Event-ID, the priming event's id) on
      // another instance, which answers -32603: the stream was cut, the outcome is unknown. The v1 client
      // rejects with it about 1 s after the break, well before its request timeout (8 s here).
      const [v1Result, legacyResult] = await Promise.all([v1Call, legacyCall])
      const CUT = /stream was cut before its response.*check, then call again/
      expect(legacyResult.error).toMatchObject({ code: -32603 })
      expect(String(legacyResult.error)).toMatch(CUT)
      expect(legacyResult.at - killedAt).toBeLessThan(5_000)
      expect(v1.errors.join('\n')).toMatch(/SSE stream disconnected/)
      expect(v1Result.error).toMatchObject({ code: -32603 })
      expect(String(v1Result.error)).toMatch(CUT)
      expect(v1Result.at - killedAt).toBeLessThan(5_000)

      // the task the victim ran fails as interrupted on the others once its lease lapses
      const failed = await vi.waitFor(
        async () => {
          const task = await watcher.getTask(taskId)
          expect(task.status).toBe('failed')
          return task
        },
        { timeout: 10_000, interval: 200 },
      )
      expect(JSON.stringify(failed)).toContain(INTERRUPTED_MESSAGE)

      // new calls through the proxy still work, on the survivors
      proxy.pin = undefined
      const fresh = await connectV1('v1-after')
      expect(text((await fresh.client.callTool({ name: 'provision', arguments: { name: 'db2' } })) as ToolResult)).toBe(
        "Provisioned 'db2' in eu-west-1.",
      )
      expectCrossed(legacyAnswers(proxy.by('v1-after')), 1)
      expect(text(await watcher.callTool('order_book', { title: 'Neuromancer' }))).toBe(EXPECTED.order)
      expect(proxy.served.slice(-6).map((s) => s.instance)).not.toContain(victim.name)
      await Promise.all([fresh.client.close(), v1.client.close(), legacy.close(), modern.close(), watcher.close()])
    },
  )
})

/** The outcome of a promise and when it settled, never rejecting. */
async function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown; at: number }> {
  try {
    return { value: await promise, at: Date.now() }
  } catch (error) {
    return { error, at: Date.now() }
  }
}

/** Publish an event on `instance` through its test-only route (straight to it, not through the proxy). */
async function publishOn(instance: Instance, event: Record<string, string>): Promise<void> {
  const res = await fetch(`${instance.base}/test/publish`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(event),
    signal: AbortSignal.timeout(10_000),
  })
  expect(await res.json()).toEqual({ instance: instance.name })
}

/** Start `stock_take` as a task straight on `instance` (2026-07-28 wire); its task id. */
async function startTaskOn(instance: Instance, args: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${instance.base}/mcp`, {
    method: 'POST',
    headers: std('tools/call', 'stock_take'),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'stock_take',
        arguments: args,
        _meta: env({ elicitation: { form: {} }, extensions: { [TASKS_EXT]: {} } }),
      },
    }),
    signal: AbortSignal.timeout(10_000),
  })
  const stream = messages(res)
  try {
    const message = await stream.next()
    expect(message.result).toMatchObject({ resultType: 'task', status: 'working' })
    return (message.result as { taskId: string }).taskId
  } finally {
    await stream.cancel()
  }
}
