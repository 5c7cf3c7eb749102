/**
 * The demo's `stock_take` (worker/server.ts), served with `inMemoryTasks()` to our Client over the Streamable
 * HTTP handler: it runs as a task, reports progress shelf by shelf, asks once midway whether to count the
 * returns shelf, and stops when the call is aborted (tasks/cancel). Without `tasks` the demo has no such tool.
 */
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import type { DetailedTask } from '../../src/index.ts'
import { createFetchHandler, inMemoryTasks } from '../../src/server/index.ts'
import { createDemoServer } from '../../worker/server.ts'

const QUESTION = 'Halfway there. Count the returns shelf too?'

function shop(returns: boolean | 'decline') {
  const handler = createFetchHandler(createDemoServer({ tasks: inMemoryTasks({ pollIntervalMs: 100 }) }))
  const asked: string[] = []
  const client = new Client({
    transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: handler }),
    versionNegotiation: 'modern',
    elicitation: (params) => {
      asked.push(params.message)
      return returns === 'decline' ? { action: 'decline' } : { action: 'accept', content: { returns } }
    },
  })
  return { client, asked }
}

const progressOf = (t: DetailedTask) =>
  t._meta?.['edge-mcp/progress'] as { progress: number; total?: number } | undefined

describe('the demo stock_take task', () => {
  it('counts every shelf with progress, asks once midway, and counts the returns shelf when told to', async () => {
    const { client, asked } = shop(true)
    const seen: DetailedTask[] = []
    const result = await client.callTool('stock_take', { seconds: 0.4 }, { onTask: (t) => seen.push(t) })
    expect(result.content).toEqual([
      { type: 'text', text: 'Stock-take complete: 111 books on 8 shelves (the returns shelf held 5).' },
    ])
    expect(asked).toEqual([QUESTION])
    expect(seen.map((t) => t.status)).toContain('input_required')
    expect(seen.at(-1)!.status).toBe('completed')
    expect(progressOf(seen.at(-1)!)).toEqual({ progress: 8, total: 8 })
    expect(seen.some((t) => /^Shelf \d of 8: /.test(t.statusMessage ?? ''))).toBe(true)
  })

  it('skips the returns shelf when the answer is no or the question is declined', async () => {
    for (const answer of [false, 'decline'] as const) {
      const { client, asked } = shop(answer)
      const result = await client.callTool('stock_take', { seconds: 0.2 })
      expect(result.content).toEqual([
        { type: 'text', text: 'Stock-take complete: 106 books on 8 shelves (the returns shelf was not counted).' },
      ])
      expect(asked).toEqual([QUESTION])
    }
  })

  it('an aborted call cancels the task: the stock-take stops', async () => {
    const { client } = shop(true)
    const controller = new AbortController()
    let taskId: string | undefined
    const call = client.callTool(
      'stock_take',
      { seconds: 30 },
      { signal: controller.signal, onTask: (t) => ((taskId ??= t.taskId), controller.abort(new Error('stop'))) },
    )
    await expect(call).rejects.toThrow('stop')
    expect((await client.getTask(taskId!)).status).toBe('cancelled')
  })

  it('is only there when the demo server has tasks', async () => {
    const names = (
      await new Client({
        transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: createFetchHandler(createDemoServer()) }),
      }).listTools()
    ).map((t) => t.name)
    expect(names).not.toContain('stock_take')
    expect((await shop(true).client.listTools()).map((t) => t.name).at(-1)).toBe('stock_take')
  })
})
