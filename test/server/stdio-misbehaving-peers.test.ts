/**
 * serveStdio with misbehaving peers: a peer that never reads (close() must not wait on it), a 2025 client
 * whose question was answered before it ended its input, ids `1` and `"1"`, answers twice or to no
 * question, a response on a 2026 connection, cancellations of unknown requests, a second `initialize`,
 * thousands of concurrent requests, a reused id (refused and logged), a line exactly at the cap with CRLF,
 * a UTF-8 BOM, the server's id-less error for a line over its cap reaching the client's only request; no
 * unhandled rejection. The client transport with a misbehaving server is in test/client/stdio.test.ts.
 */
import { describe, expect, it } from 'vitest'
import * as valibot from 'valibot'
import { StdioClientTransport } from '../../src/client/index.ts'
import { acceptedContent, elicitForm, inputRequired, McpServer, serveStdio } from '../../src/server/index.ts'
import type { JSONRPCRequest } from '../../src/index.ts'
import { readLines } from '../../src/protocol/stdio-lines.ts'
import { env, recordingLogger } from '../helpers.ts'
import { initialize, noUnhandled, pipe, sleep, stuck, type Out } from '../stdio-harness.ts'

const CONFIRM = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } }, required: ['ok'] }
const byId = (id: unknown) => (m: Out) => m.id === id && !('method' in m)
const encoder = new TextEncoder()

/** A shop whose `buy` asks first, then works `ms` after the answer (unless aborted). */
function shop() {
  const log = recordingLogger()
  const aborted: string[] = []
  const mcp = new McpServer({ name: 'shop', version: '1.0.0' }, { logger: log.logger })
  mcp.tool('greet', { input: { name: valibot.string() } }, ({ name }) => `Hello, ${name}!`)
  mcp.tool('buy', { input: { item: valibot.string(), ms: valibot.number() } }, async ({ item, ms }, ctx) => {
    const answer = acceptedContent(ctx.inputResponses?.confirm)
    if (ctx.requestState !== 'confirming' || !answer)
      return inputRequired({ confirm: elicitForm(`Buy ${item}?`, CONFIRM) }, 'confirming')
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      ctx.signal.addEventListener('abort', () => {
        aborted.push(String((ctx.signal.reason as Error).message))
        clearTimeout(timer)
        resolve()
      })
    })
    return answer.ok ? `bought ${item}` : 'nothing bought'
  })
  return { mcp, log, aborted }
}

const modern = (id: string | number, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method,
  params: { ...params, _meta: env() },
})

describe('serveStdio: a peer that stops reading', () => {
  it('close() resolves though the output takes nothing (what is queued is given up after a grace period)', async () => {
    await noUnhandled(async () => {
      const { mcp } = shop()
      const p = pipe(mcp, { output: stuck() })
      await p.send(modern(1, 'tools/call', { name: 'greet', arguments: { name: 'Ada' } }))
      await sleep(20) // the response waits on the output
      const started = Date.now()
      await p.connection.close()
      expect(Date.now() - started).toBeLessThan(3000)
    })
  })

  it('close() resolves though the input already ended and the output is still flushing', async () => {
    await noUnhandled(async () => {
      const { mcp } = shop()
      const p = pipe(mcp, { output: stuck() })
      await p.send(modern(1, 'tools/list'))
      await p.end()
      await sleep(20)
      let closed = false
      void p.connection.closed.then(() => (closed = true))
      await sleep(20)
      expect(closed).toBe(false) // a slow reader is waited for: the input ended, the response not yet taken
      await p.connection.close()
      expect(closed).toBe(true)
    })
  })
})

describe('serveStdio: a 2025 client ending its input, answering twice, initializing again', () => {
  it('a request whose question was answered is not aborted when the input ends: it finishes, its response is written', async () => {
    const { mcp, aborted } = shop()
    const p = pipe(mcp)
    await p.send(initialize)
    await p.next(byId(0))
    await p.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'buy', arguments: { item: 'jam', ms: 100 } },
    })
    const question = await p.next((m) => m.method === 'elicitation/create')
    await p.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { ok: true } } })
    await p.end() // at once: the answer may not be delivered yet, but it came
    await p.connection.closed
    await p.outputClosed
    expect(aborted).toEqual([])
    expect(p.out.find(byId(1))?.result.content).toEqual([{ type: 'text', text: 'bought jam' }])
  })

  it('a request whose question was answered, when the input ends later, finishes too', async () => {
    const { mcp, aborted } = shop()
    const p = pipe(mcp)
    await p.send(initialize)
    await p.next(byId(0))
    await p.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'buy', arguments: { item: 'jam', ms: 100 } },
    })
    const question = await p.next((m) => m.method === 'elicitation/create')
    await p.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { ok: true } } })
    await sleep(30) // the answer is delivered; the tool works on
    await p.end()
    await p.connection.closed
    await p.outputClosed
    expect(aborted).toEqual([])
    expect(p.out.find(byId(1))?.result.content).toEqual([{ type: 'text', text: 'bought jam' }])
  })

  it('an answer given twice, or to no question, writes nothing (the unknown ones are logged); the request goes on', async () => {
    const { mcp, log } = shop()
    const p = pipe(mcp)
    await p.send(initialize)
    await p.next(byId(0))
    await p.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'buy', arguments: { item: 'jam', ms: 0 } },
    })
    const question = await p.next((m) => m.method === 'elicitation/create')
    const answer = { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { ok: true } } }
    await p.send(answer)
    await p.next(byId(1))
    await p.send(answer) // twice
    await p.send({ ...answer, id: 12345 }) // to no question
    await p.send({ ...answer, id: String(question.id) + 'x' })
    await p.send(modern(2, 'tools/list'))
    await p.next(byId(2))
    await p.end()
    await p.connection.closed
    expect(p.out.filter((m) => m.id === undefined || m.id === question.id)).toEqual([question])
    // the answer given twice is kept a while as an early answer (the mailbox's bounded store): not refused
    expect(log.warn.filter((w) => /a response from the client was refused/.test(w))).toHaveLength(2)
  })

  it('a second initialize is answered, and the connection still asks and gets its answers', async () => {
    const { mcp } = shop()
    const p = pipe(mcp)
    await p.send(initialize)
    await p.next(byId(0))
    await p.send({ ...initialize, id: 'again' })
    expect((await p.next(byId('again'))).result.protocolVersion).toBe('2025-11-25')
    await p.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'buy', arguments: { item: 'tea', ms: 0 } },
    })
    const question = await p.next((m) => m.method === 'elicitation/create')
    await p.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { ok: true } } })
    expect((await p.next(byId(1))).result.content[0]?.text).toBe('bought tea')
    await p.end()
    await p.connection.closed
  })
})

describe('serveStdio: ids and stray messages on a 2026 connection', () => {
  it('ids 1 and "1" are two requests, each answered under its own id', async () => {
    const { mcp } = shop()
    const p = pipe(mcp)
    await p.send(modern(1, 'tools/call', { name: 'greet', arguments: { name: 'one' } }))
    await p.send(modern('1', 'tools/call', { name: 'greet', arguments: { name: 'string one' } }))
    expect((await p.next(byId(1))).result.content[0]?.text).toBe('Hello, one!')
    expect((await p.next(byId('1'))).result.content[0]?.text).toBe('Hello, string one!')
    await p.end()
    await p.connection.closed
    expect(p.out).toHaveLength(2)
  })

  it('a request reusing the id of one in flight is refused and logged, as docs/stdio.md says', async () => {
    const { mcp, log } = shop()
    const p = pipe(mcp)
    await p.send(initialize)
    await p.next(byId(0))
    const buy = {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'buy', arguments: { item: 'x', ms: 0 } },
    }
    await p.send(buy)
    await p.next((m) => m.method === 'elicitation/create')
    await p.send(buy)
    expect((await p.next(byId(4))).error.code).toBe(-32600)
    expect(log.warn).toContain('stdio: Invalid Request: request id 4 is already in use by a request in flight')
    await p.end()
    await p.connection.closed
  })

  it('a response from a 2026 client, and cancellations of unknown requests, write nothing and end nothing', async () => {
    await noUnhandled(async () => {
      const { mcp, log } = shop()
      const p = pipe(mcp)
      await p.send({ jsonrpc: '2.0', id: 5, result: {} })
      await p.send({ jsonrpc: '2.0', id: 6, error: { code: -1, message: 'no' } })
      for (const params of [{ requestId: 99 }, { requestId: '1' }, {}, { requestId: null }, { requestId: { a: 1 } }])
        await p.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params })
      await p.send(modern(1, 'tools/list'))
      await p.next(byId(1))
      await p.end()
      await p.connection.closed
      expect(p.out).toHaveLength(1)
      expect(log.warn.filter((w) => /a response from the client was refused/.test(w))).toHaveLength(2)
    })
  })

  it('answers 3,000 requests sent at once, each exactly once', async () => {
    const { mcp } = shop()
    let text = ''
    const decoder = new TextDecoder()
    const output = new WritableStream<Uint8Array>({ write: (chunk) => void (text += decoder.decode(chunk)) })
    const p = pipe(mcp, { output })
    const lines = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify(modern(i, 'tools/call', { name: 'greet', arguments: { name: String(i) } })),
    )
    await p.raw(lines.join('\n') + '\n')
    await p.end()
    await p.connection.closed
    const out = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Out)
    expect(out).toHaveLength(3000)
    expect(new Set(out.map((m) => m.id)).size).toBe(3000)
    expect(out.every((m) => m.result.content[0]?.text === `Hello, ${String(m.id)}!`)).toBe(true)
  })
})

describe('stdio framing: a line at the cap, CRLF, a byte order mark', () => {
  it('a line of exactly maxLineBytes is accepted with LF or CRLF; one byte more is too long', async () => {
    const read = async (text: string) => {
      const out = []
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          for (const ch of text) c.enqueue(encoder.encode(ch)) // one chunk per character: every split
          c.close()
        },
      })
      for await (const line of readLines(stream, { maxLineBytes: 5 })) out.push(line)
      return out
    }
    expect(await read('12345\n')).toEqual([{ kind: 'line', text: '12345' }])
    expect(await read('12345\r\n')).toEqual([{ kind: 'line', text: '12345' }])
    expect(await read('123456\n')).toEqual([{ kind: 'too-long', bytes: 6 }])
    expect(await read('123456\r\n')).toEqual([{ kind: 'too-long', bytes: 7 }])
    expect(await read('12345\r\r\n')).toEqual([{ kind: 'too-long', bytes: 7 }])
    expect(await read('12345\r')).toEqual([{ kind: 'truncated', bytes: 6 }])
  })

  it('serveStdio answers a request of exactly maxLineBytes sent with CRLF', async () => {
    const { mcp } = shop()
    const line = JSON.stringify(modern(1, 'tools/list'))
    const p = pipe(mcp, { maxLineBytes: encoder.encode(line).length })
    await p.raw(line + '\r\n')
    expect((await p.next(byId(1))).result.tools).toHaveLength(2)
    await p.end()
    await p.connection.closed
  })

  it('a UTF-8 byte order mark before the first message is tolerated', async () => {
    const { mcp } = shop()
    const p = pipe(mcp)
    await p.raw(new Uint8Array([0xef, 0xbb, 0xbf]))
    await p.send(modern(1, 'tools/list'))
    expect((await p.next(byId(1))).result.tools).toHaveLength(2)
    await p.end()
    await p.connection.closed
  })
})

describe('StdioClientTransport against serveStdio', () => {
  it('a request over the server’s maxLineBytes fails at once with the -32600 the server answers without an id', async () => {
    const { mcp } = shop()
    const toServer = new TransformStream<Uint8Array, Uint8Array>()
    const toClient = new TransformStream<Uint8Array, Uint8Array>()
    const connection = serveStdio(mcp, { input: toServer.readable, output: toClient.writable, maxLineBytes: 1000 })
    const warnings: string[] = []
    const transport = new StdioClientTransport({
      input: toClient.readable,
      output: toServer.writable,
      onWarning: (w) => warnings.push(w),
    })
    const big = modern(1, 'tools/call', { name: 'greet', arguments: { name: 'x'.repeat(2000) } })
    const answer = (await transport.send(big as JSONRPCRequest, { signal: AbortSignal.timeout(3000) })) as Out
    expect(answer.error.code).toBe(-32600)
    expect(answer.error.message).toMatch(/over the 1000-byte cap/)
    expect(warnings).toEqual([])
    await transport.close()
    await connection.closed
  })
})
