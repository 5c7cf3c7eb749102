/**
 * One instance of the fleet test (test/e2e/fleet.test.ts): the demo server (worker/server.ts) with shared
 * request-state keys and the Redis meeting points (`redisFleet` of edge-mcp/redis), served on
 * 127.0.0.1:PORT by whichever runtime runs this file — Node (`tsx test/fleet/server.ts`), Deno
 * (`deno run --allow-net --allow-env --allow-read --allow-sys test/fleet/server.ts`) or Bun
 * (`bun test/fleet/server.ts`).
 *
 * Environment:
 * - `PORT`: the loopback port to serve on;
 * - `REQUEST_STATE_KEY`: the request-state key every instance shares;
 * - `REDIS_URL`, `REDIS_CLIENT` (`redis`: node-redis 5, default; `ioredis`), `REDIS_PREFIX`;
 * - `INSTANCE`: a name, sent back in every response as `x-instance`;
 * - `MEETING`: `redis` (default) or `memory` (the in-memory defaults: the control that shows the test fails
 *   without a shared meeting point).
 *
 * Routes: `/mcp` (MCP); `POST /test/publish` with `{ "kind": "toolsListChanged" }` (registers a new tool: the
 * server announces it by itself) or `{ "kind": "resourceUpdated", "uri": "…" }` (`McpServer.resourceUpdated`),
 * answering `{ instance }` once published; `GET /test/health`. It prints `listening <port>` once it serves.
 */
import {
  InMemoryNotificationBus,
  InMemoryQuestionMailbox,
  createFetchHandler,
  inMemoryTasks,
  type NotificationBus,
  type QuestionMailbox,
  type TaskStore,
} from '../../src/server/index.ts'
import { redisFleet } from '../../src/redis/index.ts'
import { createDemoServer } from '../../worker/server.ts'

interface DenoLike {
  env: { get(name: string): string | undefined }
  serve(options: { port: number; hostname: string; onListen?: () => void }, handler: Handler): unknown
}
interface BunLike {
  serve(options: { port: number; hostname: string; idleTimeout?: number; fetch: Handler }): unknown
}
type Handler = (request: Request) => Promise<Response>
const runtime = globalThis as unknown as {
  Deno?: DenoLike
  Bun?: BunLike
  process?: { env: Record<string, string | undefined> }
}

const env = (name: string): string | undefined =>
  runtime.Deno ? runtime.Deno.env.get(name) : runtime.process?.env[name]
const required = (name: string): string => {
  const value = env(name)
  if (!value) throw new Error(`test/fleet/server.ts needs ${name}`)
  return value
}

const PORT = Number(required('PORT'))
const INSTANCE = env('INSTANCE') ?? `instance-${PORT}`
const MEETING = env('MEETING') ?? 'redis'
const TASK_TIMING = { pollIntervalMs: 100, ttlMs: 120_000 }

interface Meeting {
  mailbox: QuestionMailbox
  notificationBus: NotificationBus
  tasks: TaskStore
}

/** The Redis client named by REDIS_CLIENT, connected. */
async function redisClient(url: string): Promise<object> {
  if ((env('REDIS_CLIENT') ?? 'redis') === 'ioredis') {
    const { Redis } = await import('ioredis')
    const client = new Redis(url, { maxRetriesPerRequest: 1 })
    await new Promise<void>((resolve, reject) => {
      client.once('ready', () => resolve())
      client.once('error', reject)
    })
    return client
  }
  const { createClient } = await import('redis')
  const client = createClient({ url })
  client.on('error', (error: Error) => console.error(`${INSTANCE}: redis: ${error.message}`))
  await client.connect()
  return client
}

async function meeting(): Promise<Meeting> {
  if (MEETING === 'memory')
    return {
      mailbox: new InMemoryQuestionMailbox(),
      notificationBus: new InMemoryNotificationBus(),
      tasks: inMemoryTasks(TASK_TIMING),
    }
  if (MEETING !== 'redis') throw new Error(`MEETING must be redis or memory, not ${MEETING}`)
  return redisFleet(await redisClient(required('REDIS_URL')), {
    prefix: env('REDIS_PREFIX') ?? 'fleet-test:',
    tasks: { ...TASK_TIMING, leaseMs: 1_000 },
  })
}

const { mailbox, notificationBus, tasks } = await meeting()
const mcp = createDemoServer({
  requestStateKeys: [required('REQUEST_STATE_KEY')],
  legacyQuestions: { mailbox, timeoutMs: 8_000 },
  notificationBus,
  tasks,
})
const mcpHandler = createFetchHandler(mcp, { allowedHosts: ['127.0.0.1', 'localhost'], keepAliveMs: 1_000 })

let added = 0
/** The test-only route: publish an event from this instance. */
async function publish(request: Request): Promise<Response> {
  const event = (await request.json()) as { kind?: string; uri?: string }
  if (event.kind === 'toolsListChanged') {
    const name = `added_on_${INSTANCE}_${++added}`
    mcp.tool(name, { description: 'Registered by the fleet test.' }, () => 'ok')
  } else if (event.kind === 'resourceUpdated' && event.uri) {
    await mcp.resourceUpdated(event.uri)
  } else {
    return Response.json({ error: 'kind: toolsListChanged | resourceUpdated (with uri)' }, { status: 400 })
  }
  return Response.json({ instance: INSTANCE })
}

async function route(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url)
  if (pathname === '/mcp') return mcpHandler(request)
  if (pathname === '/test/publish' && request.method === 'POST') return publish(request)
  if (pathname === '/test/health') return Response.json({ instance: INSTANCE, meeting: MEETING })
  return new Response('Not found', { status: 404 })
}

/** Every response names the instance that served it. */
async function handler(request: Request): Promise<Response> {
  const response = await route(request)
  const headers = new Headers(response.headers)
  headers.set('x-instance', INSTANCE)
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}

const listening = () => console.log(`listening ${PORT} (${INSTANCE}, ${MEETING})`)
if (runtime.Deno) {
  runtime.Deno.serve({ port: PORT, hostname: '127.0.0.1', onListen: listening }, handler)
} else if (runtime.Bun) {
  runtime.Bun.serve({ port: PORT, hostname: '127.0.0.1', idleTimeout: 0, fetch: handler })
  listening()
} else {
  const { serve } = await import('@hono/node-server')
  serve({ fetch: handler, port: PORT, hostname: '127.0.0.1' }, listening)
}
