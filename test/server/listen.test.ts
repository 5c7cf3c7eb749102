/**
 * `subscriptions/listen` (spec: basic/patterns/subscriptions.mdx): the acknowledgement first, only the
 * requested kinds, each tagged with the subscriptionId; list changes when tools, prompts, resources or
 * templates change; resource updates for subscribed URIs only; the bus listener goes away with the
 * client; bad filters; graceful closure; the Hono adapter. Client.listen is in test/client/listen.test.ts.
 */
import { describe, expect, it, vi } from 'vitest'
import { schemaErrors } from '../spec-schema.ts'
import { UriTemplate } from '../../src/index.ts'
import {
  createFetchHandler,
  InMemoryNotificationBus,
  McpServer,
  Server,
  type FetchHandler,
  type NotificationBus,
  type ServerEvent,
} from '../../src/server/index.ts'
import { UpstreamError } from '../../src/server/errors.ts'
import { library } from '../fixtures/library.ts'
import { adapters, env, post, recordingLogger, std, type WireResponse } from '../helpers.ts'

const validate = schemaErrors
const NOTIFICATION_DEF: Record<string, string> = {
  'notifications/subscriptions/acknowledged': 'SubscriptionsAcknowledgedNotification',
  'notifications/tools/list_changed': 'ToolListChangedNotification',
  'notifications/prompts/list_changed': 'PromptListChangedNotification',
  'notifications/resources/list_changed': 'ResourceListChangedNotification',
  'notifications/resources/updated': 'ResourceUpdatedNotification',
}
/** A message of a listen stream as the tests read it: a notification, or the closing response. */
interface StreamMessage extends WireResponse {
  method: string
  params: { uri?: string; _meta: Record<string, unknown>; [key: string]: unknown }
}

/** Every message of a listen stream validates against schema.json (its own type, and ServerNotification). */
function expectValid(messages: StreamMessage[]) {
  for (const m of messages) {
    if ('method' in m) {
      expect(validate(NOTIFICATION_DEF[m.method], m), JSON.stringify(m)).toEqual([])
      expect(validate('ServerNotification', m)).toEqual([])
    } else expect(validate('SubscriptionsListenResultResponse', m), JSON.stringify(m)).toEqual([])
  }
}

const SUB = 'io.modelcontextprotocol/subscriptionId'

function listenBody(id: string | number, notifications: unknown, meta: Record<string, unknown> = {}) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { notifications, _meta: { ...env({}), ...meta } },
  }
}

/** An open listen stream read event by event: JSON-RPC messages, and `:` comments kept apart. */
async function open(handler: FetchHandler, body: unknown, init: { signal?: AbortSignal } = {}) {
  const res = await handler(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: std('subscriptions/listen'),
      body: JSON.stringify(body),
      ...init,
    }),
  )
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('text/event-stream')
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  const messages: StreamMessage[] = []
  const comments: string[] = []
  let buffer = ''
  const pump = async (): Promise<boolean> => {
    const { done, value } = await reader.read()
    if (done) return false
    buffer += decoder.decode(value, { stream: true })
    let end: number
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      if (event.startsWith(':')) comments.push(event)
      else messages.push(JSON.parse(event.replace(/^event: message\ndata: /, '')) as StreamMessage)
    }
    return true
  }
  return {
    res,
    messages,
    comments,
    /** Read until `count` messages have arrived (fails the test on a closed stream). */
    async next(count = messages.length + 1): Promise<StreamMessage> {
      while (messages.length < count)
        if (!(await pump())) throw new Error(`stream closed after ${messages.length} messages`)
      return messages[count - 1]
    },
    /** Read until the stream closes. */
    async drain(): Promise<void> {
      while (await pump());
    },
    cancel: () => reader.cancel(),
  }
}

describe('subscriptions/listen over HTTP', () => {
  for (const [name, handler, mcp, bus] of [true, false].map((plain) => {
    const bus = new InMemoryNotificationBus()
    const mcp = library(bus)
    const [fetchHandler, hono] = adapters(mcp)
    return [...(plain ? fetchHandler : hono), mcp, bus] as const
  })) {
    it(`${name}: the acknowledgement first, then only the requested kinds, each tagged with the subscriptionId`, async () => {
      // logLevel and progressToken on the listen request change nothing: no log or progress goes on this stream
      const stream = await open(
        handler,
        listenBody(
          'listen-1',
          { toolsListChanged: true, resourceSubscriptions: ['file:///config.json'] },
          { 'io.modelcontextprotocol/logLevel': 'debug', progressToken: 'p' },
        ),
      )
      expect(stream.res.headers.get('x-accel-buffering')).toBe('no')
      expect(await stream.next()).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: {
          _meta: { [SUB]: 'listen-1' },
          notifications: { toolsListChanged: true, resourceSubscriptions: ['file:///config.json'] },
        },
      })
      expect(bus.listenerCount).toBe(1)
      mcp.prompt('q', {}, () => 'q') // prompts not requested
      mcp.resource('other', 'file:///other.json', {}, () => '') // resources list not requested
      await mcp.resourceUpdated('file:///other.json') // not subscribed
      mcp.tool('b', {}, () => 'b')
      await mcp.resourceUpdated('file:///config.json')
      expect(mcp.removeTool('b')).toBe(true)
      expect(mcp.removeTool('b')).toBe(false) // nothing removed, nothing announced
      await stream.next(4)
      expect(stream.messages.slice(1)).toEqual([
        { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: 'listen-1' } } },
        {
          jsonrpc: '2.0',
          method: 'notifications/resources/updated',
          params: { _meta: { [SUB]: 'listen-1' }, uri: 'file:///config.json' },
        },
        { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: 'listen-1' } } },
      ])
      expectValid(stream.messages)
      expect(validate('SubscriptionsListenRequest', listenBody('listen-1', { toolsListChanged: true }))).toEqual([])
      await stream.cancel()
      await vi.waitFor(() => expect(bus.listenerCount).toBe(0))
    })
  }

  it('list changes for tools, prompts, resources and templates, added and removed', async () => {
    const bus = new InMemoryNotificationBus()
    const mcp = library(bus)
    const handler = createFetchHandler(mcp)
    const stream = await open(
      handler,
      listenBody(7, { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true }),
    )
    expect((await stream.next()).params.notifications).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
    })
    mcp.tool('b', {}, () => 'b')
    mcp.prompt('q', {}, () => 'q')
    mcp.resource('r', 'file:///r', {}, () => 'r')
    mcp.resourceTemplate('t', new UriTemplate('file:///t/{x}'), {}, () => 't')
    mcp.removeTool('a')
    mcp.removePrompt('p')
    mcp.removeResource('file:///config.json')
    mcp.removeResourceTemplate('t')
    await stream.next(9)
    expect(stream.messages.slice(1).map((m) => m.method.split('/')[1])).toEqual([
      'tools',
      'prompts',
      'resources',
      'resources',
      'tools',
      'prompts',
      'resources',
      'resources',
    ])
    expect(stream.messages.every((m) => m.params._meta[SUB] === 7)).toBe(true)
    expectValid(stream.messages)
    // the lists really changed
    const tools = await post(
      handler,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: env() } },
      std('tools/list'),
    )
    expect(tools.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['b'])
    await stream.cancel()
    await vi.waitFor(() => expect(bus.listenerCount).toBe(0))
  })

  it('resource updates reach only the streams subscribed to that URI', async () => {
    const bus = new InMemoryNotificationBus()
    const mcp = library(bus)
    const handler = createFetchHandler(mcp)
    const a = await open(handler, listenBody('a', { resourceSubscriptions: ['file:///a', 'file:///a'] }))
    const b = await open(handler, listenBody('b', { resourceSubscriptions: ['file:///b'] }))
    expect((await a.next()).params.notifications).toEqual({ resourceSubscriptions: ['file:///a'] })
    await b.next()
    expect(bus.listenerCount).toBe(2)
    await mcp.resourceUpdated('file:///b')
    await mcp.resourceUpdated('file:///a')
    await mcp.resourceUpdated('file:///a/child') // exact URIs only
    mcp.tool('x', {}, () => 'x') // tools not requested by either
    mcp.server.closeSubscriptions()
    await a.drain()
    await b.drain()
    const summary = (m: StreamMessage) => ('id' in m ? 'end' : (m.params.uri ?? 'ack'))
    expect(a.messages.map(summary)).toEqual(['ack', 'file:///a', 'end'])
    expect(b.messages.map(summary)).toEqual(['ack', 'file:///b', 'end'])
    expectValid([...a.messages, ...b.messages])
    expect(bus.listenerCount).toBe(0)
  })

  it('authorizeSubscription leaves refused URIs out of the acknowledgement, and nothing is sent for them', async () => {
    const log = recordingLogger()
    const mcp = new McpServer(
      { name: 'lib', version: '1' },
      {
        logger: log.logger,
        // each caller may follow its own files only; a URI that makes the check throw is refused too
        authorizeSubscription: (uri, ctx) =>
          uri.includes('boom')
            ? Promise.reject(new Error('directory down'))
            : Promise.resolve(uri.startsWith(`file:///${ctx.authInfo?.subject}/`)),
      },
    )
    mcp.resource('config', 'file:///config.json', {}, () => '{}')
    const handler = createFetchHandler(mcp, {
      authenticate: (request) => ({ clientId: 'c', subject: request.headers.get('x-user') ?? 'nobody' }),
    })
    const alice = await open(
      (request) =>
        handler(new Request(request, { headers: { ...Object.fromEntries(request.headers), 'x-user': 'alice' } })),
      listenBody('a', { resourceSubscriptions: ['file:///alice/notes', 'file:///bob/notes', 'file:///alice/boom'] }),
    )
    expect((await alice.next()).params.notifications).toEqual({ resourceSubscriptions: ['file:///alice/notes'] })
    await mcp.resourceUpdated('file:///bob/notes')
    await mcp.resourceUpdated('file:///alice/notes')
    mcp.server.closeSubscriptions()
    await alice.drain()
    expect(alice.messages.map((m) => ('id' in m ? 'end' : (m.params.uri ?? 'ack')))).toEqual([
      'ack',
      'file:///alice/notes',
      'end',
    ])
    expect(log.error.join('\n')).toContain('authorizeSubscription failed; the URI is left out directory down')
  })

  it('a reader that stops reading is cut off after 1 MiB of unread notifications, and unsubscribed', async () => {
    const { MAX_UNREAD_BYTES } = await import('../../src/server/http/sse.ts')
    const bus = new InMemoryNotificationBus()
    const mcp = library(bus)
    const uri = `file:///${'x'.repeat(4000)}`
    const stream = await open(createFetchHandler(mcp), listenBody('slow', { resourceSubscriptions: [uri] }))
    await stream.next() // the acknowledgement; from now on nobody reads
    expect(bus.listenerCount).toBe(1)
    const events = Math.ceil(MAX_UNREAD_BYTES / 4000) + 10
    for (let i = 0; i < events && bus.listenerCount > 0; i++) await mcp.resourceUpdated(uri)
    await vi.waitFor(() => expect(bus.listenerCount).toBe(0))
    await expect(stream.drain()).rejects.toThrow(`the client fell more than ${MAX_UNREAD_BYTES} bytes behind`)
    expect(stream.messages.length).toBeLessThan(events) // what was buffered before the cut, no more
  })

  it('closeSubscriptions ends each stream gracefully with the listen result', async () => {
    const mcp = library()
    const stream = await open(createFetchHandler(mcp), listenBody(3, { toolsListChanged: true }))
    await stream.next()
    mcp.server.closeSubscriptions()
    await stream.drain()
    expect(stream.messages[1]).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: {
        resultType: 'complete',
        _meta: { [SUB]: 3, 'io.modelcontextprotocol/serverInfo': { name: 'lib', version: '1' } },
      },
    })
    expect(stream.messages).toHaveLength(2)
    expectValid(stream.messages)
  })

  it('a client that goes away (request signal or closed stream) unsubscribes from the bus', async () => {
    const bus = new InMemoryNotificationBus()
    const handler = createFetchHandler(library(bus))
    const controller = new AbortController()
    const viaSignal = await open(handler, listenBody(1, { toolsListChanged: true }), { signal: controller.signal })
    const viaCancel = await open(handler, listenBody(2, { toolsListChanged: true }))
    await viaSignal.next()
    await viaCancel.next()
    expect(bus.listenerCount).toBe(2)
    controller.abort()
    await vi.waitFor(() => expect(bus.listenerCount).toBe(1))
    await viaCancel.cancel()
    await vi.waitFor(() => expect(bus.listenerCount).toBe(0))
  })

  it('sends keep-alive comments while idle', async () => {
    const stream = await open(
      createFetchHandler(library(), { keepAliveMs: 10 }),
      listenBody(1, { toolsListChanged: true }),
    )
    await stream.next()
    await vi.waitFor(async () => {
      const more = stream.next(2).catch(() => undefined) // reads chunks; comments land in stream.comments
      await Promise.race([more, new Promise((r) => setTimeout(r, 30))])
      expect(stream.comments.length).toBeGreaterThan(0)
    })
    expect(stream.comments[0]).toBe(': keep-alive')
    await stream.cancel()
  })

  it('bad filters are -32602 naming the field; JSON-only clients get 406; nothing stays subscribed', async () => {
    const bus = new InMemoryNotificationBus()
    const handler = createFetchHandler(library(bus))
    const bad = async (notifications: unknown) => {
      const body = listenBody(1, notifications)
      if (notifications === undefined) delete (body.params as Record<string, unknown>).notifications
      return post(handler, body, std('subscriptions/listen'))
    }
    const cases: Array<[unknown, string]> = [
      [undefined, "field 'notifications'"],
      [[], "field 'notifications'"],
      [{ toolsListChanged: 'yes' }, "field 'notifications.toolsListChanged'"],
      [{ resourceSubscriptions: 'file:///a' }, "field 'notifications.resourceSubscriptions'"],
      [{ resourceSubscriptions: ['file:///a', 42] }, "field 'notifications.resourceSubscriptions.1'"],
      [
        { resourceSubscriptions: Array.from({ length: 1001 }, (_, i) => `file:///${i}`) },
        "field 'notifications.resourceSubscriptions' has 1001 URIs; at most 1000",
      ],
      [
        { resourceSubscriptions: ['file:///a', `file:///${'x'.repeat(4096)}`] },
        "field 'notifications.resourceSubscriptions.1' is longer than 4096 characters",
      ],
    ]
    for (const [notifications, field] of cases) {
      const res = await bad(notifications)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(res.body.error.code).toBe(-32602)
      expect(res.body.error.message).toContain(field)
      expect(validate('JSONRPCErrorResponse', res.body)).toEqual([])
    }
    const jsonOnly = await post(handler, listenBody(2, { toolsListChanged: true }), {
      ...std('subscriptions/listen'),
      accept: 'application/json',
    })
    expect(jsonOnly.status).toBe(406)
    expect(jsonOnly.body.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining('text/event-stream') as unknown,
    })
    expect(bus.listenerCount).toBe(0)
  })

  it('acknowledges only what the server supports, and discover advertises it', async () => {
    const bare = new McpServer({ name: 'bare', version: '1' }) // tools only
    const handler = createFetchHandler(bare)
    const stream = await open(
      handler,
      listenBody(1, {
        toolsListChanged: true,
        promptsListChanged: true,
        resourcesListChanged: true,
        resourceSubscriptions: ['file:///x'],
        taskIds: ['t'],
      }),
    )
    expect((await stream.next()).params.notifications).toEqual({ toolsListChanged: true })
    await stream.cancel()
    const discover = await post(
      handler,
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: env() } },
      std('server/discover'),
    )
    expect(discover.body.result.capabilities).toEqual({ tools: { listChanged: true } })
    const full = await post(
      createFetchHandler(library()),
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: env() } },
      std('server/discover'),
    )
    expect(full.body.result.capabilities).toEqual({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    })
    expect(validate('DiscoverResultResponse', full.body)).toEqual([])
    // an explicit capability wins: no listChanged advertised, none acknowledged
    const quiet = new Server({ name: 'q', version: '1' }, { capabilities: { tools: {} } })
    quiet.setRequestHandler('tools/list', () => ({ tools: [] }))
    const q = await open(createFetchHandler(quiet), listenBody(1, { toolsListChanged: true }))
    expect((await q.next()).params.notifications).toEqual({})
    await q.cancel()
  })

  it('instances sharing a bus: an update announced on one reaches a listener on another', async () => {
    const bus = new InMemoryNotificationBus()
    const one = library(bus)
    const two = library(bus)
    const stream = await open(
      createFetchHandler(two),
      listenBody('s', { resourceSubscriptions: ['file:///config.json'] }),
    )
    await stream.next()
    await one.resourceUpdated('file:///config.json')
    expect((await stream.next()).params).toEqual({ _meta: { [SUB]: 's' }, uri: 'file:///config.json' })
    await stream.cancel()
    await vi.waitFor(() => expect(bus.listenerCount).toBe(0))
  })

  it('an async bus: events published while subscribing arrive after the acknowledgement', async () => {
    const inner = new InMemoryNotificationBus()
    let subscribed!: () => void
    const bus: NotificationBus = {
      publish: (event) => Promise.resolve(inner.publish(event)),
      subscribe: async (listener) => {
        const off = inner.subscribe(listener)
        await new Promise<void>((r) => (subscribed = r)) // e.g. waiting for Redis to confirm SUBSCRIBE
        return async () => off()
      },
    }
    const mcp = library(bus)
    const streamP = open(createFetchHandler(mcp), listenBody(1, { toolsListChanged: true }))
    await vi.waitFor(() => expect(inner.listenerCount).toBe(1))
    await mcp.server.publish({ kind: 'toolsListChanged' })
    subscribed()
    const stream = await streamP
    await stream.next(2)
    expect(stream.messages.map((m) => m.method)).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/tools/list_changed',
    ])
    await stream.cancel()
    await vi.waitFor(() => expect(inner.listenerCount).toBe(0))
  })

  it("a bus that cannot be reached (its UpstreamError) fails the listen with 503 -32603 'listen again', logged, its cause not sent", async () => {
    const rec = recordingLogger()
    const bus: NotificationBus = {
      publish: () => {},
      subscribe: () =>
        Promise.reject(new UpstreamError('Redis at 10.0.0.7:6379 did not answer SUBSCRIBE within 5000 ms')),
    }
    const mcp = new McpServer({ name: 's', version: '1' }, { notificationBus: bus, logger: rec.logger })
    const res = await post(
      createFetchHandler(mcp),
      listenBody(1, { toolsListChanged: true }),
      std('subscriptions/listen'),
    )
    expect(res.status).toBe(503)
    expect(res.body.error).toEqual({ code: -32603, message: 'The notification bus could not be reached: listen again' })
    expect(rec.error.join('\n')).toContain('a listen stream could not subscribe: Redis at 10.0.0.7:6379 did not answer')
  })

  it('registrations before the first request announce nothing; bus failures are logged, not thrown', async () => {
    const published: ServerEvent[] = []
    const rec = recordingLogger()
    const bus: NotificationBus = {
      publish: (event) => {
        published.push(event)
        throw new Error('bus down')
      },
      subscribe: () => {
        throw new Error('cannot subscribe')
      },
    }
    const mcp = new McpServer({ name: 's', version: '1' }, { notificationBus: bus, logger: rec.logger })
    mcp.tool('a', {}, () => 'a')
    mcp.resource('r', 'file:///r', {}, () => 'r')
    expect(published).toEqual([])
    const handler = createFetchHandler(mcp)
    const res = await post(handler, listenBody(1, { toolsListChanged: true }), std('subscriptions/listen'))
    expect(res.body.error).toEqual({ code: -32603, message: 'Internal error' }) // subscribe failed: nothing leaks
    expect(rec.error.join('\n')).toContain('cannot subscribe')
    mcp.tool('b', {}, () => 'b')
    await mcp.resourceUpdated('file:///r')
    expect(published).toEqual([{ kind: 'toolsListChanged' }, { kind: 'resourceUpdated', uri: 'file:///r' }])
    expect(rec.error.filter((e) => e.includes('bus down'))).toHaveLength(2)
    await expect(mcp.resourceUpdated('not a uri')).rejects.toThrow(TypeError)
  })
})

describe('subscriptions/listen on the low-level Server', () => {
  it('subscribes before handle() returns: an event published in the same tick reaches the stream', async () => {
    const server = new Server({ name: 's', version: '1' }, { logger: recordingLogger().logger })
    server.setRequestHandler('tools/list', () => ({ tools: [] })) // tools: list changes are honoured
    let ran = false
    server.setRequestHandler('x/sync', () => {
      ran = true
      return {}
    })
    const first = server.handle({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 1, method: 'x/sync', params: { _meta: env() } },
    })
    expect(ran).toBe(true) // no token to open: the handler starts in this tick
    await first
    const got: string[] = []
    const stop = new AbortController()
    const done = server.handle(
      {
        kind: 'request',
        message: {
          jsonrpc: '2.0',
          id: 2,
          method: 'subscriptions/listen',
          params: { _meta: env(), notifications: { toolsListChanged: true } },
        },
      },
      { signal: stop.signal },
      { notify: (n) => void got.push(n.method) },
    )
    void server.publish({ kind: 'toolsListChanged' })
    await vi.waitFor(() =>
      expect(got).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed']),
    )
    stop.abort()
    await done
  })
})
