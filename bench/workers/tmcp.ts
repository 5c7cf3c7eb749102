/**
 * The one-tool Worker `bench/bundle.ts` bundles for tmcp 1.20.0: `McpServer` with the valibot adapter behind
 * `@tmcp/transport-http`'s `HttpTransport`, `transport.respond(request)` as its README's fetch examples
 * (Bun, Deno) call it, `export default` a `{ fetch }` object. tmcp and its transport import
 * `AsyncLocalStorage` from `node:async_hooks`, so the Worker needs the `nodejs_als` compatibility flag.
 */
import { ValibotJsonSchemaAdapter } from '@tmcp/adapter-valibot'
import { HttpTransport } from '@tmcp/transport-http'
import { McpServer } from 'tmcp'
import * as v from 'valibot'

const server = new McpServer(
  { name: 'bench', version: '1.0.0', description: 'bench' },
  { adapter: new ValibotJsonSchemaAdapter(), capabilities: { tools: {} } },
)
server.tool({ name: 'echo', description: 'Echo the text', schema: v.object({ text: v.string() }) }, ({ text }) => ({
  content: [{ type: 'text', text }],
}))
const transport = new HttpTransport(server, { path: '/mcp' })

export default {
  fetch: async (request: Request) => (await transport.respond(request)) ?? new Response('Not Found', { status: 404 }),
}
