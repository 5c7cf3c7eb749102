/**
 * Review 5: attack and seam tests for the newest features (listen, client cache, OAuth, allowedHosts,
 * the client's SSE reader). Each test failed before the fix next to it in src/.
 */
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../src/client/index.ts'
import { McpServer, createFetchHandler } from '../src/server/index.ts'

describe('Client.listen with the response cache on', () => {
  it('a notification right before the graceful close reaches the iterator and its callback before `ended` settles', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('a', {}, () => 'a')
    const client = new Client({ transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: createFetchHandler(mcp) }), cache: true })
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
