/**
 * The Durable Object notification bus of `edge-mcp/cloudflare` (`McpNotificationBus`,
 * `durableObjectNotificationBus`) in Node, against a fake namespace whose stub calls the object's `fetch`
 * directly: fan-out to every subscription of every "instance", unsubscribe closing the connection, event
 * validation on both ends, bounded events and backlog, the missing-binding error, and a dropped
 * connection ending the listen stream with -32603. The same classes across real workerd isolates:
 * test/e2e/crossiso-bus.test.ts.
 */
import { describe, expect, it, vi } from 'vitest'
import { MAX_BUS_BACKLOG, MAX_BUS_EVENT_BYTES, parseBusEvent } from '../../src/cloudflare/notifications.ts'
import {
  McpNotificationBus,
  durableObjectNotificationBus,
  type NotificationNamespace,
} from '../../src/cloudflare/index.ts'
import { createFetchHandler, McpServer, type ServerEvent } from '../../src/server/index.ts'
import { env, recordingLogger, std } from '../helpers.ts'
import type { Message } from '../legacy-wire.ts'

/**
 * A namespace of one object; `requests` records the paths the stubs fetch, `drop()` breaks every open
 * listen connection (as an object restart or a network failure would).
 */
function fakeNamespace(object = new McpNotificationBus()) {
  const requests: string[] = []
  const names = new Set<string>()
  const cut = new AbortController()
  const namespace: NotificationNamespace = {
    idFromName: (name) => {
      names.add(name)
      return name
    },
    get: () => ({
      fetch: async (input, init) => {
        requests.push(new URL(input).pathname)
        const res = await object.fetch(new Request(input, init))
        if (!res.body || new URL(input).pathname !== '/listen') return res
        const wire = new TransformStream<Uint8Array, Uint8Array>()
        res.body.pipeTo(wire.writable, { signal: cut.signal }).catch(() => {})
        return new Response(wire.readable, res)
      },
    }),
  }
  return { object, namespace, requests, names, drop: () => cut.abort(new Error('connection reset')) }
}

const raw = (object: McpNotificationBus, path: string, body: string | null = null, init: RequestInit = {}) =>
  object.fetch(new Request(`https://bus.internal${path}`, { method: 'POST', body, ...init }))

describe('durableObjectNotificationBus', () => {
  it('fans every event out to every subscription of every instance; unsubscribing closes the connection', async () => {
    const { object, namespace, names } = fakeNamespace()
    const [a, b] = [
      durableObjectNotificationBus({ MCP_NOTIFICATIONS: namespace }),
      durableObjectNotificationBus({ MCP_NOTIFICATIONS: namespace }),
    ]
    const gotA: ServerEvent[] = []
    const gotB: ServerEvent[] = []
    const offA = await a.subscribe((e) => gotA.push(e))
    expect(object.connectionCount).toBe(1) // live once subscribe resolved
    const offB = await b.subscribe((e) => gotB.push(e))
    expect(object.connectionCount).toBe(2)
    await a.publish({ kind: 'resourceUpdated', uri: 'file:///a.json' })
    await b.publish({ kind: 'toolsListChanged' })
    const both = [{ kind: 'resourceUpdated', uri: 'file:///a.json' }, { kind: 'toolsListChanged' }]
    await vi.waitFor(() => expect(gotB).toEqual(both))
    await vi.waitFor(() => expect(gotA).toEqual(both)) // the publisher's own listeners too, in order
    expect([...names]).toEqual(['edge-mcp/notifications']) // one object for the namespace

    await offB()
    await vi.waitFor(() => expect(object.connectionCount).toBe(1))
    await a.publish({ kind: 'promptsListChanged' })
    await vi.waitFor(() => expect(gotA).toHaveLength(3))
    expect(gotB).toHaveLength(2)
    await offA()
    await offA() // twice is harmless
    await vi.waitFor(() => expect(object.connectionCount).toBe(0))
  })

  it('checks events before sending: not a ServerEvent is a TypeError; an unmatchable long URI is dropped', async () => {
    const { namespace, requests } = fakeNamespace()
    const bus = durableObjectNotificationBus({ BUS: namespace }, 'BUS')
    for (const bad of [
      null,
      'x',
      { kind: 'nope' },
      { kind: 'resourceUpdated' },
      { kind: 'resourceUpdated', uri: 'rel/path' },
    ]) {
      await expect(bus.publish(bad as ServerEvent)).rejects.toThrow(TypeError)
    }
    await bus.publish({ kind: 'resourceUpdated', uri: 'file:///' + 'x'.repeat(5000) }) // no stream can hold it
    expect(requests).toEqual([])
    expect(parseBusEvent({ kind: 'toolsListChanged', extra: 1 })).toEqual({ kind: 'toolsListChanged' })
    expect(parseBusEvent({ kind: 'resourceUpdated', uri: 'a:b', more: true })).toEqual({
      kind: 'resourceUpdated',
      uri: 'a:b',
    })
  })

  it('the object refuses anything but one bounded event (400, 413, 404, 405) and queues nothing for it', async () => {
    const object = new McpNotificationBus()
    const listening = await raw(object, '/listen')
    const reader = listening.body!.getReader()
    expect((await raw(object, '/publish', 'not json')).status).toBe(400)
    expect((await raw(object, '/publish', JSON.stringify({ kind: 'toolsListChanged ' }))).status).toBe(400)
    expect((await raw(object, '/publish', JSON.stringify({ kind: 'resourceUpdated', uri: 'x y' }))).status).toBe(400)
    const huge = JSON.stringify({ kind: 'resourceUpdated', uri: 'a:' + 'é'.repeat(MAX_BUS_EVENT_BYTES) })
    expect((await raw(object, '/publish', huge)).status).toBe(413)
    expect((await raw(object, '/nope', '{}')).status).toBe(404)
    expect((await object.fetch(new Request('https://bus.internal/listen'))).status).toBe(405)
    const ok = await raw(object, '/publish', JSON.stringify({ kind: 'resourcesListChanged', junk: 'x'.repeat(100) }))
    expect(ok.status).toBe(202)
    const { value } = await reader.read()
    expect(new TextDecoder().decode(value)).toBe('{"kind":"resourcesListChanged"}\n') // only the event's fields
    await reader.cancel()
    expect(object.connectionCount).toBe(0)
  })

  it('a resourceUpdated too long as given but not in normal form is sent in normal form, and matches', async () => {
    const { namespace } = fakeNamespace()
    const bus = durableObjectNotificationBus({ MCP_NOTIFICATIONS: namespace })
    const got: ServerEvent[] = []
    const off = await bus.subscribe((e) => got.push(e))
    await bus.publish({ kind: 'resourceUpdated', uri: 'a:' + '%41'.repeat(2000) }) // 6,002 characters; normal: 2,002
    await vi.waitFor(() => expect(got).toEqual([{ kind: 'resourceUpdated', uri: 'a:' + 'A'.repeat(2000) }]))
    await off()
  })

  it(`cuts a connection that falls ${MAX_BUS_BACKLOG} events behind, and no other`, async () => {
    const object = new McpNotificationBus()
    const stuck = (await raw(object, '/listen')).body!.getReader() // never read
    const bus = durableObjectNotificationBus({ MCP_NOTIFICATIONS: fakeNamespace(object).namespace })
    let live = 0
    await bus.subscribe(() => live++)
    for (let i = 0; i <= MAX_BUS_BACKLOG; i++) await bus.publish({ kind: 'toolsListChanged' })
    expect(object.connectionCount).toBe(1)
    await vi.waitFor(() => expect(live).toBe(MAX_BUS_BACKLOG + 1))
    // erroring the connection discards its backlog: the reader learns at once that it lost events
    await expect(stuck.read()).rejects.toThrow(`fell ${MAX_BUS_BACKLOG} events behind`)
  })

  it('a line that is not an event is skipped; a connection that ends or sends an endless line is dropped', async () => {
    let body!: ReadableStreamDefaultController<Uint8Array>
    const namespace: NotificationNamespace = {
      idFromName: (name) => name,
      get: () => ({
        fetch: () => Promise.resolve(new Response(new ReadableStream<Uint8Array>({ start: (c) => void (body = c) }))),
      }),
    }
    const bus = durableObjectNotificationBus({ MCP_NOTIFICATIONS: namespace })
    const got: ServerEvent[] = []
    const dropped: unknown[] = []
    await bus.subscribe(
      (e) => got.push(e),
      (error) => dropped.push(error),
    )
    const enc = new TextEncoder()
    body.enqueue(enc.encode('{"kind":"nope"}\nnot json\n{"kind":"resourceUpdated","uri":"a:b"}\n{"kind":"prompts'))
    body.enqueue(enc.encode('ListChanged"}\n'))
    await vi.waitFor(() =>
      expect(got).toEqual([{ kind: 'resourceUpdated', uri: 'a:b' }, { kind: 'promptsListChanged' }]),
    )
    body.close()
    await vi.waitFor(() => expect(String(dropped[0])).toContain('closed the connection'))

    const again: unknown[] = []
    await bus.subscribe(
      () => {},
      (error) => again.push(error),
    )
    body.enqueue(enc.encode('x'.repeat(MAX_BUS_EVENT_BYTES + 10)))
    await vi.waitFor(() => expect(String(again[0])).toContain('longer than'))
    expect(again).toHaveLength(1)
  })

  it('a missing binding fails publish and subscribe, naming it and how to add it', async () => {
    for (const [bus, name] of [
      [durableObjectNotificationBus(undefined), 'MCP_NOTIFICATIONS'],
      [durableObjectNotificationBus({ MCP_NOTIFICATIONS: 'a string' }), 'MCP_NOTIFICATIONS'],
      [durableObjectNotificationBus({}, 'EVENTS'), 'EVENTS'],
    ] as const) {
      const message = `env.${name} is not bound to a Durable Object namespace`
      await expect(bus.publish({ kind: 'toolsListChanged' })).rejects.toThrow(message)
      await expect(bus.subscribe(() => {})).rejects.toThrow(message)
      await expect(bus.subscribe(() => {})).rejects.toThrow(
        `[[durable_objects.bindings]] name = "${name}", class_name = "McpNotificationBus"`,
      )
    }
  })
})

/** The messages of a listen stream (SSE `data:` lines), read as they come. */
function sse(res: Response) {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  const messages: Message[] = []
  let buffer = ''
  return {
    messages,
    async until(count: number): Promise<void> {
      while (messages.length < count) {
        const { done, value } = await reader.read()
        if (done) throw new Error(`stream ended after ${messages.length} messages`)
        buffer += decoder.decode(value, { stream: true })
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const data = /^data: (.*)$/m.exec(buffer.slice(0, end))
          buffer = buffer.slice(end + 2)
          if (data) messages.push(JSON.parse(data[1]) as Message)
        }
      }
    },
    cancel: () => reader.cancel(),
  }
}

describe('McpServer on durableObjectNotificationBus', () => {
  function instance(namespace: NotificationNamespace) {
    const rec = recordingLogger()
    const mcp = new McpServer(
      { name: 'shop', version: '1' },
      {
        notificationBus: durableObjectNotificationBus({ MCP_NOTIFICATIONS: namespace }),
        authorizeSubscription: (uri) => !uri.startsWith('secret:'),
        logger: rec.logger,
      },
    )
    mcp.tool('t', {}, () => 't')
    mcp.resource('catalog', 'books://catalog', {}, () => '[]')
    return { mcp, rec, handler: createFetchHandler(mcp) }
  }
  const listen = (handler: ReturnType<typeof createFetchHandler>, notifications: unknown) =>
    handler(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: std('subscriptions/listen'),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'subscriptions/listen',
          params: { notifications, _meta: env({}) },
        }),
      }),
    )

  it('an update published on one instance reaches the stream on another; refused URIs stay out', async () => {
    const { object, namespace } = fakeNamespace()
    const [a, b] = [instance(namespace), instance(namespace)]
    const stream = sse(
      await listen(b.handler, { toolsListChanged: true, resourceSubscriptions: ['books://catalog', 'secret:ledger'] }),
    )
    await stream.until(1)
    expect(stream.messages[0].params?.notifications).toEqual({
      toolsListChanged: true,
      resourceSubscriptions: ['books://catalog'],
    })
    await a.mcp.resourceUpdated('secret:ledger')
    await a.mcp.resourceUpdated('books://catalog')
    await a.mcp.server.publish({ kind: 'toolsListChanged' })
    await stream.until(3)
    expect(stream.messages.map((m) => [m.method, m.params?.uri])).toEqual([
      ['notifications/subscriptions/acknowledged', undefined],
      ['notifications/resources/updated', 'books://catalog'],
      ['notifications/tools/list_changed', undefined],
    ])
    await stream.cancel()
    await vi.waitFor(() => expect(object.connectionCount).toBe(0)) // the stream's connection closed with it
    expect(a.rec.error).toEqual([])
  })

  it('when the connection to the object breaks, the listen stream ends with -32603 (listen again)', async () => {
    const { object, namespace, drop } = fakeNamespace()
    const b = instance(namespace)
    const res = await listen(b.handler, { toolsListChanged: true })
    const stream = sse(res)
    await stream.until(1)
    expect(object.connectionCount).toBe(1)
    drop()
    await stream.until(2)
    expect(stream.messages[1]).toMatchObject({
      id: 7,
      error: { code: -32603, message: expect.stringContaining('listen again') as unknown },
    })
    await vi.waitFor(() => expect(object.connectionCount).toBe(0))
    expect(b.rec.error.join('\n')).toContain('connection reset')
  })

  it('a bus that drops the subscription before the acknowledgement fails the listen request with -32603', async () => {
    const rec = recordingLogger()
    const mcp = new McpServer(
      { name: 's', version: '1' },
      {
        logger: rec.logger,
        notificationBus: {
          publish: () => {},
          subscribe: (_listener, dropped) => {
            dropped?.(new Error('gone at once'))
            return () => {}
          },
        },
      },
    )
    mcp.tool('t', {}, () => 't')
    const res = await listen(createFetchHandler(mcp), { toolsListChanged: true })
    expect(res.headers.get('content-type')).toBe('application/json') // nothing was streamed: a plain error
    expect(await res.json()).toMatchObject({
      id: 7,
      error: { code: -32603, message: expect.stringContaining('listen again') as unknown },
    })
    expect(rec.error.join('\n')).toContain('gone at once')
  })
})
