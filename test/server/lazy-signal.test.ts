/**
 * A handler's `ctx.signal` is made on first read (an AbortSignal costs microseconds on Node): these pin
 * that reading it late changes nothing a handler can see — it is aborted when the client went away or its
 * stream was cancelled before the read — that copies of the context share it, that it can be assigned, and
 * that a handler that never reads it leaves no listener on the request's signal.
 */
import { getEventListeners } from 'node:events'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { McpServer, Server, createFetchHandler, type RequestContext } from '../../src/server/index.ts'
import { env, std } from '../helpers.ts'

/** A tool that optionally notifies (opening the SSE stream), then waits for `go` before reading its signal. */
function lateReader() {
  let go!: () => void
  const gate = new Promise<void>((resolve) => (go = resolve))
  const seen: { aborted?: boolean; reason?: unknown; copyIsSame?: boolean } = {}
  let done!: () => void
  const finished = new Promise<void>((resolve) => (done = resolve))
  const mcp = new McpServer({ name: 'lazy', version: '1' })
  mcp.tool('late', { input: { notify: v.boolean() } }, async ({ notify }, ctx) => {
    if (notify) ctx.sendProgress(1, 2, 'working')
    await gate
    seen.aborted = ctx.signal.aborted
    seen.reason = ctx.signal.reason
    seen.copyIsSame = { ...ctx }.signal === ctx.signal
    done()
    return 'late'
  })
  mcp.tool('never', {}, () => 'never')
  return { handler: createFetchHandler(mcp), go, seen, finished }
}

const call = (name: string, args: Record<string, unknown>, signal?: AbortSignal) =>
  new Request('http://localhost/mcp', {
    method: 'POST',
    headers: std('tools/call', name),
    signal: signal ?? null,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: args, _meta: { ...env(), progressToken: 'p' } },
    }),
  })

describe('ctx.signal, made on first read', () => {
  it('read after the client went away: already aborted, with its reason', async () => {
    const { handler, go, seen, finished } = lateReader()
    const client = new AbortController()
    const request = call('late', { notify: false }, client.signal)
    const response = handler(request)
    client.abort(new Error('client gone'))
    go()
    await finished
    expect(seen.aborted).toBe(true)
    expect((seen.reason as Error).message).toBe('client gone')
    expect(seen.copyIsSame).toBe(true)
    await response.catch(() => {})
  })

  it('read after its SSE stream was cancelled: already aborted', async () => {
    const { handler, go, seen, finished } = lateReader()
    const response = await handler(call('late', { notify: true }))
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const reader = response.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('notifications/progress')
    await reader.cancel()
    go()
    await finished
    expect(seen.aborted).toBe(true)
    expect((seen.reason as Error).message).toBe('the client closed the stream')
  })

  it('read by a handler that runs to the end: not aborted; never read: no listener on the request signal', async () => {
    const { handler, go, seen, finished } = lateReader()
    go()
    const late = call('late', { notify: false })
    expect(await (await handler(late)).text()).toContain('"text":"late"')
    await finished
    expect(seen.aborted).toBe(false)
    expect(getEventListeners(late.signal, 'abort').length).toBe(1) // read: linked to the client's signal
    const never = call('never', {})
    expect(await (await handler(never)).text()).toContain('"text":"never"')
    expect(getEventListeners(never.signal, 'abort').length).toBe(0)
  })

  it('low level, without transport info: a live signal; assigning one replaces it', async () => {
    const server = new Server({ name: 'low', version: '1' })
    const seen: unknown[] = []
    server.setRequestHandler('tools/call', (_params, ctx: RequestContext) => {
      seen.push(ctx.signal instanceof AbortSignal, ctx.signal.aborted)
      const other = AbortSignal.abort('mine')
      ctx.signal = other
      seen.push(ctx.signal === other, { ...ctx }.signal === other)
      return { content: [] }
    })
    const handled = await server.handleRequest({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 't', _meta: env() },
    })
    expect(handled.response).toMatchObject({ result: { resultType: 'complete' } })
    expect(seen).toEqual([true, false, true, true])
  })
})
