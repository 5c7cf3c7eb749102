/** The one-tool Worker of `bench/bundle.ts` with its input schema in zod (an entry of zod 4's). */
import { z } from 'zod'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'

const mcp = new McpServer({ name: 'bench', version: '1.0.0' })
mcp.tool('echo', { input: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }))

export default { fetch: createFetchHandler(mcp) }
