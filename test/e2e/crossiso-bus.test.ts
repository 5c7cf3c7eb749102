/**
 * Notifications across isolates: a `subscriptions/listen` stream held by one Worker receives the
 * resource updates and list changes published while another Worker served a request, through the Durable
 * Object bus (`McpNotificationBus` on `env.MCP_NOTIFICATIONS`, `durableObjectNotificationBus(env)` in the
 * demo Worker); `authorizeSubscription` still filters each stream; without the shared namespace nothing
 * crosses.
 *
 * How (test/crossiso-harness.ts): the demo Worker wrapped by test/workers/crossiso.ts (which adds the
 * test-only tools `publish_event` and `add_tool`, and an `authorizeSubscription` refusing `secret:` URIs)
 * runs as four Workers in one workerd process, each its own isolate, all over real HTTP:
 * - `a` defines the Durable Object class and binds `MCP_NOTIFICATIONS` to it;
 * - `b` binds `MCP_NOTIFICATIONS` to the SAME namespace (`scriptName: 'a'`);
 * - `own` binds it to a namespace of its own (the control: the same code, not shared);
 * - `nobox` binds nothing (its listen requests fail: there is no bus to subscribe to).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startCrossIsolate, type CrossIsolate } from '../crossiso-harness.ts'
import { env, std } from '../helpers.ts'
import { messages, type Message } from '../legacy-wire.ts'

type Name = 'a' | 'b' | 'own' | 'nobox'
const BUS = { className: 'McpNotificationBus', useSQLite: true }
const SUB = 'io.modelcontextprotocol/subscriptionId'

let running: CrossIsolate<Name> | undefined
let base = {} as Record<Name, string>

beforeAll(async () => {
  running = await startCrossIsolate<Name>({
    a: { MCP_NOTIFICATIONS: BUS },
    b: { MCP_NOTIFICATIONS: { className: 'McpNotificationBus', scriptName: 'a' } },
    own: { MCP_NOTIFICATIONS: BUS },
    nobox: {},
  })
  base = running.base
})

afterAll(async () => {
  await running?.dispose()
})

let nextId = 1
function request(worker: Name, method: string, params: Record<string, unknown>, name?: string): Promise<Response> {
  return fetch(new URL('mcp', base[worker]), {
    method: 'POST',
    headers: std(method, name),
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: env({}) } }),
  })
}

/** Call a tool on `worker` and return its text (it has published by the time it answers). */
async function callTool(worker: Name, name: string, args: Record<string, unknown>): Promise<string> {
  const res = await request(worker, 'tools/call', { name, arguments: args }, name)
  expect(res.status).toBe(200)
  const stream = messages(res)
  try {
    for (;;) {
      const m = await stream.next()
      if ('result' in m) return (m.result as { content: { text: string }[] }).content[0].text
      if ('error' in m) throw new Error(JSON.stringify(m.error))
    }
  } finally {
    await stream.cancel()
  }
}

/** Open a listen stream on `worker` and read its acknowledgement. */
async function listen(worker: Name, notifications: Record<string, unknown>) {
  const res = await request(worker, 'subscriptions/listen', { notifications })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('text/event-stream')
  const stream = messages(res)
  const ack = await stream.next()
  expect(ack.method).toBe('notifications/subscriptions/acknowledged')
  return { stream, acknowledged: ack.params?.notifications, id: (ack.params?._meta as Record<string, unknown>)[SUB] }
}

/** The method (and uri) of a notification, for comparing lists. */
const brief = (m: Message) => [m.method, (m.params as { uri?: string } | undefined)?.uri].filter(Boolean).join(' ')

describe('notifications across isolates (Durable Object notification bus)', () => {
  it('a and b are different Workers in different isolates', async () => {
    const who = async (w: Name) => (await (await fetch(new URL('isolate', base[w]))).json()) as { isolate: string }
    expect((await who('b')).isolate).not.toBe((await who('a')).isolate)
  })

  it('a listener on b gets the update and list change published through a; refused URIs stay filtered', async () => {
    const filter = { toolsListChanged: true, resourceSubscriptions: ['books://catalog', 'secret:ledger'] }
    const onB = await listen('b', filter)
    const onOwn = await listen('own', { ...filter, resourcesListChanged: true })
    try {
      // authorizeSubscription ran on b's own stream: the refused URI is not in the acknowledged subset
      expect(onB.acknowledged).toEqual({ toolsListChanged: true, resourceSubscriptions: ['books://catalog'] })
      expect(onOwn.acknowledged).toEqual({
        toolsListChanged: true,
        resourcesListChanged: true,
        resourceSubscriptions: ['books://catalog'],
      })

      // a holds no stream; b shares no memory with a: only the Durable Object can carry these over
      expect(await callTool('a', 'publish_event', { kind: 'resourceUpdated', uri: 'secret:ledger' })).toBe(
        'published resourceUpdated',
      )
      await callTool('a', 'publish_event', { kind: 'resourceUpdated', uri: 'books://catalog' })
      await callTool('a', 'publish_event', { kind: 'toolsListChanged' })
      const updated = await onB.stream.next()
      expect(updated).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { _meta: { [SUB]: onB.id }, uri: 'books://catalog' },
      })
      expect(brief(await onB.stream.next())).toBe('notifications/tools/list_changed') // secret:ledger never came

      // Control: `own` runs the same code on a namespace of its own. Its next message is its own event,
      // published after all of a's: none of a's reached it.
      await callTool('own', 'publish_event', { kind: 'resourcesListChanged' })
      expect(brief(await onOwn.stream.next())).toBe('notifications/resources/list_changed')

      // And a tool registered on a (McpServer announces it by itself) reaches b too.
      expect(await callTool('a', 'add_tool', { name: 'late' })).toBe('added late')
      expect(brief(await onB.stream.next())).toBe('notifications/tools/list_changed')
      await callTool('b', 'publish_event', { kind: 'resourceUpdated', uri: 'books://catalog' }) // b's own too
      expect(brief(await onB.stream.next())).toBe('notifications/resources/updated books://catalog')
    } finally {
      await onB.stream.cancel()
      await onOwn.stream.cancel()
    }
  })

  // workerd notices that a client closed its SSE stream when it next writes to it (an event, or the
  // transport's keep-alive): the handler then ends and its connection to the object closes.
  it('each listen stream holds one connection to the object, closed with the stream; the others keep receiving', async () => {
    const connections = async (w: Name) =>
      ((await (await fetch(new URL('bus-connections', base[w]))).json()) as { connections: number }).connections
    for (const w of ['a', 'own'] as const) {
      await callTool(w, 'publish_event', { kind: 'toolsListChanged' }) // flushes the closed streams of the test before
      await vi.waitFor(async () => expect(await connections(w)).toBe(0))
    }
    const first = await listen('b', { toolsListChanged: true })
    const second = await listen('a', { toolsListChanged: true })
    expect(await connections('b')).toBe(2) // one object for both Workers, one connection per stream
    expect(await connections('own')).toBe(0)
    await first.stream.cancel()
    await callTool('b', 'publish_event', { kind: 'toolsListChanged' })
    expect(brief(await second.stream.next())).toBe('notifications/tools/list_changed')
    await vi.waitFor(async () => expect(await connections('a')).toBe(1))
    await second.stream.cancel()
    await callTool('a', 'publish_event', { kind: 'toolsListChanged' })
    await vi.waitFor(async () => expect(await connections('a')).toBe(0))
  })

  it('without the binding, a listen request fails with -32603 and a publish fails without failing the tool', async () => {
    const res = await request('nobox', 'subscriptions/listen', { notifications: { toolsListChanged: true } })
    const stream = messages(res)
    try {
      expect((await stream.next()).error).toEqual({ code: -32603, message: 'Internal error' })
    } finally {
      await stream.cancel()
    }
    expect(await callTool('nobox', 'publish_event', { kind: 'toolsListChanged' })).toBe('published toolsListChanged')
  })
})
