/**
 * The one-tool Worker of `bench/workers/edge-mcp.ts` traced with `serverTracing()` of
 * `edge-mcp/opentelemetry` (`@opentelemetry/api` only; the app's SDK and exporter are its own), to measure
 * what tracing adds.
 */
import * as v from 'valibot'
import { serverTracing } from '../../src/opentelemetry/index.ts'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'

const mcp = new McpServer({ name: 'bench', version: '1.0.0' })
mcp.tool('echo', { input: { text: v.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }))
mcp.use(serverTracing())

export default { fetch: createFetchHandler(mcp) }
