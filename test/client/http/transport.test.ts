/**
 * StreamableHttpClientTransport turns the contract's neutral routing values (a tool's `x-mcp-header`
 * arguments, by declared name) into `Mcp-Param-{name}` headers, and the Client hands it those values.
 */
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../../src/client/index.ts'
import { encodeHeaderValue } from '../../../src/protocol/headers.ts'

const answer = (id: unknown, result: Record<string, unknown>) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', id, result }), { headers: { 'content-type': 'application/json' } })

describe('routing values over HTTP', () => {
  it('each becomes an Mcp-Param-{name} header: a string not safe ASCII encoded, a boolean and an integer spelled out', async () => {
    const got: Headers[] = []
    const transport = new StreamableHttpClientTransport('http://x/mcp', {
      fetch: (request) => (got.push(request.headers), Promise.resolve(answer(1, { resultType: 'complete' }))),
    })
    const message = { jsonrpc: '2.0' as const, id: 1, method: 'tools/call', params: { name: 'deploy' } }
    await transport.send(message, { routing: { Region: 'eu', City: 'Kraków', Dry: true, Count: 3 } })
    expect(got[0].get('mcp-param-region')).toBe('eu')
    expect(got[0].get('mcp-param-city')).toBe(encodeHeaderValue('Kraków'))
    expect(got[0].get('mcp-param-city')).not.toBe('Kraków')
    expect(got[0].get('mcp-param-dry')).toBe('true')
    expect(got[0].get('mcp-param-count')).toBe('3')
  })

  it('Client.callTool sends the arguments its listed tool declares, and none of the others', async () => {
    const calls: Headers[] = []
    const transport = new StreamableHttpClientTransport('http://x/mcp', {
      fetch: async (request) => {
        const body = (await request.json()) as { id: number; method: string }
        if (body.method === 'tools/list') {
          const properties = {
            region: { type: 'string', 'x-mcp-header': 'Region' },
            verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
            note: { type: 'string' },
          }
          return answer(body.id, {
            resultType: 'complete',
            tools: [{ name: 'deploy', inputSchema: { type: 'object', properties } }],
          })
        }
        calls.push(request.headers)
        return answer(body.id, { resultType: 'complete', content: [] })
      },
    })
    const client = new Client({ transport, versionNegotiation: 'modern' })
    await client.listTools()
    await client.callTool('deploy', { region: 'eu', verbose: false, note: 'n' })
    const params = [...calls[0].keys()].filter((k) => k.startsWith('mcp-param-')).sort()
    expect(params).toEqual(['mcp-param-region', 'mcp-param-verbose'])
    expect(calls[0].get('mcp-param-region')).toBe('eu')
    expect(calls[0].get('mcp-param-verbose')).toBe('false')
  })
})
