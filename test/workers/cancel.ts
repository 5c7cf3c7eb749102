/**
 * A Worker for the cancellation tests: `wait` streams one progress notification, then waits until its
 * request's AbortSignal fires (the client closed the stream) and counts it; `quiet` writes nothing and
 * waits the same way, or `ms` ms (default 20 s); `aborted` reports the counts as `wait aborted,quiet
 * started,quiet aborted,quiet completed`.
 * Runs under the root wrangler.toml, whose `enable_request_signal` flag makes workerd abort `request.signal`.
 */
import { createFetchHandler } from '../../src/server/http/handler.ts'
import * as v from 'valibot'
import { McpServer } from '../../src/server/index.ts'

let abortedCount = 0
let quietStarted = 0
let quietAborted = 0
let quietCompleted = 0
const mcp = new McpServer({ name: 'cancel-fixture', version: '1' })
mcp.tool('wait', {}, async (_args, ctx) => {
  ctx.sendProgress(1)
  // Counted in the listener itself: after a disconnect workerd may never resume the handler.
  await new Promise<void>((resolve) =>
    ctx.signal.addEventListener('abort', () => (abortedCount++, resolve()), { once: true }),
  )
  return 'aborted'
})
mcp.tool('quiet', { input: { ms: v.optional(v.number(), 20_000) } }, async ({ ms }, ctx) => {
  quietStarted++
  await new Promise<void>((resolve) => {
    ctx.signal.addEventListener('abort', () => (quietAborted++, resolve()), { once: true })
    setTimeout(() => (ctx.signal.aborted || quietCompleted++, resolve()), ms)
  })
  return ctx.signal.aborted ? 'aborted' : 'done'
})
mcp.tool('aborted', {}, () => `${abortedCount},${quietStarted},${quietAborted},${quietCompleted}`)

// workerd notices a closed connection at the next write, so keep-alives bound how soon the signal fires.
export default { fetch: createFetchHandler(mcp, { keepAliveMs: 200 }) }
