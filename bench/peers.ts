/**
 * The edge-first peers the in-process benchmarks drive beside edge-mcp and the official SDK, each with the
 * same `echo {text: string}` tool (input validated by valibot), each used the way its own README shows for a
 * fetch handler built once and called per request:
 * - tmcp 1.20.0: `McpServer` with `ValibotJsonSchemaAdapter` (`@tmcp/adapter-valibot` 0.1.6) behind
 *   `HttpTransport` (`@tmcp/transport-http` 0.9.0, `path: '/mcp'`, its default in-memory session managers),
 *   `transport.respond(request)`. It serves both eras on one endpoint: 2026-07-28 per request (no session),
 *   and the `initialize` era with an in-memory `Mcp-Session-Id` (it negotiates a 2025-11-25 client down to
 *   2025-06-18, its newest); its answers are request-scoped SSE on both.
 * - mcp-lite 0.10.0: `McpServer` (valibot input as a Standard Schema, `@valibot/to-json-schema` for
 *   `tools/list`) behind `StreamableHttpTransport` with no adapters, its stateless mode
 *   (`transport.bind(server)`). It serves the `initialize` era only (it negotiates a 2025-11-25 client down
 *   to 2025-03-26) and returns no session; a `tools/call` is answered over SSE when the client accepts it.
 */
import { ValibotJsonSchemaAdapter } from '@tmcp/adapter-valibot'
import { HttpTransport } from '@tmcp/transport-http'
import { toJsonSchema } from '@valibot/to-json-schema'
import { McpServer as LiteServer, StreamableHttpTransport } from 'mcp-lite'
import { McpServer as TmcpServer } from 'tmcp'
import * as v from 'valibot'
import type { Handler } from './servers.ts'

/** tmcp's fetch handler (both eras). A path other than `/mcp` is answered 404, as its README does. */
export function tmcpHandler(): Handler {
  const server = new TmcpServer(
    { name: 'bench', version: '1.0.0', description: 'bench' },
    { adapter: new ValibotJsonSchemaAdapter(), capabilities: { tools: {} } },
  )
  server.tool({ name: 'echo', description: 'Echo the text', schema: v.object({ text: v.string() }) }, ({ text }) => ({
    content: [{ type: 'text', text }],
  }))
  const transport = new HttpTransport(server, { path: '/mcp' })
  return async (request) => (await transport.respond(request)) ?? new Response('Not Found', { status: 404 })
}

/** mcp-lite's fetch handler (the `initialize` era only, stateless). */
export function mcpLiteHandler(): Handler {
  const server = new LiteServer({
    name: 'bench',
    version: '1.0.0',
    schemaAdapter: (schema) => toJsonSchema(schema as v.GenericSchema),
  }).tool('echo', {
    description: 'Echo the text',
    inputSchema: v.object({ text: v.string() }),
    handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
  })
  return new StreamableHttpTransport().bind(server)
}
