/**
 * Progress and log notifications on a per-request SSE stream; JSON when nothing was streamed; cancellation;
 * the client's SSE reader (comments, CR/LF/CRLF split anywhere, id-less errors, large events in small chunks).
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { Client, HttpError, InvalidResultError, StreamableHttpClientTransport } from '../../../src/client/index.ts'
import { McpServer, createFetchHandler } from '../../../src/server/index.ts'
import { env, post, req, requestId, std } from '../../helpers.ts'

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

/** A transport whose server answers with these bytes as an SSE body, cut into `chunk`-byte pieces. */
function sseTransport(body: string | Uint8Array, chunk: number) {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body
  return new StreamableHttpClientTransport('http://x/mcp', {
    fetch: () =>
      Promise.resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              for (let i = 0; i < bytes.length; i += chunk) controller.enqueue(bytes.slice(i, i + chunk))
              controller.close()
            },
          }),
          { headers: { 'content-type': 'text/event-stream' } },
        ),
      ),
  })
}

describe('client SSE reader: events and errors', () => {
  const sseClient = (chunks: string[]) =>
    new Client({
      versionNegotiation: 'modern', // a scripted 2026 stream: no era probe
      transport: new StreamableHttpClientTransport('http://x/mcp', {
        fetch: async (r) => {
          const id = await requestId(r)
          const enc = new TextEncoder()
          const stream = new ReadableStream<Uint8Array>({
            start(c) {
              for (const chunk of chunks) c.enqueue(enc.encode(chunk.replaceAll('ID', String(id))))
              c.close()
            },
          })
          return new Response(stream, { headers: { 'content-type': 'text/event-stream' } })
        },
      }),
    })
  it('handles keep-alive comments, notifications and a CRLF split across chunks', async () => {
    const notes: string[] = []
    const client = sseClient([
      ': keep-alive\r',
      '\n\r\n',
      'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\r',
      '\n\r',
      '\n',
      'data: {"jsonrpc":"2.0","id":ID,',
      '\r\ndata: "result":{"resultType":"complete","content":[]}}\r\n\r\n',
    ])
    const result = await client.callTool('t', {}, { onNotification: (n) => notes.push(n.method) })
    expect(result.content).toEqual([])
    expect(notes).toEqual(['notifications/progress'])
  })
  it('surfaces an error event without an id, and bad JSON as InvalidResultError', async () => {
    const idless = sseClient(['data: {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}\n\n'])
    await expect(idless.callTool('t')).rejects.toMatchObject({ code: -32603 })
    const bad = sseClient(['data: {nope\n\n'])
    await expect(bad.callTool('t')).rejects.toBeInstanceOf(InvalidResultError)
    const ended = sseClient([': only a comment\n\n'])
    await expect(ended.callTool('t')).rejects.toBeInstanceOf(HttpError)
  })
})

describe('client SSE reader: chunking', () => {
  it('reads a 4 MB event sent in 256-byte chunks without hanging (it rescanned the whole buffer per chunk: minutes, now well under a second)', async () => {
    // Not a speed target (bench/ measures speed): a hang guard with a 50x margin over this machine's time.
    const text = 'x'.repeat(4_000_000)
    const transport = sseTransport(
      `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text } })}\n\n`,
      256,
    )
    const started = performance.now()
    const response = (await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} })) as {
      result: { text: string }
    }
    expect(response.result.text.length).toBe(text.length)
    expect(performance.now() - started).toBeLessThan(15_000)
  })

  it('splits lines on CRLF, CR and LF wherever the chunks cut them, multi-byte characters included', async () => {
    const notification = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'é€😀' } }
    const body = `: keep-alive\r\n\r\ndata: ${JSON.stringify(notification)}\r\rdata: {"jsonrpc":"2.0",\ndata: "id":7,"result":{"ok":"ü"}}\r\n\r\n`
    for (const chunk of [1, 2, 3, 7, 1000]) {
      const seen: unknown[] = []
      const response = await sseTransport(body, chunk).send(
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: {} },
        { onNotification: (n) => seen.push(n) },
      )
      expect(response, `chunk ${chunk}`).toEqual({ jsonrpc: '2.0', id: 7, result: { ok: 'ü' } })
      expect(seen, `chunk ${chunk}`).toEqual([notification])
    }
  })
})
