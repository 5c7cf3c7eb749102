/**
 * The Client's era: what a `server/discover` probe's result must say for the server to count as
 * modern, and `discover()` on a 2025 server (answered from `initialize`, since 2025 has no such method).
 * Found by the conformance client suite for 2025-11-25, whose mock servers answer every method they do not
 * know with `{}`.
 */
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../../src/client/index.ts'

/** A fake server: `answer` decides each response; the requests it saw (their JSON-RPC methods) are kept. */
function fake(answer: (body: Record<string, unknown>) => Response | undefined) {
  const seen: string[] = []
  const fetch = async (request: Request) => {
    if (request.method !== 'POST') return new Response(null, { status: 405 }) // no standalone stream
    const body = JSON.parse(await request.text()) as Record<string, unknown>
    seen.push(typeof body.method === 'string' ? body.method : '(answer)')
    return answer(body) ?? legacy(body)
  }
  return { transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }), seen }
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })

/** A 2025-11-25 server like the conformance suite's mocks: initialize, tools/list, and `{}` for anything else. */
function legacy(body: Record<string, unknown>): Response {
  if (!('id' in body)) return new Response(null, { status: 202 })
  if (body.method === 'initialize')
    return json({
      jsonrpc: '2.0',
      id: body.id,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'old-server', version: '1.2.3' },
        instructions: 'Be brief.',
      },
    })
  if (body.method === 'tools/list')
    return json({ jsonrpc: '2.0', id: body.id, result: { tools: [{ name: 'add', inputSchema: { type: 'object' } }] } })
  return json({ jsonrpc: '2.0', id: body.id, result: {} })
}

describe("Client versionNegotiation: 'auto', a probe answered with a result", () => {
  it('`{}` (what some 2025 servers answer to any method they do not know) is a legacy server', async () => {
    const { transport, seen } = fake(() => undefined)
    const client = new Client({ transport, versionNegotiation: 'auto' })
    expect((await client.listTools()).map((t) => t.name)).toEqual(['add'])
    expect(client.protocolVersion).toBe('2025-11-25')
    expect(seen).toEqual(['server/discover', 'initialize', 'notifications/initialized', 'tools/list'])
  })

  it('a discover result naming no version this client speaks (only 2025 ones) is a legacy server', async () => {
    const { transport, seen } = fake((body) =>
      body.method === 'server/discover'
        ? json({ jsonrpc: '2.0', id: body.id, result: { supportedVersions: ['2025-11-25'], capabilities: {} } })
        : undefined,
    )
    const client = new Client({ transport, versionNegotiation: 'auto' })
    expect((await client.listTools()).map((t) => t.name)).toEqual(['add'])
    expect(client.protocolVersion).toBe('2025-11-25')
    expect(seen.slice(0, 2)).toEqual(['server/discover', 'initialize'])
  })

  it('a discover result naming 2026-07-28 is a modern server: no initialize', async () => {
    const { transport, seen } = fake((body) =>
      json({
        jsonrpc: '2.0',
        id: body.id,
        result:
          body.method === 'server/discover'
            ? { supportedVersions: ['2027-01-01', '2026-07-28'], capabilities: {} }
            : { tools: [], ttlMs: 0, cacheScope: 'private' },
      }),
    )
    const client = new Client({ transport, versionNegotiation: 'auto' })
    expect(await client.listTools()).toEqual([])
    expect(client.protocolVersion).toBe('2026-07-28')
    expect(seen).toEqual(['server/discover', 'tools/list'])
  })
})

describe('Client.discover() on a 2025 server', () => {
  for (const versionNegotiation of ['legacy', 'auto'] as const) {
    it(`${versionNegotiation}: answered from initialize (version, capabilities, instructions, serverInfo), no server/discover in the session`, async () => {
      const { transport, seen } = fake((body) =>
        body.method === 'server/discover' && versionNegotiation === 'auto' && seen.length === 1
          ? json({ jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found' } })
          : undefined,
      )
      const client = new Client({ transport, versionNegotiation })
      const discovered = await client.discover()
      expect(discovered).toEqual({
        resultType: 'complete',
        supportedVersions: ['2025-11-25'],
        capabilities: { tools: { listChanged: true } },
        instructions: 'Be brief.',
        ttlMs: 0,
        cacheScope: 'private',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'old-server', version: '1.2.3' } },
      })
      await client.discover() // again: still nothing on the wire
      expect(seen).toEqual([
        ...(versionNegotiation === 'auto' ? ['server/discover'] : []), // the probe
        'initialize',
        'notifications/initialized',
      ])
    })
  }
})
