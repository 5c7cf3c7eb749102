/**
 * serveStdio, both eras on one in-process pipe: a 2026-07-28 client's enveloped tools/list, tools/call and
 * MRTR round; concurrent requests answered as they complete; progress; cancellation; subscriptions/listen;
 * a 2025-era client's initialize and a tools/call whose elicitation question is answered over the pipe;
 * shutdown when the input ends, close(), and a broken output. Every message written is checked against
 * the official schema.json of its era.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { acceptedContent, elicitForm, inputRequired, McpServer, Server, serveStdio } from '../../src/server/index.ts'
import { env, recordingLogger } from '../helpers.ts'
import { schemaErrors, schemaErrors2025 } from '../spec-schema.ts'
import { initialize, pipe, sleep, type Out } from '../stdio-harness.ts'

const SUB = 'io.modelcontextprotocol/subscriptionId'
const CONFIRM = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } }, required: ['ok'] }

/** A server with a quick tool, a slow one (it waits for its signal or `ms`), and one that asks. */
function shop() {
  const log = recordingLogger()
  const aborted: string[] = []
  const mcp = new McpServer({ name: 'shop', version: '1.0.0' }, { logger: log.logger })
  mcp.tool('greet', { input: { name: v.string() } }, ({ name }) => `Hello, ${name}!`)
  mcp.tool('slow', { input: { ms: v.number() } }, async ({ ms }, ctx) => {
    ctx.sendProgress(1, 2, 'started')
    await new Promise<void>((resolve) => {
      const onAbort = () => {
        clearTimeout(timer)
        aborted.push(String(ctx.signal.reason instanceof Error ? ctx.signal.reason.message : ctx.signal.reason))
        resolve()
      }
      const timer = setTimeout(resolve, ms)
      if (ctx.signal.aborted) onAbort()
      else ctx.signal.addEventListener('abort', onAbort)
    })
    return `slept ${ms}`
  })
  mcp.tool('buy', { input: { item: v.string() } }, ({ item }, ctx) => {
    const answer = acceptedContent(ctx.inputResponses?.confirm)
    if (ctx.requestState !== 'confirming' || !answer)
      return inputRequired({ confirm: elicitForm(`Buy ${item}?`, CONFIRM) }, 'confirming')
    return answer.ok ? `bought ${item}` : 'nothing bought'
  })
  return { mcp, log, aborted }
}

let ids = 1
const modern = (method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: ids++,
  method,
  params: { ...params, _meta: env() },
})
const byId = (id: unknown) => (m: Out) => m.id === id && !('method' in m)

describe('serveStdio, 2026-07-28 client', () => {
  it('answers enveloped tools/list and tools/call, each response valid against schema.json', async () => {
    const { mcp } = shop()
    const p = pipe(mcp)
    const list = modern('tools/list')
    await p.send(list)
    const listed = await p.next(byId(list.id))
    expect(schemaErrors('ListToolsResultResponse', listed)).toEqual([])
    expect(listed.result.tools.map((t: { name: string }) => t.name)).toEqual(['greet', 'slow', 'buy'])
    const greet = modern('tools/call', { name: 'greet', arguments: { name: 'Ada' } })
    await p.send(greet)
    const greeted = await p.next(byId(greet.id))
    expect(schemaErrors('CallToolResultResponse', greeted)).toEqual([])
    expect(greeted.result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }])
    await p.end()
    await p.connection.closed
    await p.outputClosed
  })

  it('runs an MRTR round: InputRequiredResult, then the retry with inputResponses and requestState', async () => {
    const { mcp } = shop()
    const p = pipe(mcp)
    const first = modern('tools/call', { name: 'buy', arguments: { item: 'tea' } })
    await p.send(first)
    const asked = await p.next(byId(first.id))
    expect(schemaErrors('CallToolResultResponse', asked)).toEqual([])
    expect(asked.result.resultType).toBe('input_required')
    expect(asked.result.inputRequests.confirm.method).toBe('elicitation/create')
    expect(p.out.some((m) => 'method' in m && 'id' in m)).toBe(false) // never a request on stdout (2026)
    const retry = modern('tools/call', {
      name: 'buy',
      arguments: { item: 'tea' },
      inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
      requestState: asked.result.requestState,
    })
    await p.send(retry)
    const done = await p.next(byId(retry.id))
    expect(schemaErrors('CallToolResultResponse', done)).toEqual([])
    expect(done.result.content).toEqual([{ type: 'text', text: 'bought tea' }])
    await p.end()
    await p.connection.closed
  })

  it('runs requests concurrently: a quick one is answered while a slow one runs; progress comes first', async () => {
    const { mcp } = shop()
    const p = pipe(mcp)
    const slow = modern('tools/call', { name: 'slow', arguments: { ms: 300 } })
    slow.params._meta.progressToken = 'p1'
    const quick = modern('tools/call', { name: 'greet', arguments: { name: 'Bo' } })
    await p.send(slow)
    await p.send(quick)
    await p.next(byId(slow.id))
    const order = p.out.map((m) => m.method ?? m.id)
    expect(order).toHaveLength(3)
    expect(order.indexOf(quick.id)).toBeLessThan(order.indexOf(slow.id)) // the quick one did not wait
    expect(order.indexOf('notifications/progress')).toBeLessThan(order.indexOf(slow.id))
    const progress = p.out.find((m) => m.method === 'notifications/progress')
    expect(schemaErrors('ProgressNotification', progress)).toEqual([])
    expect(progress?.params).toMatchObject({ progressToken: 'p1', progress: 1, total: 2 })
    await p.end()
    await p.connection.closed
  })

  it('notifications/cancelled aborts the named request: its signal fires, no response is written', async () => {
    const { mcp, aborted } = shop()
    const p = pipe(mcp)
    const slow = modern('tools/call', { name: 'slow', arguments: { ms: 10_000 } })
    await p.send(slow)
    await sleep(20)
    await p.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: slow.id, reason: 'user pressed stop' },
    })
    await sleep(50)
    expect(aborted).toEqual(['user pressed stop'])
    const after = modern('tools/call', { name: 'greet', arguments: { name: 'Cy' } })
    await p.send(after)
    await p.next(byId(after.id))
    await p.end()
    await p.connection.closed
    expect(p.out.filter((m) => m.id === slow.id)).toEqual([])
  })

  it('refuses a request reusing the id of one in flight (-32600), the first one unharmed', async () => {
    const { mcp } = shop()
    const p = pipe(mcp)
    const slow = modern('tools/call', { name: 'slow', arguments: { ms: 100 } })
    await p.send(slow)
    await p.send({ ...modern('tools/list'), id: slow.id })
    const refused = await p.next((m) => m.id === slow.id && 'error' in m)
    expect(refused.error.code).toBe(-32600)
    expect(refused.error.message).toMatch(/already in use/)
    const answered = await p.next((m) => m.id === slow.id && 'result' in m)
    expect(answered.result.content[0].text).toBe('slept 100')
    await p.end()
    await p.connection.closed
  })

  it('serves subscriptions/listen: acknowledgement and events tagged with the subscription id, until cancelled', async () => {
    const { mcp } = shop()
    const p = pipe(mcp)
    const listen = modern('subscriptions/listen', { notifications: { toolsListChanged: true } })
    await p.send(listen)
    const ack = await p.next((m) => m.method === 'notifications/subscriptions/acknowledged')
    expect(schemaErrors('SubscriptionsAcknowledgedNotification', ack)).toEqual([])
    expect(ack.params._meta[SUB]).toBe(listen.id)
    mcp.tool('late', { input: {} }, () => 'late')
    const changed = await p.next((m) => m.method === 'notifications/tools/list_changed')
    expect(schemaErrors('ToolListChangedNotification', changed)).toEqual([])
    expect(changed.params._meta[SUB]).toBe(listen.id)
    await p.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: listen.id } })
    await sleep(20)
    mcp.tool('later', { input: {} }, () => 'later')
    await sleep(20)
    expect(p.out.filter((m) => m.method === 'notifications/tools/list_changed')).toHaveLength(1)
    expect(p.out.filter(byId(listen.id))).toEqual([]) // cancelled: no response
    await p.end()
    await p.connection.closed // the stream ended: nothing keeps the connection open
  })

  it('ends a listen stream when the input ends, with its closing result', async () => {
    const { mcp } = shop()
    const p = pipe(mcp)
    const listen = modern('subscriptions/listen', { notifications: { toolsListChanged: true } })
    await p.send(listen)
    await p.next((m) => m.method === 'notifications/subscriptions/acknowledged')
    await p.end()
    await p.connection.closed
    await p.outputClosed
    const closing = p.out.find(byId(listen.id))!
    expect(schemaErrors('SubscriptionsListenResultResponse', closing)).toEqual([])
    expect(closing.result._meta[SUB]).toBe(listen.id)
  })
})

describe('serveStdio, 2025-era client (the connection is the session)', () => {
  it('initializes, then a tools/call asks its question on the pipe and the answer comes back on input', async () => {
    const { mcp } = shop()
    const p = pipe(mcp)
    await p.send(initialize)
    const init = await p.next(byId(0))
    expect(schemaErrors2025('JSONRPCResultResponse', init)).toEqual([])
    expect(schemaErrors2025('InitializeResult', init.result)).toEqual([])
    expect(init.result.protocolVersion).toBe('2025-11-25')
    await p.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    await p.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'buy', arguments: { item: 'jam' } } })
    const question = await p.next((m) => m.method === 'elicitation/create')
    expect(schemaErrors2025('ElicitRequest', question)).toEqual([])
    expect(question.params.message).toBe('Buy jam?')
    await p.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { ok: true } } })
    const done = await p.next(byId(1))
    expect(schemaErrors2025('JSONRPCResultResponse', done)).toEqual([])
    expect(done.result.content).toEqual([{ type: 'text', text: 'bought jam' }])
    await p.end()
    await p.connection.closed
  })

  it('pipelined in one write, initialize + initialized + tools/call: the call waits for the session, then asks', async () => {
    const { mcp } = shop()
    const p = pipe(mcp)
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'buy', arguments: { item: 'jam' } } }
    const lines = [initialize, { jsonrpc: '2.0', method: 'notifications/initialized' }, call]
    await p.raw(lines.map((m) => JSON.stringify(m) + '\n').join(''))
    const question = await p.next((m) => m.method === 'elicitation/create' || byId(1)(m))
    expect(question.error).toBeUndefined() // before the fix: -32021, the call handled before the session existed
    expect(question.params.message).toBe('Buy jam?')
    expect(p.out.findIndex(byId(0))).toBe(0) // initialize answered first
    await p.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { ok: true } } })
    expect((await p.next(byId(1))).result.content).toEqual([{ type: 'text', text: 'bought jam' }])
    await p.end()
    await p.connection.closed
  })

  it('a cancelled question-asking request writes no response and withdraws its question', async () => {
    const { mcp } = shop()
    const p = pipe(mcp)
    await p.send(initialize)
    await p.next(byId(0))
    await p.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'buy', arguments: { item: 'jam' } } })
    const question = await p.next((m) => m.method === 'elicitation/create')
    await p.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } })
    const withdrawn = await p.next((m) => m.method === 'notifications/cancelled')
    expect(withdrawn.params.requestId).toBe(question.id)
    await p.end()
    await p.connection.closed
    expect(p.out.filter(byId(7))).toEqual([])
  })

  it('a request, answer and cancellation carrying the 2025 related-task `_meta` key are 2025 messages', async () => {
    const task = { 'io.modelcontextprotocol/related-task': { taskId: 't1' } }
    const { mcp } = shop()
    const p = pipe(mcp)
    await p.send(initialize)
    await p.next(byId(0))
    const buy = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'buy', arguments: { item: 'jam' }, _meta: task },
    })
    await p.send(buy(1))
    // before: -32602 "Missing required _meta field io.modelcontextprotocol/protocolVersion"
    const question = await p.next((m) => m.method === 'elicitation/create' || byId(1)(m))
    expect(question.method).toBe('elicitation/create')
    await p.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { ok: true }, _meta: task } })
    expect((await p.next(byId(1))).result.content).toEqual([{ type: 'text', text: 'bought jam' }])
    await p.send(buy(2))
    const second = await p.next((m) => m.method === 'elicitation/create' && m.id !== question.id)
    await p.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, _meta: task } })
    const withdrawn = await p.next((m) => m.method === 'notifications/cancelled')
    expect(withdrawn.params.requestId).toBe(second.id)
    await p.end()
    await p.connection.closed
    expect(p.out.filter(byId(2))).toEqual([])
  })

  it('a request asking a question when the input ends is aborted; the connection closes', async () => {
    const { mcp } = shop()
    const p = pipe(mcp)
    await p.send(initialize)
    await p.next(byId(0))
    await p.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'buy', arguments: { item: 'jam' } } })
    await p.next((m) => m.method === 'elicitation/create')
    await p.end()
    await p.connection.closed
    await p.outputClosed
  })

  it('without sealing (a plain Server) there is no session: a question needing a capability gets -32021 saying why', async () => {
    const server = new Server({ name: 'plain', version: '1' }, { logger: recordingLogger().logger })
    server.setRequestHandler('tools/call', () => ({
      resultType: 'input_required',
      inputRequests: { q: elicitForm('Sure?', CONFIRM) },
      requestState: 's',
    }))
    const p = pipe(server)
    await p.send(initialize)
    await p.next(byId(0))
    await p.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'x', arguments: {} } })
    const answer = await p.next(byId(3))
    expect(answer.error.code).toBe(-32021) // no session: what the client declared at initialize is unknown
    expect(answer.error.message).toMatch(/carries no Mcp-Session-Id/)
    await p.end()
    await p.connection.closed
  })
})

describe('serveStdio shutdown', () => {
  it('lets requests in flight finish when the input ends, then closes the output', async () => {
    const { mcp, aborted } = shop()
    const p = pipe(mcp)
    const slow = modern('tools/call', { name: 'slow', arguments: { ms: 150 } })
    await p.send(slow)
    await p.end()
    await p.connection.closed
    await p.outputClosed
    expect(aborted).toEqual([])
    expect(p.out.find(byId(slow.id))?.result.content[0].text).toBe('slept 150')
  })

  it('close() aborts the requests in flight and resolves once the output is closed', async () => {
    const { mcp, aborted } = shop()
    const p = pipe(mcp)
    const slow = modern('tools/call', { name: 'slow', arguments: { ms: 10_000 } })
    await p.send(slow)
    await sleep(20)
    const started = Date.now()
    await p.connection.close()
    await p.outputClosed
    expect(Date.now() - started).toBeLessThan(2000)
    expect(aborted).toEqual(['the stdio connection was closed'])
  })

  it('a broken output (EPIPE) stops the connection: no unhandled rejection, the failure logged once', async () => {
    const { mcp, log, aborted } = shop()
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const output = new WritableStream<Uint8Array>({
        write() {
          throw Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })
        },
      })
      const input = new TransformStream<Uint8Array, Uint8Array>()
      const connection = serveStdio(mcp, { input: input.readable, output })
      const writer = input.writable.getWriter()
      const line = (m: unknown) => new TextEncoder().encode(JSON.stringify(m) + '\n')
      await writer.write(line(modern('tools/call', { name: 'slow', arguments: { ms: 10_000 } })))
      await writer.write(line(modern('tools/list')))
      await connection.closed
      await sleep(20)
      expect(log.warn.filter((w) => /output broke/.test(w))).toHaveLength(1)
      expect(aborted).toEqual(['the stdio output broke'])
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })
})
