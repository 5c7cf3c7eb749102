/**
 * The server side of the Tasks extension (ext-tasks specification/2026-07-28/tasks.md) over HTTP: the
 * capability, -32021 gating, CreateTaskResult, tasks/get in every status, tasks/update and tasks/cancel,
 * principal binding, TTL, MRTR before the task, questions inside it, Mcp-Name.
 */
import * as v from 'valibot'
import { describe, expect, it, vi } from 'vitest'
import { McpError } from '../../../src/index.ts'
import {
  McpServer,
  createFetchHandler,
  elicit,
  elicitForm,
  formSchema,
  inMemoryTasks,
  inputRequired,
  resolver,
  type FetchHandler,
  type InMemoryTasksOptions,
} from '../../../src/server/index.ts'
import { call, env, post, req, std, type Posted } from '../../helpers.ts'

const EXT = 'io.modelcontextprotocol/tasks'
const TASKS = { elicitation: { form: {} }, extensions: { [EXT]: {} } }
const NO_TASKS = { elicitation: { form: {} } }

/** A gate a tool waits on, opened by the test. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void
  const wait = new Promise<void>((resolve) => (open = resolve))
  return { wait, open }
}

const askName = resolver({}, function askName() {
  return elicit('What is your name?', formSchema({ user_name: v.string() }))
})

function fixture(options: InMemoryTasksOptions = {}) {
  const mcp = new McpServer({ name: 'tasks', version: '1' }, { tasks: inMemoryTasks(options) })
  const hold = gate()
  const signals: AbortSignal[] = []
  mcp.tool('greet', { input: { name: v.string() } }, ({ name }) => `Hello, ${name}!`)
  mcp.tool('slow', { task: 'required' }, async (_args, ctx) => {
    signals.push(ctx.signal)
    await Promise.race([hold.wait, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))])
    return 'slow done'
  })
  mcp.tool('opt', { task: 'optional' }, (_args, ctx) => `task ${String(ctx.task?.taskId)}`)
  mcp.tool(
    'decide',
    { input: { big: v.boolean() }, task: ({ big }) => big },
    (_args, ctx) => `task ${ctx.task?.taskId === undefined ? 'no' : 'yes'}`,
  )
  mcp.tool('tool_error', { task: 'required' }, () => {
    throw new Error('the shelf fell over')
  })
  mcp.tool('protocol_error', { task: 'required' }, () => {
    throw new McpError(-32603, 'API rate limit exceeded', { retryAfter: 3 })
  })
  mcp.tool('ask_two', { task: 'required' }, async (_args, ctx) => {
    const form = formSchema({ v: v.string() })
    const [a, b] = await Promise.all([ctx.task!.ask(elicit('A?', form)), ctx.task!.ask(elicit('B?', form))])
    return JSON.stringify([a, b])
  })
  mcp.tool('ask_number', { task: 'required' }, async (_args, ctx) => {
    const answer = await ctx.task!.ask(elicit('How many?', formSchema({ n: v.number() })))
    return JSON.stringify(answer)
  })
  mcp.tool('mrtr', { task: 'required', use: { who: askName } }, ({ who }) => `Hello, ${who.user_name}!`)
  mcp.tool('raw', { task: 'required' }, (_args, ctx) => {
    const answer = ctx.inputResponses?.q as { content?: { v?: string } } | undefined
    if (!answer)
      return inputRequired({ q: elicitForm('Q?', { type: 'object', properties: { v: { type: 'string' } } }) }, 's1')
    return `raw got ${answer.content?.v} with state ${JSON.stringify(ctx.requestState)}`
  })
  mcp.tool('progress', { task: 'required' }, async (_args, ctx) => {
    await ctx.task!.status('Counting')
    await ctx.task!.progress(3, 10, 'Shelf 3 of 10')
    await hold.wait
    return 'counted'
  })
  const handler = createFetchHandler(mcp, {
    authenticate: (request) => {
      const user = request.headers.get('x-user')
      return user ? { clientId: user } : undefined
    },
  })
  return { mcp, handler, hold, signals }
}

/** A tools/call with the tasks extension (or `caps`). */
function callTool(
  handler: FetchHandler,
  name: string,
  args: Record<string, unknown> = {},
  caps: Record<string, unknown> = TASKS,
  extra = {},
) {
  return post(handler, req('tools/call', { name, arguments: args }, caps), { ...std('tools/call', name), ...extra })
}

/** A tasks/* request with Mcp-Name = taskId. */
function tasks(
  handler: FetchHandler,
  method: string,
  params: Record<string, unknown>,
  caps: Record<string, unknown> = TASKS,
  headers: Record<string, string> = {},
): Promise<Posted> {
  return post(handler, req(method, params, caps), { ...std(method, params.taskId as string), ...headers })
}

/** Poll tasks/get until `until` holds (at most ~2 s). */
async function poll(handler: FetchHandler, taskId: string, until: (r: Posted) => boolean, headers = {}) {
  for (let i = 0; i < 200; i++) {
    const got = await tasks(handler, 'tasks/get', { taskId }, TASKS, headers)
    if (until(got)) return got
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`task ${taskId} never reached the state`)
}

/** The text of a completed task's result. */
const textOf = (r: Posted): string => (r.body.result.result as { content: Array<{ text: string }> }).content[0].text

const statusIs = (status: string) => (r: Posted) => r.body.result?.status === status

describe('tasks: capability and gating', () => {
  it('server/discover advertises the extension under capabilities.extensions (never capabilities.tasks)', async () => {
    const { handler } = fixture()
    const got = await call(handler, 'server/discover')
    const caps = got.body.result.capabilities as Record<string, unknown>
    expect(caps.extensions).toEqual({ [EXT]: {} })
    expect(caps).not.toHaveProperty('tasks')
    const plain = createFetchHandler(new McpServer({ name: 'p', version: '1' }))
    expect((await call(plain, 'server/discover')).body.result.capabilities).not.toHaveProperty('extensions')
  })

  it('a task value that is no mode (2025 vocabulary, a boolean) throws at registration naming the tool and value', () => {
    const mcp = new McpServer({ name: 'p', version: '1' }, { tasks: inMemoryTasks() })
    expect(() => mcp.tool('inventory', { task: 'forbidden' as never }, () => 'x')).toThrow(
      new TypeError(
        "Tool 'inventory': task must be 'required', 'optional' or a function (args, ctx) => boolean, got 'forbidden'; leave it out for a tool that never runs as a task",
      ),
    )
    expect(() => mcp.tool('t2', { task: true as never }, () => 'x')).toThrow(/^Tool 't2': task must be .* got true;/)
    mcp.tool('t3', { task: () => false }, () => 'x') // a function is a mode
  })

  it('registering a tool with task on a server without options.tasks throws, naming the option', () => {
    const mcp = new McpServer({ name: 'p', version: '1' })
    expect(() => mcp.tool('t', { task: 'required' }, () => 'x')).toThrow(/options\.tasks/)
    // a hand-made object is not a tasks value: the error says which are
    const handMade = {
      start: () => Promise.resolve({}),
      get: () => Promise.resolve(undefined),
      update: () => Promise.resolve(false),
      cancel: () => Promise.resolve(false),
    }
    expect(() => new McpServer({ name: 'p', version: '1' }, { tasks: handMade as never })).toThrow(
      new TypeError('options.tasks: use inMemoryTasks() or durableObjectTasks()'),
    )
  })

  it('a required tool without the extension is -32021 naming it; tasks/* without it are -32021 too', async () => {
    const { handler } = fixture()
    const got = await callTool(handler, 'slow', {}, NO_TASKS)
    expect(got.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [EXT]: {} } } },
    })
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const res = await tasks(handler, method, { taskId: 'x', inputResponses: {} }, NO_TASKS)
      expect(res.body.error, method).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { extensions: { [EXT]: {} } } },
      })
    }
  })

  it('an optional tool runs synchronously without the extension (ctx.task without an id), as a task with it', async () => {
    const { handler } = fixture()
    const sync = await callTool(handler, 'opt', {}, NO_TASKS)
    expect(sync.body.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'task undefined' }],
    })
    expect(sync.body.result).not.toHaveProperty('taskId')
    const created = await callTool(handler, 'opt')
    expect(created.body.result.resultType).toBe('task')
    const done = await poll(handler, created.body.result.taskId as string, statusIs('completed'))
    expect(done.body.result.result).toEqual({
      content: [{ type: 'text', text: `task ${created.body.result.taskId as string}` }],
    })
  })

  it('a function decides per call; a tool without task stays synchronous with the extension declared', async () => {
    const { handler } = fixture()
    expect((await callTool(handler, 'decide', { big: false })).body.result.content[0].text).toBe('task no')
    expect((await callTool(handler, 'decide', { big: true })).body.result.resultType).toBe('task')
    const greet = await callTool(handler, 'greet', { name: 'Ada' }, TASKS)
    expect(greet.body.result).toMatchObject({ resultType: 'complete', content: [{ text: 'Hello, Ada!' }] })
    // a v1-style `task` param is tolerated and promotes nothing
    const hinted = await post(
      handler,
      req('tools/call', { name: 'greet', arguments: { name: 'Ada' }, task: { ttl: 5 } }, TASKS),
      std('tools/call', 'greet'),
    )
    expect(hinted.body.result.resultType).toBe('complete')
  })

  it('tasks/result and tasks/list are unknown methods (-32601)', async () => {
    const { handler } = fixture()
    for (const method of ['tasks/result', 'tasks/list'])
      expect((await tasks(handler, method, { taskId: 'x' })).body.error.code, method).toBe(-32601)
  })
})

describe('tasks: creation and tasks/get', () => {
  it('CreateTaskResult is flat: resultType task, ISO dates, integer ttlMs and pollIntervalMs, no forbidden keys', async () => {
    const { handler, hold } = fixture({ ttlMs: 120_000, pollIntervalMs: 250 })
    const got = await callTool(handler, 'slow')
    const r = got.body.result
    expect(r).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 120_000, pollIntervalMs: 250 })
    expect(r.taskId).toMatch(/^[A-Za-z0-9_-]{22,}$/)
    for (const key of ['createdAt', 'lastUpdatedAt']) expect(new Date(r[key] as string).toISOString()).toBe(r[key])
    for (const key of ['result', 'error', 'inputRequests', 'requestState', 'ttl', 'pollInterval', 'task'])
      expect(r, key).not.toHaveProperty(key)
    // durable: tasks/get finds it at once
    const now = await tasks(handler, 'tasks/get', { taskId: r.taskId })
    expect(now.body.result).toMatchObject({ resultType: 'complete', taskId: r.taskId, status: 'working' })
    expect(now.body.result).not.toHaveProperty('result')
    hold.open()
    const done = await poll(handler, r.taskId as string, statusIs('completed'))
    expect(done.body.result.result).toEqual({ content: [{ type: 'text', text: 'slow done' }] })
    expect(done.body.result).not.toHaveProperty('requestState')
  })

  it('a tool error completes the task with isError; a JSON-RPC error fails it with the error', async () => {
    const { handler } = fixture()
    const a = (await callTool(handler, 'tool_error')).body.result.taskId as string
    const done = await poll(handler, a, statusIs('completed'))
    expect(done.body.result.result).toMatchObject({ isError: true, content: [{ text: /the shelf fell over/ }] })
    const b = (await callTool(handler, 'protocol_error')).body.result.taskId as string
    const failed = await poll(handler, b, statusIs('failed'))
    expect(failed.body.result.error).toEqual({
      code: -32603,
      message: 'API rate limit exceeded',
      data: { retryAfter: 3 },
    })
    expect(failed.body.result).not.toHaveProperty('result')
  })

  it('status and progress show on tasks/get (statusMessage, _meta edge-mcp/progress)', async () => {
    const { handler, hold } = fixture()
    const id = (await callTool(handler, 'progress')).body.result.taskId as string
    const got = await poll(handler, id, (r) => r.body.result?.statusMessage === 'Shelf 3 of 10')
    expect(got.body.result._meta['edge-mcp/progress']).toEqual({ progress: 3, total: 10 })
    hold.open()
    await poll(handler, id, statusIs('completed'))
  })
})

describe('tasks: questions inside a task', () => {
  it('input_required lists both keys; answered keys vanish at once, a partial answer keeps input_required; unknown keys ignored', async () => {
    const { handler } = fixture()
    const id = (await callTool(handler, 'ask_two')).body.result.taskId as string
    const asked = await poll(handler, id, statusIs('input_required'))
    const keys = Object.keys(asked.body.result.inputRequests)
    expect(keys).toHaveLength(2)
    expect(asked.body.result.inputRequests[keys[0]]).toMatchObject({ method: 'elicitation/create' })
    const ack = await tasks(handler, 'tasks/update', {
      taskId: id,
      inputResponses: { [keys[0]]: { action: 'accept', content: { v: 'a' } }, never: { action: 'decline' } },
    })
    expect(ack.body.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) as unknown })
    const partial = await tasks(handler, 'tasks/get', { taskId: id })
    expect(partial.body.result.status).toBe('input_required')
    expect(Object.keys(partial.body.result.inputRequests)).toEqual([keys[1]])
    await tasks(handler, 'tasks/update', { taskId: id, inputResponses: { [keys[1]]: { action: 'decline' } } })
    const done = await poll(handler, id, statusIs('completed'))
    expect(JSON.parse(textOf(done))).toEqual([{ action: 'accept', value: { v: 'a' } }, { action: 'decline' }])
  })

  it('an answer that does not fit is asked again under a new key (keys never reused)', async () => {
    const { handler } = fixture()
    const id = (await callTool(handler, 'ask_number')).body.result.taskId as string
    const first = await poll(handler, id, statusIs('input_required'))
    const [k1] = Object.keys(first.body.result.inputRequests)
    await tasks(handler, 'tasks/update', {
      taskId: id,
      inputResponses: { [k1]: { action: 'accept', content: { n: 'x' } } },
    })
    const again = await poll(
      handler,
      id,
      (r) => r.body.result?.status === 'input_required' && !(k1 in r.body.result.inputRequests),
    )
    const [k2] = Object.keys(again.body.result.inputRequests)
    expect(k2).not.toBe(k1)
    expect(again.body.result.inputRequests[k2].params?.message).toMatch(/did not fit/)
    await tasks(handler, 'tasks/update', {
      taskId: id,
      inputResponses: { [k2]: { action: 'accept', content: { n: 4 } } },
    })
    const done = await poll(handler, id, statusIs('completed'))
    expect(JSON.parse(textOf(done))).toEqual({ action: 'accept', value: { n: 4 } })
  })

  it('a raw InputRequiredResult inside a task is asked in the task, then the handler runs with the answers and its state', async () => {
    const { handler } = fixture()
    const id = (await callTool(handler, 'raw')).body.result.taskId as string
    const asked = await poll(handler, id, statusIs('input_required'))
    const [key] = Object.keys(asked.body.result.inputRequests)
    await tasks(handler, 'tasks/update', {
      taskId: id,
      inputResponses: { [key]: { action: 'accept', content: { v: 'yes' } } },
    })
    const done = await poll(handler, id, statusIs('completed'))
    expect(textOf(done)).toBe('raw got yes with state "s1"')
  })

  it('MRTR first: the resolver asks over the request, round 2 creates the task, its result reflects the answer', async () => {
    const { handler } = fixture()
    const round1 = await callTool(handler, 'mrtr')
    expect(round1.body.result.resultType).toBe('input_required')
    expect(round1.body.result).not.toHaveProperty('taskId')
    const [key] = Object.keys(round1.body.result.inputRequests)
    const round2 = await post(
      handler,
      req(
        'tools/call',
        {
          name: 'mrtr',
          arguments: {},
          requestState: round1.body.result.requestState,
          inputResponses: { [key]: { action: 'accept', content: { user_name: 'Ada' } } },
        },
        TASKS,
      ),
      std('tools/call', 'mrtr'),
    )
    expect(round2.body.result.resultType).toBe('task')
    expect(round2.body.result).not.toHaveProperty('requestState')
    const done = await poll(handler, round2.body.result.taskId as string, statusIs('completed'))
    expect(textOf(done)).toBe('Hello, Ada!')
  })
})

describe('tasks: cancel, principals, TTL, headers', () => {
  it('cancel acks, sets cancelled at once and aborts ctx.signal; cancel again on the terminal task is the same ack', async () => {
    const { handler, signals } = fixture()
    const id = (await callTool(handler, 'slow')).body.result.taskId as string
    await poll(handler, id, () => signals.length === 1)
    const ack = await tasks(handler, 'tasks/cancel', { taskId: id })
    expect(ack.body.result.resultType).toBe('complete')
    expect(Object.keys(ack.body.result).sort()).toEqual(['_meta', 'resultType'])
    expect(signals[0].aborted).toBe(true)
    const got = await tasks(handler, 'tasks/get', { taskId: id })
    expect(got.body.result.status).toBe('cancelled')
    const again = await tasks(handler, 'tasks/cancel', { taskId: id })
    expect(again.body.result.resultType).toBe('complete')
    await new Promise((r) => setTimeout(r, 20))
    expect((await tasks(handler, 'tasks/get', { taskId: id })).body.result.status).toBe('cancelled') // sticky
  })

  it('another principal, or none, gets byte for byte the answer of an unknown task id, on get, update and cancel', async () => {
    const { handler, hold } = fixture()
    const alice = { 'x-user': 'alice' }
    const id = (await callTool(handler, 'slow', {}, TASKS, alice)).body.result.taskId as string
    expect((await tasks(handler, 'tasks/get', { taskId: id }, TASKS, alice)).body.result.status).toBe('working')
    const strip = (p: Posted) => JSON.stringify({ ...p.body, id: 0 })
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const params = (taskId: string) => ({ taskId, inputResponses: {} })
      const unknown = await tasks(handler, method, params('no-such-task'), TASKS, alice)
      expect(unknown.body.error).toEqual({ code: -32602, message: 'Failed to retrieve task: Task not found' })
      const bob = await tasks(handler, method, params(id), TASKS, { 'x-user': 'bob' })
      const none = await tasks(handler, method, params(id), TASKS)
      expect(strip(bob), method).toBe(strip(unknown))
      expect(strip(none), method).toBe(strip(unknown))
      expect(bob.status).toBe(unknown.status)
    }
    expect((await tasks(handler, 'tasks/get', { taskId: id }, TASKS, alice)).body.result.status).toBe('working')
    hold.open()
  })

  it('at its TTL a task is aborted and deleted: then not found', async () => {
    const { handler, signals } = fixture({ ttlMs: 60 })
    const id = (await callTool(handler, 'slow')).body.result.taskId as string
    expect((await tasks(handler, 'tasks/get', { taskId: id })).body.result.ttlMs).toBe(60)
    await new Promise((r) => setTimeout(r, 120))
    expect(signals[0]?.aborted).toBe(true)
    const gone = await tasks(handler, 'tasks/get', { taskId: id })
    expect(gone.body.error).toEqual({ code: -32602, message: 'Failed to retrieve task: Task not found' })
  })

  it('on Workers in-memory tasks refuse to start one: -32603 naming durableObjectTasks (nothing runs)', async () => {
    const { handler, hold } = fixture({})
    vi.stubGlobal('navigator', { userAgent: 'Cloudflare-Workers' })
    try {
      const refused = await callTool(handler, 'slow')
      expect(refused.body.error).toMatchObject({
        code: -32603,
        message: expect.stringMatching(
          /^inMemoryTasks cannot run a task on Cloudflare Workers: use durableObjectTasks/,
        ) as unknown,
      })
    } finally {
      vi.unstubAllGlobals()
      hold.open()
    }
  })

  it('past maxTasks starting a task fails with -32603 naming it', async () => {
    const { handler, hold } = fixture({ maxTasks: 1 })
    expect((await callTool(handler, 'slow')).body.result.resultType).toBe('task')
    const over = await callTool(handler, 'slow')
    expect(over.body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/maxTasks/) as unknown })
    hold.open()
  })

  it('over HTTP tasks/* need Mcp-Name equal to the taskId: missing or different is -32020 (HTTP 400)', async () => {
    const { handler, hold } = fixture()
    const id = (await callTool(handler, 'slow')).body.result.taskId as string
    const wrong = await post(handler, req('tasks/get', { taskId: id }, TASKS), std('tasks/get', 'other'))
    expect(wrong.status).toBe(400)
    expect(wrong.body.error.code).toBe(-32020)
    const missing = await post(handler, req('tasks/cancel', { taskId: id }, TASKS), std('tasks/cancel'))
    expect(missing.status).toBe(400)
    expect(missing.body.error.code).toBe(-32020)
    expect((await tasks(handler, 'tasks/get', { taskId: id })).body.result.status).toBe('working')
    hold.open()
  })

  it('tasks/update needs inputResponses as an object of result objects (-32602)', async () => {
    const { handler } = fixture()
    const bad = await tasks(handler, 'tasks/update', { taskId: 'x', inputResponses: [1] })
    expect(bad.body.error.code).toBe(-32602)
  })
})

describe('tasks: subscriptions/listen with taskIds', () => {
  const listen = (mcp: McpServer, caps: Record<string, unknown>, notify: (m: unknown) => void) =>
    mcp.server.handle(
      {
        kind: 'request',
        message: {
          jsonrpc: '2.0',
          id: 1,
          method: 'subscriptions/listen',
          params: { notifications: { taskIds: ['t1'], toolsListChanged: true }, _meta: env(caps) },
        },
      },
      {},
      { notify },
    )

  it('without the extension on the request: -32021 naming it; with it: acknowledged with no task ids agreed', async () => {
    const { mcp } = fixture()
    const refused = await listen(mcp, NO_TASKS, () => {})
    expect(refused.response).toMatchObject({
      error: { code: -32021, data: { requiredCapabilities: { extensions: { [EXT]: {} } } } },
    })
    const seen: Array<{ params?: { notifications?: unknown } }> = []
    const open = listen(mcp, TASKS, (m) => seen.push(m as (typeof seen)[number]))
    await vi.waitFor(() => expect(seen).toHaveLength(1))
    expect(seen[0].params?.notifications).toEqual({ toolsListChanged: true, taskIds: [] })
    mcp.server.closeSubscriptions()
    await open
  })

  it('a server without tasks leaves taskIds out of the acknowledgement, as any unknown kind', async () => {
    const mcp = new McpServer({ name: 'p', version: '1' })
    mcp.tool('t', {}, () => 'x')
    const seen: Array<{ params?: { notifications?: unknown } }> = []
    const open = listen(mcp, NO_TASKS, (m) => seen.push(m as (typeof seen)[number]))
    await vi.waitFor(() => expect(seen).toHaveLength(1))
    expect(seen[0].params?.notifications).toEqual({ toolsListChanged: true })
    mcp.server.closeSubscriptions()
    await open
  })
})
