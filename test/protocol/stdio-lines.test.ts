/**
 * serveStdio's framing on the wire: messages split across chunks and merged into one, a multi-byte
 * character split between chunks, CRLF; errors that are reported and never fatal (a line that is not
 * JSON, not UTF-8, not JSON-RPC, over the cap; the input ending mid-message); a slow reader (output
 * back-pressure): nothing lost, order kept.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { McpServer, serveStdio } from '../../src/server/index.ts'
import { env, recordingLogger } from '../helpers.ts'
import { schemaErrors } from '../spec-schema.ts'
import { pipe, sleep, type Out } from '../stdio-harness.ts'

function echo() {
  const log = recordingLogger()
  const mcp = new McpServer({ name: 'echo', version: '1.0.0' }, { logger: log.logger })
  mcp.tool('echo', { input: { text: v.string() } }, ({ text }) => text)
  return { mcp, log }
}
const call = (id: number | string, text: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text }, _meta: env() },
  })
const textOf = (m: Out | undefined) => m?.result?.content?.[0]?.text
const byId = (id: unknown) => (m: Out) => m.id === id

describe('serveStdio framing', () => {
  it('reads a message split over many chunks, and many messages in one chunk', async () => {
    const { mcp } = echo()
    const p = pipe(mcp)
    const line = call(1, 'split') + '\n'
    for (let i = 0; i < line.length; i += 7) await p.raw(line.slice(i, i + 7))
    await p.raw(call(2, 'a') + '\n' + call(3, 'b') + '\r\n\n' + call(4, 'c') + '\n')
    await p.end()
    await p.connection.closed
    await p.outputClosed
    expect([1, 2, 3, 4].map((id) => textOf(p.out.find(byId(id))))).toEqual(['split', 'a', 'b', 'c'])
    for (const m of p.out) expect(schemaErrors('CallToolResultResponse', m)).toEqual([])
    expect(p.text().split('\n')).toHaveLength(5) // one line per message, nothing else on the output
  })

  it('decodes a multi-byte character split between two chunks', async () => {
    const { mcp } = echo()
    const p = pipe(mcp)
    const bytes = new TextEncoder().encode(call(1, 'naïve 🦀') + '\n')
    const crab = bytes.indexOf(0xf0)
    await p.raw(bytes.subarray(0, crab + 2))
    await sleep(5)
    await p.raw(bytes.subarray(crab + 2))
    await p.end()
    await p.connection.closed
    expect(textOf(p.out[0])).toBe('naïve 🦀')
  })

  it('answers a line that is not JSON with -32700 (no id), logs it, and goes on', async () => {
    const { mcp, log } = echo()
    const p = pipe(mcp)
    await p.raw('this is not json\n' + call(1, 'after') + '\n')
    await p.end()
    await p.connection.closed
    expect(p.out[0]).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error: the line is not valid JSON' },
    })
    expect(schemaErrors('JSONRPCErrorResponse', p.out[0])).toEqual([])
    expect(log.warn).toEqual(['stdio: Parse error: the line is not valid JSON (16 characters)'])
    expect(textOf(p.out[1])).toBe('after')
  })

  it('answers JSON that is not JSON-RPC with the -32600 classifyMessage gives, with its id when readable', async () => {
    const { mcp, log } = echo()
    const p = pipe(mcp)
    await p.raw('{"jsonrpc":"2.0","id":9,"method":7}\n[1,2]\n' + call(1, 'after') + '\n')
    await p.end()
    await p.connection.closed
    expect([p.out[0]?.id, p.out[0]?.error.code]).toEqual([9, -32600])
    expect(p.out[0]?.error.message).toMatch(/"method"/)
    expect(p.out[1]?.error.code).toBe(-32600)
    expect(p.out[1]?.error.message).toMatch(/batches/)
    expect(p.out[1]).not.toHaveProperty('id')
    expect(log.warn).toHaveLength(2)
    expect(textOf(p.out[2])).toBe('after')
  })

  it('answers a line over maxLineBytes with -32600 naming the cap in bytes, and a non-UTF-8 line with -32700', async () => {
    const { mcp, log } = echo()
    const p = pipe(mcp, { maxLineBytes: 400 })
    await p.raw(call(1, 'x'.repeat(500)) + '\n')
    await p.raw(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d, 0x0a]))
    await p.raw(call(2, 'fits') + '\n')
    await p.end()
    await p.connection.closed
    expect(p.out[0]?.error.code).toBe(-32600)
    const bytes = new TextEncoder().encode(call(1, 'x'.repeat(500))).length
    expect(p.out[0]?.error.message).toBe(
      `Invalid Request: the line is ${bytes} bytes, over the 400-byte cap (maxLineBytes)`,
    )
    expect(p.out[0]).not.toHaveProperty('id')
    expect(p.out[1]).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error: the line is not valid UTF-8' },
    })
    expect(textOf(p.out[2])).toBe('fits')
    expect(log.warn).toHaveLength(2)
  })

  it('logs a message cut off by the end of the input, answers nothing for it, and closes', async () => {
    const { mcp, log } = echo()
    const p = pipe(mcp)
    await p.raw(call(1, 'whole') + '\n' + call(2, 'cut').slice(0, 30))
    await p.end()
    await p.connection.closed
    await p.outputClosed
    expect(p.out.map((m) => m.id)).toEqual([1])
    expect(log.warn).toEqual(['stdio: the input ended in the middle of a message (30 bytes dropped)'])
  })

  it('rejects a maxLineBytes that is not a positive integer', () => {
    const { mcp } = echo()
    const make = (maxLineBytes: number) =>
      serveStdio(mcp, { input: new ReadableStream(), output: new WritableStream(), maxLineBytes })
    expect(() => make(0)).toThrow(RangeError)
    expect(() => make(1.5)).toThrow(RangeError)
  })

  it('waits for a slow reader (highWaterMark 1): nothing lost, order kept', async () => {
    const mcp = new McpServer({ name: 'chatty', version: '1.0.0' })
    // a tool sending 50 progress notifications before its result: all must come out, in order
    mcp.tool('count', { input: { n: v.number() } }, ({ n }, ctx) => {
      for (let i = 1; i <= n; i++) ctx.sendProgress(i, n)
      return `counted ${n}`
    })
    const received: string[] = []
    const decoder = new TextDecoder()
    const output = new WritableStream<Uint8Array>(
      {
        async write(chunk) {
          await sleep(1)
          received.push(decoder.decode(chunk))
        },
      },
      new CountQueuingStrategy({ highWaterMark: 1 }),
    )
    const p = pipe(mcp, { output })
    const lines: string[] = []
    for (let id = 1; id <= 20; id++) {
      const params = { name: 'count', arguments: { n: 50 }, _meta: { ...env(), progressToken: `t${id}` } }
      lines.push(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }))
    }
    await p.raw(lines.join('\n') + '\n')
    await p.end()
    await p.connection.closed
    const messages = received
      .join('')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Out)
    expect(messages).toHaveLength(20 * 51)
    for (let id = 1; id <= 20; id++) {
      const mine = messages.filter((m) => m.id === id || m.params?.progressToken === `t${id}`)
      expect(mine.map((m) => m.params?.progress ?? textOf(m))).toEqual([
        ...Array.from({ length: 50 }, (_, i) => i + 1),
        'counted 50',
      ])
    }
  })

  it('stops reading while more than 64 messages wait for the output, and goes on when it drains', async () => {
    const mcp = new McpServer({ name: 'counter', version: '1.0.0' })
    let calls = 0
    mcp.tool('count', { input: {} }, () => String(++calls))
    let release!: () => void
    const drained = new Promise<void>((resolve) => (release = resolve))
    const received: string[] = []
    const decoder = new TextDecoder()
    const output = new WritableStream<Uint8Array>(
      {
        async write(chunk) {
          await drained // a reader that reads nothing until released
          received.push(decoder.decode(chunk))
        },
      },
      new CountQueuingStrategy({ highWaterMark: 1 }),
    )
    const p = pipe(mcp, { output })
    const lines = Array.from({ length: 300 }, (_, i) =>
      JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'count', _meta: env() } }),
    )
    void p.raw(lines.join('\n') + '\n')
    await sleep(200)
    expect(calls).toBeGreaterThan(60)
    expect(calls).toBeLessThan(80) // the rest of the input is left unread
    release()
    await p.end()
    await p.connection.closed
    expect(calls).toBe(300)
    const ids = received
      .join('')
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as Out).id)
    expect(ids).toHaveLength(300)
    expect(new Set(ids).size).toBe(300)
  })
})
