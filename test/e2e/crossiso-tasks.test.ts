/**
 * Tasks across isolates (ext-tasks specification/2026-07-28/tasks.md) under workerd: a task lives in its
 * own Durable Object (`McpTasks` = `taskObject(…)` on `env.MCP_TASKS`, `durableObjectTasks()` in the demo
 * Worker), which holds it and runs its work, so it completes after the request that started it has ended
 * and any Worker sharing the namespace answers `tasks/get`, `tasks/update` and `tasks/cancel` for it; only
 * the principal that started it sees it.
 *
 * How (test/crossiso-harness.ts): the demo Worker wrapped by test/workers/crossiso.ts (which adds the
 * task tool `shelf_task` and an `authenticate` reading the caller from `x-test-user`) runs as two Workers in
 * one workerd process, each its own isolate, over real HTTP:
 * - `a` defines the task object class and binds `MCP_TASKS` to it;
 * - `b` binds `MCP_TASKS` to the SAME namespace (`scriptName: 'a'`), as a second isolate of one deployment;
 * - `short` binds it too, and gives the tasks it starts a TTL of 1.5 s.
 * The wire is written out for most checks; the last two drive the task with our Client (`callTool` on one
 * Worker, `resumeTask` from a saved id on the other).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { startCrossIsolate, type CrossIsolate } from '../crossiso-harness.ts'
import { env, std } from '../helpers.ts'
import { messages, type Message } from '../legacy-wire.ts'

type Name = 'a' | 'b' | 'short'
const TASKS_EXT = 'io.modelcontextprotocol/tasks'
const CAPS = { elicitation: { form: {} }, extensions: { [TASKS_EXT]: {} } }
const NOT_FOUND = { code: -32602, message: 'Failed to retrieve task: Task not found' }

let running: CrossIsolate<Name> | undefined
let base = {} as Record<Name, string>

beforeAll(async () => {
  running = await startCrossIsolate<Name>({
    a: { MCP_TASKS: { className: 'McpTasks', useSQLite: true } },
    b: { MCP_TASKS: { className: 'McpTasks', scriptName: 'a' } },
    short: { MCP_TASKS: { className: 'McpTasks', scriptName: 'a' } },
  })
  base = running.base
})

afterAll(async () => {
  await running?.dispose()
})

let nextId = 1
/**
 * One request to `worker` as `user` (none: anonymous), declaring the tasks extension; its response
 * message (the result or error), read to the end so the connection is gone when it returns.
 */
async function rpc(worker: Name, user: string | undefined, method: string, params: Record<string, unknown>) {
  const name = method === 'tools/call' ? (params.name as string) : (params.taskId as string)
  const headers = std(method, name)
  if (user) headers['x-test-user'] = user
  const res = await fetch(new URL('mcp', base[worker]), {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: env(CAPS) } }),
  })
  const stream = messages(res)
  try {
    for (;;) {
      const m: Message = await stream.next()
      if ('result' in m || 'error' in m) return m as { result?: Record<string, unknown>; error?: unknown }
    }
  } finally {
    await stream.cancel()
  }
}

/** Start `shelf_task` on `worker` as `user`; the CreateTaskResult. */
async function startTask(worker: Name, user: string | undefined, args: Record<string, unknown>) {
  const m = await rpc(worker, user, 'tools/call', { name: 'shelf_task', arguments: args })
  expect(m.error).toBeUndefined()
  expect(m.result).toMatchObject({ resultType: 'task', status: 'working' })
  return m.result as { taskId: string; createdAt: string; ttlMs: number }
}

const getTask = async (worker: Name, user: string | undefined, taskId: string) =>
  (await rpc(worker, user, 'tasks/get', { taskId })).result as Record<string, unknown> & { status: string }

/** Poll `tasks/get` on `worker` until the status is `status` (or 15 s pass). */
async function until(worker: Name, user: string | undefined, taskId: string, status: string) {
  const deadline = Date.now() + 15_000
  for (;;) {
    const task = await getTask(worker, user, taskId)
    if (task.status === status) return task
    if (Date.now() > deadline) throw new Error(`task ${taskId} is ${JSON.stringify(task)}, not ${status}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('tasks across isolates (a Durable Object per task)', () => {
  it('a and b are different Workers in different isolates', async () => {
    const who = async (w: Name) => (await (await fetch(new URL('isolate', base[w]))).json()) as { isolate: string }
    expect((await who('b')).isolate).not.toBe((await who('a')).isolate)
  })

  it('a task started on a completes after its request ended, and b polls it to the same result', async () => {
    const seed = await startTask('a', 'alice', { ms: 300 })
    expect(seed.taskId).toMatch(/^[\w-]{22,}$/)
    expect(seed.ttlMs).toBe(3_600_000)
    // the creating request is over (its response read to the end): the object runs the work on its own
    const done = await until('b', 'alice', seed.taskId, 'completed')
    expect(done).toMatchObject({ resultType: 'complete', taskId: seed.taskId, createdAt: seed.createdAt })
    const text = (done.result as { content: { text: string }[] }).content[0].text
    expect(JSON.parse(text)).toMatchObject({ returns: 'not asked', cancelled: false })
    expect((done._meta as Record<string, unknown>)['edge-mcp/progress']).toEqual({ progress: 2, total: 3 })
    // a reports the very same task
    expect(await getTask('a', 'alice', seed.taskId)).toEqual(done)
  })

  it('a question asked inside the task is answered through tasks/update on b, and the task completes', async () => {
    const { taskId } = await startTask('a', 'alice', { ms: 10, ask: true })
    const waiting = await until('b', 'alice', taskId, 'input_required')
    // the same state from both isolates, the question included
    expect(await getTask('a', 'alice', taskId)).toEqual(waiting)
    const inputRequests = waiting.inputRequests as Record<string, { method: string; params: { message: string } }>
    const [key] = Object.keys(inputRequests)
    expect(inputRequests[key]).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'Count the returns shelf too?' },
    })
    const ack = await rpc('b', 'alice', 'tasks/update', {
      taskId,
      inputResponses: { [key]: { action: 'accept', content: { returns: true } } },
    })
    expect(ack.result).toMatchObject({ resultType: 'complete' })
    const done = await until('a', 'alice', taskId, 'completed')
    const text = (done.result as { content: { text: string }[] }).content[0].text
    expect(JSON.parse(text)).toMatchObject({ returns: 'true', cancelled: false })
    expect(done.inputRequests).toBeUndefined()
  })

  it('tasks/cancel from b cancels the work running for a; a second cancel is the same ack', async () => {
    const { taskId } = await startTask('a', 'alice', { ms: 60_000 })
    await until('a', 'alice', taskId, 'working')
    expect((await rpc('b', 'alice', 'tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' })
    const cancelled = await until('a', 'alice', taskId, 'cancelled')
    expect(cancelled.result).toBeUndefined()
    expect((await rpc('a', 'alice', 'tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' })
    expect((await getTask('b', 'alice', taskId)).status).toBe('cancelled')
  })

  it('another principal, or none, cannot read, answer or cancel it: the same -32602 as an unknown task', async () => {
    const { taskId } = await startTask('a', 'alice', { ms: 10, ask: true })
    const waiting = await until('a', 'alice', taskId, 'input_required')
    const [key] = Object.keys(waiting.inputRequests as object)
    const unknown = 'A'.repeat(22)
    const answers = { [key]: { action: 'accept', content: { returns: false } } }
    for (const [who, id] of [
      ['bob', taskId],
      [undefined, taskId],
      ['alice', unknown],
    ] as const) {
      for (const worker of ['a', 'b'] as const) {
        expect((await rpc(worker, who, 'tasks/get', { taskId: id })).error).toEqual(NOT_FOUND)
        expect((await rpc(worker, who, 'tasks/update', { taskId: id, inputResponses: answers })).error).toEqual(
          NOT_FOUND,
        )
        expect((await rpc(worker, who, 'tasks/cancel', { taskId: id })).error).toEqual(NOT_FOUND)
      }
    }
    // alice's task is untouched: still waiting on her question
    expect(await getTask('b', 'alice', taskId)).toEqual(waiting)
    await rpc('a', 'alice', 'tasks/cancel', { taskId })
  })

  it('an anonymous caller gets its own tasks (no principal binds to none)', async () => {
    const { taskId } = await startTask('b', undefined, { ms: 10 })
    expect((await until('a', undefined, taskId, 'completed')).status).toBe('completed')
    expect((await rpc('a', 'alice', 'tasks/get', { taskId })).error).toEqual(NOT_FOUND)
  })

  it('at its TTL the task is deleted (its work aborted): then it is not found from any Worker', async () => {
    const seed = await startTask('short', 'alice', { ms: 60_000 })
    expect(seed.ttlMs).toBe(1500)
    expect((await getTask('a', 'alice', seed.taskId)).status).toBe('working')
    const deadline = Date.now() + 15_000
    let last: unknown
    while (Date.now() < deadline) {
      last = (await rpc('b', 'alice', 'tasks/get', { taskId: seed.taskId })).error
      if (last) break
      await new Promise((r) => setTimeout(r, 200))
    }
    expect(last).toEqual(NOT_FOUND)
    expect((await rpc('a', 'alice', 'tasks/cancel', { taskId: seed.taskId })).error).toEqual(NOT_FOUND)
  })

  it('our Client: callTool on a runs the task to its result, answering the question through its callback', async () => {
    const asked: string[] = []
    const seen: string[] = []
    const client = new Client({
      transport: new StreamableHttpClientTransport(new URL('mcp', base.a).href, {
        headers: { 'x-test-user': 'carol' },
      }),
      versionNegotiation: 'modern',
      elicitation: (params) => (asked.push(params.message), { action: 'accept', content: { returns: true } }),
    })
    const result = await client.callTool('shelf_task', { ms: 10, ask: true }, { onTask: (t) => seen.push(t.status) })
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ returns: 'true' })
    expect(asked).toEqual(['Count the returns shelf too?'])
    expect(seen[0]).toBe('working')
    expect(seen).toContain('input_required')
  })

  it('our Client: a task started on a and saved by id is resumed by a new Client on b', async () => {
    const { taskId } = await startTask('a', 'carol', { ms: 10, ask: true })
    const client = new Client({
      transport: new StreamableHttpClientTransport(new URL('mcp', base.b).href, {
        headers: { 'x-test-user': 'carol' },
      }),
      versionNegotiation: 'modern',
      elicitation: () => ({ action: 'decline' }),
    })
    const result = await client.resumeTask(taskId)
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ returns: 'decline' })
  })
})
