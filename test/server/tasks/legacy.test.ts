/**
 * What a 2025-era client gets from a task tool: the tool runs to completion on the request itself; a
 * question it asks inside (`ctx.task.ask`) becomes a server-to-client `elicitation/create` on the POST's
 * stream; progress goes out as `notifications/progress`. Driven by the official v1 client
 * (`@modelcontextprotocol/sdk`, `initialize`) over HTTP, in process.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { McpServer, createFetchHandler, elicit, formSchema, inMemoryTasks } from '../../../src/server/index.ts'

function server() {
  const mcp = new McpServer({ name: 'tasks', version: '1' }, { tasks: inMemoryTasks() })
  const form = formSchema({ count: v.number() })
  mcp.tool('stock_take', { task: 'required' }, async (_args, ctx) => {
    await ctx.task!.progress(1, 2, 'Shelf 1 of 2')
    const first = await ctx.task!.ask(elicit('How many returns?', form))
    const second = await ctx.task!.ask(elicit('And damaged?', form))
    await ctx.task!.progress(2, 2, 'Shelf 2 of 2')
    const n = (a: typeof first) => (a.action === 'accept' ? a.value.count : 'none')
    return `Counted: ${n(first)} returns, ${n(second)} damaged (task id ${String(ctx.task!.taskId)})`
  })
  mcp.tool('plain_task', { task: 'optional' }, () => 'no questions')
  return createFetchHandler(mcp)
}

async function connect(capabilities: Record<string, unknown>) {
  const handler = server()
  const client = new Client({ name: 'v1', version: '1.0.0' }, { capabilities })
  const transport = new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
    fetch: (url, init) => handler(new Request(url, init)),
  })
  await client.connect(transport)
  return client
}

describe('tasks: a 2025-era client (official v1 SDK)', () => {
  it('runs the task tool to completion on its request; each ask is an elicitation/create; progress is notified', async () => {
    const client = await connect({ elicitation: {} })
    const asked: string[] = []
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message)
      return { action: 'accept', content: { count: asked.length === 1 ? 3 : 1 } }
    })
    const progress: Array<{ progress: number; message: string | undefined }> = []
    const result = await client.callTool({ name: 'stock_take', arguments: {} }, undefined, {
      onprogress: (p) => progress.push({ progress: p.progress, message: p.message }),
    })
    expect(asked).toEqual(['How many returns?', 'And damaged?'])
    expect(result.content).toEqual([{ type: 'text', text: 'Counted: 3 returns, 1 damaged (task id undefined)' }])
    expect(result).not.toHaveProperty('taskId')
    expect(progress).toEqual([
      { progress: 1, message: 'Shelf 1 of 2' },
      { progress: 2, message: 'Shelf 2 of 2' },
    ])
    expect((await client.callTool({ name: 'plain_task', arguments: {} })).content).toEqual([
      { type: 'text', text: 'no questions' },
    ])
    await client.close()
  })

  it('tasks/get, tasks/update and tasks/cancel do not exist in a 2025-era session: -32601, as tasks/list', async () => {
    const client = await connect({})
    const { EmptyResultSchema } = await import('@modelcontextprotocol/sdk/types.js')
    for (const [method, params] of [
      ['tasks/get', { taskId: 'abc' }],
      ['tasks/update', { taskId: 'abc', inputResponses: {} }],
      ['tasks/cancel', { taskId: 'abc' }],
      ['tasks/list', {}],
    ] as const) {
      await expect(client.request({ method, params }, EmptyResultSchema)).rejects.toMatchObject({
        code: -32601,
        message: expect.stringContaining(`Method not found: ${method}`) as unknown,
      })
    }
    await client.close()
  })

  it('a client without the elicitation capability gets -32021 for the in-task question', async () => {
    const client = await connect({})
    await expect(client.callTool({ name: 'stock_take', arguments: {} })).rejects.toMatchObject({ code: -32021 })
    await client.close()
  })
})
