/**
 * The Client in `'legacy'` mode: a 2025-era session with a server's legacy lane —
 * initialize, session headers, the server's questions answered through the same callbacks, a session
 * started again after a 404, DELETE on close.
 */
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { createFetchHandler } from '../../src/server/index.ts'
import { createDemoServer } from '../../worker/server.ts'

const KEY = 'c'.repeat(32)

/** The demo server in-process, recording the requests it receives (method, headers). */
function demo(keys = [KEY]) {
  const handler = createFetchHandler(createDemoServer({ requestStateKeys: keys }))
  const seen: { method: string; body: Record<string, unknown>; headers: Headers }[] = []
  const fetch = async (request: Request) => {
    const text = request.method === 'POST' ? await request.clone().text() : ''
    seen.push({
      method: request.method,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      headers: request.headers,
    })
    return handler(request)
  }
  return { fetch, seen }
}

describe("Client versionNegotiation: 'legacy'", () => {
  it('initializes once, sends the session headers, lists and calls; a question goes to the elicitation callback', async () => {
    const { fetch, seen } = demo()
    const asked: string[] = []
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'legacy',
      elicitation: (params, ctx) => {
        asked.push(`${ctx.method} ${ctx.target}: ${params.message}`)
        return { action: 'accept', content: { region: 'eu-west-1' } }
      },
    })
    const tools = await client.listTools()
    expect(tools.map((t) => t.name)).toContain('provision')
    expect(client.protocolVersion).toBe('2025-11-25')
    const reserved = await client.callTool('reserve_book', { title: 'Dune' })
    expect((reserved.content[0] as { text: string }).text).toMatch(/^Reserved 'Dune'/)
    const provisioned = await client.callTool('provision', { name: 'db1' })
    expect(provisioned.content).toEqual([{ type: 'text', text: "Provisioned 'db1' in eu-west-1." }])
    expect(asked).toEqual(['tools/call provision: Which region should the database live in?'])
    const methods = seen.map((s) => s.body.method ?? (s.body.result ? 'answer' : s.method))
    expect(methods).toEqual([
      'initialize',
      'notifications/initialized',
      'GET', // the standalone stream: our server answers 405 (no stream)
      'tools/list',
      'tools/call',
      'tools/call',
      'answer',
    ])
    // capabilities at initialize are derived from the callbacks, as in the 2026 envelope
    expect((seen[0].body.params as { capabilities: unknown }).capabilities).toEqual({
      elicitation: { form: {}, url: {} },
    })
    const sid = seen[1].headers.get('mcp-session-id')
    expect(sid).toMatch(/^s1\./)
    for (const s of seen.slice(1)) {
      expect(s.headers.get('mcp-session-id')).toBe(sid)
      expect(s.headers.get('mcp-protocol-version')).toBe('2025-11-25')
      expect(JSON.stringify(s.body)).not.toContain('io.modelcontextprotocol/protocolVersion')
    }
  })

  it('a declined question reaches the tool; without a callback the server is told -32601 and the tool fails', async () => {
    const { fetch } = demo()
    const declining = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'legacy',
      elicitation: () => ({ action: 'decline' }),
    })
    const declined = await declining.callTool('provision', { name: 'db1' })
    expect(declined.isError).toBe(true)
    expect((declined.content[0] as { text: string }).text).toContain('declined')
    const without = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'legacy',
      capabilities: { elicitation: {} }, // declared, but no callback
    })
    const failed = await without.callTool('provision', { name: 'db1' })
    expect(failed.isError).toBe(true)
    expect((failed.content[0] as { text: string }).text).toContain('error -32601')
  })

  it('a session the server no longer knows (404) is started again once; close() sends DELETE (405 ignored)', async () => {
    let server = demo(['1'.repeat(32)])
    const transport = new StreamableHttpClientTransport('http://localhost/mcp', { fetch: (r) => server.fetch(r) })
    const client = new Client({ transport, versionNegotiation: 'legacy' })
    await client.listTools()
    server = demo(['2'.repeat(32)]) // a restart with other keys: the old session id no longer opens
    expect((await client.listTools()).length).toBeGreaterThan(0)
    expect(server.seen.map((s) => s.body.method ?? s.method)).toEqual([
      'tools/list',
      'initialize',
      'notifications/initialized',
      'GET',
      'tools/list',
    ])
    await client.close()
    expect(server.seen.at(-1)!.method).toBe('DELETE')
  })
})

describe("Client versionNegotiation: 'auto' (probe with server/discover)", () => {
  /** A fake server: `answer` decides each response; the requests it saw are kept. */
  function fake(answer: (body: Record<string, unknown>, n: number) => Response) {
    const seen: Record<string, unknown>[] = []
    const fetch = async (request: Request) => {
      if (request.method !== 'POST') return new Response(null, { status: 405 }) // no standalone stream
      const body = JSON.parse(await request.text()) as Record<string, unknown>
      seen.push(body)
      return answer(body, seen.length)
    }
    return { transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }), seen }
  }
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })

  it('a server that answers server/discover is modern: requests carry the envelope', async () => {
    const { fetch, seen } = demo()
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'auto',
    })
    expect((await client.listTools()).length).toBeGreaterThan(0)
    expect(client.protocolVersion).toBe('2026-07-28')
    expect(seen.map((s) => s.body.method)).toEqual(['server/discover', 'tools/list'])
    expect(JSON.stringify(seen[1].body)).toContain('io.modelcontextprotocol/protocolVersion')
  })

  for (const [what, reply] of [
    [
      '-32601 (a stateless 2025 server)',
      () => json(200, { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }),
    ],
    [
      '400 with -32000 "no session" (a stateful 2025 server)',
      () =>
        json(400, {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32000, message: 'Bad Request: No valid session ID provided' },
        }),
    ],
    ['404 with a non-JSON body', () => new Response('Not Found', { status: 404 })],
    ['405', () => new Response(null, { status: 405 })],
  ] as const) {
    it(`a probe answered ${what} is a legacy server: initialize follows`, async () => {
      const { transport, seen } = fake((body) => {
        if (body.method === 'server/discover') return reply()
        if (body.method === 'initialize')
          return json(200, {
            jsonrpc: '2.0',
            id: body.id,
            result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'old', version: '1' } },
          })
        if (!('id' in body)) return new Response(null, { status: 202 })
        return json(200, { jsonrpc: '2.0', id: body.id, result: { tools: [] } })
      })
      const client = new Client({ transport, versionNegotiation: 'auto' })
      expect(await client.listTools()).toEqual([])
      expect(client.protocolVersion).toBe('2025-06-18')
      expect(seen.map((s) => s.method)).toEqual([
        'server/discover',
        'initialize',
        'notifications/initialized',
        'tools/list',
      ])
    })
  }

  it('no evidence (a 503, then a 401 without auth) is reported and the next request probes again', async () => {
    const { transport, seen } = fake((body, n) => {
      if (n === 1) return new Response('down', { status: 503 })
      if (n === 2) return new Response('no', { status: 401 })
      if (body.method === 'server/discover')
        return json(200, {
          jsonrpc: '2.0',
          id: body.id,
          result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: {} },
        })
      return json(200, {
        jsonrpc: '2.0',
        id: body.id,
        result: { resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'private' },
      })
    })
    const client = new Client({ transport, versionNegotiation: 'auto' })
    await expect(client.listTools()).rejects.toMatchObject({ status: 503 })
    await expect(client.listTools()).rejects.toMatchObject({ status: 401 })
    expect(await client.listTools()).toEqual([])
    expect(seen.map((s) => s.method)).toEqual(['server/discover', 'server/discover', 'server/discover', 'tools/list'])
  })

  it('a modern error without a version in common (-32022) is not a reason to fall back', async () => {
    const { transport, seen } = fake((body) =>
      json(400, {
        jsonrpc: '2.0',
        id: body.id,
        error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2027-01-01'] } },
      }),
    )
    const client = new Client({ transport, versionNegotiation: 'auto' })
    await expect(client.listTools()).rejects.toMatchObject({ code: -32022 })
    expect(seen.map((s) => s.method)).toEqual(['server/discover'])
  })

  it('an invalid versionNegotiation is a RangeError', () => {
    expect(
      () => new Client({ transport: fake(() => new Response()).transport, versionNegotiation: 'both' as never }),
    ).toThrow(RangeError)
  })
})
