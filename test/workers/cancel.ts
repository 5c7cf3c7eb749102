/**
 * A Worker for the cancellation test: `wait` streams one progress notification, then waits until its
 * request's AbortSignal fires (the client closed the stream) and counts it; `aborted` reports the count.
 * Runs under the root wrangler.toml, whose `enable_request_signal` flag makes workerd abort `request.signal`.
 */
import { createFetchHandler } from '../../src/transport/http-server.ts'
import { McpServer } from '../../src/server/index.ts'

let abortedCount = 0
const mcp = new McpServer({ name: 'cancel-fixture', version: '1' })
mcp.tool('wait', {}, async (_args, ctx) => {
  ctx.sendProgress(1)
  // Counted in the listener itself: after a disconnect workerd may never resume the handler.
  await new Promise<void>((resolve) =>
    ctx.signal.addEventListener('abort', () => (abortedCount++, resolve()), { once: true }),
  )
  return 'aborted'
})
mcp.tool('aborted', {}, () => String(abortedCount))

// workerd notices a closed connection at the next write, so keep-alives bound how soon the signal fires.
export default { fetch: createFetchHandler(mcp, { keepAliveMs: 250 }) }
