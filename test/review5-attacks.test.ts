/**
 * Review 5: attack and seam tests for the newest features (listen, client cache, OAuth, allowedHosts,
 * the client's SSE reader). Each test failed before the fix next to it in src/.
 */
import { describe, expect, it } from 'vitest'
import { Client, HttpError, OAuthClientProvider, StreamableHttpClientTransport } from '../src/client/index.ts'
import { McpServer, createFetchHandler } from '../src/server/index.ts'
import { req, std } from './helpers.ts'

describe('Client.listen with the response cache on', () => {
  it('a notification right before the graceful close reaches the iterator and its callback before `ended` settles', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('a', {}, () => 'a')
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: createFetchHandler(mcp) }),
      cache: true,
    })
    const callbacks: string[] = []
    const sub = await client.listen({ toolsListChanged: true }, { onToolsListChanged: () => callbacks.push('tools') })
    mcp.tool('b', {}, () => 'b') // list_changed, then at once the closing result
    await new Promise((resolve) => setTimeout(resolve, 0))
    mcp.server.closeSubscriptions()
    const got: string[] = []
    for await (const n of sub) got.push(n.method)
    expect(got).toEqual(['notifications/tools/list_changed'])
    await expect(sub.ended).resolves.toBe('closed')
    expect(callbacks).toEqual(['tools'])
  })
})

/** A transport whose server answers with these bytes as an SSE body, cut into `chunk`-byte pieces. */
function sseTransport(body: string | Uint8Array, chunk: number) {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body
  return new StreamableHttpClientTransport('http://x/mcp', {
    fetch: async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (let i = 0; i < bytes.length; i += chunk) controller.enqueue(bytes.slice(i, i + chunk))
            controller.close()
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      ),
  })
}

describe('client SSE reader', () => {
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

describe('allowedHosts', () => {
  it('a host:port entry with the default port matches a URL whose port is implied (URL drops :80 / :443)', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    const handler = createFetchHandler(mcp, { allowedHosts: ['localhost:80', 'example.com:443'] })
    const at = (url: string) =>
      handler(new Request(url, { method: 'POST', headers: std('tools/list'), body: JSON.stringify(req('tools/list')) }))
    expect((await at('http://localhost/mcp')).status).toBe(200)
    expect((await at('http://localhost:80/mcp')).status).toBe(200)
    expect((await at('https://example.com/mcp')).status).toBe(200)
    // the port still counts: another port, or the other scheme's default, is refused
    expect((await at('http://localhost:8080/mcp')).status).toBe(403)
    expect((await at('http://example.com/mcp')).status).toBe(403)
    expect((await at('https://localhost/mcp')).status).toBe(403)
  })
})

describe('OAuth: a server that moved to another authorization server', () => {
  it('never sends the token from the old issuer again, even when the new authorization is abandoned', async () => {
    const MCP = 'https://mcp.test/mcp'
    const sent: (string | null)[] = []
    const json = (body: unknown) =>
      new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } })
    const fetch = async (request: Request): Promise<Response> => {
      const url = request.url
      if (url === MCP) {
        sent.push(request.headers.get('authorization'))
        return new Response('{}', {
          status: 401,
          headers: {
            'www-authenticate': 'Bearer resource_metadata="https://mcp.test/.well-known/oauth-protected-resource/mcp"',
          },
        })
      }
      if (url === 'https://mcp.test/.well-known/oauth-protected-resource/mcp')
        return json({ resource: MCP, authorization_servers: ['https://new-as.test'] })
      if (url === 'https://new-as.test/.well-known/oauth-authorization-server') {
        return json({
          issuer: 'https://new-as.test',
          authorization_endpoint: 'https://new-as.test/authorize',
          token_endpoint: 'https://new-as.test/token',
          code_challenge_methods_supported: ['S256'],
        })
      }
      return new Response('not found', { status: 404 })
    }
    const auth = new OAuthClientProvider({
      redirectUrl: 'http://127.0.0.1:3000/callback',
      fetch,
      preRegistered: [{ issuer: 'https://new-as.test', client_id: 'c' }],
      redirectToAuthorization: () => Promise.reject(new Error('the user closed the login window')),
    })
    await auth.storage.saveTokens(MCP, { issuer: 'https://old-as.test', access_token: 'old', token_type: 'Bearer' })
    const client = new Client({ transport: new StreamableHttpClientTransport(MCP, { fetch, auth }) })
    await expect(client.listTools()).rejects.toThrow('the user closed the login window')
    expect(sent).toEqual(['Bearer old']) // unavoidable: nothing said the issuer changed until this 401
    expect(await auth.storage.loadTokens(MCP)).toBeUndefined()
    const again = await client.listTools().catch((e: unknown) => e)
    expect(again).toBeInstanceOf(Error)
    expect(again).not.toBeInstanceOf(HttpError)
    expect(sent).toEqual(['Bearer old', null])
  })
})
