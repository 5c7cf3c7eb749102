/**
 * The Client in `'legacy'` mode: a 2025-era session with a server's legacy lane —
 * initialize, session headers, the server's questions answered through the same callbacks, a session
 * started again after a 404, DELETE on close.
 */
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { recordedDemo as demo } from '../fixtures/demo.ts'

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
