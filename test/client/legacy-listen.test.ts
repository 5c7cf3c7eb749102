/**
 * `Client.listen` with a 2025-era server:
 * against the official v1 SDK server (stateful, its standalone GET stream open), the filter is honoured
 * from the `initialize` capabilities, a resource subscription is `resources/subscribe`d and
 * `resources/unsubscribe`d on close, list changes and resource updates arrive as on a 2026 listen stream
 * (callbacks, iterator, `_meta` subscriptionId), and the subscription drops when the session ends. A server
 * without a GET stream (our own legacy lane: 405) acknowledges nothing.
 */
import { McpServer as V1Server } from '@modelcontextprotocol/sdk/server/mcp.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { Client, listen, StreamableHttpClientTransport, SubscriptionDroppedError } from '../../src/client/index.ts'
import type { JSONRPCNotification } from '../../src/index.ts'
import { createFetchHandler } from '../../src/server/index.ts'
import { createDemoServer } from '../../worker/server.ts'

const CONFIG = 'file:///config.json'

/** The v1 server: one tool, one resource, subscriptions kept in a set; `seen` records each request's method. */
async function v1Server() {
  const server = new V1Server({ name: 'v1-server', version: '1.0.0' })
  server.registerTool('echo', { inputSchema: {} }, () => ({ content: [{ type: 'text', text: 'echo' }] }))
  server.registerResource('config', CONFIG, {}, () => ({ contents: [{ uri: CONFIG, text: '{}' }] }))
  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } })
  const subscribed = new Set<string>()
  const seen: string[] = []
  server.server.setRequestHandler(SubscribeRequestSchema, (request) => (subscribed.add(request.params.uri), {}))
  server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => (subscribed.delete(request.params.uri), {}))
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() })
  await server.connect(transport)
  const fetch = async (request: Request) => {
    const body = request.method === 'POST' ? ((await request.clone().json()) as { method?: string }) : {}
    seen.push(`${request.method} ${body.method ?? ''}`.trim())
    return transport.handleRequest(request)
  }
  return { server, fetch, seen, subscribed }
}

/** Resolves at the next notification the iterator yields. */
function next(iterator: AsyncIterator<JSONRPCNotification>): Promise<JSONRPCNotification> {
  return iterator.next().then((r) => {
    if (r.done) throw new Error('the subscription ended')
    return r.value
  })
}

describe('Client.listen with a 2025-era server', () => {
  it('honours the filter from initialize, subscribes the resource, delivers list changes and updates, unsubscribes on close', async () => {
    const v1 = await v1Server()
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch: v1.fetch }),
    })
    const changed: string[] = []
    const sub = await listen(
      client,
      { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: [CONFIG] },
      { onToolsListChanged: () => changed.push('tools'), onResourceUpdated: (uri) => changed.push(uri) },
    )
    expect(client.era).toBe('legacy')
    // the v1 server declares tools.listChanged and resources.subscribe; it has no prompts
    expect(sub.acknowledged).toEqual({ toolsListChanged: true, resourceSubscriptions: [CONFIG] })
    expect([...v1.subscribed]).toEqual([CONFIG])

    const iterator = sub[Symbol.asyncIterator]()
    v1.server.registerTool('added', { inputSchema: {} }, () => ({ content: [] })) // sends tools/list_changed
    const first = await next(iterator)
    expect(first.method).toBe('notifications/tools/list_changed')
    expect(first.params?._meta).toMatchObject({ 'io.modelcontextprotocol/subscriptionId': sub.id })
    await v1.server.server.sendResourceUpdated({ uri: CONFIG })
    expect(await next(iterator)).toMatchObject({ method: 'notifications/resources/updated', params: { uri: CONFIG } })
    expect(changed).toEqual(['tools', CONFIG])
    expect((await client.listTools()).map((t) => t.name)).toEqual(['echo', 'added'])

    await sub.close()
    expect(await sub.ended).toBe('aborted')
    await expect.poll(() => [...v1.subscribed]).toEqual([])
    expect(v1.seen).toContain('POST resources/unsubscribe')
    await client.close()
  })

  it('the subscription drops (SubscriptionDroppedError) when the session ends', async () => {
    const v1 = await v1Server()
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch: v1.fetch }),
    })
    const sub = await listen(client, { toolsListChanged: true })
    await client.close()
    await expect(sub.ended).rejects.toBeInstanceOf(SubscriptionDroppedError)
  })

  it('a server with no standalone stream (GET 405: our own legacy lane) acknowledges nothing and subscribes nothing', async () => {
    const handler = createFetchHandler(createDemoServer())
    const methods: string[] = []
    const fetch = async (request: Request) => {
      const body = request.method === 'POST' ? ((await request.clone().json()) as { method?: string }) : {}
      methods.push(`${request.method} ${body.method ?? ''}`.trim())
      return handler(request)
    }
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'legacy',
    })
    const sub = await listen(client, { toolsListChanged: true, resourceSubscriptions: ['books://sci-fi/shortlist'] })
    expect(sub.acknowledged).toEqual({})
    expect(methods).toEqual(['POST initialize', 'POST notifications/initialized', 'GET'])
    await sub.close()
    expect(await sub.ended).toBe('aborted')
  })
})
