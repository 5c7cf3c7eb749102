/**
 * Progress and log notifications on a per-request SSE stream; JSON when nothing was streamed; cancellation.
 * The client's SSE reader is tested in test/client/http/sse.test.ts.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../../src/client/index.ts'
import { McpServer, createFetchHandler } from '../../../src/server/index.ts'
import { env, post, req, std } from '../../helpers.ts'

function server() {
  const mcp = new McpServer({ name: 's', version: '1' })
  mcp.tool('count', { input: { to: v.number() } }, ({ to }, ctx) => {
    for (let i = 1; i <= to; i++) {
      ctx.sendProgress(i, to, `step ${i}`)
      ctx.log('info', { step: i }, 'counter')
      ctx.log('debug', 'noise')
    }
    return `counted to ${to}`
  })
  mcp.tool('quiet', {}, () => 'no notifications')
  return mcp
}

describe('notifications on a per-request stream', () => {
  it('streams progress, then the response, when the client sent a progressToken and accepts SSE', async () => {
    const handler = createFetchHandler(server())
    const body = {
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'count', arguments: { to: 2 }, _meta: { ...env(), progressToken: 'tok' } },
    }
    const res = await post(handler, body, std('tools/call', 'count'))
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    expect(res.headers.get('x-accel-buffering')).toBe('no')
    const events = res.text
      .split('\n\n')
      .filter(Boolean)
      .map((e) => JSON.parse(e.replace(/^event: message\ndata: /, '')) as { method?: string; params?: unknown })
    expect(events.map((e) => e.method ?? 'response')).toEqual([
      'notifications/progress',
      'notifications/progress',
      'response',
    ])
    expect(events[0].params).toEqual({ progressToken: 'tok', progress: 1, total: 2, message: 'step 1' })
    expect(events[2]).toMatchObject({ id: 9, result: { content: [{ text: 'counted to 2' }] } })
  })

  it('answers JSON when nothing was streamed, and when the client accepts only JSON', async () => {
    const handler = createFetchHandler(server())
    const quiet = await post(handler, req('tools/call', { name: 'quiet' }), std('tools/call', 'quiet'))
    expect(quiet.headers.get('content-type')).toBe('application/json')
    const noToken = await post(
      handler,
      req('tools/call', { name: 'count', arguments: { to: 2 } }),
      std('tools/call', 'count'),
    )
    expect(noToken.headers.get('content-type')).toBe('application/json') // no progressToken, no logLevel: nothing to send
    const jsonOnly = await post(
      handler,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'count', arguments: { to: 2 }, _meta: { ...env(), progressToken: 't' } },
      },
      { ...std('tools/call', 'count'), accept: 'application/json' },
    )
    expect(jsonOnly.headers.get('content-type')).toBe('application/json')
    expect(jsonOnly.body.result.content[0].text).toBe('counted to 2')
  })

  it('the Client reports progress and log messages (only at the requested level)', async () => {
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: createFetchHandler(server()) }),
    })
    const progress: unknown[] = []
    const logs: unknown[] = []
    const result = await client.callTool(
      'count',
      { to: 3 },
      {
        onProgress: (p) => progress.push(p),
        logLevel: 'info',
        onNotification: (n) => n.method === 'notifications/message' && logs.push(n.params),
      },
    )
    expect(result.content[0]).toMatchObject({ text: 'counted to 3' })
    expect(progress).toEqual([
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ])
    expect(logs).toEqual([1, 2, 3].map((step) => ({ level: 'info', logger: 'counter', data: { step } })))
  })

  it("closing the stream aborts the handler's signal", async () => {
    let aborted!: () => void
    const sawAbort = new Promise<void>((r) => (aborted = r))
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('slow', {}, async (_args, ctx) => {
      ctx.sendProgress(1)
      ctx.signal.addEventListener('abort', () => aborted())
      await new Promise((r) => setTimeout(r, 60_000).unref?.())
      return 'never'
    })
    const handler = createFetchHandler(mcp)
    const res = await handler(
      new Request('http://x/mcp', {
        method: 'POST',
        headers: std('tools/call', 'slow'),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'slow', _meta: { ...env(), progressToken: 1 } },
        }),
      }),
    )
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const reader = res.body!.getReader()
    const first = new TextDecoder().decode((await reader.read()).value)
    expect(first).toContain('notifications/progress')
    await reader.cancel()
    await sawAbort
  })

  it("aborting the HTTP request aborts the handler's signal, before and after it started", async () => {
    const seen: string[] = []
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('wait', {}, async (_args, ctx) => {
      if (ctx.signal.aborted) return `already aborted: ${String(ctx.signal.reason)}`
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
      seen.push(String(ctx.signal.reason))
      return 'aborted while running'
    })
    const handler = createFetchHandler(mcp)
    const call = (signal: AbortSignal) =>
      handler(
        new Request('http://x/mcp', {
          method: 'POST',
          headers: std('tools/call', 'wait'),
          signal,
          body: JSON.stringify(req('tools/call', { name: 'wait' })),
        }),
      )
    const running = new AbortController()
    const pending = call(running.signal)
    await new Promise((r) => setTimeout(r, 10))
    running.abort('client went away')
    expect(await (await pending).json()).toMatchObject({ result: { content: [{ text: 'aborted while running' }] } })
    expect(seen).toEqual(['client went away'])
    const early = new AbortController()
    early.abort('too late')
    expect(await (await call(early.signal)).json()).toMatchObject({
      result: { content: [{ text: 'already aborted: too late' }] },
    })
  })
})
