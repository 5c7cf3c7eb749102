/**
 * The one-tool Worker serving the 2026-07-28 wire alone (`legacy: 'reject'`: 2025-era requests are refused), for
 * information: the size the default Worker's 2025-era lane (initialize, sessions, questions) adds.
 */
import * as v from 'valibot'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'

const mcp = new McpServer({ name: 'bench', version: '1.0.0' }, { legacy: 'reject' })
mcp.tool('echo', { input: { text: v.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }))

export default { fetch: createFetchHandler(mcp) }
