/**
 * Interop with the official TypeScript SDK 2.4.0 as a peer, in the same process over the fetch API:
 * their Client (version negotiation "auto") against our server, and our Client against their
 * `createMcpHandler` server — list, call, and a multi-round elicitation each way.
 */
import { Client as OfficialClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import {
  McpServer as OfficialServer,
  acceptedContent as officialAccepted,
  createMcpHandler,
  inputRequired as officialInputRequired,
} from '@modelcontextprotocol/server'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { createFetchHandler } from '../../src/server/index.ts'
import { createDemoServer } from '../../worker/server.ts'

describe('interop with the official SDK 2.4.0', () => {
  it('their Client (auto) against our server: discover, list, call, an MRTR elicitation', async () => {
    const handler = createFetchHandler(createDemoServer())
    const asked: string[] = []
    const client = new OfficialClient({ name: 'official', version: '2.4.0' }, {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: 'auto' },
    } as never)
    client.setRequestHandler(
      'elicitation/create' as never,
      ((request: { params: { message: string; requestedSchema: { properties: object } } }) => {
        asked.push(request.params.message)
        return Promise.resolve({
          action: 'accept',
          content: 'region' in request.params.requestedSchema.properties ? { region: 'eu-west-1' } : { confirm: true },
        })
      }) as never,
    )
    const transport = new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
      fetch: (url: URL | string, init?: RequestInit) => handler(new Request(url, init)),
    })
    await client.connect(transport)
    expect(transport.protocolVersion).toBe('2026-07-28')
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toContain('order_book')
    const provision = (await client.callTool({ name: 'provision', arguments: { name: 'orders' } })) as {
      content: Array<{ text: string }>
    }
    expect(provision.content[0].text).toBe("Provisioned 'orders' in eu-west-1.")
    const order = (await client.callTool({ name: 'order_book', arguments: { title: 'Neuromancer' } })) as {
      content: Array<{ text: string }>
    }
    expect(order.content[0].text).toBe("Backordered 'Neuromancer'; it ships in 2-3 weeks.")
    expect(asked).toEqual([
      'Which region should the database live in?',
      '"Neuromancer" is out of stock (2-3 weeks). Order anyway?',
    ])
    await client.close()
  })

  it('their Client at its default options (2025-11-25, initialize) against our server: the legacy lane, questions included', async () => {
    const handler = createFetchHandler(createDemoServer())
    const client = new OfficialClient(
      { name: 'official', version: '2.4.0' },
      {
        capabilities: { elicitation: { form: {} } },
      },
    )
    const transport = new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
      fetch: (url: URL | string, init?: RequestInit) => handler(new Request(url, init)),
    })
    await client.connect(transport)
    expect(transport.protocolVersion).toBe('2025-11-25')
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['reserve_book', 'provision', 'order_book']))
    const reserved = (await client.callTool({ name: 'reserve_book', arguments: { title: 'Dune' } })) as {
      content: Array<{ text: string }>
      isError?: boolean
    }
    expect(reserved.isError).not.toBe(true)
    expect(reserved.content[0].text).toMatch(/^Reserved 'Dune'/)
    // no elicitation handler yet: the client answers the server's request with an error, a tool error here
    const unanswered = (await client.callTool({ name: 'provision', arguments: { name: 'orders' } })) as {
      content: Array<{ text: string }>
      isError?: boolean
    }
    expect(unanswered.isError).toBe(true)
    expect(unanswered.content[0].text).toContain('the client answered elicitation/create with error')
    // with one, the question goes out on the POST's stream and the answer completes the call
    client.setRequestHandler(
      'elicitation/create' as never,
      (() => Promise.resolve({ action: 'accept', content: { region: 'us-east-1' } })) as never,
    )
    const provision = (await client.callTool({ name: 'provision', arguments: { name: 'orders' } })) as {
      content: Array<{ text: string }>
      isError?: boolean
    }
    expect(provision.content[0].text).toBe("Provisioned 'orders' in us-east-1.")
    await client.close()
  })

  it('our Client against their createMcpHandler server: discover, list, call, an MRTR elicitation', async () => {
    const official = createMcpHandler(() => {
      const server = new OfficialServer({ name: 'official-server', version: '2.4.0' })
      server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text }) =>
        Promise.resolve({ content: [{ type: 'text' as const, text }] }),
      )
      server.registerTool('deploy', { inputSchema: z.object({ env: z.string() }) }, ({ env }, ctx) => {
        const schema = z.object({ confirm: z.boolean() })
        const confirmed = officialAccepted(ctx.mcpReq.inputResponses, 'confirm', schema)
        if (confirmed?.confirm !== true) {
          return officialInputRequired({
            inputRequests: {
              confirm: officialInputRequired.elicit({ message: `Deploy to ${env}?`, requestedSchema: schema }),
            },
          })
        }
        return { content: [{ type: 'text', text: `deployed to ${env}` }] }
      })
      return server
    })
    const asked: string[] = []
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', {
        fetch: (request) => official.fetch(request),
      }),
      elicitation: (params) => (asked.push(params.message), { action: 'accept', content: { confirm: true } }),
    })
    const discovered = await client.discover()
    expect(discovered.supportedVersions).toContain('2026-07-28')
    expect((await client.listTools()).map((t) => t.name)).toEqual(['echo', 'deploy'])
    expect((await client.callTool('echo', { text: 'hi' })).content[0]).toMatchObject({ text: 'hi' })
    expect((await client.callTool('deploy', { env: 'prod' })).content[0]).toMatchObject({ text: 'deployed to prod' })
    expect(asked).toEqual(['Deploy to prod?'])
  })
})
