/**
 * Our Client against our McpServer with `inMemoryTasks()`, over the Streamable HTTP handler: a task tool
 * that reports progress and asks a question completes through `callTool`; an abort cancels the task on
 * the server; a second Client resumes a task by the id the first saved before it crashed. The client's
 * waits are shortened (its `sleep` is injected), never asserted on.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { Client, NetworkError, StreamableHttpClientTransport, TaskEndedError } from '../../src/client/index.ts'
import type { DetailedTask } from '../../src/index.ts'
import { McpServer, createFetchHandler, elicit, formSchema, inMemoryTasks } from '../../src/server/index.ts'
import { json } from '../helpers.ts'

/** A gate a tool waits on, opened by the test. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void
  const wait = new Promise<void>((resolve) => (open = resolve))
  return { wait, open }
}

function bookshop() {
  const mcp = new McpServer({ name: 'bookshop', version: '1' }, { tasks: inMemoryTasks() })
  const started = gate()
  const signals: AbortSignal[] = []
  mcp.tool(
    'stock_take',
    { input: { shelves: v.optional(v.number()) }, task: 'required' },
    async ({ shelves = 3 }, ctx) => {
      let counted = 0
      for (let shelf = 1; shelf <= shelves; shelf++) {
        await ctx.task!.progress(shelf, shelves, `Shelf ${shelf} of ${shelves}`)
        counted += 10
        if (shelf === 2) {
          const answer = await ctx.task!.ask(
            elicit('Count the returns shelf too?', formSchema({ returns: v.boolean() })),
          )
          if (answer.action === 'accept' && answer.value.returns) counted += 5
        }
      }
      return `Counted ${counted} books`
    },
  )
  mcp.tool('forever', { task: 'required' }, async (_args, ctx) => {
    signals.push(ctx.signal)
    started.open()
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
    return 'never'
  })
  const handler = createFetchHandler(mcp)
  let down = false
  const seen: Array<{ method: string; name: string | null }> = []
  const fetch = async (request: Request) => {
    if (down) throw new TypeError('fetch failed')
    const body = await json<{ method: string }>(request.clone())
    seen.push({ method: body.method, name: request.headers.get('mcp-name') })
    return handler(request)
  }
  const client = (options: Partial<ConstructorParameters<typeof Client>[0]> = {}) =>
    new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch }),
      versionNegotiation: 'modern',
      sleep: (_ms, signal) => new Promise((resolve) => setTimeout(resolve, 5, signal)), // polls come quicker
      ...options,
    })
  return { client, started, signals, seen, crash: () => (down = true), recover: () => (down = false) }
}

const progressOf = (t: DetailedTask) => (t._meta?.['edge-mcp/progress'] as { progress: number } | undefined)?.progress

describe('Client ↔ McpServer with inMemoryTasks', () => {
  it('a task with a question completes through callTool: progress and the question reported, answered once', async () => {
    const shop = bookshop()
    const asked: string[] = []
    const client = shop.client({
      elicitation: (params) => (asked.push(params.message), { action: 'accept', content: { returns: true } }),
    })
    const seen: DetailedTask[] = []
    const result = await client.callTool('stock_take', { shelves: 3 }, { onTask: (t) => seen.push(t) })
    expect(result.content).toEqual([{ type: 'text', text: 'Counted 35 books' }])
    expect(asked).toEqual(['Count the returns shelf too?'])
    expect(seen[0].status).toBe('working')
    expect(seen.map((t) => t.status)).toContain('input_required')
    expect(seen.at(-1)!.status).toBe('completed')
    expect(
      seen
        .map(progressOf)
        .filter((p) => p !== undefined)
        .at(-1),
    ).toBe(3)
    // every tasks/* request was routed by its task id, which the server checks
    const taskRequests = shop.seen.filter((s) => s.method.startsWith('tasks/'))
    expect(taskRequests.map((s) => s.method)).toContain('tasks/update')
    expect(new Set(taskRequests.map((s) => s.name))).toEqual(new Set([seen[0].taskId]))
  })

  it('abort cancels the task on the server, and the call rejects with the abort reason', async () => {
    const shop = bookshop()
    const client = shop.client()
    const controller = new AbortController()
    let taskId: string | undefined
    const created = gate()
    const onTask = (t: DetailedTask) => ((taskId ??= t.taskId), created.open())
    const call = client.callTool('forever', {}, { signal: controller.signal, onTask })
    await Promise.all([shop.started.wait, created.wait]) // running on the server, and its id known here
    const reason = new Error('stop')
    controller.abort(reason)
    await expect(call).rejects.toBe(reason)
    expect(shop.signals[0].aborted).toBe(true)
    expect((await client.getTask(taskId!)).status).toBe('cancelled')
    // a resumed loop on a cancelled task ends at once
    await expect(client.resumeTask(taskId!)).rejects.toBeInstanceOf(TaskEndedError)
  })

  it('a second Client resumes a task by the id the first saved before it crashed', async () => {
    const shop = bookshop()
    let saved: string | undefined
    const first = shop.client({ elicitation: () => ({ action: 'accept', content: { returns: false } }) })
    const crashed = first
      .callTool('stock_take', { shelves: 3 }, { onTask: (t) => ((saved ??= t.taskId), shop.crash()) })
      .catch((e: unknown) => e)
    expect(await crashed).toBeInstanceOf(NetworkError)
    expect(saved).toBeDefined()

    shop.recover()
    const asked: string[] = []
    const second = shop.client({
      elicitation: (params, ctx) => (
        asked.push(`${params.message} (${ctx.target})`),
        { action: 'accept', content: { returns: true } }
      ),
    })
    const result = await second.resumeTask(saved!)
    expect(result.content).toEqual([{ type: 'text', text: 'Counted 35 books' }])
    expect(asked).toEqual([`Count the returns shelf too? (${saved})`])
  })
})
