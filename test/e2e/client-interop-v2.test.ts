/**
 * Our Client at its default options (`versionNegotiation: 'auto'`) against the
 * official v2 server, `@modelcontextprotocol/server` 2.4.0, in-process, in its two configurations:
 * - legacy: an `McpServer` on a sessionful `WebStandardStreamableHTTPServerTransport` (2025-11-25 only; the
 *   `server/discover` probe is refused for want of a session, so the client falls back to `initialize`), its
 *   questions sent as `elicitation/create` requests on the POST's stream by the SDK's legacy shim;
 * - dual-era: `createMcpHandler` (2026-07-28 sessionless, 2025 served statelessly), where the probe finds a
 *   modern server and the same questions come back as `InputRequiredResult` rounds.
 * Each: list tools, a call with no question, a call answered through the `elicitation` callback, a declined one.
 */
import {
  McpServer as OfficialServer,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  inputRequired,
  inputResponse,
} from '@modelcontextprotocol/server'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import type { ElicitRequestParams, ElicitResult } from '../../src/index.ts'

/** The same two tools in both configurations: `echo` asks nothing, `provision` asks for a region. */
function officialServer(): OfficialServer {
  const server = new OfficialServer({ name: 'official-v2', version: '2.4.0' })
  server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text }) =>
    Promise.resolve({ content: [{ type: 'text' as const, text: `echo: ${text}` }] }),
  )
  server.registerTool('provision', { inputSchema: z.object({ name: z.string() }) }, ({ name }, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'region')
    if (answer.kind === 'missing') {
      const requestedSchema = z.object({ region: z.string().describe('Where the database lives') })
      return Promise.resolve(
        inputRequired({
          inputRequests: { region: inputRequired.elicit({ message: `Which region for ${name}?`, requestedSchema }) },
        }),
      )
    }
    if (answer.kind !== 'elicit' || answer.action !== 'accept')
      return Promise.resolve({
        content: [
          { type: 'text' as const, text: `not provisioned: ${answer.kind === 'elicit' ? answer.action : '?'}` },
        ],
        isError: true,
      })
    return Promise.resolve({
      content: [{ type: 'text' as const, text: `provisioned ${name} in ${String(answer.content?.region)}` }],
    })
  })
  return server
}

/** A fetch function in front of `handle` that records what it received: `POST <JSON-RPC method>`, `DELETE`, …. */
function recording(handle: (request: Request) => Promise<Response>) {
  const seen: string[] = []
  const fetch = async (request: Request) => {
    const body = request.method === 'POST' ? ((await request.clone().json()) as { method?: string }) : {}
    seen.push(request.method === 'POST' ? `POST ${body.method ?? '(answer)'}` : request.method)
    return handle(request)
  }
  return { fetch, seen }
}

/** The legacy configuration: one server, one session-keeping 2025 transport. */
async function legacyOnly() {
  const server = officialServer()
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() })
  await server.connect(transport)
  return recording((request) => transport.handleRequest(request))
}

/** The dual-era configuration: `createMcpHandler`, a fresh server per request. */
function dualEra() {
  const handler = createMcpHandler(() => officialServer())
  return recording((request) => handler.fetch(request))
}

/** Our Client at its default options, recording the elicitation params its callback got. */
function ourClient(fetch: (request: Request) => Promise<Response>) {
  const asked: ElicitRequestParams[] = []
  let answer: ElicitResult = { action: 'accept', content: { region: 'eu-west-1' } }
  const client = new Client({
    transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
    elicitation: (params) => (asked.push(params), answer),
  })
  return { client, asked, answerWith: (next: ElicitResult) => (answer = next) }
}

const text = (result: { content: unknown[] }) => result.content.map((c) => (c as { text?: string }).text).join('\n')

/** What the callback is asked for `provision` in either era: the form, as the server's zod schema became JSON Schema. */
const REGION_QUESTION = {
  mode: 'form',
  message: 'Which region for db?',
  requestedSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { region: { type: 'string', description: 'Where the database lives' } },
    required: ['region'],
  },
}

describe('our Client against the official v2 server (@modelcontextprotocol/server 2.4.0)', () => {
  it('legacy configuration: falls back to initialize (2025-11-25), lists, calls, answers and declines a question', async () => {
    const server = await legacyOnly()
    const { client, asked, answerWith } = ourClient(server.fetch)
    expect((await client.listTools()).map((t) => t.name)).toEqual(['echo', 'provision'])
    expect(client.protocolVersion).toBe('2025-11-25')
    const echoed = await client.callTool('echo', { text: 'hi' })
    expect(echoed.isError).toBeFalsy()
    expect(text(echoed)).toBe('echo: hi')
    expect(asked).toEqual([])

    const provisioned = await client.callTool('provision', { name: 'db' })
    expect(provisioned.isError).toBeFalsy()
    expect(text(provisioned)).toBe('provisioned db in eu-west-1')
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject(REGION_QUESTION) // plus the progressToken the SDK's shim puts in _meta

    answerWith({ action: 'decline' })
    const declined = await client.callTool('provision', { name: 'db' })
    expect(declined.isError).toBe(true)
    expect(text(declined)).toBe('not provisioned: decline')
    expect(asked).toHaveLength(2)
    expect(asked[1]).toMatchObject(REGION_QUESTION)

    await client.close()
    expect(server.seen).toEqual([
      'POST server/discover', // refused (no session): a 2025 server
      'POST initialize',
      'POST notifications/initialized',
      'GET', // the standalone stream, for requests and notifications outside a call
      'POST tools/list',
      'POST tools/call',
      'POST tools/call',
      'POST (answer)', // the region, on its own POST
      'POST tools/call',
      'POST (answer)', // the decline
      'DELETE', // the session is ended
    ])
  })

  it('dual-era configuration: the probe finds 2026-07-28; lists, calls, answers and declines a question', async () => {
    const server = dualEra()
    const { client, asked, answerWith } = ourClient(server.fetch)
    expect((await client.listTools()).map((t) => t.name)).toEqual(['echo', 'provision'])
    expect(client.protocolVersion).toBe('2026-07-28')
    expect(text(await client.callTool('echo', { text: 'hi' }))).toBe('echo: hi')
    expect(asked).toEqual([])

    const provisioned = await client.callTool('provision', { name: 'db' })
    expect(provisioned.isError).toBeFalsy()
    expect(text(provisioned)).toBe('provisioned db in eu-west-1')
    expect(asked).toHaveLength(1)
    expect(asked[0]).toEqual(REGION_QUESTION)

    answerWith({ action: 'decline' })
    const declined = await client.callTool('provision', { name: 'db' })
    expect(declined.isError).toBe(true)
    expect(text(declined)).toBe('not provisioned: decline')
    expect(asked).toHaveLength(2)
    expect(asked[1]).toEqual(REGION_QUESTION)

    await client.close() // no session to end: nothing is sent
    expect(server.seen).toEqual([
      'POST server/discover', // answered: a 2026-07-28 server
      'POST tools/list',
      'POST tools/call',
      'POST tools/call',
      'POST tools/call', // the retry with the region
      'POST tools/call',
      'POST tools/call', // the retry with the decline
    ])
  })
})
