/**
 * The one-tool Worker of `bench/workers/edge-mcp.ts` with its tool run as a task on Workers: the server
 * option `tasks: durableObjectTasks()` and the task Durable Object class of `edge-mcp/cloudflare`
 * (`taskObject`, exported as `McpTasks`, running tasks through the same server), to measure what tasks on
 * Workers add to the bundle.
 */
import * as v from 'valibot'
import { durableObjectTasks, taskObject } from '../../src/cloudflare/index.ts'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'

const mcp = new McpServer({ name: 'bench', version: '1.0.0' }, { tasks: durableObjectTasks() })
mcp.tool('echo', { input: { text: v.string() }, task: 'optional' }, ({ text }) => ({
  content: [{ type: 'text', text }],
}))

export default { fetch: createFetchHandler(mcp) }
export const McpTasks = taskObject(() => mcp)
