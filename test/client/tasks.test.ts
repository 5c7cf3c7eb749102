/**
 * The client's half of the Tasks extension (src/client/tasks.ts) against a scripted fake server: a
 * `tools/call` answered with a `CreateTaskResult` is polled with `tasks/get` (no timers: the client's `sleep`
 * is a recorder), its questions answered once per key through the callbacks and sent with `tasks/update`, its
 * end mapped to a result or an error; abort sends `tasks/cancel`; the manual API resumes a saved task id.
 */
import { describe, expect, it, vi } from 'vitest'
import {
  Client,
  InvalidResultError,
  listen,
  NetworkError,
  RequestTimeoutError,
  StreamableHttpClientTransport,
  TaskEndedError,
} from '../../src/client/index.ts'
import { McpError, type DetailedTask } from '../../src/index.ts'
import { json } from '../helpers.ts'

const TASKS = 'io.modelcontextprotocol/tasks'
const CREATED = new Date().toISOString()

interface Seen {
  method: string
  params: Record<string, unknown>
  headers: Headers
}

type Reply = { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } }
/** A JSON-RPC error answer in place of a task, in a fake server's `polls`. */
const rpcError = (code: number, message: string) => ({ rpcError: { code, message } })

/** A task as the server reports it, at `status`, with `extra` members. */
function task(status: DetailedTask['status'], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { taskId: 'task-1', status, createdAt: CREATED, lastUpdatedAt: CREATED, ttlMs: 3_600_000, ...extra }
}

const DONE = task('completed', { result: { content: [{ type: 'text', text: 'done' }] } })

/**
 * A fake 2026 server: `tools/call` (and `prompts/get`) answers `created`, each `tasks/get` the next of `polls`
 * (the last one repeated; one marked `hold: true` repeated until a `tasks/update` came after it was first
 * served, as a server waits for its answers), `tasks/update` (unless `updateError`) and `tasks/cancel` an
 * acknowledgement; every request is recorded.
 */
function fakeServer(
  created: Record<string, unknown>,
  polls: Array<Record<string, unknown>>,
  updateError?: { code: number; message: string },
) {
  const seen: Seen[] = []
  let at = 0
  let updates = 0
  let heldSince: number | undefined // the update count when the held entry was first served
  let down = false
  const reply = (method: string): Reply => {
    if (method === 'tools/call' || method === 'prompts/get') return { result: { resultType: 'task', ...created } }
    if (method === 'tasks/get') {
      const { hold, ...next } = polls[Math.min(at, polls.length - 1)]
      if (!hold || (heldSince ??= updates) < updates) {
        at++
        heldSince = undefined
      }
      if ('rpcError' in next) return { error: next.rpcError as { code: number; message: string } }
      return { result: { resultType: 'complete', ...next } }
    }
    if (method === 'tasks/update') {
      if (updateError) return { error: updateError }
      updates++
    }
    return { result: method === 'tools/list' ? { tools: [] } : { resultType: 'complete' } }
  }
  let stream: ReadableStreamDefaultController<Uint8Array> | undefined
  let listenId: number | undefined
  /** Send `notification` on the open listen stream, as an SSE event carrying its subscriptionId. */
  const notify = (method: string, params: Record<string, unknown>) => {
    const _meta = { 'io.modelcontextprotocol/subscriptionId': listenId }
    const event = `data: ${JSON.stringify({ jsonrpc: '2.0', method, params: { ...params, _meta } })}\n\n`
    stream!.enqueue(new TextEncoder().encode(event))
  }
  const fetch = async (request: Request) => {
    if (down) throw new TypeError('fetch failed')
    const body = await json<{ id: number; method: string; params: Record<string, unknown> }>(request)
    seen.push({ method: body.method, params: body.params, headers: request.headers })
    if (body.method === 'subscriptions/listen') {
      listenId = body.id
      const sse = new ReadableStream<Uint8Array>({ start: (c) => void (stream = c) })
      notify('notifications/subscriptions/acknowledged', { notifications: body.params.notifications })
      return new Response(sse, { headers: { 'content-type': 'text/event-stream' } })
    }
    return Response.json({ jsonrpc: '2.0', id: body.id, ...reply(body.method) })
  }
  const transport = () => new StreamableHttpClientTransport('http://x/mcp', { fetch })
  return {
    seen,
    transport,
    methods: () => seen.map((s) => s.method),
    notify,
    crash: () => (down = true),
    recover: () => (down = false),
  }
}

/** A client of `server` whose waits are recorded, not slept (aborts still honoured). */
function clientOf(server: ReturnType<typeof fakeServer>, extra: Partial<ConstructorParameters<typeof Client>[0]> = {}) {
  const waits: number[] = []
  const client = new Client({
    transport: server.transport(),
    versionNegotiation: 'modern',
    sleep: async (ms, signal) => {
      waits.push(ms)
      await Promise.resolve()
      signal?.throwIfAborted()
    },
    ...extra,
  })
  return { client, waits }
}

const ELICIT = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Count the returns shelf too?',
    requestedSchema: { type: 'object', properties: { yes: { type: 'boolean' } } },
  },
}

describe('callTool with a task', () => {
  it('polls tasks/get until completed and returns the result, transparently', async () => {
    const server = fakeServer(task('working'), [task('working'), task('working'), DONE])
    const { client } = clientOf(server)
    const result = await client.callTool('stock_take', { seconds: 1 })
    expect(result.content).toEqual([{ type: 'text', text: 'done' }])
    expect(server.methods()).toEqual(['tools/call', 'tasks/get', 'tasks/get', 'tasks/get'])
    expect(server.seen.slice(1).every((s) => s.params.taskId === 'task-1')).toBe(true)
  })

  it('declares the extension in _meta on tools/call and tasks/*, and sends Mcp-Name = taskId with Mcp-Method', async () => {
    const asking = { ...task('input_required', { inputRequests: { q: ELICIT } }), hold: true }
    const server = fakeServer(task('working'), [asking, DONE])
    const { client } = clientOf(server, { elicitation: () => ({ action: 'accept', content: { yes: true } }) })
    await client.callTool('stock_take', {})
    await client.cancelTask('task-1')
    await client.listTools()
    for (const { method, params, headers } of server.seen) {
      const caps = (params._meta as Record<string, Record<string, unknown>>)[
        'io.modelcontextprotocol/clientCapabilities'
      ]
      if (method === 'tools/list') {
        expect(caps).toEqual({ elicitation: { form: {}, url: {} } }) // only where a task can be: tools/call, tasks/*
        continue
      }
      expect(caps).toEqual({ elicitation: { form: {}, url: {} }, extensions: { [TASKS]: {} } })
      expect(headers.get('mcp-method')).toBe(method)
      expect(headers.get('mcp-name')).toBe(method === 'tools/call' ? 'stock_take' : 'task-1')
    }
    expect(new Set(server.methods())).toEqual(
      new Set(['tools/call', 'tasks/get', 'tasks/update', 'tasks/cancel', 'tools/list']),
    )
  })

  it('keeps extensions the client declares itself', async () => {
    const server = fakeServer(task('working'), [DONE])
    const { client } = clientOf(server, { capabilities: { extensions: { 'x/y': { a: 1 } } } })
    await client.callTool('t')
    const caps = (server.seen[0].params._meta as Record<string, unknown>)['io.modelcontextprotocol/clientCapabilities']
    expect(caps).toEqual({ extensions: { 'x/y': { a: 1 }, [TASKS]: {} } })
  })

  it('answers each inputRequests key once over the task, however often polls repeat it (partial answers too)', async () => {
    const other = { ...ELICIT, params: { ...ELICIT.params, message: 'And the cellar?' } }
    const server = fakeServer(task('working'), [
      { ...task('input_required', { inputRequests: { a: ELICIT } }), hold: true }, // polled again until answered
      { ...task('input_required', { inputRequests: { a: ELICIT, b: other } }), hold: true }, // a: stale
      task('input_required', { inputRequests: { b: other } }), // b: stale
      task('working'),
      DONE,
    ])
    const asked: string[] = []
    const { client } = clientOf(server, {
      elicitation: (params, ctx) => {
        asked.push(`${ctx.key}: ${params.message} (${ctx.method} ${ctx.target})`)
        return { action: 'accept', content: { yes: ctx.key === 'a' } }
      },
    })
    const result = await client.callTool('stock_take', {})
    expect(result.content).toEqual([{ type: 'text', text: 'done' }])
    expect(asked).toEqual([
      'a: Count the returns shelf too? (tools/call stock_take)',
      'b: And the cellar? (tools/call stock_take)',
    ])
    const updates = server.seen.filter((s) => s.method === 'tasks/update').map((s) => s.params)
    expect(updates.map((u) => ({ taskId: u.taskId, inputResponses: u.inputResponses }))).toEqual([
      { taskId: 'task-1', inputResponses: { a: { action: 'accept', content: { yes: true } } } },
      { taskId: 'task-1', inputResponses: { b: { action: 'accept', content: { yes: false } } } },
    ])
  })

  it('honours pollIntervalMs clamped to [100 ms, 30 s], else backs off from 500 ms ×1.5 up to 5 s', async () => {
    const server = fakeServer(task('working', { pollIntervalMs: 10 }), [
      task('working', { pollIntervalMs: 2_500 }),
      task('working', { pollIntervalMs: 600_000 }),
      ...Array.from({ length: 8 }, () => task('working')),
      DONE,
    ])
    const { client, waits } = clientOf(server)
    await client.callTool('t')
    expect(waits).toEqual([100, 2_500, 30_000, 500, 750, 1_125, 1_687.5, 2_531.25, 3_796.875, 5_000, 5_000])
    expect(server.methods().filter((m) => m === 'tasks/get')).toHaveLength(waits.length)
  })

  it('a failed task is an McpError with its code, message and data', async () => {
    const error = { code: -32603, message: 'API rate limit exceeded', data: { retryAfter: 3 } }
    const server = fakeServer(task('working'), [task('failed', { error, statusMessage: 'Tool execution failed' })])
    const thrown = await clientOf(server)
      .client.callTool('t')
      .catch((e: unknown) => e)
    expect(thrown).toBeInstanceOf(McpError)
    expect(thrown).toMatchObject(error)
  })

  it('a cancelled task is a TaskEndedError (cancelled), a vanished one (-32602) a TaskEndedError (not_found)', async () => {
    const cancelled = fakeServer(task('working'), [task('cancelled', { statusMessage: 'Stopped by the operator' })])
    const e1 = await clientOf(cancelled)
      .client.callTool('t')
      .catch((e: unknown) => e)
    expect(e1).toBeInstanceOf(TaskEndedError)
    expect(e1).toMatchObject({ reason: 'cancelled', taskId: 'task-1', code: 'ERR_TASK_ENDED' })
    expect((e1 as Error).message).toBe('Task task-1 was cancelled: Stopped by the operator')

    const notFound = rpcError(-32602, 'Failed to retrieve task: Task not found')
    const vanished = fakeServer(task('working'), [task('working'), notFound])
    const e2 = await clientOf(vanished)
      .client.callTool('t')
      .catch((e: unknown) => e)
    expect(e2).toBeInstanceOf(TaskEndedError)
    expect(e2).toMatchObject({ reason: 'not_found', task: { status: 'working' } })
    expect((e2 as Error).cause).toBeInstanceOf(McpError)
  })

  it('a task that vanishes while its question is answered (tasks/update -32602) is a TaskEndedError (not_found)', async () => {
    const notFound = { code: -32602, message: 'Failed to retrieve task: Task not found' }
    const asking = task('input_required', { inputRequests: { q: ELICIT }, hold: true })
    const server = fakeServer(task('working'), [asking], notFound)
    const { client } = clientOf(server, { elicitation: () => ({ action: 'accept', content: { yes: true } }) })
    const error = await client.callTool('t').catch((e: unknown) => e)
    expect(server.methods()).toContain('tasks/update')
    expect(error).toBeInstanceOf(TaskEndedError)
    expect(error).toMatchObject({ reason: 'not_found', taskId: 'task-1', task: { status: 'input_required' } })
    expect((error as Error).cause).toBeInstanceOf(McpError)
  })

  it('a tasks/get that reports another task id is an InvalidResultError naming the field', async () => {
    const server = fakeServer(task('working'), [{ ...DONE, taskId: 'task-2' }])
    const error = await clientOf(server)
      .client.callTool('t')
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidResultError)
    expect((error as Error).message).toMatch(/taskId.*task-2.*task-1|task-1.*task-2/)
  })

  it('a task past its TTL (plus a minute of skew) that is still working ends the call (expired)', async () => {
    const old = new Date(Date.now() - 3_600_000).toISOString()
    const server = fakeServer(task('working'), [task('working', { createdAt: old, ttlMs: 60_000 })])
    const thrown = await clientOf(server)
      .client.callTool('t')
      .catch((e: unknown) => e)
    expect(thrown).toMatchObject({ reason: 'expired' })
    expect(server.methods()).toEqual(['tools/call', 'tasks/get'])
  })

  it('maxTotalTimeoutMs bounds the whole loop: no wait that would pass it', async () => {
    const server = fakeServer(task('working'), [task('working')])
    const thrown = await clientOf(server)
      .client.callTool('t', {}, { maxTotalTimeoutMs: 1_000 })
      .catch((e: unknown) => e)
    expect(thrown).toBeInstanceOf(RequestTimeoutError)
    expect(server.methods()).toEqual(['tools/call', 'tasks/get', 'tasks/get']) // waits 500, 750; 1125 would pass it
  })

  it('abort sends tasks/cancel, then rejects with the abort reason', async () => {
    const server = fakeServer(task('working'), [task('working', { statusMessage: 'shelf 1' }), task('working')])
    const controller = new AbortController()
    const { client } = clientOf(server)
    const reason = new Error('user pressed Cancel')
    const thrown = await client
      .callTool(
        't',
        {},
        {
          signal: controller.signal,
          onTask: (t) => void (t.statusMessage === 'shelf 1' && controller.abort(reason)),
        },
      )
      .catch((e: unknown) => e)
    expect(thrown).toBe(reason)
    expect(server.methods().at(-1)).toBe('tasks/cancel')
    expect(server.seen.at(-1)!.params.taskId).toBe('task-1')
    expect(server.seen.at(-1)!.headers.get('mcp-name')).toBe('task-1')
  })

  it('an abort while a question is open aborts its callback and cancels the task', async () => {
    const server = fakeServer(task('working'), [task('input_required', { inputRequests: { q: ELICIT } })])
    const controller = new AbortController()
    let callbackSignal: AbortSignal | undefined
    const { client } = clientOf(server, {
      elicitation: (_params, ctx) => {
        callbackSignal = ctx.signal
        controller.abort()
        return new Promise(() => {}) // the user never answers
      },
    })
    const thrown = await client.callTool('t', {}, { signal: controller.signal }).catch((e: unknown) => e)
    expect((thrown as Error).name).toBe('AbortError')
    expect(callbackSignal?.aborted).toBe(true)
    expect(server.methods()).toContain('tasks/cancel')
    expect(server.methods()).not.toContain('tasks/update')
  })

  it('a callback that throws rejects the call with its error at once, and leaves the task to be resumed', async () => {
    const server = fakeServer(task('working'), [task('input_required', { inputRequests: { q: ELICIT } })])
    const broken = new Error('the form could not be shown')
    const { client } = clientOf(server, {
      elicitation: () => {
        throw broken
      },
    })
    await expect(client.callTool('t')).rejects.toBe(broken)
    expect(server.methods()).not.toContain('tasks/cancel')
    expect(server.methods()).not.toContain('tasks/update')
    // without a callback for the question: MissingInputHandlerError, as in the multi-round loop
    await expect(clientOf(server).client.callTool('t')).rejects.toMatchObject({ code: 'ERR_MISSING_INPUT_HANDLER' })
  })

  it('onTask: the created task, then each change of status, statusMessage or progress, the last terminal', async () => {
    const progress = (p: number) => ({ _meta: { 'edge-mcp/progress': { progress: p, total: 3 } } })
    const server = fakeServer(task('working', { statusMessage: 'Starting' }), [
      task('working', { statusMessage: 'Starting' }), // no change: not reported
      task('working', { statusMessage: 'Shelf 1 of 3', ...progress(1) }),
      task('working', { statusMessage: 'Shelf 1 of 3', ...progress(1) }),
      task('working', { statusMessage: 'Shelf 1 of 3', ...progress(2) }),
      { ...task('input_required', { statusMessage: 'Waiting', inputRequests: { q: ELICIT } }), hold: true },
      task('working', { statusMessage: 'Shelf 3 of 3', ...progress(3) }),
      DONE,
    ])
    const seen: string[] = []
    const { client } = clientOf(server, { elicitation: () => ({ action: 'decline' }) })
    await client.callTool(
      't',
      {},
      {
        onTask: (t) => {
          const p = t._meta?.['edge-mcp/progress'] as { progress: number } | undefined
          seen.push(`${t.status}|${t.statusMessage ?? ''}|${p?.progress ?? ''}`)
          expect('resultType' in t).toBe(false)
        },
      },
    )
    expect(seen).toEqual([
      'working|Starting|',
      'working|Shelf 1 of 3|1',
      'working|Shelf 1 of 3|2',
      'input_required|Waiting|',
      'working|Shelf 3 of 3|3',
      'completed||',
    ])
  })

  it('each tasks/* request passes the request middleware', async () => {
    const asking = { ...task('input_required', { inputRequests: { q: ELICIT } }), hold: true }
    const server = fakeServer(task('working'), [asking, DONE])
    const { client } = clientOf(server, { elicitation: () => ({ action: 'cancel' }) })
    const requests: string[] = []
    const answers: string[] = []
    client.use({
      request: (call, next) => (
        requests.push(`${call.method} ${String(call.params.taskId ?? call.params.name)}`),
        next()
      ),
      answer: (call, next) => (answers.push(`${call.key} ${call.method}`), next()),
    })
    await client.callTool('t')
    // polling goes on while the answer is given: how often tasks/get went before it is not fixed
    expect(new Set(requests)).toEqual(new Set(['tools/call t', 'tasks/get task-1', 'tasks/update task-1']))
    expect(requests.filter((r) => r.startsWith('tasks/update'))).toHaveLength(1)
    expect(answers).toEqual(['q elicitation/create'])
  })

  it('prompts/get answered with a task handle is an invalid result (the extension covers tools/call only)', async () => {
    const server = fakeServer(task('working'), [DONE])
    await expect(clientOf(server).client.getPrompt('p')).rejects.toThrow(/Unknown resultType 'task'/)
  })
})

describe('notifications/tasks', () => {
  it('a listen stream with the task id ends the wait at once: the notified state is taken, no poll needed', async () => {
    const server = fakeServer(task('working', { pollIntervalMs: 30_000 }), [task('working')])
    const waits: number[] = []
    const client = new Client({
      transport: server.transport(),
      versionNegotiation: 'modern',
      // a wait that never ends by itself: only a notification (or an abort) moves the loop on
      sleep: (ms, signal) =>
        new Promise((_resolve, reject) => {
          waits.push(ms)
          signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true })
        }),
    })
    const listening = new AbortController()
    const statuses: string[] = []
    const call = client.callTool(
      't',
      {},
      {
        onTask: (t) => {
          statuses.push(`${t.status} ${t.statusMessage ?? ''}`)
          if (statuses.length === 1) void listen(client, { taskIds: [t.taskId] }, { signal: listening.signal })
        },
      },
    )
    await vi.waitFor(() => expect(server.methods()).toContain('subscriptions/listen'))
    await vi.waitFor(() => expect(waits).toHaveLength(1))
    const older = new Date(Date.parse(CREATED) - 1000).toISOString()
    server.notify('notifications/tasks', task('working', { taskId: 'other', statusMessage: 'not ours' }))
    server.notify('notifications/tasks', task('working', { statusMessage: 'Shelf 2', pollIntervalMs: 30_000 }))
    await vi.waitFor(() => expect(waits).toHaveLength(2))
    server.notify('notifications/tasks', task('cancelled', { lastUpdatedAt: older })) // stale: ignored
    server.notify('notifications/tasks', { ...DONE, lastUpdatedAt: new Date().toISOString() })
    const result = await call
    listening.abort()
    expect(result.content).toEqual([{ type: 'text', text: 'done' }])
    expect(statuses).toEqual(['working ', 'working Shelf 2', 'completed '])
    expect(server.methods()).toEqual(['tools/call', 'subscriptions/listen']) // not one tasks/get
    const listenCaps = (server.seen[1].params._meta as Record<string, unknown>)[
      'io.modelcontextprotocol/clientCapabilities'
    ]
    expect(listenCaps).toEqual({ extensions: { [TASKS]: {} } }) // taskIds need the extension declared
  })
})

describe('the manual task API', () => {
  it('resumeTask: a new Client resumes polling a task id saved before a restart', async () => {
    const server = fakeServer(task('working'), [
      task('working'),
      { ...task('input_required', { inputRequests: { q: ELICIT } }), hold: true },
      DONE,
    ])
    let saved: string | undefined
    const first = clientOf(server).client
    const crashed = first
      .callTool('t', {}, { onTask: (t) => ((saved = t.taskId), server.crash()) })
      .catch((e: unknown) => e)
    expect(await crashed).toBeInstanceOf(NetworkError)
    expect(saved).toBe('task-1')

    server.recover()
    const asked: string[] = []
    const second = clientOf(server, {
      elicitation: (_p, ctx) => (asked.push(`${ctx.key} ${ctx.target}`), { action: 'accept', content: { yes: true } }),
    })
    const statuses: string[] = []
    const result = await second.client.resumeTask(saved!, { onTask: (t) => statuses.push(t.status) })
    expect(result.content).toEqual([{ type: 'text', text: 'done' }])
    expect(second.waits[0]).toBe(500) // the first tasks/get went at once; the wait came after it
    expect(asked).toEqual(['q task-1']) // a resumed task knows no tool name: its id is the target
    expect(statuses).toEqual(['working', 'input_required', 'completed'])
  })

  it('getTask returns the task without resultType; cancelTask sends tasks/cancel; an unknown id is McpError -32602', async () => {
    const notFound = rpcError(-32602, 'Failed to retrieve task: Task not found')
    const server = fakeServer(task('working'), [task('input_required', { inputRequests: { q: ELICIT } }), notFound])
    const { client } = clientOf(server)
    const got = await client.getTask('task-1')
    expect(got).toEqual(task('input_required', { inputRequests: { q: ELICIT } }))
    await client.cancelTask('task-1')
    expect(server.seen.at(-1)).toMatchObject({ method: 'tasks/cancel', params: { taskId: 'task-1' } })
    await expect(client.getTask('task-1')).rejects.toMatchObject({ code: -32602 })
  })

  it('a taskId that is not a non-empty string is a TypeError naming the method, and nothing is sent', async () => {
    const server = fakeServer(task('working'), [])
    const { client } = clientOf(server)
    const before = server.seen.length
    for (const bad of [undefined, null, 42, {}, ''] as never[]) {
      const got = typeof bad === 'string' ? "''" : typeof bad
      await expect(client.getTask(bad)).rejects.toThrow(
        new TypeError(`getTask: taskId must be a non-empty string (the taskId of a CreateTaskResult), got ${got}`),
      )
      await expect(client.cancelTask(bad)).rejects.toThrow(/^cancelTask: taskId must be a non-empty string/)
      await expect(client.resumeTask(bad)).rejects.toThrow(/^resumeTask: taskId must be a non-empty string/)
    }
    expect(server.seen.length).toBe(before)
  })

  it('a malformed task is an InvalidResultError naming the field', async () => {
    const server = fakeServer(task('working'), [task('completed')])
    await expect(clientOf(server).client.getTask('task-1')).rejects.toThrow(/completed task without a result/)
    const odd = fakeServer(task('working'), [task('paused' as never)])
    await expect(clientOf(odd).client.getTask('task-1')).rejects.toThrow(/Invalid tasks\/get result: field 'status'/)
  })
})
