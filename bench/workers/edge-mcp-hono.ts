/** The same one-tool Worker through the Hono adapter (`edge-mcp/hono`), for information. */
import { Hono } from 'hono'
import * as v from 'valibot'
import { createHonoHandler } from '../../src/hono/index.ts'
import { McpServer } from '../../src/server/index.ts'

const mcp = new McpServer({ name: 'bench', version: '1.0.0' })
mcp.tool('echo', { input: { text: v.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }))

const app = new Hono()
app.all('/mcp', createHonoHandler(mcp))

export default app
