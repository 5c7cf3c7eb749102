/**
 * The stdio client transport over in-process TransformStreams, against a scripted server that
 * reads the client's lines and writes raw bytes: framing (split and merged chunks), what is not a message
 * (reported, not fatal), the server exiting mid-request, cancellation, routing of notifications and of a
 * 2025 server's requests, `close()`, back-pressure, and the era probe on stdio (no answer in time is a
 * legacy server; a late answer is dropped).
 */
import { describe, expect, it } from 'vitest'
import type { StdioClientTransportOptions } from '../../src/client/stdio.ts'
import {
  Client,
  ConnectionClosedError,
  listen,
  RequestTimeoutError,
  StdioClientTransport,
  StreamableHttpClientTransport,
} from '../../src/client/index.ts'
import { readLines } from '../../src/protocol/stdio-lines.ts'
import type { JSONRPCNotification, JSONRPCRequest } from '../../src/index.ts'
import { noUnhandled, sleep, stuck } from '../stdio-harness.ts'

const encoder = new TextEncoder()
type Message = Record<string, unknown> & { id?: string | number; method?: string; params?: Record<string, unknown> }

/**
 * A client transport wired to a scripted server: `next()` is the next message the client wrote, `write`
 * sends raw text or bytes to the client, `reply` one message as a line, `exit()` ends the server's output.
 */
function connect(
  options: Partial<StdioClientTransportOptions> = {},
  toServer = new TransformStream<Uint8Array, Uint8Array>(),
) {
  const toClient = new TransformStream<Uint8Array, Uint8Array>()
  const warnings: string[] = []
  const transport = new StdioClientTransport({
    input: toClient.readable,
    output: toServer.writable,
    onWarning: (w) => warnings.push(w),
    ...options,
  })
  const writer = toClient.writable.getWriter()
  const lines = readLines(toServer.readable)
  const next = async (): Promise<Message | undefined> => {
    const line = await lines.next()
    if (line.done) return undefined
    if (line.value.kind !== 'line') throw new Error(`the client wrote a bad line: ${line.value.kind}`)
    return JSON.parse(line.value.text) as Message
  }
  const write = (data: string | Uint8Array) => writer.write(typeof data === 'string' ? encoder.encode(data) : data)
  const reply = (message: unknown) => write(`${JSON.stringify(message)}\n`)
  return { transport, warnings, next, write, reply, exit: () => writer.close() }
}

const request = (id: number, method: string, params: Record<string, unknown> = {}): JSONRPCRequest => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
})
const result = (id: string | number, value: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, result: value })

describe('StdioClientTransport: framing', () => {
  it('matches responses to requests by id, whatever their order', async () => {
    const { transport, next, reply } = connect()
    const one = transport.send(request(1, 'tools/list'))
    const two = transport.send(request(2, 'prompts/list'))
    expect((await next())?.method).toBe('tools/list')
    expect((await next())?.method).toBe('prompts/list')
    await reply(result(2, { prompts: [] }))
    await reply(result(1, { tools: [] }))
    expect(await one).toEqual(result(1, { tools: [] }))
    expect(await two).toEqual(result(2, { prompts: [] }))
  })

  it('reads a message split across chunks (a multi-byte character cut in two) and two messages in one chunk', async () => {
    const { transport, next, write, warnings } = connect()
    const one = transport.send(request(1, 'a'))
    const two = transport.send(request(2, 'b'))
    const three = transport.send(request(3, 'c'))
    await next()
    const bytes = encoder.encode(`${JSON.stringify(result(1, { text: 'crème brûlée ✓' }))}\n`)
    const cut = bytes.indexOf(0xc3) + 1 // inside the two bytes of "è"
    await write(bytes.subarray(0, cut))
    await write(bytes.subarray(cut, cut + 5))
    await write(bytes.subarray(cut + 5))
    expect(await one).toEqual(result(1, { text: 'crème brûlée ✓' }))
    await write(`${JSON.stringify(result(3))}\r\n${JSON.stringify(result(2))}\n`)
    expect(await two).toEqual(result(2))
    expect(await three).toEqual(result(3))
    expect(warnings).toEqual([])
  })

  it('reports a line that is not JSON, or not JSON-RPC, and goes on', async () => {
    const { transport, write, reply, warnings } = connect()
    const pending = transport.send(request(1, 'tools/list'))
    await write('Server starting on stdout, oops\n')
    await write('{"hello":"world"}\n[1,2]\n{"jsonrpc":"2.0"}\n')
    await reply(result(1))
    expect(await pending).toEqual(result(1))
    expect(warnings).toEqual([
      'a line that is not JSON was skipped: "Server starting on stdout, oops"',
      'a line that is no JSON-RPC message was skipped: "{\\"hello\\":\\"world\\"}"',
      'a line that is no JSON-RPC message was skipped: "[1,2]"',
      'a line that is no JSON-RPC message was skipped: "{\\"jsonrpc\\":\\"2.0\\"}"',
    ])
  })

  it('skips a line over maxLineBytes (reported), then reads the next', async () => {
    const { transport, write, reply, warnings } = connect({ maxLineBytes: 64 })
    const pending = transport.send(request(1, 'tools/list'))
    await write(`${JSON.stringify(result(1, { text: 'x'.repeat(100) }))}\n`)
    await reply(result(1, { ok: true }))
    expect(await pending).toEqual(result(1, { ok: true }))
    expect(warnings).toEqual([
      expect.stringMatching(/^a line of 1\d\d bytes from the server, over maxLineBytes \(64\)/),
    ])
  })

  it('reports invalid UTF-8, an answer to no request, and caps its reports at 20 plus one notice', async () => {
    const { transport, write, reply, warnings } = connect()
    const pending = transport.send(request(1, 'x'))
    await write(new Uint8Array([0xff, 0xfe, 0x0a]))
    await reply(result(99))
    expect(warnings.slice(0, 2)).toEqual([
      'a line of 2 bytes that is not UTF-8 was skipped',
      'an answer to no request in flight was dropped (id 99)',
    ])
    for (let i = 0; i < 30; i++) await write('noise\n')
    await reply(result(1))
    await pending
    expect(warnings).toHaveLength(21)
    expect(warnings[20]).toMatch(/no more is reported/)
  })

  it('refuses a maxLineBytes or probeTimeoutMs that is not a positive integer', () => {
    const streams = () => ({ input: new ReadableStream<Uint8Array>(), output: new WritableStream<Uint8Array>() })
    expect(() => new StdioClientTransport({ ...streams(), maxLineBytes: 0 })).toThrow(RangeError)
    expect(() => new StdioClientTransport({ ...streams(), probeTimeoutMs: 1.5 })).toThrow(
      'probeTimeoutMs must be a positive integer, got 1.5',
    )
    expect(new StdioClientTransport(streams()).probeTimeoutMs).toBe(5000)
  })
})

describe('StdioClientTransport: the end of the connection', () => {
  it('the server exits mid-request: the request fails clearly, later sends throw, streams settle', async () => {
    const { transport, next, exit } = connect()
    const stream = await transport.openStream({ signal: new AbortController().signal })
    const pending = transport.send(request(1, 'tools/call', { name: 'slow' }))
    await next()
    await exit()
    const error = await pending.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectionClosedError)
    expect((error as Error).message).toBe(
      'The stdio server closed its output (it exited?) before the answer to tools/call',
    )
    await expect(stream.closed).resolves.toBeUndefined()
    await expect(transport.send(request(2, 'tools/list'))).rejects.toThrow(ConnectionClosedError)
    await expect(transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' })).rejects.toThrow(
      'The stdio server closed its output (it exited?)',
    )
    // and the server's stdin was closed too
    expect(await next()).toBeUndefined()
  })

  it('a Client call fails with ConnectionClosedError when the server exits', async () => {
    const { transport, next, exit } = connect()
    const client = new Client({ transport, versionNegotiation: 'modern' })
    const call = client.callTool('slow')
    await next()
    await exit()
    await expect(call).rejects.toThrow(ConnectionClosedError)
  })

  it('close(): pending requests fail, the server reads the end of its input, later sends throw', async () => {
    const { transport, next } = connect()
    const pending = transport.send(request(1, 'tools/list'))
    await next()
    await transport.close()
    await expect(pending).rejects.toThrow('The stdio transport was closed before the answer to tools/list')
    expect(await next()).toBeUndefined()
    await expect(transport.send(request(2, 'tools/list'))).rejects.toThrow('The stdio transport was closed')
    await transport.close() // again: nothing happens
  })

  it("a broken pipe (the server's stdin errors) fails the request with ConnectionClosedError", async () => {
    const toServer = new TransformStream<Uint8Array, Uint8Array>()
    const { transport } = connect({}, toServer)
    await toServer.readable.cancel(new Error('EPIPE'))
    const error = await transport.send(request(1, 'tools/list')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectionClosedError)
    expect((error as Error).message).toMatch(/^Could not write to the stdio server's input/)
  })

  it('a message JSON cannot hold is refused as is, and the connection goes on', async () => {
    const { transport, next, reply } = connect()
    await expect(transport.send(request(1, 'x', { n: 1n as unknown as number }))).rejects.toThrow(TypeError)
    const ok = transport.send(request(2, 'y'))
    expect((await next())?.id).toBe(2)
    await reply(result(2))
    await expect(ok).resolves.toEqual(result(2))
  })
})

describe('StdioClientTransport: cancellation', () => {
  it('an aborted request sends notifications/cancelled naming it, rejects with the reason, and drops a late answer', async () => {
    const { transport, next, reply, warnings } = connect()
    const controller = new AbortController()
    const pending = transport.send(request(7, 'tools/call', { name: 'slow' }), { signal: controller.signal })
    await next()
    controller.abort(new Error('user gave up'))
    await expect(pending).rejects.toThrow('user gave up')
    expect(await next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7, reason: 'user gave up' },
    })
    await reply(result(7)) // too late
    const after = transport.send(request(8, 'tools/list'))
    await next()
    await reply(result(8))
    await expect(after).resolves.toEqual(result(8))
    expect(warnings).toEqual([])
  })

  it("the Client's request timeout cancels the request on the wire", async () => {
    const { transport, next } = connect()
    const client = new Client({ transport, versionNegotiation: 'modern', requestTimeoutMs: 50 })
    const call = client.listTools()
    const sent = await next()
    await expect(call).rejects.toThrow(RequestTimeoutError)
    expect(await next()).toMatchObject({ method: 'notifications/cancelled', params: { requestId: sent?.id } })
  })
})

describe('StdioClientTransport: routing what is not a response', () => {
  it('progress goes to the request of its token, a subscription notification to its listen request', async () => {
    const { transport, next, reply } = connect()
    const progress: unknown[] = []
    const listened: unknown[] = []
    const call = transport.send(request(1, 'tools/call', { _meta: { progressToken: 'p-1' } }), {
      onNotification: (n) => progress.push(n.params),
    })
    const other = transport.send(request(2, 'tools/call', { _meta: { progressToken: 'p-2' } }), {
      onNotification: () => progress.push('wrong request'),
    })
    const sub = transport.send(request(3, 'subscriptions/listen'), { onNotification: (n) => listened.push(n.method) })
    for (let i = 0; i < 3; i++) await next()
    await reply({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p-1', progress: 1 } })
    await reply({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 3 } },
    })
    await reply({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 3, reason: 'shutting down' },
    })
    await expect(sub).rejects.toThrow('The server ended the subscription: "shutting down"')
    await reply(result(1))
    await reply(result(2))
    await Promise.all([call, other])
    expect(progress).toEqual([{ progressToken: 'p-1', progress: 1 }])
    expect(listened).toEqual(['notifications/tools/list_changed'])
  })

  it('an uncorrelated notification goes to the open streams, else to the only request in flight', async () => {
    const { transport, next, reply } = connect()
    const seen: string[] = []
    const log = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }
    const call = transport.send(request(1, 'tools/call'), { onNotification: () => seen.push('request') })
    await next()
    await reply(log)
    const controller = new AbortController()
    const stream = await transport.openStream({
      signal: controller.signal,
      onNotification: () => seen.push('stream'),
    })
    await reply(log)
    controller.abort()
    await stream.closed
    await reply(log)
    await reply(result(1))
    await call
    expect(seen).toEqual(['request', 'stream', 'request'])
  })

  it("a 2025 server's request goes to the request in flight, else to the stream; with neither, ping is answered {} and others -32601", async () => {
    const { transport, next, reply } = connect()
    const asked: string[] = []
    const call = transport.send(request(1, 'tools/call'), { onRequest: (r) => asked.push(`call:${r.method}`) })
    await next()
    await reply({ jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: {} })
    await reply(result(1))
    await call
    const controller = new AbortController()
    await transport.openStream({ signal: controller.signal, onRequest: (r) => asked.push(`stream:${r.method}`) })
    await reply({ jsonrpc: '2.0', id: 1, method: 'roots/list' })
    controller.abort()
    await reply({ jsonrpc: '2.0', id: 2, method: 'ping' })
    await reply({ jsonrpc: '2.0', id: 3, method: 'sampling/createMessage', params: {} })
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 2, result: {} })
    expect(await next()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32601, message: 'Method not found: sampling/createMessage' },
    })
    expect(asked).toEqual(['call:elicitation/create', 'stream:roots/list'])
  })

  it("a 2025 server's request carrying a request's progressToken goes to that request, of several in flight", async () => {
    const { transport, next, reply } = connect()
    const asked: string[] = []
    const first = transport.send(request(1, 'tools/call', { _meta: { progressToken: 'p-1' } }), {
      onRequest: () => asked.push('first'),
    })
    const second = transport.send(request(2, 'tools/call', { _meta: { progressToken: 'p-2' } }), {
      onRequest: () => asked.push('second'),
    })
    await next()
    await next()
    await reply({ jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: { _meta: { progressToken: 'p-2' } } })
    await reply({ jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: {} }) // no token: the oldest
    await reply(result(1))
    await reply(result(2))
    await Promise.all([first, second])
    expect(asked).toEqual(['second', 'first'])
  })

  it('listen() over stdio: the acknowledgement and notifications reach the subscription by its id', async () => {
    const { transport, next, reply } = connect()
    const client = new Client({ transport, versionNegotiation: 'modern' })
    const subscribing = listen(client, { toolsListChanged: true })
    const sent = (await next())!
    expect(sent.method).toBe('subscriptions/listen')
    const meta = { 'io.modelcontextprotocol/subscriptionId': sent.id }
    await reply({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true }, _meta: meta },
    })
    const subscription = await subscribing
    const got: JSONRPCNotification[] = []
    const iterate = (async () => {
      for await (const n of subscription) got.push(n)
    })()
    await reply({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: meta } })
    await reply(result(sent.id!, { resultType: 'complete' })) // the server's graceful close
    await iterate
    await expect(subscription.ended).resolves.toBe('closed')
    expect(got.map((n) => n.method)).toEqual(['notifications/tools/list_changed'])
  })
})

describe('StdioClientTransport: back-pressure', () => {
  it('waits for a slow server to read: writes stay in order, none lost, sends resolve as they are taken', async () => {
    const toServer = new TransformStream<Uint8Array, Uint8Array>(undefined, { highWaterMark: 1 }, { highWaterMark: 0 })
    const { transport, next } = connect({}, toServer)
    let written = 0
    const sends = Array.from({ length: 20 }, (_, i) =>
      transport
        .send({ jsonrpc: '2.0', method: 'notifications/message', params: { n: i, pad: 'x'.repeat(1000) } })
        .then(() => written++),
    )
    await new Promise((r) => setTimeout(r, 50))
    expect(written).toBeLessThan(5) // held back: nobody reads
    const order: unknown[] = []
    for (let i = 0; i < 20; i++) {
      order.push((await next())?.params?.n)
      await new Promise((r) => setTimeout(r, 2))
    }
    await Promise.all(sends)
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i))
  })
})

/** A scripted stdio server for the Client: `answer` returns the response for a request, or undefined for none. */
function scripted(
  answer: (message: Message, seen: string[]) => unknown,
  options: Partial<StdioClientTransportOptions> = {},
) {
  const conn = connect(options)
  const seen: string[] = []
  void (async () => {
    for (let m = await conn.next(); m; m = await conn.next()) {
      seen.push(m.method ?? '(answer)')
      const response = answer(m, seen)
      if (response !== undefined) await conn.reply(response)
    }
  })()
  return { ...conn, seen }
}

const INITIALIZE_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'old', version: '1' },
}

/** A 2025 server that answers `server/discover` with `discover` (undefined: not at all). */
function legacyServer(discover: (m: Message) => unknown, options: Partial<StdioClientTransportOptions> = {}) {
  return scripted((m) => {
    if (m.method === 'server/discover') return discover(m)
    if (m.method === 'initialize') return result(m.id!, INITIALIZE_RESULT)
    if (m.method === 'tools/list') return result(m.id!, { tools: [{ name: 'add', inputSchema: { type: 'object' } }] })
    return undefined
  }, options)
}

describe("the Client's era on stdio ('auto')", () => {
  it('over HTTP (no probeTimeoutMs) a probe that times out is still no verdict: the timeout is thrown', async () => {
    const hang = (request: Request) =>
      new Promise<Response>((_, reject) => request.signal.addEventListener('abort', () => reject(new Error('aborted'))))
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch: hang }),
      requestTimeoutMs: 50,
    })
    await expect(client.listTools()).rejects.toThrow(RequestTimeoutError)
    expect(client.era).toBeUndefined()
  })

  it('a probe left unanswered for probeTimeoutMs means a 2025 server: cancelled, then initialize', async () => {
    const server = legacyServer(() => undefined, { probeTimeoutMs: 100 })
    const client = new Client({ transport: server.transport })
    const started = Date.now()
    expect((await client.listTools()).map((t) => t.name)).toEqual(['add'])
    expect(Date.now() - started).toBeGreaterThanOrEqual(90)
    expect(client.era).toBe('legacy')
    expect(server.seen).toEqual([
      'server/discover',
      'notifications/cancelled',
      'initialize',
      'notifications/initialized',
      'tools/list',
    ])
    expect(server.warnings).toEqual([])
  })

  it('a late answer to the timed-out probe is dropped: the session goes on, nothing reported', async () => {
    let probeId: string | number | undefined
    const server = legacyServer((m) => void (probeId = m.id), { probeTimeoutMs: 50 })
    const client = new Client({ transport: server.transport })
    await client.listTools()
    await server.reply({ jsonrpc: '2.0', id: probeId, error: { code: -32601, message: 'Method not found' } })
    await server.reply(result(probeId!, { supportedVersions: ['2026-07-28'], capabilities: {} }))
    expect((await client.listTools()).map((t) => t.name)).toEqual(['add'])
    expect(client.era).toBe('legacy')
    expect(server.warnings).toEqual([expect.stringContaining('an answer to no request in flight')]) // the second late answer only
  })

  it('a modern server slow to start: the probe times out, initialize fails as a modern server fails it, a new probe finds it modern', async () => {
    let discovers = 0
    const server = scripted(
      (m) => {
        if (m.method === 'server/discover')
          return discovers++ === 0
            ? undefined // still starting
            : result(m.id!, { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: {} })
        if (m.method === 'initialize')
          return { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found: initialize' } }
        if (m.method === 'tools/list') return result(m.id!, { resultType: 'complete', tools: [] })
        return undefined
      },
      { probeTimeoutMs: 50 },
    )
    const client = new Client({ transport: server.transport })
    expect(await client.listTools()).toEqual([])
    expect(client.era).toBe('modern')
    expect(server.seen).toEqual([
      'server/discover',
      'notifications/cancelled',
      'initialize',
      'server/discover',
      'tools/list',
    ])
  })

  it('a silent 2025 server that answered initialize stays legacy, even when the first call then fails', async () => {
    const server = scripted(
      (m) => {
        if (m.method === 'initialize') return result(m.id!, INITIALIZE_RESULT)
        if (m.method === 'prompts/list')
          return { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } }
        if (m.method === 'tools/list') return result(m.id!, { tools: [] })
        return undefined // server/discover: not answered
      },
      { probeTimeoutMs: 50 },
    )
    const client = new Client({ transport: server.transport })
    await expect(client.listPrompts()).rejects.toThrow('Method not found')
    expect(await client.listTools()).toEqual([])
    expect(client.era).toBe('legacy')
    expect(server.seen).toEqual([
      'server/discover',
      'notifications/cancelled',
      'initialize',
      'notifications/initialized',
      'prompts/list',
      'tools/list', // no second probe
    ])
  })

  for (const error of [
    { code: -32601, message: 'Method not found' },
    { code: -32602, message: 'Invalid params' },
    { code: -32000, message: 'Server not initialized' },
  ])
    it(`any error other than a modern one (${error.code}) means a 2025 server, at once`, async () => {
      const server = legacyServer((m) => ({ jsonrpc: '2.0', id: m.id, error }))
      const client = new Client({ transport: server.transport })
      const started = Date.now()
      await client.listTools()
      expect(Date.now() - started).toBeLessThan(1000)
      expect(server.seen.slice(0, 2)).toEqual(['server/discover', 'initialize'])
    })

  it('a discover result means a modern server: no initialize', async () => {
    const server = scripted((m) =>
      m.method === 'server/discover'
        ? result(m.id!, { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: {} })
        : result(m.id!, { resultType: 'complete', tools: [] }),
    )
    const client = new Client({ transport: server.transport })
    expect(await client.listTools()).toEqual([])
    expect(client.era).toBe('modern')
    expect(server.seen).toEqual(['server/discover', 'tools/list'])
  })

  it("a 2025 session over stdio: the server's elicitation/create is answered through the callback, on the same pipe", async () => {
    let callId: string | number | undefined
    const question = {
      mode: 'form',
      message: 'Sure?',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
    }
    const server = scripted((m) => {
      if (m.method === 'initialize') return result(m.id!, INITIALIZE_RESULT)
      if (m.method === 'tools/call') {
        callId = m.id
        return { jsonrpc: '2.0', id: 'q-1', method: 'elicitation/create', params: question }
      }
      if (m.method === undefined && m.id === 'q-1')
        return result(callId!, { content: [{ type: 'text', text: `answered: ${JSON.stringify(m.result)}` }] })
      return undefined
    })
    const client = new Client({
      transport: server.transport,
      versionNegotiation: 'legacy',
      elicitation: () => ({ action: 'accept', content: { ok: true } }),
    })
    const called = await client.callTool('confirm')
    expect(called.content).toEqual([{ type: 'text', text: 'answered: {"action":"accept","content":{"ok":true}}' }])
    await client.close() // no session to end on stdio
    await server.transport.close()
    expect(server.seen).toEqual(['initialize', 'notifications/initialized', 'tools/call', '(answer)'])
  })
})

describe('StdioClientTransport with a peer that misbehaves', () => {
  it('close() resolves though the server never reads its stdin', async () => {
    await noUnhandled(async () => {
      const transport = new StdioClientTransport({
        input: new TransformStream<Uint8Array, Uint8Array>().readable,
        output: stuck(),
        onWarning: () => {},
      })
      const pending = transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' }).catch((e: unknown) => e)
      void transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' }).catch(() => {})
      await sleep(20)
      const started = Date.now()
      await transport.close()
      expect(Date.now() - started).toBeLessThan(3000)
      expect(String(await pending)).toMatch(/closed before the answer/)
    })
  })

  it('an answer with id "1" does not answer request 1, nor an unknown id; both are reported', async () => {
    const toClient = new TransformStream<Uint8Array, Uint8Array>()
    const toServer = new TransformStream<Uint8Array, Uint8Array>()
    const warnings: string[] = []
    const transport = new StdioClientTransport({
      input: toClient.readable,
      output: toServer.writable,
      onWarning: (w) => warnings.push(w),
    })
    void toServer.readable.pipeTo(new WritableStream())
    const writer = toClient.writable.getWriter()
    const reply = (m: unknown) => writer.write(encoder.encode(JSON.stringify(m) + '\n'))
    const one = transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
    await reply({ jsonrpc: '2.0', id: '1', result: { wrong: true } })
    await reply({ jsonrpc: '2.0', id: 77, result: {} })
    await reply({ jsonrpc: '2.0', id: 1, result: { tools: [] } })
    expect(await one).toEqual({ jsonrpc: '2.0', id: 1, result: { tools: [] } })
    expect(warnings).toEqual([
      'an answer to no request in flight was dropped (id "1")',
      'an answer to no request in flight was dropped (id 77)',
    ])
    await transport.close()
  })
})
