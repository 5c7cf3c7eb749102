/**
 * The one-tool Worker of `bench/workers/edge-mcp.ts` plus one tool that runs as a task (the Tasks extension:
 * `tasks/get`, `tasks/update`, `tasks/cancel`, questions and progress inside a task), to measure what tasks
 * add. The store is `inMemoryTasks()`: the server side of tasks is the same code with a Durable Object store,
 * which adds its own class on top (see the `edge-mcp/cloudflare` row).
 */
import * as v from 'valibot'
import { McpServer, createFetchHandler, elicit, formSchema, inMemoryTasks } from '../../src/server/index.ts'

const confirm = formSchema({ go: v.boolean() })
const mcp = new McpServer({ name: 'bench', version: '1.0.0' }, { tasks: inMemoryTasks() })
mcp.tool('echo', { input: { text: v.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }))
mcp.tool('count', { input: { shelves: v.number() }, task: 'required' }, async ({ shelves }, ctx) => {
  for (let shelf = 1; shelf <= shelves; shelf++) await ctx.task!.progress(shelf, shelves)
  const answer = await ctx.task!.ask(elicit('Count the returns shelf too?', confirm))
  return `Counted ${shelves} shelves${answer.action === 'accept' && answer.value.go ? ' and the returns' : ''}`
})

export default { fetch: createFetchHandler(mcp) }
