/**
 * The client reading a Streamable HTTP SSE stream: keep-alive comments, CR/LF/CRLF split anywhere, id-less
 * errors, bad JSON, large events in small chunks; events that carry no JSON (an `event: ping` with empty
 * data) are not messages, on a call's stream and on a `subscriptions/listen` stream.
 */
import { describe, expect, it } from 'vitest'
import {
  Client,
  HttpError,
  InvalidResultError,
  listen,
  StreamableHttpClientTransport,
} from '../../../src/client/index.ts'
import { requestId } from '../../helpers.ts'

/** A transport whose every POST is answered by the SSE text `sse(id)`, streamed. */
function sseTransport(sse: (id: number, method: string) => string) {
  const fetch = async (request: Request) => {
    const body = (await request.json()) as { id: number; method: string }
    return new Response(sse(body.id, body.method), { headers: { 'content-type': 'text/event-stream' } })
  }
  return new StreamableHttpClientTransport('http://x/mcp', { fetch })
}

// shared/cases/robustness.md R3
describe('SSE events that carry no JSON are not messages', () => {
  it('callTool returns "hi" after an `event: ping` with empty data', async () => {
    const transport = sseTransport(
      (id) =>
        'event: ping\ndata:\n\n' +
        `event: message\ndata: {"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}]}}\n\n`,
    )
    const client = new Client({ transport, versionNegotiation: 'modern' })
    const result = await client.callTool('t', {})
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }])
  })

  it('a subscriptions/listen stream stays open across pings and later notifications arrive', async () => {
    const transport = sseTransport((id) => {
      const meta = `"_meta":{"io.modelcontextprotocol/subscriptionId":${id}}`
      return (
        `data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},${meta}}}\n\n` +
        'event: ping\ndata:\n\n' +
        'event: ping\ndata:\n\n' +
        `data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{${meta}}}\n\n` +
        'event: ping\ndata:\n\n' +
        `data: {"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete"}}\n\n`
      )
    })
    const client = new Client({ transport, versionNegotiation: 'modern' })
    const sub = await listen(client, { toolsListChanged: true })
    const got: string[] = []
    for await (const n of sub) got.push(n.method)
    expect(got).toContain('notifications/tools/list_changed')
    await expect(sub.ended).resolves.toBe('closed')
  })
})

/** A transport whose server answers with these bytes as an SSE body, cut into `chunk`-byte pieces. */
function chunkedTransport(body: string | Uint8Array, chunk: number) {
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
  it('reads a 4 MB event sent in 256-byte chunks without hanging (the buffer is not rescanned per chunk)', async () => {
    // Not a speed target (bench/ measures speed): a hang guard with a 50x margin over this machine's time.
    const text = 'x'.repeat(4_000_000)
    const transport = chunkedTransport(
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
      const response = await chunkedTransport(body, chunk).send(
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: {} },
        { onNotification: (n) => seen.push(n) },
      )
      expect(response, `chunk ${chunk}`).toEqual({ jsonrpc: '2.0', id: 7, result: { ok: 'ü' } })
      expect(seen, `chunk ${chunk}`).toEqual([notification])
    }
  })
})
