/**
 * Client.listen (src/client/listen.ts) against the server's `subscriptions/listen`: what it subscribes to,
 * the notifications it hands over, its acknowledgement, ending and dropping, and with the response cache on.
 * The server's side is in test/server/listen.test.ts.
 */
import * as v from 'valibot'
import { describe, expect, it, vi } from 'vitest'
import { schemaErrors as validate } from '../spec-schema.ts'
import {
  Client,
  InvalidResultError,
  listen,
  RequestTimeoutError,
  StreamableHttpClientTransport,
  SubscriptionDroppedError,
  type ClientTransport,
} from '../../src/client/index.ts'
import { McpError } from '../../src/index.ts'
import { createFetchHandler, InMemoryNotificationBus, McpServer, Server } from '../../src/server/index.ts'
import { json, type WireRequest } from '../helpers.ts'
import { library } from '../fixtures/library.ts'

const SUB = 'io.modelcontextprotocol/subscriptionId'

describe('Client.listen', () => {
  function connect(
    mcp: McpServer | Server,
    fetch: (r: Request) => Promise<Response> = createFetchHandler(mcp),
    options: { requestTimeoutMs?: number } = {},
  ) {
    const seen: WireRequest[] = []
    const transport = new StreamableHttpClientTransport('http://x/mcp', {
      fetch: async (r) => {
        seen.push(await json<WireRequest>(r.clone()))
        return fetch(r)
      },
    })
    return { client: new Client({ transport, ...options }), seen }
  }

  it('waits for the acknowledgement, then delivers callbacks and an async iterable; abort ends it and unsubscribes', async () => {
    const bus = new InMemoryNotificationBus()
    const mcp = library(bus)
    const { client, seen } = connect(mcp)
    const controller = new AbortController()
    const events: string[] = []
    const sub = await listen(
      client,
      { toolsListChanged: true, resourceSubscriptions: ['file:///config.json'] },
      {
        signal: controller.signal,
        onToolsListChanged: () => events.push('tools'),
        onResourceUpdated: (uri) => events.push(`updated ${uri}`),
        onPromptsListChanged: () => events.push('prompts (never requested)'),
      },
    )
    expect(sub.acknowledged).toEqual({ toolsListChanged: true, resourceSubscriptions: ['file:///config.json'] })
    expect(seen.map((r) => r.method)).toEqual(['server/discover', 'subscriptions/listen']) // the era probe first
    expect(validate('SubscriptionsListenRequest', seen[1])).toEqual([])
    expect(seen[1].id).toBe(sub.id)
    mcp.tool('b', {}, () => 'b')
    mcp.prompt('q', {}, () => 'q')
    await mcp.resourceUpdated('file:///config.json')
    const got: string[] = []
    for await (const n of sub) {
      got.push(n.method)
      expect((n.params?._meta as Record<string, unknown>)[SUB]).toBe(sub.id)
      if (got.length === 2) controller.abort()
    }
    expect(got).toEqual(['notifications/tools/list_changed', 'notifications/resources/updated'])
    expect(events).toEqual(['tools', 'updated file:///config.json'])
    await expect(sub.ended).resolves.toBe('aborted')
    await vi.waitFor(() => expect(bus.listenerCount).toBe(0))
  })

  it('leaving the loop early closes the subscription; the server closing it ends the loop', async () => {
    const bus = new InMemoryNotificationBus()
    const mcp = library(bus)
    const { client } = connect(mcp)
    const first = await listen(client, { toolsListChanged: true })
    mcp.tool('b', {}, () => 'b')
    for await (const n of first) {
      expect(n.method).toBe('notifications/tools/list_changed')
      break
    }
    await expect(first.ended).resolves.toBe('aborted')
    await vi.waitFor(() => expect(bus.listenerCount).toBe(0))

    const second = await listen(client, { toolsListChanged: true })
    const drained: unknown[] = []
    const loop = (async () => {
      for await (const n of second) drained.push(n)
    })()
    mcp.server.closeSubscriptions()
    await loop
    expect(drained).toEqual([])
    await expect(second.ended).resolves.toBe('closed')
    expect(bus.listenerCount).toBe(0)
  })

  it('server errors are McpError; local failures are distinct classes', async () => {
    const mcp = library()
    const { client } = connect(mcp)
    const refused = await listen(client, { resourceSubscriptions: [42 as unknown as string] }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(McpError)
    expect(refused).toMatchObject({
      code: -32602,
      message: expect.stringContaining('notifications.resourceSubscriptions.0') as unknown,
    })
    const lowLevel = new Server({ name: 'low', version: '1' })
    lowLevel.setRequestHandler('subscriptions/listen', () => {
      throw new McpError(-32601, 'Method not found: subscriptions/listen')
    })
    await expect(listen(connect(lowLevel).client, {})).rejects.toMatchObject({ name: 'McpError', code: -32601 })

    // no acknowledgement in time
    const silent: ClientTransport = { send: () => new Promise(() => {}) }
    await expect(
      listen(new Client({ transport: silent, requestTimeoutMs: 20, versionNegotiation: 'modern' }), {
        toolsListChanged: true,
      }),
    ).rejects.toBeInstanceOf(RequestTimeoutError)
    // something other than the acknowledgement first
    const rude: ClientTransport = {
      send: (message, options) => {
        options?.onNotification?.({
          jsonrpc: '2.0',
          method: 'notifications/tools/list_changed',
          params: { _meta: { [SUB]: (message as { id: number }).id } },
        })
        return new Promise(() => {})
      },
    }
    await expect(
      listen(new Client({ transport: rude, versionNegotiation: 'modern' }), { toolsListChanged: true }),
    ).rejects.toBeInstanceOf(InvalidResultError)
    // an already-aborted signal sends nothing
    const controller = new AbortController()
    controller.abort()
    await expect(listen(client, {}, { signal: controller.signal })).rejects.toThrow()
  })

  it('a stream that breaks after the acknowledgement is a SubscriptionDroppedError', async () => {
    const bus = new InMemoryNotificationBus()
    const mcp = library(bus)
    const handler = createFetchHandler(mcp)
    // a proxy that forwards the first chunk (the acknowledgement), then cuts the stream
    const cutting = async (r: Request) => {
      const res = await handler(r)
      const reader = res.body!.getReader()
      const first = await reader.read()
      await reader.cancel()
      return new Response(new ReadableStream({ start: (c) => (c.enqueue(first.value!), c.close()) }), {
        headers: res.headers,
      })
    }
    const sub = await listen(connect(mcp, cutting).client, { toolsListChanged: true })
    expect(sub.acknowledged).toEqual({ toolsListChanged: true })
    await expect(sub.ended).rejects.toBeInstanceOf(SubscriptionDroppedError)
    const iterate = async () => {
      for await (const n of sub) void n
    }
    await expect(iterate()).rejects.toMatchObject({ name: 'SubscriptionDroppedError', subscriptionId: sub.id })
    await vi.waitFor(() => expect(bus.listenerCount).toBe(0))
  })

  it('the acknowledgement parses with the wire schema the client uses', async () => {
    const { client } = connect(library())
    const sub = await listen(client, { promptsListChanged: true, resourcesListChanged: true })
    expect(
      v.is(v.object({ promptsListChanged: v.literal(true), resourcesListChanged: v.literal(true) }), sub.acknowledged),
    ).toBe(true)
    await sub.close()
    await expect(sub.ended).resolves.toBe('aborted')
  })
})

describe('Client.listen with the response cache on', () => {
  it('a notification right before the graceful close reaches the iterator and its callback before `ended` settles', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('a', {}, () => 'a')
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: createFetchHandler(mcp) }),
      cache: true,
    })
    const callbacks: string[] = []
    const sub = await listen(client, { toolsListChanged: true }, { onToolsListChanged: () => callbacks.push('tools') })
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
