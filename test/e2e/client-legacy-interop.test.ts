/**
 * Our Client in `'legacy'` mode against the official v1 SDK server (`@modelcontextprotocol/sdk` 1.x,
 * stateful sessions, `WebStandardStreamableHTTPServerTransport`), in-process: list tools, a call with no
 * question, a call answered through our `elicitation` callback (the server's `elicitation/create` request on
 * the POST stream), a declined one, and DELETE on close.
 */
import { McpServer as V1Server } from '@modelcontextprotocol/sdk/server/mcp.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'

async function v1Server() {
  const server = new V1Server({ name: 'v1-server', version: '1.0.0' })
  server.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text: `echo: ${text}` }],
  }))
  server.registerTool('provision', { inputSchema: { name: z.string() } }, async ({ name }, extra) => {
    // relatedRequestId: on the POST's stream (without it the v1 SDK uses the GET stream, not yet opened by our Client)
    const answer = await server.server.elicitInput(
      {
        message: 'Which region?',
        requestedSchema: { type: 'object', properties: { region: { type: 'string' } }, required: ['region'] },
      },
      { relatedRequestId: extra.requestId },
    )
    if (answer.action !== 'accept')
      return { content: [{ type: 'text', text: `not provisioned: ${answer.action}` }], isError: true }
    return { content: [{ type: 'text', text: `provisioned ${name} in ${String(answer.content?.region)}` }] }
  })
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() })
  await server.connect(transport)
  const methods: string[] = []
  const fetch = async (request: Request) => {
    methods.push(request.method)
    return transport.handleRequest(request)
  }
  return { fetch, methods }
}

describe('our Client against the official v1 SDK server', () => {
  for (const versionNegotiation of ['legacy', undefined] as const) {
    it(`${versionNegotiation ?? 'default options (auto)'}: lists, calls, answers its elicitation through the callback, declines, and ends the session`, async () => {
      const { fetch, methods } = await v1Server()
      let answer: 'accept' | 'decline' = 'accept'
      const client = new Client({
        transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
        ...(versionNegotiation ? { versionNegotiation } : {}),
        elicitation: (params) =>
          answer === 'accept'
            ? { action: 'accept', content: { region: params.message.length > 0 ? 'eu-west-1' : '' } }
            : { action: 'decline' },
      })
      expect((await client.listTools()).map((t) => t.name).sort()).toEqual(['echo', 'provision'])
      expect(client.protocolVersion).toBe('2025-11-25')
      expect((await client.callTool('echo', { text: 'hi' })).content).toEqual([{ type: 'text', text: 'echo: hi' }])
      expect((await client.callTool('provision', { name: 'db' })).content).toEqual([
        { type: 'text', text: 'provisioned db in eu-west-1' },
      ])
      answer = 'decline'
      const declined = await client.callTool('provision', { name: 'db' })
      expect(declined.isError).toBe(true)
      expect(declined.content).toEqual([{ type: 'text', text: 'not provisioned: decline' }])
      await client.close()
      expect(methods.at(-1)).toBe('DELETE')
    })
  }
})
