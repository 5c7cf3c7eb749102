/**
 * `ctx.task.ask` with each kind of question inside a task (sampling, roots, URL elicitation), a question the
 * client cannot answer, the rounds limit, `ctx.sendProgress` inside a task, request middleware around the
 * creating request, and a synchronous 2026 run that asks.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import {
  McpServer,
  createFetchHandler,
  elicit,
  inMemoryTasks,
  inputRequired,
  listRoots,
  sample,
  type FetchHandler,
} from '../../../src/server/index.ts'
import { post, req, std, type Posted } from '../../helpers.ts'

const EXT = 'io.modelcontextprotocol/tasks'
const ALL = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {}, extensions: { [EXT]: {} } }

function fixture() {
  const mcp = new McpServer({ name: 'asks', version: '1' }, { tasks: inMemoryTasks() })
  mcp.tool('sampled', { task: 'required' }, async (_args, ctx) => {
    const answer = await ctx.task!.ask(sample('Say hi', { maxTokens: 5 }))
    const content = answer.content as { type: string; text?: string }
    return `model said ${content.text ?? '?'}`
  })
  mcp.tool('rooted', { task: 'required' }, async (_args, ctx) => {
    const roots = await ctx.task!.ask(listRoots())
    return roots.map((r) => r.uri).join(',')
  })
  mcp.tool('consent', { task: 'required' }, async (_args, ctx) =>
    JSON.stringify(await ctx.task!.ask(elicit.url('Sign in', 'https://example.com/login'))),
  )
  mcp.tool('endless', { task: 'required' }, (_args, ctx) =>
    inputRequired(
      { q: { method: 'roots/list' } },
      { n: ((ctx.requestState as { n?: number } | undefined)?.n ?? 0) + 1 },
    ),
  )
  mcp.tool('reporting', { task: 'required' }, async (_args, ctx) => {
    ctx.sendProgress(5, 8, 'five')
    await new Promise((r) => setTimeout(r, 5))
    return 'reported'
  })
  mcp.tool('sync_asker', { task: 'optional', input: { x: v.optional(v.string()) } }, async (_args, ctx) => {
    await ctx.task!.ask(listRoots())
    return 'unreachable'
  })
  mcp.tool('sync_progress', { task: 'optional' }, async (_args, ctx) => {
    await ctx.task!.status('ignored')
    await ctx.task!.progress(1, 2, 'half')
    return 'synced'
  })
  mcp.tool('throws_while_asking', { task: 'required' }, async (_args, ctx) => {
    // the ask floats while the work fails: its later rejection must not be an unhandled one
    void ctx.task!.ask(listRoots())
    await new Promise((r) => setTimeout(r, 5))
    throw new Error('the download failed')
  })
  mcp.tool('bad_progress', { task: 'required', input: { kind: v.string() } }, async ({ kind }, ctx) => {
    try {
      if (kind === 'nan') await ctx.task!.progress(Number.NaN)
      if (kind === 'total') await ctx.task!.progress(1, Infinity)
      if (kind === 'bigint') await ctx.task!.progress(10n as never)
      if (kind === 'message') await ctx.task!.progress(1, 2, 42 as never)
      if (kind === 'status') await ctx.task!.status({ a: 1 } as never)
      return 'accepted'
    } catch (error) {
      return `refused: ${(error as Error).name}: ${(error as Error).message}`
    }
  })
  const seen: string[] = []
  mcp.use(async (call, next) => {
    seen.push(call.method)
    return next()
  })
  return { handler: createFetchHandler(mcp), seen, mcp }
}

const callTool = (handler: FetchHandler, name: string, caps: Record<string, unknown> = ALL) =>
  post(handler, req('tools/call', { name, arguments: {} }, caps), std('tools/call', name))
const tasks = (handler: FetchHandler, method: string, params: Record<string, unknown>) =>
  post(handler, req(method, params, ALL), std(method, params.taskId as string))

async function poll(handler: FetchHandler, taskId: string, until: (r: Posted) => boolean): Promise<Posted> {
  for (let i = 0; i < 200; i++) {
    const got = await tasks(handler, 'tasks/get', { taskId })
    if (until(got)) return got
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error('never')
}
const terminal = (r: Posted) => ['completed', 'failed', 'cancelled'].includes(r.body.result?.status as string)
const textOf = (r: Posted): string => (r.body.result.result as { content: Array<{ text: string }> }).content[0].text

/** Start `name`, answer its one question with `answer`, return the terminal task. */
async function answerOnce(handler: FetchHandler, name: string, answer: unknown): Promise<Posted> {
  const id = (await callTool(handler, name)).body.result.taskId as string
  const asked = await poll(handler, id, (r) => r.body.result?.status === 'input_required')
  const [key] = Object.keys(asked.body.result.inputRequests)
  await tasks(handler, 'tasks/update', { taskId: id, inputResponses: { [key]: answer } })
  return poll(handler, id, terminal)
}

describe('tasks: a handler that misuses ctx.task', () => {
  it('throwing while an ask is pending completes the task with isError; the process sees no unhandled rejection', async () => {
    const { handler } = fixture()
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const id = (await callTool(handler, 'throws_while_asking')).body.result.taskId as string
      const done = await poll(handler, id, terminal)
      expect(done.body.result).toMatchObject({ status: 'completed', result: { isError: true } })
      expect(textOf(done)).toMatch(/the download failed/)
      await new Promise((r) => setTimeout(r, 50)) // past the turn where Node reports unhandled rejections
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it('progress and status refuse what JSON or the wire cannot carry, with a TypeError in the handler', async () => {
    const { handler } = fixture()
    for (const [kind, message] of [
      ['nan', 'ctx.task.progress(progress, total?): finite numbers only, got NaN, undefined'],
      ['total', 'ctx.task.progress(progress, total?): finite numbers only, got 1, Infinity'],
      ['bigint', 'ctx.task.progress(progress, total?): finite numbers only, got 10, undefined'],
      ['message', 'ctx.task.progress(…, message): a string, got number'],
      ['status', 'ctx.task.status(message): a string, got object'],
    ]) {
      const started = await post(
        handler,
        req('tools/call', { name: 'bad_progress', arguments: { kind } }, ALL),
        std('tools/call', 'bad_progress'),
      )
      const done = await poll(handler, started.body.result.taskId as string, terminal)
      expect(textOf(done)).toBe(`refused: TypeError: ${message}`)
    }
  })
})

describe('tasks: questions of every kind', () => {
  it('sample resolves to the CreateMessageResult; listRoots to the roots; elicit.url to accept with true', async () => {
    const { handler } = fixture()
    const sampled = await answerOnce(handler, 'sampled', {
      role: 'assistant',
      content: { type: 'text', text: 'hi' },
      model: 'm',
    })
    expect(textOf(sampled)).toBe('model said hi')
    const rooted = await answerOnce(handler, 'rooted', { roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }] })
    expect(textOf(rooted)).toBe('file:///a,file:///b')
    const consent = await answerOnce(handler, 'consent', { action: 'accept' })
    expect(JSON.parse(textOf(consent))).toEqual({ action: 'accept', value: true })
  })

  it('a question the client did not declare the capability for fails the task with -32021', async () => {
    const { handler } = fixture()
    const id = (await callTool(handler, 'sampled', { extensions: { [EXT]: {} } })).body.result.taskId as string
    const done = await poll(handler, id, terminal)
    expect(done.body.result).toMatchObject({ status: 'failed', error: { code: -32021 } })
  })

  it('more than 8 rounds of questions fail the task with -32603', async () => {
    const { handler } = fixture()
    const id = (await callTool(handler, 'endless')).body.result.taskId as string
    for (let round = 0; round < 12; round++) {
      const got = await poll(handler, id, (r) => terminal(r) || r.body.result?.status === 'input_required')
      if (terminal(got)) {
        expect(got.body.result).toMatchObject({ status: 'failed', error: { code: -32603 } })
        expect(round).toBe(8)
        return
      }
      const [key] = Object.keys(got.body.result.inputRequests)
      await tasks(handler, 'tasks/update', { taskId: id, inputResponses: { [key]: { roots: [] } } })
    }
    throw new Error('the task never failed')
  })

  it('ctx.sendProgress inside a task reports on the task; request middleware sees the creating request, not the run', async () => {
    const { handler, seen } = fixture()
    const id = (await callTool(handler, 'reporting')).body.result.taskId as string
    const done = await poll(handler, id, terminal)
    expect(done.body.result).toMatchObject({
      status: 'completed',
      statusMessage: 'five',
      _meta: { 'edge-mcp/progress': { progress: 5, total: 8 } },
    })
    expect(seen.filter((m) => m === 'tools/call')).toHaveLength(1)
  })

  it('a synchronous 2026 run that asks gets -32021 naming the tasks extension', async () => {
    const { handler } = fixture()
    const got = await callTool(handler, 'sync_asker', { roots: {} })
    expect(got.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [EXT]: {} } } },
    })
  })

  it('a synchronous 2026 run reports progress as notifications/progress on the request (a status alone is not sent)', async () => {
    const { mcp } = fixture()
    const sent: unknown[] = []
    const meta = { ...(req('x', {}, { roots: {} }).params as { _meta: object }) }._meta
    const handled = await mcp.server.handle(
      {
        kind: 'request',
        message: {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'sync_progress', arguments: {}, _meta: { ...meta, progressToken: 'p' } },
        },
      },
      {},
      { notify: (m) => sent.push(m) },
    )
    expect(handled.response).toMatchObject({ result: { content: [{ text: 'synced' }] } })
    expect(sent).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p', progress: 1, total: 2, message: 'half' },
      },
    ])
  })

  it('invocation middleware runs around the task creation: one that answers itself stops the task', async () => {
    const mcp = new McpServer({ name: 'guarded', version: '1' }, { tasks: inMemoryTasks() })
    let handled = 0
    mcp.tool('guarded', { task: 'required' }, () => {
      handled++
      return 'ran'
    })
    const calls: string[] = []
    mcp.use({
      invocation: (call, next) => {
        calls.push(call.name)
        return call.principal ? next() : { content: [{ type: 'text', text: 'sign in first' }], isError: true }
      },
    })
    const handler = createFetchHandler(mcp)
    const got = await callTool(handler, 'guarded')
    expect(got.body.result).toMatchObject({
      resultType: 'complete',
      isError: true,
      content: [{ text: 'sign in first' }],
    })
    expect(calls).toEqual(['guarded'])
    expect(handled).toBe(0)
    const signedIn = createFetchHandler(mcp, { authenticate: () => ({ clientId: 'ada' }) })
    const created = await callTool(signedIn, 'guarded')
    expect(created.body.result.resultType).toBe('task')
    const done = await poll(signedIn, created.body.result.taskId as string, terminal)
    expect(textOf(done)).toBe('ran')
    expect(handled).toBe(1)
  })

  it('an invocation middleware that copies what next() gives (adding _meta) still lets the task be created', async () => {
    const mcp = new McpServer({ name: 'stamped', version: '1' }, { tasks: inMemoryTasks() })
    mcp.tool('stamped', { task: 'required' }, () => 'ran')
    const seen: unknown[] = []
    mcp.use({
      invocation: async (_call, next) => {
        const out = (await next()) as Record<string, unknown>
        seen.push(out)
        return { ...out, _meta: { 'example.com/audited': true } }
      },
    })
    const handler = createFetchHandler(mcp)
    const created = await callTool(handler, 'stamped')
    expect(created.body.result.resultType).toBe('task')
    expect(seen).toMatchObject([{ content: [] }]) // the stand-in
    const done = await poll(handler, created.body.result.taskId as string, terminal)
    expect(textOf(done)).toBe('ran')
  })
})
