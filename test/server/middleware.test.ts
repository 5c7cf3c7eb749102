/**
 * Server middleware (`Server#use`, `McpServer#use`): order, short-circuit, errors, `_meta`, the round and
 * the carry across rounds, what middleware sees of `requestState`, in both eras, over HTTP and stdio.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { stdioClient } from '../stdio-harness.ts'
import { askName } from '../fixtures/asker.ts'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { ErrorCode, McpError } from '../../src/index.ts'
import {
  McpServer,
  RequestStateSecurity,
  Server,
  createFetchHandler,
  toolError,
  type InvocationCall,
  type QuestionCall,
  type RequestCall,
  type ResolverCall,
} from '../../src/server/index.ts'
import { recordingLogger, req, std } from '../helpers.ts'

const KEY = 'm'.repeat(32)

/** A server with `echo` and `greet` (asks a name through a resolver: two rounds), and a log of what middleware saw. */
function makeServer() {
  const { logger, error } = recordingLogger()
  const mcp = new McpServer(
    { name: 'mw', version: '1' },
    { logger, requestStateSecurity: new RequestStateSecurity({ keys: [KEY] }) },
  )
  mcp.tool('echo', { description: 'echo', input: { text: v.string() } }, ({ text }) => text)
  mcp.tool('greet', { description: 'asks a name', use: { who: askName } }, ({ who }) => `Hello, ${who.name}!`)
  const fetch = createFetchHandler(mcp)
  return { mcp, fetch: (r: Request) => fetch(r), error }
}

function clientOf(fetch: (r: Request) => Promise<Response>, era: 'modern' | 'legacy' = 'modern') {
  return new Client({
    transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
    versionNegotiation: era,
    elicitation: () => Promise.resolve({ action: 'accept' as const, content: { name: 'Ada' } }),
  })
}

async function post(fetch: (r: Request) => Promise<Response>, body: Record<string, unknown>) {
  const method = body.method as string
  const name = (body.params as { name?: string }).name
  const res = await fetch(
    new Request('http://localhost/mcp', { method: 'POST', headers: std(method, name), body: JSON.stringify(body) }),
  )
  return {
    status: res.status,
    body: (await res.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string } },
  }
}

describe('server middleware', () => {
  it('runs in registration order, outermost first, around the handler; both kinds nest', async () => {
    const { mcp, fetch } = makeServer()
    const seen: string[] = []
    mcp.use(async (call, next) => {
      seen.push(`a>${call.method}`)
      const out = await next()
      seen.push(`a<${call.method}`)
      return out
    })
    mcp.use({
      request: async (_call, next) => {
        seen.push('b>')
        const out = await next()
        seen.push('b<')
        return out
      },
      invocation: async (call, next) => {
        seen.push(`i>${call.kind}:${call.name}:${JSON.stringify(call.arguments)}:r${call.round}`)
        return next()
      },
    })
    const result = await clientOf(fetch).callTool('echo', { text: 'hi' })
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }])
    expect(
      seen.filter((s) => !s.startsWith('a>server/') && !s.startsWith('a<server/') && !s.includes('discover')),
    ).toEqual(['a>tools/call', 'b>', 'i>tool:echo:{"text":"hi"}:r1', 'b<', 'a<tools/call'])
  })

  it('short-circuits: a tool error from invocation middleware, a JSON-RPC error from request middleware', async () => {
    const { mcp, fetch } = makeServer()
    let ran = false
    mcp.tool('guarded', { description: 'never runs' }, () => {
      ran = true
      return 'ran'
    })
    mcp.use({
      invocation: async (call, next) => (call.name === 'guarded' ? toolError('rate limited') : next()),
    })
    mcp.use(async (call, next) => {
      if ((call.params as { name?: string }).name === 'blocked')
        throw new McpError(ErrorCode.InvalidRequest, 'Blocked by policy')
      return next()
    })
    const client = clientOf(fetch)
    const guarded = await client.callTool('guarded')
    expect(guarded).toMatchObject({ isError: true, content: [{ type: 'text', text: 'rate limited' }] })
    expect(ran).toBe(false)
    const blocked = await post(fetch, req('tools/call', { name: 'blocked', arguments: {} }))
    expect(blocked.body.error).toEqual({ code: ErrorCode.InvalidRequest, message: 'Blocked by policy' })
  })

  it('a result of its own is finished like a handler result; meta keys reach the result _meta', async () => {
    const { mcp, fetch } = makeServer()
    mcp.use(async (call, next) => {
      call.meta['example.com/seen'] = call.method
      if (call.method === 'tools/list') return { tools: [] }
      return next()
    })
    const listed = await post(fetch, req('tools/list'))
    expect(listed.body.result).toMatchObject({ tools: [], resultType: 'complete' })
    expect(listed.body.result?._meta).toMatchObject({
      'example.com/seen': 'tools/list',
      'io.modelcontextprotocol/serverInfo': { name: 'mw', version: '1' },
    })
    const called = await post(fetch, req('tools/call', { name: 'echo', arguments: { text: 'x' } }))
    expect(called.body.result?._meta).toMatchObject({ 'example.com/seen': 'tools/call' })
  })

  it('an error thrown inside middleware is logged and answered -32603, never a hang', async () => {
    const { mcp, fetch, error } = makeServer()
    mcp.use(() => {
      throw new Error('middleware bug: secret-ish detail')
    })
    const res = await post(fetch, req('tools/call', { name: 'echo', arguments: { text: 'x' } }))
    expect(res.status).toBe(200)
    expect(res.body.error).toEqual({ code: ErrorCode.InternalError, message: 'Internal error' })
    expect(error.join('\n')).toContain('middleware bug')
  })

  it('a middleware that returns nothing fails the request with a clear logged error', async () => {
    const { mcp, fetch, error } = makeServer()
    // forgot to return next()'s result (the cast is what a JavaScript user would not need)
    mcp.use((async (_call: RequestCall, next: () => Promise<unknown>) => {
      await next()
    }) as never)
    const res = await post(fetch, req('tools/call', { name: 'echo', arguments: { text: 'x' } }))
    expect(res.body.error?.code).toBe(ErrorCode.InternalError)
    expect(error.join('\n')).toMatch(/The server request middleware #1 returned nothing/)
  })

  it('an invocation middleware error is the tool error a handler error would be', async () => {
    const { mcp, fetch } = makeServer()
    mcp.use({
      invocation: () => {
        throw new Error('quota store down')
      },
    })
    const result = await clientOf(fetch).callTool('echo', { text: 'x' })
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Error executing tool echo: quota store down' }],
    })
  })

  it('two rounds: round counted in the sealed state, carry travels, resolver and question seen; requestState never shown', async () => {
    const { mcp, fetch } = makeServer()
    const requests: RequestCall[] = []
    const invocations: InvocationCall[] = []
    const resolvers: ResolverCall[] = []
    const questions: QuestionCall[] = []
    const carried: Array<Record<string, string>> = []
    const results: Array<Record<string, unknown>> = []
    mcp.use({
      request: async (call, next) => {
        if (call.method !== 'tools/call') return next()
        requests.push(call)
        carried.push({ ...call.carry })
        if (call.round === 1) call.carry.trace = 'first-round-span'
        const out = await next()
        results.push(out)
        return out
      },
      invocation: async (call, next) => {
        invocations.push(call)
        return next()
      },
      resolver: async (call, next) => {
        resolvers.push(call)
        return next()
      },
      question: async (call, next) => {
        questions.push(call)
        return next()
      },
    })
    const result = await clientOf(fetch).callTool('greet')
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }])
    expect(requests.map((r) => [r.round, r.era, r.transport])).toEqual([
      [1, 'modern', 'http'],
      [2, 'modern', 'http'],
    ])
    expect(carried).toEqual([{}, { trace: 'first-round-span' }])
    // middleware never sees an inbound token, and sees the outbound one only sealed
    for (const r of requests) expect(r.params).not.toHaveProperty('requestState')
    const state = results[0].requestState as string
    expect(state).toMatch(/^v2\./)
    expect(state).not.toContain('first-round-span')
    expect(invocations.map((i) => [i.kind, i.name, i.round, i.request === requests[i.round - 1]])).toEqual([
      ['tool', 'greet', 1, true],
      ['tool', 'greet', 2, true],
    ])
    expect(resolvers.map((r) => [r.key, r.invocation.round])).toEqual([
      ['askName', 1],
      ['askName', 2],
    ])
    expect(questions).toHaveLength(1)
    expect(questions[0]).toMatchObject({ key: 'askName', method: 'elicitation/create', era: 'modern' })
    expect(questions[0].resolver).toBe(resolvers[0])
  })

  it('a round-2 token sealed by a server without middleware still opens (round 2 assumed)', async () => {
    const plain = makeServer()
    const first = await post(plain.fetch, req('tools/call', { name: 'greet', arguments: {} }))
    const token = first.body.result?.requestState as string
    const withMw = makeServer()
    const rounds: number[] = []
    withMw.mcp.use(async (call, next) => {
      rounds.push(call.round)
      return next()
    })
    const second = await post(
      withMw.fetch,
      req('tools/call', {
        name: 'greet',
        arguments: {},
        requestState: token,
        inputResponses: { askName: { action: 'accept', content: { name: 'Bo' } } },
      }),
    )
    expect(second.body.result?.content).toEqual([{ type: 'text', text: 'Hello, Bo!' }])
    expect(rounds).toEqual([2])
  })

  it('a request middleware may not return an InputRequiredResult of its own', async () => {
    const { mcp, fetch, error } = makeServer()
    mcp.use(() => ({ resultType: 'input_required', inputRequests: {}, requestState: 'forged' }))
    const res = await post(fetch, req('tools/call', { name: 'echo', arguments: { text: 'x' } }))
    expect(res.body.error?.code).toBe(ErrorCode.InternalError)
    expect(error.join('\n')).toMatch(/only handlers ask/)
  })

  it('2025 era: request middleware sees the legacy era and the session id, invocations count runs, questions their answers', async () => {
    const { mcp, fetch } = makeServer()
    const requests: RequestCall[] = []
    const invocationRounds: number[] = []
    const answers: unknown[] = []
    mcp.use({
      request: async (call, next) => {
        requests.push(call)
        return next()
      },
      invocation: async (call, next) => {
        invocationRounds.push(call.round)
        return next()
      },
      question: async (call, next) => {
        const answer = await next()
        answers.push([call.era, call.key, answer])
        return answer
      },
    })
    const result = await clientOf(fetch, 'legacy').callTool('greet')
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }])
    const call = requests.find((r) => r.method === 'tools/call')!
    expect(call.era).toBe('legacy')
    expect(call.round).toBe(1)
    expect(call.sessionId).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(requests.map((r) => r.method)).toContain('initialize')
    expect(invocationRounds).toEqual([1, 2])
    expect(answers).toEqual([['legacy', 'askName', { action: 'accept', content: { name: 'Ada' } }]])
  })

  it('2025 era: a short-circuit result is stripped like a handler result', async () => {
    const { mcp, fetch } = makeServer()
    mcp.use(async (call, next) => (call.method === 'tools/call' ? toolError('closed for maintenance') : next()))
    const result = await clientOf(fetch, 'legacy').callTool('echo', { text: 'x' })
    // the client reads a 2025 result as `resultType: 'complete'`; nothing of the 2026 wire reached it
    expect(result).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: 'closed for maintenance' }],
      isError: true,
    })
  })

  it('the low-level Server takes middleware too, and use() refuses what is not middleware', async () => {
    const server = new Server({ name: 's', version: '1' })
    server.setRequestHandler('tools/list', () => ({ tools: [] }))
    const methods: string[] = []
    server.use(async (call, next) => {
      methods.push(`${call.method}:${String(call.transport)}`)
      return next()
    })
    const handled = await server.handle({ kind: 'request', message: req('tools/list') as never })
    expect(handled.response).toMatchObject({ result: { tools: [] } })
    expect(methods).toEqual(['tools/list:undefined'])
    expect(() => server.use({ reqest: () => ({}) } as never)).toThrow(
      "use(): 'reqest' is not one of request, invocation, resolver, question, or not a function",
    )
    expect(() => server.use({ request: 5 } as never)).toThrow("use(): 'request' is not one of")
    expect(() => server.use(42 as never)).toThrow(
      'use() takes a middleware function, or an object of request, invocation, resolver, question middleware',
    )
  })

  for (const era of ['modern', 'legacy'] as const) {
    it(`over stdio (${era}): the transport is 'stdio', and a two-round call is seen whole`, async () => {
      const { mcp } = makeServer()
      const seen: string[] = []
      mcp.use({
        request: async (call, next) => {
          if (call.method === 'tools/call') seen.push(`request ${call.transport} ${call.era} r${call.round}`)
          return next()
        },
        invocation: async (call, next) => {
          seen.push(`invocation r${call.round}`)
          return next()
        },
        question: async (call, next) => {
          seen.push(`question ${call.key}`)
          return next()
        },
      })
      const { client, connection } = stdioClient(mcp, {
        versionNegotiation: era,
        elicitation: () => Promise.resolve({ action: 'accept' as const, content: { name: 'Ada' } }),
      })
      const result = await client.callTool('greet')
      expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }])
      expect(seen).toEqual(
        era === 'modern'
          ? ['request stdio modern r1', 'invocation r1', 'question askName', 'request stdio modern r2', 'invocation r2']
          : ['request stdio legacy r1', 'invocation r1', 'question askName', 'invocation r2'],
      )
      await client.close()
      await connection.close()
    })
  }

  it("middleware cannot set the protocol's own _meta keys (serverInfo stays the server's)", async () => {
    const { mcp, fetch } = makeServer()
    mcp.use(async (call, next) => {
      call.meta['io.modelcontextprotocol/serverInfo'] = { name: 'forged', version: '0' }
      call.meta['example.com/ok'] = true
      return next()
    })
    const res = await post(fetch, req('tools/call', { name: 'echo', arguments: { text: 'x' } }))
    expect(res.body.result?._meta).toEqual({
      'example.com/ok': true,
      'io.modelcontextprotocol/serverInfo': { name: 'mw', version: '1' },
    })
  })

  it('a tools/call result of its own must be a valid CallToolResult (else -32603, logged)', async () => {
    const { mcp, fetch, error } = makeServer()
    mcp.use(() => ({ foo: 1 }))
    const res = await post(fetch, req('tools/call', { name: 'echo', arguments: { text: 'x' } }))
    expect(res.body.error).toEqual({ code: ErrorCode.InternalError, message: 'Internal error' })
    expect(error.join('\n')).toMatch(/request middleware on tools\/call returned an invalid CallToolResult/)
  })

  for (const accept of ['application/json', 'application/json, text/event-stream']) {
    it(`a _meta value JSON cannot hold is -32603, logged, not an HTTP 500 (Accept: ${accept})`, async () => {
      const { mcp, fetch, error } = makeServer()
      mcp.use(async (call, next) => {
        call.meta['example.com/big'] = 10n
        return next()
      })
      const body = req('tools/call', { name: 'echo', arguments: { text: 'x' } })
      const res = await fetch(
        new Request('http://localhost/mcp', {
          method: 'POST',
          headers: { ...std('tools/call', 'echo'), accept },
          body: JSON.stringify(body),
        }),
      )
      expect(res.status).toBe(200)
      const text = await res.text()
      const json = JSON.parse(text.startsWith('event:') ? text.split('data: ')[1] : text) as Record<string, unknown>
      expect(json).toEqual({
        jsonrpc: '2.0',
        id: body.id,
        error: { code: ErrorCode.InternalError, message: 'Internal error' },
      })
      expect(error.join('\n')).toMatch(/could not be serialized as JSON/)
    })
  }

  it("2025 initialize: the call's protocolVersion is the one the answer negotiates", async () => {
    const { mcp, fetch } = makeServer()
    const versions: string[] = []
    mcp.use(async (call, next) => {
      versions.push(`${call.method} ${call.protocolVersion}`)
      return next()
    })
    await clientOf(fetch, 'legacy').callTool('echo', { text: 'x' })
    expect(versions).toEqual(['initialize 2025-11-25', 'tools/call 2025-11-25'])
  })

  it('a request without a token is round 1, whatever answers it carries (a client cannot skip round-1 checks)', async () => {
    const { mcp } = makeServer()
    const rounds: number[] = []
    mcp.use((call, next) => (rounds.push(call.round), next()))
    await mcp.server.handle({
      kind: 'request',
      message: req('tools/call', { name: 'echo', arguments: { text: 'x' }, inputResponses: {} }) as never,
    })
    expect(rounds).toEqual([1])
  })

  it('a handler that asks without state of its own still gets rounds 1, 2, 3 and the carry: a token carries them', async () => {
    const server = new Server({ name: 's', version: '1' })
    server.useRequestStateSecurity(new RequestStateSecurity({ keys: [KEY] }))
    const states: unknown[] = []
    server.setRequestHandler('tools/call', (params, ctx) => {
      states.push(ctx.requestState)
      const asked = Object.keys(params.inputResponses ?? {}).length
      if (asked < 2)
        return { resultType: 'input_required', inputRequests: { [`q${asked}`]: { method: 'roots/list', params: {} } } }
      return { content: [{ type: 'text', text: 'done' }] }
    })
    const seen: Array<[number, string | undefined]> = []
    server.use(async (call, next) => {
      seen.push([call.round, call.carry.first])
      call.carry.first ??= `r${call.round}`
      return next()
    })
    const send = async (params: Record<string, unknown>) =>
      (await server.handle({ kind: 'request', message: req('tools/call', params, { roots: {} }) as never }))
        .response as { result: Record<string, unknown> }
    const r1 = await send({ name: 't', arguments: {} })
    expect(r1.result.requestState).toMatch(/^v2\./) // the server's token, though the handler returned no state
    const r2 = await send({
      name: 't',
      arguments: {},
      requestState: r1.result.requestState,
      inputResponses: { q0: { roots: [] } },
    })
    const r3 = await send({
      name: 't',
      arguments: {},
      requestState: r2.result.requestState,
      inputResponses: { q0: { roots: [] }, q1: { roots: [] } },
    })
    expect(r3.result.content).toEqual([{ type: 'text', text: 'done' }])
    expect(seen).toEqual([
      [1, undefined],
      [2, 'r1'],
      [3, 'r1'],
    ])
    expect(states).toEqual([undefined, undefined, undefined]) // the handler never sees the server's token as state
  })

  for (const era of ['modern', 'legacy'] as const) {
    for (const [what, own] of [
      ['an invalid CallToolResult', { content: 'nope' }],
      ['an InputRequiredResult', { resultType: 'input_required', requestState: 'forged', inputRequests: {} }],
    ] as const) {
      it(`${era}: a request middleware's own ${what} on tools/call is -32603`, async () => {
        const { mcp, fetch } = makeServer()
        mcp.use(async (call, next) => (call.method === 'tools/call' ? own : next()))
        await expect(clientOf(fetch, era).callTool('echo', { text: 'x' })).rejects.toMatchObject({ code: -32603 })
      })
    }
  }

  for (const era of ['modern', 'legacy'] as const) {
    it(`client middleware (${era}): the protocol's own _meta keys and progressToken stay the client's`, async () => {
      const { fetch } = makeServer()
      const bodies: Array<{ method: string; params: { _meta: Record<string, unknown> } }> = []
      const client = new Client({
        transport: new StreamableHttpClientTransport('http://localhost/mcp', {
          fetch: async (r: Request) => {
            if (r.method === 'POST') bodies.push((await r.clone().json()) as (typeof bodies)[number])
            return fetch(r)
          },
        }),
        versionNegotiation: era,
      })
      client.use((call, next) => {
        call.meta['io.modelcontextprotocol/protocolVersion'] = 'evil'
        call.meta.progressToken = 'evil'
        call.meta['example.com/y'] = 1
        return next()
      })
      const result = await client.callTool('echo', { text: 'x' }, { onProgress: () => {} })
      expect(result.content).toEqual([{ type: 'text', text: 'x' }])
      const meta = bodies.find((b) => b.method === 'tools/call')!.params._meta
      expect(meta['example.com/y']).toBe(1)
      expect(meta.progressToken).not.toBe('evil')
      expect(meta['io.modelcontextprotocol/protocolVersion']).toBe(era === 'modern' ? '2026-07-28' : undefined)
    })
  }
})
