/**
 * The one-tool Worker `bench/bundle.ts` bundles for the official SDK 2.4.0: `createMcpHandler` with a
 * per-request server factory, the shape its documentation gives for Workers (`export default` a
 * `{ fetch }` object).
 */
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server'
import * as z from 'zod'

const Echo = z.object({ text: z.string() })
const handler = createMcpHandler(
  () => {
    const server = new McpServer({ name: 'bench', version: '1.0.0' })
    // eslint-disable-next-line @typescript-eslint/require-await -- written as the SDK's docs write a tool; its bundle is what is measured
    server.registerTool('echo', { inputSchema: Echo }, async ({ text }) => ({ content: [{ type: 'text', text }] }))
    return server
  },
  { legacy: 'reject' },
)

export default { fetch: (request: Request) => handler.fetch(request) }
