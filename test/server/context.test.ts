/**
 * What a handler sees of its request (`ctx`): the request's facts, the envelope's shorthands and what it
 * serves (`target`) — and nothing of the transport: the hooks a transport hands the server (`notify`,
 * `started`, a transport-kept session) travel beside the request as its channel, and reach the handler
 * only through `sendProgress` / `log`. `ctx.signal` is made on first read (an AbortSignal costs microseconds
 * on Node): reading it late changes nothing a handler can see, copies of the context share it, it can be
 * assigned, and a handler that never reads it leaves no listener on the request's signal.
 */
import { getEventListeners } from 'node:events'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { McpServer, Server, createFetchHandler, type RequestContext } from '../../src/server/index.ts'
import { UriTemplate, type JSONRPCNotification, type JSONRPCRequest } from '../../src/index.ts'
import { env, std } from '../helpers.ts'

const TRANSPORT_HOOKS = ['notify', 'started', 'sessionId'] as const

/** A server whose tool, prompt, resource and template record the context they were called with. */
function recording() {
  const seen: Record<string, Record<string, unknown>> = {}
  const mcp = new McpServer({ name: 'ctx', version: '1' })
  mcp.tool('echo', { input: { text: v.string() } }, ({ text }, ctx) => {
    seen.tool = { ...ctx }
    ctx.sendProgress(1, 2, 'half')
    return text
  })
  mcp.prompt('greet', {}, (_args, ctx) => {
    seen.prompt = { ...ctx }
    return 'hello'
  })
  mcp.resource('readme', 'docs://readme', {}, (ctx) => {
    seen.resource = { ...ctx }
    return '# readme'
  })
  mcp.resourceTemplate('user', new UriTemplate('user://{id}'), {}, ({ id }, ctx) => {
    seen.template = { ...ctx }
    return id
  })
  return { mcp, seen }
}

let nextId = 1
/** A 2026 request whose envelope asks for progress (`progressToken: 'p1'`). */
function request(method: string, params: Record<string, unknown>): JSONRPCRequest {
  return { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: { ...env(), progressToken: 'p1' } } }
}

describe('a handler context', () => {
  it('names what it serves: the tool or prompt name, or the resource URI read', async () => {
    const { mcp, seen } = recording()
    await mcp.server.handleRequest(request('tools/call', { name: 'echo', arguments: { text: 'x' } }))
    await mcp.server.handleRequest(request('prompts/get', { name: 'greet' }))
    await mcp.server.handleRequest(request('resources/read', { uri: 'docs://readme' }))
    await mcp.server.handleRequest(request('resources/read', { uri: 'user://42' }))
    expect(seen.tool.target).toBe('echo')
    expect(seen.prompt.target).toBe('greet')
    expect(seen.resource.target).toBe('docs://readme')
    expect(seen.template.target).toBe('user://42')
  })

  it('holds the request facts and the envelope, and none of the transport hooks it was handed', async () => {
    const { mcp, seen } = recording()
    const http = new Request('http://localhost/mcp', { method: 'POST' })
    const info = { request: http, env: { KV: 1 }, authInfo: { token: 't', clientId: 'c', scopes: [] } }
    const channel = { notify: () => {}, started: () => {}, sessionId: 'not-for-handlers' }
    await mcp.server.handle(
      { kind: 'request', message: request('tools/call', { name: 'echo', arguments: { text: 'x' } }) },
      info,
      channel,
    )
    const ctx = seen.tool
    expect(ctx.request).toBe(http)
    expect(ctx.env).toEqual({ KV: 1 })
    expect(ctx.authInfo).toEqual(info.authInfo)
    expect(ctx.method).toBe('tools/call')
    expect(ctx.protocolVersion).toBe('2026-07-28')
    expect(ctx.signal).toBeInstanceOf(AbortSignal)
    for (const hook of TRANSPORT_HOOKS) expect(ctx, hook).not.toHaveProperty(hook)
  })

  it('reaches the channel only through sendProgress and log, after the channel hears started', async () => {
    const { mcp } = recording()
    const events: string[] = []
    const channel = {
      notify: (message: JSONRPCNotification | JSONRPCRequest) => void events.push(message.method),
      started: () => void events.push('started'),
    }
    const handled = await mcp.server.handle(
      { kind: 'request', message: request('tools/call', { name: 'echo', arguments: { text: 'x' } }) },
      {},
      channel,
    )
    expect(events).toEqual(['started', 'notifications/progress'])
    expect(handled.response).toMatchObject({ result: { content: [{ type: 'text', text: 'x' }] } })
  })

  it('is the same for a low-level handler: no transport hook in ctx, progress through the channel', async () => {
    const server = new Server({ name: 'low', version: '1' })
    let ctx: RequestContext | undefined
    server.setRequestHandler('tools/call', (_params, c) => {
      ctx = c
      c.sendProgress(1)
      return { content: [] }
    })
    const sent: unknown[] = []
    await server.handleRequest(request('tools/call', { name: 'any' }), {}, { notify: (m) => void sent.push(m) })
    for (const hook of TRANSPORT_HOOKS) expect(ctx, hook).not.toHaveProperty(hook)
    expect(sent).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 1 } },
    ])
  })

  it('without a channel, a handler still runs and sendProgress says nothing was sent', async () => {
    const server = new Server({ name: 'low', version: '1' })
    let sent: boolean | undefined
    server.setRequestHandler('tools/call', (_params, c) => {
      sent = c.sendProgress(1)
      return { content: [] }
    })
    const handled = await server.handleRequest(request('tools/call', { name: 'any' }))
    expect(sent).toBe(false)
    expect(handled.status).toBe(200)
  })
})

/** A tool that optionally notifies (opening the SSE stream), then waits for `go` before reading its signal. */
function lateReader() {
  let go!: () => void
  const gate = new Promise<void>((resolve) => (go = resolve))
  const seen: { aborted?: boolean; reason?: unknown; copyIsSame?: boolean } = {}
  let done!: () => void
  const finished = new Promise<void>((resolve) => (done = resolve))
  const mcp = new McpServer({ name: 'lazy', version: '1' })
  mcp.tool('late', { input: { notify: v.boolean() } }, async ({ notify }, ctx) => {
    if (notify) ctx.sendProgress(1, 2, 'working')
    await gate
    seen.aborted = ctx.signal.aborted
    seen.reason = ctx.signal.reason
    seen.copyIsSame = { ...ctx }.signal === ctx.signal
    done()
    return 'late'
  })
  mcp.tool('never', {}, () => 'never')
  return { handler: createFetchHandler(mcp), go, seen, finished }
}

const call = (name: string, args: Record<string, unknown>, signal?: AbortSignal) =>
  new Request('http://localhost/mcp', {
    method: 'POST',
    headers: std('tools/call', name),
    signal: signal ?? null,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: args, _meta: { ...env(), progressToken: 'p' } },
    }),
  })

describe('ctx.signal, made on first read', () => {
  it('read after the client went away: already aborted, with its reason', async () => {
    const { handler, go, seen, finished } = lateReader()
    const client = new AbortController()
    const request = call('late', { notify: false }, client.signal)
    const response = handler(request)
    client.abort(new Error('client gone'))
    go()
    await finished
    expect(seen.aborted).toBe(true)
    expect((seen.reason as Error).message).toBe('client gone')
    expect(seen.copyIsSame).toBe(true)
    await response.catch(() => {})
  })

  it('read after its SSE stream was cancelled: already aborted', async () => {
    const { handler, go, seen, finished } = lateReader()
    const response = await handler(call('late', { notify: true }))
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const reader = response.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('notifications/progress')
    await reader.cancel()
    go()
    await finished
    expect(seen.aborted).toBe(true)
    expect((seen.reason as Error).message).toBe('the client closed the stream')
  })

  it('read by a handler that runs to the end: not aborted; never read: no listener on the request signal', async () => {
    const { handler, go, seen, finished } = lateReader()
    go()
    const late = call('late', { notify: false })
    expect(await (await handler(late)).text()).toContain('"text":"late"')
    await finished
    expect(seen.aborted).toBe(false)
    expect(getEventListeners(late.signal, 'abort').length).toBe(1) // read: linked to the client's signal
    const never = call('never', {})
    expect(await (await handler(never)).text()).toContain('"text":"never"')
    expect(getEventListeners(never.signal, 'abort').length).toBe(0)
  })

  it('low level, without transport info: a live signal; assigning one replaces it', async () => {
    const server = new Server({ name: 'low', version: '1' })
    const seen: unknown[] = []
    server.setRequestHandler('tools/call', (_params, ctx: RequestContext) => {
      seen.push(ctx.signal instanceof AbortSignal, ctx.signal.aborted)
      const other = AbortSignal.abort('mine')
      ctx.signal = other
      seen.push(ctx.signal === other, { ...ctx }.signal === other)
      return { content: [] }
    })
    const handled = await server.handleRequest({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 't', _meta: env() },
    })
    expect(handled.response).toMatchObject({ result: { resultType: 'complete' } })
    expect(seen).toEqual([true, false, true, true])
  })
})
