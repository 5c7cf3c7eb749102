/**
 * The client reading a Streamable HTTP SSE stream: events that carry no JSON (an `event: ping` with empty
 * data) are not messages, on a call's stream and on a `subscriptions/listen` stream.
 */
import { describe, expect, it } from 'vitest'
import { Client, listen, StreamableHttpClientTransport } from '../../../src/client/index.ts'

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
