/**
 * The official v1 client (`@modelcontextprotocol/sdk` 1.x) whose 2025-era request stream is cut mid-question
 * (the instance serving it died, the connection broke): it resumes with GET + Last-Event-ID (the priming
 * event's id), and its pending call rejects at once with the server's -32603 "stream was cut" error instead
 * of waiting for its request timeout.
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema, McpError as V1McpError } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { makeServer } from '../fixtures/asker.ts'

describe('the v1 client resumes a cut 2025-era stream', () => {
  it('its callTool rejects promptly with the cut-stream error, not at its timeout', async () => {
    const { handler } = makeServer()
    const seen: string[] = []
    // between the client and the server: cuts a tools/call's stream once the question has gone out
    const fetchThrough = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init)
      seen.push(`${request.method}${request.headers.get('last-event-id') === null ? '' : ' last-event-id'}`)
      const body = request.method === 'POST' ? await request.clone().text() : ''
      const response = await handler(request)
      if (!body.includes('"tools/call"') || !response.body) return response
      const reader = response.body.getReader()
      let text = ''
      const cut = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (text.includes('elicitation/create')) {
            // the pull after the question was read (an error discards what is still queued)
            await reader.cancel()
            return controller.error(new TypeError('terminated'))
          }
          const { value, done } = await reader.read()
          if (done) return controller.close()
          controller.enqueue(value)
          text += new TextDecoder().decode(value)
        },
      })
      return new Response(cut, { status: response.status, headers: response.headers })
    }
    const client = new V1Client({ name: 'v1', version: '1' }, { capabilities: { elicitation: {} } })
    const errors: string[] = []
    client.onerror = (error) => errors.push(String(error))
    let asked = false
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked = true
      return new Promise<never>(() => {}) // the user is still thinking when the stream is cut
    })
    await client.connect(new V1Transport(new URL('http://localhost/mcp'), { fetch: fetchThrough }))
    const started = Date.now()
    const outcome = await client.callTool({ name: 'greet', arguments: {} }, undefined, { timeout: 30_000 }).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(asked).toBe(true)
    expect(outcome).toBeInstanceOf(V1McpError)
    expect((outcome as V1McpError).code).toBe(-32603)
    expect(String(outcome)).toMatch(/stream was cut before its response.*check, then call again/)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(errors.join('\n')).toMatch(/SSE stream disconnected/)
    expect(seen).toContain('GET last-event-id')
    await client.close()
  })
})
