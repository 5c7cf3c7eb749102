/**
 * Interop: the official TypeScript clients at their default options — `@modelcontextprotocol/sdk`
 * 1.x and `@modelcontextprotocol/client` 2.4.0, both speaking 2025-11-25 through `initialize` — against the
 * demo Worker under `wrangler dev` (local workerd, the `MCP_MAILBOX` Durable Object carrying answers). Each
 * client only declares what a real host would (elicitation, sampling) and registers its own handlers; every
 * demo question reaches it as a server-to-client request on the POST's stream, and its answer completes the call.
 *
 * Our own Client against the same Worker, in both eras: `versionNegotiation: 'legacy'` (the Worker's
 * 2025 lane: a session, the question on the POST's stream, the answer POSTed back through the mailbox) and
 * `'auto'` (the probe finds the Worker modern: 2026-07-28, the question as an input-required round).
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import type { ElicitResult } from '../../src/index.ts'
import { startWorker, type RunningWorker } from '../workerd.ts'

let worker: RunningWorker

beforeAll(async () => {
  worker = await startWorker()
}, 120_000)
afterAll(async () => {
  await worker?.stop()
}, 30_000)

/** What a server asked the client: the method, the question's text, the names of the fields asked for. */
interface Asked {
  method: 'elicitation/create' | 'sampling/createMessage'
  message: string
  fields: string[]
}

interface ElicitParams {
  message: string
  requestedSchema?: { properties?: Record<string, unknown> }
}
interface SamplingParams {
  messages: Array<{ role: string; content: { type: string; text?: string } }>
}
type ElicitAnswer = { action: 'accept'; content: Record<string, string | number | boolean> } | { action: 'decline' }

interface ToolResult {
  content: Array<{ type: string; text?: string }>
  isError?: boolean
}

/** The calls both official clients share, typed only as far as these tests read them. */
interface OfficialClient {
  listTools(): Promise<{ tools: Array<{ name: string }> }>
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>
  getPrompt(params: {
    name: string
    arguments: Record<string, string>
  }): Promise<{ messages: Array<{ content: { type: string; text?: string } }> }>
  readResource(params: { uri: string }): Promise<{ contents: Array<{ uri: string; text?: string }> }>
  getServerVersion(): { name: string } | undefined
  close(): Promise<void>
}

/** One connected official client, its transport's view of the session, and what its handlers were asked. */
interface Peer {
  client: OfficialClient
  protocolVersion: string | undefined
  sessionId: string | undefined
  asked: Asked[]
  /** How the elicitation handler answers (set per test). */
  answer: (params: ElicitParams) => ElicitAnswer
}

const CAPABILITIES = { elicitation: { form: {} }, sampling: {} }

function noAnswer(params: ElicitParams): ElicitAnswer {
  throw new Error(`unexpected question: ${params.message}`)
}

function onElicit(peer: Peer, params: ElicitParams): ElicitAnswer {
  peer.asked.push({
    method: 'elicitation/create',
    message: params.message,
    fields: Object.keys(params.requestedSchema?.properties ?? {}),
  })
  return peer.answer(params)
}

function onSample(peer: Peer, params: SamplingParams) {
  const last = params.messages.at(-1)?.content
  peer.asked.push({ method: 'sampling/createMessage', message: last?.text ?? '', fields: [] })
  return { role: 'assistant' as const, content: { type: 'text' as const, text: ' Hyperion \n' }, model: 'interop-test' }
}

async function connectV1(url: string): Promise<Peer> {
  const client = new ClientV1({ name: 'interop-sdk-v1', version: '1.32.2' }, { capabilities: CAPABILITIES })
  const peer: Peer = { client, protocolVersion: undefined, sessionId: undefined, asked: [], answer: noAnswer }
  client.setRequestHandler(ElicitRequestSchema, (request) => onElicit(peer, request.params as ElicitParams))
  client.setRequestHandler(CreateMessageRequestSchema, (request) => onSample(peer, request.params as SamplingParams))
  const transport = new TransportV1(new URL(url))
  await client.connect(transport)
  peer.protocolVersion = transport.protocolVersion
  peer.sessionId = transport.sessionId
  return peer
}

async function connectV2(url: string): Promise<Peer> {
  const client = new ClientV2({ name: 'interop-client-v2', version: '2.4.0' }, { capabilities: CAPABILITIES })
  const peer: Peer = { client, protocolVersion: undefined, sessionId: undefined, asked: [], answer: noAnswer }
  client.setRequestHandler('elicitation/create', (request) => onElicit(peer, request.params as ElicitParams))
  client.setRequestHandler('sampling/createMessage', (request) => onSample(peer, request.params as SamplingParams))
  const transport = new TransportV2(new URL(url))
  await client.connect(transport)
  peer.protocolVersion = transport.protocolVersion
  peer.sessionId = transport.sessionId
  return peer
}

async function call(peer: Peer, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await peer.client.callTool({ name, arguments: args })) as ToolResult
}

const text = (result: ToolResult) => result.content.map((c) => c.text ?? '').join('\n')

describe.each([
  { label: '@modelcontextprotocol/sdk 1.32.2', connect: connectV1 },
  { label: '@modelcontextprotocol/client 2.4.0', connect: connectV2 },
])('$label at its default options against the demo Worker in workerd', ({ connect }) => {
  let peer: Peer | undefined
  const open = async () => (peer = await connect(worker.url))
  afterEach(async () => {
    await peer?.client.close()
    peer = undefined
  })

  it('connects with initialize: a 2025 protocol version, a session id, the demo server', async () => {
    const p = await open()
    expect(p.protocolVersion).toBe('2025-11-25')
    expect(p.sessionId).toEqual(expect.any(String))
    expect(p.sessionId!.length).toBeGreaterThan(16)
    expect(p.client.getServerVersion()?.name).toBe('edge-mcp-demo')
  })

  it('lists the tools', async () => {
    const p = await open()
    const { tools } = await p.client.listTools()
    expect(tools.map((t) => t.name)).toEqual([
      'provision',
      'reserve_book',
      'order_book',
      'set_order_quantity', // the order card App's own tool (listed; a host does not offer it to the model)
      'recommend_book',
      'open_account',
      'stock_take',
    ])
  })

  it('calls reserve_book, which asks nothing', async () => {
    const p = await open()
    const dune = await call(p, 'reserve_book', { title: 'Dune' })
    expect(dune.isError).toBeFalsy()
    expect(text(dune)).toBe("Reserved 'Dune' (6 copies left).")
    expect(text(await call(p, 'reserve_book', { title: 'Neuromancer' }))).toBe("'Neuromancer' is out of stock.")
    expect(p.asked).toEqual([])
  })

  it('calls provision: its elicitation handler is asked for the region, and the answer completes the call', async () => {
    const p = await open()
    p.answer = () => ({ action: 'accept', content: { region: 'ap-southeast-2' } })
    const result = await call(p, 'provision', { name: 'db1' })
    expect(p.asked).toEqual([
      { method: 'elicitation/create', message: 'Which region should the database live in?', fields: ['region'] },
    ])
    expect(result.isError).toBeFalsy()
    expect(text(result)).toBe("Provisioned 'db1' in ap-southeast-2.")
  })

  it('calls provision and declines: no database', async () => {
    const p = await open()
    p.answer = () => ({ action: 'decline' })
    const result = await call(p, 'provision', { name: 'db1' })
    expect(p.asked.map((a) => a.message)).toEqual(['Which region should the database live in?'])
    expect(result.isError).toBe(true)
    expect(text(result)).toBe('No database provisioned: the region question was declined.')
  })

  it('calls order_book for an out-of-stock title and declines the backorder: nothing is ordered', async () => {
    const p = await open()
    p.answer = () => ({ action: 'decline' })
    const result = await call(p, 'order_book', { title: 'Neuromancer' })
    expect(p.asked).toEqual([
      {
        method: 'elicitation/create',
        message: '"Neuromancer" is out of stock (2-3 weeks). Order anyway?',
        fields: ['confirm'],
      },
    ])
    expect(result.isError).toBe(true)
    // the same tool error a 2026-07-28 client gets for this decline
    expect(text(result)).toBe('The user declined: "Neuromancer" is out of stock (2-3 weeks). Order anyway?')
  })

  it('calls order_book: an in-stock title asks nothing; a backorder answered no, then yes', async () => {
    const p = await open()
    expect(text(await call(p, 'order_book', { title: 'Dune' }))).toBe("Ordered 'Dune'; it arrives tomorrow.")
    expect(p.asked).toEqual([])
    p.answer = () => ({ action: 'accept', content: { confirm: false } })
    expect(text(await call(p, 'order_book', { title: 'Neuromancer' }))).toBe('No order placed.')
    p.answer = () => ({ action: 'accept', content: { confirm: true } })
    expect(text(await call(p, 'order_book', { title: 'Neuromancer' }))).toBe(
      "Backordered 'Neuromancer'; it ships in 2-3 weeks.",
    )
    expect(p.asked.map((a) => a.fields)).toEqual([['confirm'], ['confirm']])
  })

  it("calls recommend_book: its sampling handler is asked, and the client model's pick is the answer", async () => {
    const p = await open()
    const result = await call(p, 'recommend_book', { genre: 'sci-fi' })
    expect(p.asked).toEqual([
      {
        method: 'sampling/createMessage',
        message: 'Suggest one sci-fi book title. Answer with the title only.',
        fields: [],
      },
    ])
    expect(result.isError).toBeFalsy()
    expect(text(result)).toBe("Today's sci-fi pick: Hyperion")
  })

  it('calls open_account: three questions in turn, each built on the answer before', async () => {
    const p = await open()
    const answers: Record<string, string | boolean> = { name: 'Ada', plan: 'pro', confirm: true }
    p.answer = (params) => {
      const field = Object.keys(params.requestedSchema?.properties ?? {})[0]
      return { action: 'accept', content: { [field]: answers[field] } }
    }
    const result = await call(p, 'open_account', {})
    expect(p.asked.map((a) => a.message)).toEqual([
      'What name should the account be under?',
      'Which plan for Ada?',
      'Open a pro account for Ada?',
    ])
    expect(text(result)).toBe('Opened a pro account for Ada.')
  })

  it('gets the briefing prompt, which asks who it is for', async () => {
    const p = await open()
    p.answer = () => ({ action: 'accept', content: { audience: 'the board' } })
    const prompt = await p.client.getPrompt({ name: 'briefing', arguments: { topic: 'edge computing' } })
    expect(p.asked.map((a) => [a.message, a.fields])).toEqual([['Who is the briefing for?', ['audience']]])
    expect(prompt.messages.map((m) => m.content.text)).toEqual([
      'Write a one-page briefing on edge computing for the board.',
    ])
  })

  it('reads the shortlist resource, which asks how many books', async () => {
    const p = await open()
    p.answer = () => ({ action: 'accept', content: { count: 2 } })
    const read = await p.client.readResource({ uri: 'books://sci-fi/shortlist' })
    expect(p.asked.map((a) => [a.message, a.fields])).toEqual([['How many sci-fi books on the shortlist?', ['count']]])
    expect(read.contents.map((c) => c.text)).toEqual(['Dune\nNeuromancer'])
  })
})

describe.each([
  { versionNegotiation: 'legacy', protocolVersion: '2025-11-25' },
  { versionNegotiation: undefined, protocolVersion: '2026-07-28' }, // the default: 'auto'
] as const)(
  'our Client (versionNegotiation $versionNegotiation) against the demo Worker in workerd',
  ({ versionNegotiation, protocolVersion }) => {
    it(`speaks ${protocolVersion}: lists, calls reserve_book (no question), provision answered through the callback, and declined`, async () => {
      const asked: Array<{ call: string; message: string; fields: string[] }> = []
      let answer: ElicitResult = { action: 'accept', content: { region: 'ap-southeast-2' } }
      const client = new Client({
        transport: new StreamableHttpClientTransport(worker.url),
        ...(versionNegotiation ? { versionNegotiation } : {}),
        elicitation: (params, ctx) => {
          const form = params.mode === 'url' ? undefined : params
          asked.push({
            call: `${ctx.method} ${ctx.target}`,
            message: params.message,
            fields: Object.keys(form?.requestedSchema.properties ?? {}),
          })
          return answer
        },
      })
      try {
        const tools = await client.listTools()
        expect(client.protocolVersion).toBe(protocolVersion)
        expect(tools.map((t) => t.name)).toEqual([
          'provision',
          'reserve_book',
          'order_book',
          'set_order_quantity', // the order card App's own tool (listed; a host does not offer it to the model)
          'recommend_book',
          'open_account',
          'stock_take',
        ])

        const dune = await client.callTool('reserve_book', { title: 'Dune' })
        expect(dune.isError).toBeFalsy()
        expect(text(dune as ToolResult)).toBe("Reserved 'Dune' (6 copies left).")
        expect(asked).toEqual([])

        const provisioned = await client.callTool('provision', { name: 'db1' })
        expect(provisioned.isError).toBeFalsy()
        expect(text(provisioned as ToolResult)).toBe("Provisioned 'db1' in ap-southeast-2.")
        const question = {
          call: 'tools/call provision',
          message: 'Which region should the database live in?',
          fields: ['region'],
        }
        expect(asked).toEqual([question])

        answer = { action: 'decline' }
        const declined = await client.callTool('provision', { name: 'db1' })
        expect(declined.isError).toBe(true)
        expect(text(declined as ToolResult)).toBe('No database provisioned: the region question was declined.')
        expect(asked).toEqual([question, question])
      } finally {
        await client.close()
      }
    })
  },
)
