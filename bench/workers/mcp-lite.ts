/**
 * The one-tool Worker `bench/bundle.ts` bundles for mcp-lite 0.10.0: `McpServer` (valibot input as a
 * Standard Schema, `@valibot/to-json-schema` for `tools/list`) behind `StreamableHttpTransport` with no
 * adapters (its stateless mode), `transport.bind(server)` as the fetch handler. Its README's Workers
 * starter builds the server inside `fetch`; here it is built once at module scope (its Hono and Next.js
 * examples), like the other Workers, so the cold import pays for the construction on every side.
 */
import { toJsonSchema } from '@valibot/to-json-schema'
import { McpServer, StreamableHttpTransport } from 'mcp-lite'
import * as v from 'valibot'

const server = new McpServer({
  name: 'bench',
  version: '1.0.0',
  schemaAdapter: (schema) => toJsonSchema(schema as v.GenericSchema),
}).tool('echo', {
  description: 'Echo the text',
  inputSchema: v.object({ text: v.string() }),
  handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
})

export default { fetch: new StreamableHttpTransport().bind(server) }
