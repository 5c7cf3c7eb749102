/**
 * `edge-mcp/hono`: mount an MCP endpoint on a Hono app.
 * @module
 */
import type { Context, Handler } from 'hono'
import type { McpServer } from '../server/mcp-server.ts'
import type { Server } from '../server/server.ts'
import { createFetchHandler, type FetchHandlerOptions } from '../transport/http-server.ts'

/**
 * A Hono handler serving MCP Streamable HTTP (same behaviour as `createFetchHandler`). The Worker's
 * `env` and `executionCtx` are passed to MCP handlers.
 *
 * @example
 * const app = new Hono()
 * app.all('/mcp', mcpHandler(mcp))
 * export default app
 */
export function mcpHandler(server: Server | McpServer, options: FetchHandlerOptions = {}): Handler {
  const fetchHandler = createFetchHandler(server, options)
  return (c: Context) => {
    let executionCtx: unknown
    try {
      executionCtx = c.executionCtx
    } catch {
      executionCtx = undefined // not on Workers: Hono throws when there is no execution context
    }
    return fetchHandler(c.req.raw, c.env, executionCtx)
  }
}
