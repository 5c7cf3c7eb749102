/** The one-tool Worker `bench/bundle.ts` bundles for edge-mcp (`createFetchHandler`, no Node.js compat). */
import * as v from 'valibot'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'

const mcp = new McpServer({ name: 'bench', version: '1.0.0' })
mcp.tool('echo', { input: { text: v.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }))

export default { fetch: createFetchHandler(mcp) }
