/**
 * The one-tool Worker of `bench/workers/edge-mcp.ts` with a request middleware (timing into `_meta`) and a
 * structured logger (`record`), to measure what using them adds (their code is in the default Worker too).
 */
import * as v from 'valibot'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'

const mcp = new McpServer(
  { name: 'bench', version: '1.0.0' },
  { logger: { warn: console.warn, error: console.error, record: (r) => console.log(JSON.stringify(r)) } },
)
mcp.tool('echo', { input: { text: v.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }))
mcp.use(async (call, next) => {
  const started = Date.now()
  const out = await next()
  call.meta['example.com/ms'] = Date.now() - started
  return out
})

export default { fetch: createFetchHandler(mcp) }
