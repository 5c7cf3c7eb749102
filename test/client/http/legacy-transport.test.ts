/**
 * The 2025-era client's transport: a 2025 session sends only the headers a
 * 2025 server's CORS allow-list knows; a stream whose connection breaks off after an event id is resumed
 * (without one, a NetworkError); a server that primes and closes with `retry: 0` does not get a hot
 * reconnection loop; an SSE event cannot grow without bound. Fake servers are plain fetch functions.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  Client,
  HttpError,
  InvalidResultError,
  NetworkError,
  StreamableHttpClientTransport,
} from '../../../src/client/index.ts'
import {
  MAX_RECONNECTS,
  MAX_SSE_EVENT_LENGTH,
  MIN_RETRY_MS,
  followSse,
  type Reconnect,
} from '../../../src/client/http/sse.ts'

const enc = new TextEncoder()
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const json = (body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', ...headers } })
const sse = (body: string | ReadableStream<Uint8Array>) =>
  new Response(body, { headers: { 'content-type': 'text/event-stream' } })
const result = (id: unknown, text: string) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } })

/**
 * A 2025-era server (session `s1`): `initialize`, notifications 202, GET and POST (other requests) as
 * given, DELETE 204. `post` gets the parsed message.
 */
function server(
  post: (message: { id: unknown; method: string; params?: Record<string, unknown> }) => Response,
  get: (request: Request) => Response | Promise<Response> = () => new Response(null, { status: 405 }),
) {
  return async (request: Request): Promise<Response> => {
    if (request.method === 'GET') return get(request)
    if (request.method === 'DELETE') return new Response(null, { status: 204 })
    const m = (await request.json()) as { id?: unknown; method?: string; params?: Record<string, unknown> }
    if (m.method === 'initialize')
      return json(
        {
          jsonrpc: '2.0',
          id: m.id,
          result: {
            protocolVersion: '2025-11-25',
            capabilities: { tools: {} },
            serverInfo: { name: 's', version: '1' },
          },
        },
        { 'mcp-session-id': 's1' },
      )
    if (m.id === undefined || m.method === undefined) return new Response(null, { status: 202 })
    return post(m as { id: unknown; method: string })
  }
}

function legacyClient(fetch: (request: Request) => Promise<Response>, warnings: string[] = []) {
  return new Client({
    transport: new StreamableHttpClientTransport('http://x/mcp', { fetch }),
    versionNegotiation: 'legacy',
    onWarning: (w) => warnings.push(w),
  })
}

describe('2025-era session headers (CORS)', () => {
  // the official v1 SDK's Hono example: what a typical 2025 server lets a browser send
  const allowed = new Set(['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'])

  it('lists and calls a tool with header-mirrored arguments through a 2025 CORS allow-list, resumption included', async () => {
    const seen: string[] = []
    let pending: unknown
    const inner = server(
      (m) => {
        if (m.method === 'tools/list')
          return json({
            jsonrpc: '2.0',
            id: m.id,
            result: {
              tools: [
                {
                  name: 'deploy',
                  inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
                },
              ],
            },
          })
        pending = m.id // tools/call: closed after a priming event, the result on the resumed stream
        return sse('id: e-1\nretry: 0\ndata: \n\n')
      },
      (request) =>
        request.headers.get('last-event-id') === 'e-1'
          ? sse(`id: e-2\ndata: ${JSON.stringify(result(pending, 'deployed'))}\n\n`)
          : sse(': open\n\n'),
    )
    const fetch = async (request: Request) => {
      const extra = [...request.headers.keys()].filter((h) => !allowed.has(h))
      seen.push(`${request.method} ${extra.join(',')}`.trim())
      if (extra.length > 0) throw new TypeError('Failed to fetch') // what a browser reports for a refused preflight
      return inner(request)
    }
    const client = legacyClient(fetch)
    expect((await client.listTools()).map((t) => t.name)).toEqual(['deploy'])
    expect((await client.callTool('deploy', { region: 'eu-west-1' })).content).toEqual([
      { type: 'text', text: 'deployed' },
    ])
    await client.close()
    expect(seen).toEqual(['POST', 'POST', 'GET', 'POST', 'POST', 'GET', 'DELETE']) // before the fix: 'POST mcp-method'
  })

  it('the transport: a message in a 2025 session sends its session headers and drops Mcp-Method, Mcp-Name and Mcp-Param-*, keeping the rest; a 2026 one sends them', async () => {
    const got: Headers[] = []
    const transport = new StreamableHttpClientTransport('http://x/mcp', {
      headers: { authorization: 'Bearer t', 'x-custom': '1' },
      fetch: (request) => (got.push(request.headers), Promise.resolve(json(result(1, 'ok')))),
    })
    const message = { jsonrpc: '2.0' as const, id: 1, method: 'tools/call', params: { name: 'deploy' } }
    const routing = { Region: 'eu' }
    await transport.send(message, { session: { protocolVersion: '2025-11-25', id: 's1' }, routing })
    await transport.send(message, { routing })
    expect([...got[0].keys()].sort()).toEqual([
      'accept',
      'authorization',
      'content-type',
      'mcp-protocol-version',
      'mcp-session-id',
      'x-custom',
    ])
    expect(got[1].get('mcp-method')).toBe('tools/call')
    expect(got[1].get('mcp-name')).toBe('deploy')
    expect(got[1].get('mcp-param-region')).toBe('eu')
  })
})

describe('a stream whose connection breaks off', () => {
  /** An SSE body that sends `text`, then fails like a connection reset (Node's fetch: `TypeError: terminated`). */
  const broken = (text: string) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(enc.encode(text))
        setTimeout(() => controller.error(new TypeError('terminated')), 10)
      },
    })

  it('after an event id: resumed with Last-Event-ID, the response on the GET', async () => {
    const gets: (string | null)[] = []
    let pending: unknown
    const fetch = server(
      (m) => ((pending = m.id), sse(broken('id: 1\nretry: 10\ndata: \n\n'))),
      (request) => {
        gets.push(request.headers.get('last-event-id'))
        return request.headers.get('last-event-id') === '1'
          ? sse(`id: 2\ndata: ${JSON.stringify(result(pending, 'resumed'))}\n\n`)
          : new Response(null, { status: 405 })
      },
    )
    const client = legacyClient(fetch)
    expect((await client.callTool('t')).content).toEqual([{ type: 'text', text: 'resumed' }]) // before: TypeError: terminated
    expect(gets).toEqual([null, '1'])
    await client.close()
  })

  it('without an event id: a NetworkError (the TypeError its cause), no reconnection', async () => {
    const gets: (string | null)[] = []
    const fetch = server(
      () => sse(broken('data: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n')),
      (request) => (gets.push(request.headers.get('last-event-id')), new Response(null, { status: 405 })),
    )
    const client = legacyClient(fetch)
    const error: unknown = await client.callTool('t').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NetworkError)
    expect((error as NetworkError).cause).toBeInstanceOf(TypeError)
    expect((error as NetworkError).message).toBe('The connection to http://x/mcp broke off: terminated')
    expect(gets).toEqual([null])
    await client.close()
  })

  it('the standalone GET stream, after an event id: reconnected, and its later messages handled', async () => {
    const gets: (string | null)[] = []
    const inner = server(
      (m) => json({ jsonrpc: '2.0', id: m.id, result: { tools: [] } }),
      (request) => {
        const last = request.headers.get('last-event-id')
        gets.push(last)
        if (last === null) return sse(broken('id: g-1\nretry: 0\ndata: \n\n'))
        const ping = 'id: g-2\ndata: {"jsonrpc":"2.0","id":"p1","method":"ping"}\n\n'
        return sse(new ReadableStream({ start: (c) => c.enqueue(enc.encode(ping)) })) // stays open
      },
    )
    let answered!: () => void
    const pong = new Promise<void>((resolve) => (answered = resolve))
    const fetch = async (request: Request) => {
      if (request.method === 'POST' && (await request.clone().text()).includes('"id":"p1"')) answered()
      return inner(request)
    }
    const warnings: string[] = []
    const client = legacyClient(fetch, warnings)
    await client.listTools()
    const ponged = await Promise.race([pong.then(() => true), sleep(3000).then(() => false)])
    expect(ponged).toBe(true) // the ping on the resumed stream was answered
    expect(gets).toEqual([null, 'g-1'])
    expect(warnings).toEqual([]) // before: "GET stream: TypeError: terminated"
    await client.close()
  })
})

describe('reconnection bounds', () => {
  afterEach(() => void vi.useRealTimers())

  it('a POST stream resumed on a server that only primes with retry: 0 fails after a few, spaced, GETs', async () => {
    const at: number[] = []
    let n = 0
    const fetch = server(
      () => sse(`id: ${++n}\nretry: 0\ndata: \n\n`),
      (request) => {
        if (request.headers.get('last-event-id') === null) return new Response(null, { status: 405 })
        if (at.push(performance.now()) > 20) return new Response('guard', { status: 404 }) // fail fast when unbounded
        return sse(`id: ${++n}\nretry: 0\ndata: \n\n`)
      },
    )
    const client = legacyClient(fetch)
    const t0 = performance.now()
    const error: unknown = await client.listTools().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HttpError)
    expect((error as HttpError).message).toMatch(/resumed 5 times in a row without a message/)
    expect(at).toHaveLength(5) // before: reconnected at once, for ever (a priming event counted as progress)
    expect(at[0] - t0).toBeGreaterThanOrEqual(MIN_RETRY_MS - 10) // retry: 0 raised to the minimum (timer slack)
    for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeGreaterThanOrEqual(MIN_RETRY_MS - 10)
    await client.close()
  })

  it('the standalone GET stream on that server is given up with a warning, and no GET follows', async () => {
    let gets = 0
    const fetch = server(
      (m) => json({ jsonrpc: '2.0', id: m.id, result: { tools: [] } }),
      () => sse(`id: ${++gets}\nretry: 0\ndata: \n\n`),
    )
    const warnings: string[] = []
    const client = legacyClient(fetch, warnings)
    await client.listTools()
    await sleep(1000)
    expect(gets).toBeLessThanOrEqual(6) // before: ~700 in a second
    for (let i = 0; i < 30 && warnings.length === 0; i++) await sleep(100)
    expect(warnings).toEqual([
      expect.stringMatching(/^GET stream: HttpError: .*resumed 5 times in a row without a message/),
    ])
    const given = gets
    await sleep(300)
    expect(gets).toBe(given)
    await client.close()
  })

  it(`a stream that brings a message on every reconnection is given up after ${MAX_RECONNECTS} of them`, async () => {
    vi.useFakeTimers()
    let reconnects = 0
    const notification = 'data: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n'
    const reconnect: Reconnect = () => (reconnects++, Promise.resolve(sse(`id: ${reconnects}\n${notification}`).body!))
    const followed = followSse(sse(`id: 0\nretry: 0\n${notification}`).body!, {}, { url: 'http://x/mcp', reconnect })
    const outcome = followed.then(
      () => 'resolved',
      (e: unknown) => e,
    )
    await vi.advanceTimersByTimeAsync(MIN_RETRY_MS * (MAX_RECONNECTS + 10))
    const error = await outcome
    expect(error).toBeInstanceOf(HttpError)
    expect((error as HttpError).message).toMatch(`resumed ${MAX_RECONNECTS} times, the most for one stream`)
    expect(reconnects).toBe(MAX_RECONNECTS)
  })
})

describe('the longest SSE event', () => {
  /** A body of `data:` lines of 1 MiB that never ends its event; counts the lines pulled. */
  function endless() {
    const line = enc.encode(`data: ${'x'.repeat(1024 * 1024)}\n`)
    const state = { pulled: 0 }
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (state.pulled >= 64) return controller.close() // a guard: 64 MiB
        state.pulled++
        controller.enqueue(line)
      },
    })
    return { body, state }
  }

  it('an event longer than MAX_SSE_EVENT_LENGTH fails the request with an InvalidResultError naming the limit', async () => {
    const { body, state } = endless()
    const client = legacyClient(server(() => sse(body)))
    const t0 = performance.now()
    const error: unknown = await client.callTool('t').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidResultError)
    expect((error as Error).message).toContain(`${MAX_SSE_EVENT_LENGTH} characters`)
    expect(state.pulled).toBeLessThanOrEqual(MAX_SSE_EVENT_LENGTH / 2 ** 20 + 2) // before: all 64, into one event
    expect(performance.now() - t0).toBeLessThan(2000)
    await client.close()
  })

  it('a line that never ends counts too; on the standalone GET stream the failure is a warning', async () => {
    const chunk = enc.encode('x'.repeat(1024 * 1024))
    let pulled = 0
    const body = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(enc.encode('data: ')),
      pull: (c) => (++pulled > 64 ? c.close() : c.enqueue(chunk)),
    })
    const warnings: string[] = []
    const client = legacyClient(
      server(
        (m) => json({ jsonrpc: '2.0', id: m.id, result: { tools: [] } }),
        () => sse(body),
      ),
      warnings,
    )
    await client.listTools()
    for (let i = 0; i < 20 && warnings.length === 0; i++) await sleep(100)
    expect(warnings).toEqual([expect.stringMatching(/^GET stream: InvalidResultError: .*16777216 characters/)])
    expect(pulled).toBeLessThanOrEqual(18)
    await client.close()
  })

  it('an event just under the limit is read', async () => {
    const text = 'y'.repeat(MAX_SSE_EVENT_LENGTH - 1024)
    let pending: unknown
    const client = legacyClient(
      server((m) => {
        pending = m.id
        const event = `data: ${JSON.stringify(result(pending, text))}\n\n`
        return sse(event)
      }),
    )
    const out = await client.callTool('t')
    expect((out.content[0] as { text: string }).text).toHaveLength(text.length)
    await client.close()
  })
})
