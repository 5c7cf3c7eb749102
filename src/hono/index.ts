/**
 * `edge-mcp/hono`: mount an MCP endpoint on a Hono app.
 * @module
 */
import type { Context, Handler } from 'hono'
import type { McpServer } from '../server/mcp-server.ts'
import type { Server } from '../server/server.ts'
import { createFetchHandler, type FetchHandlerOptions } from '../server/http/handler.ts'

/**
 * A Hono handler serving MCP Streamable HTTP (same behaviour as `createFetchHandler`). The Worker's
 * `env` and `executionCtx` are passed to MCP handlers.
 *
 * A middleware before it may read the body (`await c.req.json()`, `c.req.text()`, …): Hono keeps what it
 * read, and the request is answered from that copy, its bytes counted against `maxBodyBytes` as usual
 * (413 over the cap; a declared `Content-Length` over it is refused before anything is read). A middleware
 * that reads the raw `Request` (`c.req.raw.json()`) leaves no copy: that request gets 500 `-32603`, and the
 * server's logger names the cause.
 *
 * @example
 * const app = new Hono()
 * app.all('/mcp', createHonoHandler(mcp))
 * export default app
 */
export function createHonoHandler(server: Server | McpServer, options: FetchHandlerOptions = {}): Handler {
  const fetchHandler = createFetchHandler(server, options)
  return async (c: Context) => {
    let executionCtx: unknown
    try {
      executionCtx = c.executionCtx
    } catch {
      executionCtx = undefined // not on Workers: Hono throws when there is no execution context
    }
    return fetchHandler(await unreadRequest(c), c.env, executionCtx)
  }
}

/**
 * The request with a readable body: `c.req.raw` itself, or, when a middleware has already read it, a
 * copy whose body is what Hono cached (its `bodyCache`: the JSON is serialised again, other forms as read).
 */
async function unreadRequest(c: Context): Promise<Request> {
  const raw = c.req.raw
  if (!raw.bodyUsed) return raw
  let body: ArrayBuffer
  try {
    body = await c.req.arrayBuffer() // from Hono's cache of whatever form was read
  } catch {
    return raw // nothing cached (read outside Hono): the fetch handler answers 500 and logs the cause
  }
  return new Request(raw, { body })
}
