/**
 * Tasks in Durable Objects (`taskObject`, `durableObjectTasks` of `edge-mcp/cloudflare`) in Node, against
 * a fake namespace whose objects get a fake `DurableObjectState` (a Map for storage, one alarm) and whose
 * stubs call the object's `fetch` directly: the task stored before `CreateTaskResult`, its work run by
 * the object's own server, questions and answers, cancel, principals, the heartbeat and expiry alarms, a
 * restart mid-run failing the task as interrupted, and the errors. The same classes across real workerd
 * isolates: test/e2e/crossiso-tasks.test.ts.
 */
import * as v from 'valibot'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { durableObjectTasks, taskObject, type TaskNamespace } from '../../src/cloudflare/index.ts'
import { HEARTBEAT_MS, type TaskObjectState } from '../../src/cloudflare/tasks.ts'
import { createFetchHandler, elicit, formSchema, McpServer } from '../../src/server/index.ts'
import type { TaskJob } from '../../src/server/tasks/types.ts'
import { env as envelope, std } from '../helpers.ts'

const TASKS_EXT = 'io.modelcontextprotocol/tasks'
const CAPS = { elicitation: { form: {} }, extensions: { [TASKS_EXT]: {} } }
const Go = formSchema({ go: v.optional(v.boolean(), false) })
const INTERRUPTED = 'The task was interrupted (the server restarted); call the tool again'

/** A fake `DurableObjectState`: storage in a Map (values cloned, as the real one stores them), one alarm. */
function fakeState() {
  const data = new Map<string, unknown>()
  let alarm: number | null = null
  const state: TaskObjectState = {
    storage: {
      get: (key) => Promise.resolve(structuredClone(data.get(key))),
      put: (key, value) => Promise.resolve(void data.set(key, structuredClone(value))),
      deleteAll: () => Promise.resolve(data.clear()),
      setAlarm: (at) => Promise.resolve(void (alarm = at)),
      deleteAlarm: () => Promise.resolve(void (alarm = null)),
    },
  }
  return { state, data, alarm: () => alarm }
}

type Env = { MCP_TASKS: TaskNamespace }

/** Gates the `work` tool waits on, by name (`release(name)` lets it finish). */
const gates = new Map<string, () => void>()
const release = (name: string) => gates.get(name)?.()

/** The server each side builds (the Worker's and each object's): the task tool `work`. */
function buildServer(tasks = durableObjectTasks()): McpServer {
  const mcp = new McpServer({ name: 't', version: '1' }, { tasks })
  mcp.tool(
    'work',
    { input: { gate: v.string(), ask: v.optional(v.boolean()) }, task: 'required' },
    async ({ gate, ask }, ctx) => {
      await ctx.task?.progress(1, 2, 'half way')
      let go = 'not asked'
      if (ask) {
        const answer = await ctx.task!.ask(elicit('Go on?', Go))
        go = answer.action === 'accept' ? String(answer.value.go) : answer.action
      }
      await new Promise<void>((resolve) => {
        gates.set(gate, resolve)
        ctx.signal?.addEventListener('abort', () => resolve(), { once: true })
      })
      return `${go}${ctx.signal?.aborted ? ' aborted' : ''}`
    },
  )
  return mcp
}

/** A namespace whose objects are `Class` instances on fake states; `restart(name)` makes a new instance. */
function fakeNamespace(Class = taskObject<Env>(() => buildServer())) {
  const objects = new Map<string, { object: InstanceType<typeof Class>; fake: ReturnType<typeof fakeState> }>()
  const fetches: string[] = []
  const namespace: TaskNamespace = {
    idFromName: (name) => name,
    get: (id) => ({
      fetch: (input, init) => {
        fetches.push(new URL(input).pathname)
        return entry(id).object.fetch(new Request(input, init))
      },
    }),
  }
  const env: Env = { MCP_TASKS: namespace }
  const entry = (name: string) => {
    let found = objects.get(name)
    if (!found) {
      const fake = fakeState()
      found = { object: new Class(fake.state, env), fake }
      objects.set(name, found)
    }
    return found
  }
  const restart = (name: string) => {
    const { fake } = entry(name)
    objects.set(name, { object: new Class(fake.state, env), fake })
  }
  return { namespace, env, entry, restart, objects, fetches }
}

let nextId = 1
/** One request through `handler` with `env`, as `user` (the `authenticate` hook reads `x-user`). */
async function rpc(
  handler: ReturnType<typeof createFetchHandler>,
  env: Env,
  method: string,
  params: Record<string, unknown>,
  user?: string,
) {
  const name = method === 'tools/call' ? (params.name as string) : (params.taskId as string)
  const headers = std(method, name)
  if (user) headers['x-user'] = user
  const request = new Request('http://localhost/mcp', {
    method: 'POST',
    headers: { ...headers, accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: envelope(CAPS) } }),
  })
  const res = await handler(request, env, {})
  return (await res.json()) as { result?: Record<string, unknown> & { status?: string }; error?: { code: number } }
}

function setup(Class?: Parameters<typeof fakeNamespace>[0]) {
  const ns = fakeNamespace(Class)
  const handler = createFetchHandler(buildServer(), {
    authenticate: (request) => {
      const user = request.headers.get('x-user')
      return user ? { clientId: user } : undefined
    },
  })
  const call = (method: string, params: Record<string, unknown>, user?: string) =>
    rpc(handler, ns.env, method, params, user)
  const start = async (args: Record<string, unknown>, user?: string) => {
    const created = await call('tools/call', { name: 'work', arguments: args }, user)
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' })
    return created.result!.taskId as string
  }
  const get = async (taskId: string, user?: string) => (await call('tasks/get', { taskId }, user)).result!
  const until = async (taskId: string, status: string, user?: string) => {
    await vi.waitFor(async () => expect((await get(taskId, user)).status).toBe(status))
    return get(taskId, user)
  }
  return { ...ns, call, start, get, until }
}

afterEach(() => {
  for (const open of gates.values()) open()
  gates.clear()
})

describe('durableObjectTasks and taskObject', () => {
  it('stores the task in its own object before answering, runs the work there, and reports progress and result', async () => {
    const t = setup()
    const taskId = await t.start({ gate: 'g1' })
    expect(taskId).toMatch(/^[\w-]{22}$/)
    const { fake } = t.entry(taskId)
    const stored = fake.data.get('record') as { task: { taskId: string; status: string }; expiresAt: number }
    expect(stored.task).toMatchObject({ taskId, status: 'working' })
    // while the work runs the alarm is a heartbeat, never past expiry
    expect(fake.alarm()).toBeLessThanOrEqual(Date.now() + HEARTBEAT_MS)
    await vi.waitFor(async () => expect((await t.get(taskId)).statusMessage).toBe('half way'))
    expect((await t.get(taskId))._meta).toMatchObject({ 'edge-mcp/progress': { progress: 1, total: 2 } })
    release('g1')
    const done = await t.until(taskId, 'completed')
    expect(done.result).toEqual({ content: [{ type: 'text', text: 'not asked' }] })
    expect((fake.data.get('record') as { task: { status: string } }).task.status).toBe('completed')
    await vi.waitFor(() => expect(fake.alarm()).toBe(stored.expiresAt)) // the work ended: the alarm is the expiry
    expect([...t.objects.keys()]).toEqual([taskId]) // one object, named by the task id
  })

  it('a question waits in the object until tasks/update answers it (keys unique, answered keys gone)', async () => {
    const t = setup()
    const taskId = await t.start({ gate: 'g2', ask: true })
    const waiting = await t.until(taskId, 'input_required')
    const [key] = Object.keys(waiting.inputRequests as object)
    expect((waiting.inputRequests as Record<string, unknown>)[key]).toMatchObject({ method: 'elicitation/create' })
    const ack = await t.call('tasks/update', {
      taskId,
      inputResponses: { [key]: { action: 'accept', content: { go: true } }, nope: { action: 'decline' } },
    })
    expect(ack.result).toMatchObject({ resultType: 'complete' })
    await t.until(taskId, 'working')
    release('g2')
    expect((await t.until(taskId, 'completed')).result).toEqual({ content: [{ type: 'text', text: 'true' }] })
  })

  it('tasks/cancel aborts the work and the task stays cancelled', async () => {
    const t = setup()
    const taskId = await t.start({ gate: 'g3' })
    expect((await t.call('tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' })
    expect((await t.get(taskId)).status).toBe('cancelled')
    await new Promise((r) => setTimeout(r, 10)) // the aborted work ends; its result is ignored
    expect(await t.get(taskId)).not.toHaveProperty('result')
    expect((await t.call('tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' })
  })

  it('another principal, or none, gets the same -32602 as an unknown task; a malformed id reaches no object', async () => {
    const t = setup()
    const taskId = await t.start({ gate: 'g4' }, 'alice')
    const unknown = await t.call('tasks/get', { taskId: 'A'.repeat(22) }, 'alice')
    expect(unknown.error).toEqual({ code: -32602, message: 'Failed to retrieve task: Task not found' })
    for (const user of ['bob', undefined]) {
      expect((await t.call('tasks/get', { taskId }, user)).error).toEqual(unknown.error)
      expect((await t.call('tasks/cancel', { taskId }, user)).error).toEqual(unknown.error)
      expect((await t.call('tasks/update', { taskId, inputResponses: {} }, user)).error).toEqual(unknown.error)
    }
    expect((await t.get(taskId, 'alice')).status).toBe('working')
    const before = t.fetches.length
    expect((await t.call('tasks/get', { taskId: '../x' }, 'alice')).error).toEqual(unknown.error)
    expect(t.fetches.length).toBe(before)
  })

  it('a restart mid-run fails the task as interrupted (-32603); a finished task survives a restart', async () => {
    const t = setup()
    const taskId = await t.start({ gate: 'g5' })
    t.restart(taskId) // the object is evicted (a deploy): its run is gone, its record stays
    const failed = await t.get(taskId)
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603, message: INTERRUPTED } })
    expect(failed.statusMessage).toBe(INTERRUPTED)
    t.restart(taskId)
    expect(await t.get(taskId)).toEqual(failed)

    const other = await t.start({ gate: 'g6' })
    release('g6')
    const done = await t.until(other, 'completed')
    t.restart(other)
    expect(await t.get(other)).toEqual(done)
  })

  it('the alarm: a heartbeat while the work runs; at expiry the work is aborted and the task deleted', async () => {
    const Class = taskObject<Env>(() => buildServer(durableObjectTasks('MCP_TASKS', { ttlMs: 200 })))
    const ns = fakeNamespace(Class)
    const store = durableObjectTasks('MCP_TASKS', { ttlMs: 200 })
    const job: TaskJob = {
      name: 'work',
      arguments: { gate: 'g7' },
      protocolVersion: '2026-07-28',
      clientCapabilities: CAPS,
    }
    const info = { env: ns.env }
    const seed = await store.start(job, undefined as never, info)
    expect(seed.ttlMs).toBe(200)
    const { object, fake } = ns.entry(seed.taskId)
    await object.alarm() // not expired, still running: the next heartbeat
    expect(fake.alarm()).not.toBeNull()
    expect((await store.get(seed.taskId, undefined, info))?.status).toBe('working')
    await new Promise((r) => setTimeout(r, 220))
    await object.alarm()
    expect(fake.data.size).toBe(0)
    expect(fake.alarm()).toBeNull()
    expect(await store.get(seed.taskId, undefined, info)).toBeUndefined()
    expect(await store.cancel(seed.taskId, undefined, info)).toBe(false)
  })

  it('an expired task is gone on the next request even before its alarm', async () => {
    const Class = taskObject<Env>(() => buildServer())
    const ns = fakeNamespace(Class)
    const store = durableObjectTasks(ns.namespace, { ttlMs: 50 })
    const job: TaskJob = {
      name: 'work',
      arguments: { gate: 'g8' },
      protocolVersion: '2026-07-28',
      clientCapabilities: CAPS,
    }
    const seed = await store.start(job, undefined as never, {})
    await new Promise((r) => setTimeout(r, 70))
    expect(await store.get(seed.taskId, undefined, {})).toBeUndefined()
    expect(ns.entry(seed.taskId).fake.data.size).toBe(0)
  })

  it('errors: a missing binding names it; bad options; an object whose server has no tasks; a duplicate start', async () => {
    const job: TaskJob = { name: 'work', arguments: {}, protocolVersion: '2026-07-28', clientCapabilities: {} }
    await expect(durableObjectTasks().get('A'.repeat(22), undefined, { env: {} })).rejects.toThrow(
      /env\.MCP_TASKS is not bound.*class_name = "McpTasks"/,
    )
    expect(() => durableObjectTasks('MCP_TASKS', { ttlMs: 1.5 })).toThrow(RangeError)
    expect(() => durableObjectTasks('MCP_TASKS', { pollIntervalMs: 0 })).toThrow(RangeError)

    const bare = fakeNamespace(taskObject(() => new McpServer({ name: 'bare', version: '1' })))
    const refused = durableObjectTasks(bare.namespace).start(job, undefined as never, {})
    await expect(refused).rejects.toMatchObject({ code: 'ERR_UPSTREAM' })
    await expect(refused).rejects.toThrow(/has no `tasks` option/)

    const ns = fakeNamespace()
    const seed = await durableObjectTasks(ns.namespace).start(job, undefined as never, {})
    const again = await ns.namespace
      .get(seed.taskId as never)
      .fetch('https://x/start', { method: 'POST', body: JSON.stringify({ record: { task: seed, job } }) })
    expect(again.status).toBe(409)
  })
})
