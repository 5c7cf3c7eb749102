/**
 * Client middleware (`Client#use`): the order of several, a short-circuit, errors thrown inside (and a hook
 * that returns nothing), `_meta` added to the requests as the server receives them, and the `call`, `round`
 * and `answer` hooks over the demo's two-round `provision` — in the 2026 era over HTTP and stdio, and in the
 * 2025 era (where the server's question arrives as a request during the `tools/call`).
 */
import { describe, expect, it } from 'vitest'
import { stdioClient } from '../stdio-harness.ts'
import {
  Client,
  StreamableHttpClientTransport,
  type ClientAnswerCall,
  type ClientCall,
  type ClientMiddleware,
  type ClientRequestCall,
  type ClientRoundCall,
} from '../../src/client/index.ts'
import * as v from 'valibot'
import { createFetchHandler, McpServer } from '../../src/server/index.ts'
import { createDemoServer } from '../../worker/server.ts'
import { recordedDemo as demo } from '../fixtures/demo.ts'

const REGION = { action: 'accept' as const, content: { region: 'eu-west-1' } }

function client(era: 'modern' | 'legacy' | 'auto' = 'modern') {
  const { fetch, seen } = demo()
  const c = new Client({
    transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
    versionNegotiation: era,
    elicitation: () => REGION,
  })
  return { client: c, seen, posted: () => seen.filter((s) => s.method === 'POST').map((s) => s.body) }
}

/** A middleware recording every hook it sees, by name, into `log` (enter `>`, leave `<`). */
function recorder(name: string, log: string[]): ClientMiddleware {
  return {
    request: async (call, next) => {
      log.push(`${name}>request ${call.method}`)
      const result = await next()
      log.push(`${name}<request ${call.method}`)
      return result
    },
    call: async (call, next) => {
      log.push(`${name}>call ${call.target}`)
      const result = await next()
      log.push(`${name}<call ${call.target}`)
      return result
    },
    round: async (round, next) => {
      log.push(`${name}>round ${round.round}`)
      const result = await next()
      log.push(`${name}<round ${round.round}`)
      return result
    },
    answer: async (answer, next) => {
      log.push(`${name}>answer ${answer.key}`)
      const result = await next()
      log.push(`${name}<answer ${answer.key}`)
      return result
    },
  }
}

describe('Client#use: order', () => {
  it('runs in registration order, outermost first, a bare function being a request hook; use() returns the client', async () => {
    const { client: c } = client()
    const log: string[] = []
    const returned = c
      .use(recorder('a', log))
      .use(async (call, next) => {
        log.push(`fn>${call.method}`)
        const result = await next()
        log.push(`fn<${call.method}`)
        return result
      })
      .use(recorder('b', log))
    expect(returned).toBe(c)
    await c.listTools()
    expect(log).toEqual([
      'a>request tools/list',
      'fn>tools/list',
      'b>request tools/list',
      'b<request tools/list',
      'fn<tools/list',
      'a<request tools/list',
    ])
  })

  it('a two-round tools/call (2026): call around rounds, each round around its request and the answers to what it asked', async () => {
    const { client: c } = client()
    const log: string[] = []
    c.use(recorder('a', log)).use(recorder('b', log))
    const result = await c.callTool('provision', { name: 'db1' })
    expect(result.content).toEqual([{ type: 'text', text: "Provisioned 'db1' in eu-west-1." }])
    expect(log).toEqual([
      'a>call provision',
      'b>call provision',
      'a>round 1',
      'b>round 1',
      'a>request tools/call',
      'b>request tools/call',
      'b<request tools/call',
      'a<request tools/call',
      'a>answer region',
      'b>answer region',
      'b<answer region',
      'a<answer region',
      'b<round 1',
      'a<round 1',
      'a>round 2',
      'b>round 2',
      'a>request tools/call',
      'b>request tools/call',
      'b<request tools/call',
      'a<request tools/call',
      'b<round 2',
      'a<round 2',
      'b<call provision',
      'a<call provision',
    ])
  })
})

describe('Client#use: what each hook sees (2026)', () => {
  it('links: request.round → round.call → the call; answer.round is the round whose result asked', async () => {
    const { client: c } = client()
    const calls: ClientCall[] = []
    const rounds: ClientRoundCall[] = []
    const requests: ClientRequestCall[] = []
    const answers: ClientAnswerCall[] = []
    const results: unknown[] = []
    c.use({
      call: (call, next) => (calls.push(call), next()),
      round: async (round, next) => {
        rounds.push(round)
        const result = await next()
        results.push(result)
        return result
      },
      request: (call, next) => (requests.push(call), next()),
      answer: (answer, next) => (answers.push(answer), next()),
    })
    await c.callTool('provision', { name: 'db1' })
    expect(calls).toEqual([{ method: 'tools/call', target: 'provision', arguments: { name: 'db1' } }])
    expect(Object.isFrozen(calls[0].arguments)).toBe(true)
    expect(rounds.map((r) => [r.round, r.call])).toEqual([
      [1, calls[0]],
      [2, calls[0]],
    ])
    expect(requests.map((r) => [r.method, r.round, r.era, r.protocolVersion, r.transport])).toEqual([
      ['tools/call', rounds[0], 'modern', '2026-07-28', 'http'],
      ['tools/call', rounds[1], 'modern', '2026-07-28', 'http'],
    ])
    expect(requests[0].round).toBe(rounds[0])
    // params as sent, without _meta, frozen; the second round's carries the answers and the state
    expect(requests[0].params).toEqual({ name: 'provision', arguments: { name: 'db1' } })
    expect(Object.isFrozen(requests[0].params)).toBe(true)
    expect(Object.keys(requests[1].params).sort()).toEqual(['arguments', 'inputResponses', 'name', 'requestState'])
    expect(answers).toEqual([{ key: 'region', method: 'elicitation/create', era: 'modern', round: rounds[0] }])
    expect(answers[0].round).toBe(rounds[0])
    // round 1's next() resolved to its (answered) InputRequiredResult, round 2's to the complete result
    expect((results[0] as { resultType: string }).resultType).toBe('input_required')
    expect((results[1] as { content: unknown }).content).toBeDefined()
  })

  it('manual mode: one round, its request only (the input requests are yours to answer)', async () => {
    const { client: c } = client()
    const log: string[] = []
    c.use(recorder('a', log))
    const first = await c.callTool('provision', { name: 'db1' }, { manual: true })
    expect(first.resultType).toBe('input_required')
    expect(log).toEqual([
      'a>call provision',
      'a>round 1',
      'a>request tools/call',
      'a<request tools/call',
      'a<round 1',
      'a<call provision',
    ])
  })

  it("a call's -32020 re-list and retry happen inside its call hook (the tools/list outside any round)", async () => {
    const mcp = new McpServer({ name: 'h', version: '1' })
    mcp.tool('find', { input: { city: v.string() }, headers: { city: 'City' } }, ({ city }) => `found ${city}`)
    const handler = createFetchHandler(mcp)
    const c = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: (r) => handler(r) }),
      versionNegotiation: 'modern',
    })
    const log: string[] = []
    c.use(recorder('a', log))
    const result = await c.callTool('find', { city: 'Oslo' })
    expect(result.content).toEqual([{ type: 'text', text: 'found Oslo' }])
    expect(log).toEqual([
      'a>call find',
      'a>round 1',
      'a>request tools/call', // -32020 (not listed yet: no Mcp-Param-City): the round and its request reject
      'a>request tools/list',
      'a<request tools/list',
      'a>round 1', // the retry: a new drive, its round 1
      'a>request tools/call',
      'a<request tools/call',
      'a<round 1',
      'a<call find',
    ])
  })

  it('every request passes, the era probe included; requests outside a logical call have no round', async () => {
    const { client: c } = client('auto')
    const seen: Array<[string, string, boolean]> = []
    c.use((call, next) => (seen.push([call.method, call.era, call.round !== undefined]), next()))
    await c.listTools()
    await c.getPrompt('briefing', { topic: 'rain' }).catch(() => {}) // whatever the demo answers, it was sent
    expect(seen.slice(0, 2)).toEqual([
      ['server/discover', 'modern', false],
      ['tools/list', 'modern', false],
    ])
    expect(seen[2]).toEqual(['prompts/get', 'modern', true])
  })

  it("keys put in call.meta reach the server in the request's _meta, after the caller's own, never over the envelope", async () => {
    const { client: c, posted } = client('auto')
    c.use((call, next) => {
      call.meta.traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
      call.meta['io.modelcontextprotocol/protocolVersion'] = 'forged'
      call.meta.mine = 'middleware'
      return next()
    })
    await c.callTool('provision', { name: 'db1' })
    await c.request('tools/list', { _meta: { mine: 'caller', other: 1 } })
    const bodies = posted()
    expect(bodies.map((b) => b.method)).toEqual(['server/discover', 'tools/call', 'tools/call', 'tools/list'])
    for (const body of bodies) {
      const meta = (body.params as { _meta: Record<string, unknown> })._meta
      expect(meta.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')
      expect(meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28')
      expect(meta['io.modelcontextprotocol/clientInfo']).toBeDefined()
    }
    const last = (bodies[3].params as { _meta: Record<string, unknown> })._meta
    expect([last.mine, last.other]).toEqual(['middleware', 1]) // the middleware's key after the caller's
  })
})

describe('Client#use: short-circuit', () => {
  it('a request hook may answer without sending; a call hook may answer the whole call', async () => {
    const { client: c, posted } = client()
    c.use({
      request: (call, next) =>
        call.method === 'tools/list' ? { tools: [{ name: 'fake', inputSchema: { type: 'object' } }] } : next(),
      call: (call, next) =>
        call.target === 'cached' ? Promise.resolve({ content: [{ type: 'text', text: 'from middleware' }] }) : next(),
    })
    expect((await c.listTools()).map((t) => t.name)).toEqual(['fake'])
    const result = await c.callTool('cached', {})
    expect(result).toEqual({ content: [{ type: 'text', text: 'from middleware' }] })
    expect(posted()).toEqual([]) // nothing reached the server
  })

  it('an answer hook may give the answer itself: the callback is not asked', async () => {
    const { fetch } = demo()
    let asked = 0
    const c = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'modern',
      elicitation: () => (asked++, REGION),
    })
    c.use({ answer: () => Promise.resolve({ action: 'accept', content: { region: 'ap-south-1' } }) })
    const result = await c.callTool('provision', { name: 'db1' })
    expect(result.content).toEqual([{ type: 'text', text: "Provisioned 'db1' in ap-south-1." }])
    expect(asked).toBe(0)
  })
})

describe('Client#use: errors inside middleware', () => {
  it.each(['request', 'call', 'round', 'answer'] as const)(
    'an error thrown by a %s hook rejects the call with that error',
    async (kind) => {
      const { client: c } = client()
      const error = new Error(`refused by ${kind}`)
      c.use({
        [kind]: () => {
          throw error
        },
      })
      await expect(c.callTool('provision', { name: 'db1' })).rejects.toBe(error)
    },
  )

  it.each(['request', 'call', 'round', 'answer'] as const)(
    'a %s hook that returns undefined (never calling next) rejects with a TypeError naming it, never hangs',
    async (kind) => {
      const { client: c } = client()
      c.use(recorder('outer', [])).use({ [kind]: () => undefined })
      const error = await c.callTool('provision', { name: 'db1' }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(TypeError)
      expect((error as Error).message).toContain(`client ${kind} middleware #2`)
    },
  )

  it('use() refuses something that is no middleware', () => {
    const { client: c } = client()
    expect(() => c.use(42 as never)).toThrow(TypeError)
    expect(() => c.use({ requset: () => ({}) } as never)).toThrow(
      "Client#use: 'requset' is not one of request, call, round, answer, or not a function",
    )
    expect(() => c.use({ request: 5 } as never)).toThrow("Client#use: 'request' is not one of")
  })

  it('a request hook whose result is not an object fails the call with a TypeError saying so', async () => {
    const { client: c } = client()
    c.use(() => 42 as never)
    const error = await c.callTool('provision', { name: 'db1' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message).toMatch(/^The client request middleware #1 returned number, not a result object/)
  })
})

describe('Client#use in the 2025 era', () => {
  it('initialize and every request pass the request hooks (meta sent); the answer hook names the request during which the server asked', async () => {
    const { client: c, posted } = client('legacy')
    const requests: ClientRequestCall[] = []
    const answers: ClientAnswerCall[] = []
    const rounds: ClientRoundCall[] = []
    c.use({
      request: (call, next) => {
        requests.push(call)
        call.meta.traceparent = 'tp'
        return next()
      },
      round: (round, next) => (rounds.push(round), next()),
      answer: (answer, next) => (answers.push(answer), next()),
    })
    const result = await c.callTool('provision', { name: 'db1' })
    expect(result.content).toEqual([{ type: 'text', text: "Provisioned 'db1' in eu-west-1." }])
    expect(requests.map((r) => [r.method, r.era, r.protocolVersion])).toEqual([
      ['initialize', 'legacy', '2025-11-25'],
      ['tools/call', 'legacy', '2025-11-25'],
    ])
    expect(requests[0].params).toMatchObject({ protocolVersion: '2025-11-25' })
    expect(rounds.map((r) => r.round)).toEqual([1]) // 2025: the server asks inside the one request
    expect(requests[1].round).toBe(rounds[0])
    expect(answers).toHaveLength(1)
    expect(answers[0]).toMatchObject({ method: 'elicitation/create', era: 'legacy' })
    expect(answers[0].key).toMatch(/^server-request-/)
    expect(answers[0].request).toBe(requests[1])
    expect(answers[0].round).toBeUndefined()
    const sent = posted().filter((b) => b.method !== undefined && b.method !== 'notifications/initialized')
    expect(sent.map((b) => b.method)).toEqual(['initialize', 'tools/call'])
    for (const body of sent) expect((body.params as { _meta?: { traceparent?: string } })._meta?.traceparent).toBe('tp')
  })

  it('an error thrown by a 2025 answer hook goes to the server as -32603 (like a failing callback); the call does not hang', async () => {
    const { client: c, posted } = client('legacy')
    c.use({
      answer: () => {
        throw new Error('secret detail')
      },
    })
    await c.callTool('provision', { name: 'db1' }).catch(() => {})
    const answer = posted().find((b) => b.error !== undefined) as { error: { code: number; message: string } }
    expect(answer.error.code).toBe(-32603)
    expect(answer.error.message).not.toContain('secret detail')
  })
})

describe('Client#use over stdio', () => {
  it('the two-round tools/call passes call, round, request (transport stdio) and answer hooks', async () => {
    const {
      client: c,
      connection,
      transport,
    } = stdioClient(createDemoServer({ requestStateKeys: ['c'.repeat(32)] }), {
      versionNegotiation: 'modern',
      elicitation: () => REGION,
    })
    const log: string[] = []
    const kinds: string[] = []
    c.use(recorder('a', log)).use((call, next) => (kinds.push(call.transport), next()))
    try {
      const result = await c.callTool('provision', { name: 'db1' })
      expect(result.content).toEqual([{ type: 'text', text: "Provisioned 'db1' in eu-west-1." }])
    } finally {
      await transport.close()
      await connection.closed
    }
    expect(kinds).toEqual(['stdio', 'stdio'])
    expect(log.filter((l) => l.startsWith('a>'))).toEqual([
      'a>call provision',
      'a>round 1',
      'a>request tools/call',
      'a>answer region',
      'a>round 2',
      'a>request tools/call',
    ])
  })
})
