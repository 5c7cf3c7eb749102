/** The one-tool Worker of `bench/bundle.ts` with its input schema in arktype. */
import { type } from 'arktype'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'

const mcp = new McpServer({ name: 'bench', version: '1.0.0' })
mcp.tool('echo', { input: type({ text: 'string' }) }, ({ text }) => ({ content: [{ type: 'text', text }] }))

export default { fetch: createFetchHandler(mcp) }
