/**
 * Questions for 2025-era clients: an `InputRequiredResult` or a resolver's question is
 * sent as a server-to-client request on the POST's SSE stream; the client POSTs its answer (202) and the
 * handler goes on with it. Bounded, never a hang; answers checked against the session that was asked.
 */
import { describe, expect, it } from 'vitest'
import { InMemoryQuestionMailbox, type QuestionMailbox } from '../../src/server/index.ts'
import { CAPS, callTool, initialize, makeServer } from '../fixtures/asker.ts'
import { answer, legacyPost, sseReader } from '../legacy-wire.ts'
import { schemaErrors2025 } from '../spec-schema.ts'

let id = 1000

describe('questions for a 2025-era client in a session', () => {
  it('a resolver elicitation goes out on the POST stream, the answer POST gets 202, the tool completes', async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('greet'), session))
    const question = await stream.next()
    expect(question.method).toBe('elicitation/create')
    expect(String(question.id)).toMatch(/^q1\./)
    expect(schemaErrors2025('ElicitRequest', question)).toEqual([])
    const posted = await legacyPost(
      handler,
      answer(question.id, { action: 'accept', content: { name: 'Ada' } }),
      session,
    )
    expect(posted.status).toBe(202)
    const final = await stream.next()
    expect(final.result).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] })
    expect(schemaErrors2025('CallToolResult', final.result)).toEqual([])
  })

  it('rounds carry the handler state server-side; a decline reaches the handler', async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('two_rounds'), session))
    const q1 = await stream.next()
    expect((q1.params as { mode?: string }).mode).toBe('form')
    await legacyPost(handler, answer(q1.id, { action: 'accept', content: { name: 'Ada' } }), session)
    const q2 = await stream.next()
    expect((q2.params as { message: string }).message).toBe('Second, Ada?')
    expect(q2.id).not.toBe(q1.id)
    expect((await legacyPost(handler, answer(q2.id, { action: 'decline' }), session)).status).toBe(202)
    const final = await stream.next()
    expect(final.result).toEqual({ content: [{ type: 'text', text: 'r2:Ada then decline' }] })
  })

  it('a 2025-06-18 session gets form elicitations without the 2025-11-25 mode field', async () => {
    const { handler } = makeServer()
    const res = await legacyPost(handler, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: CAPS, clientInfo: { name: 't', version: '1' } },
    })
    const session = { 'mcp-session-id': res.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' }
    const stream = sseReader(await legacyPost(handler, callTool('greet'), session))
    const question = await stream.next()
    expect(question.params).not.toHaveProperty('mode')
    await stream.cancel()
  })

  it('prompts/get asks too', async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    const body = { jsonrpc: '2.0', id: id++, method: 'prompts/get', params: { name: 'asking' } }
    const stream = sseReader(await legacyPost(handler, body, session))
    const q = await stream.next()
    await legacyPost(handler, answer(q.id, { action: 'accept', content: { name: 'x' } }), session)
    expect(((await stream.next()).result as { messages: unknown[] }).messages).toHaveLength(1)
  })

  it('an answer with a JSON-RPC error ends the call as a tool error naming the question', async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('greet'), session))
    const q = await stream.next()
    const posted = await legacyPost(
      handler,
      { jsonrpc: '2.0', id: q.id, error: { code: -1, message: 'user closed' } },
      session,
    )
    expect(posted.status).toBe(202)
    const final = (await stream.next()).result as { isError: boolean; content: { text: string }[] }
    expect(final.isError).toBe(true)
    expect(final.content[0].text).toContain('elicitation/create with error -1: user closed')
  })

  it('answers from another instance sharing the keys and the mailbox complete the call', async () => {
    const mailbox = new InMemoryQuestionMailbox()
    const a = makeServer({ mailbox })
    const b = makeServer({ mailbox })
    const session = await initialize(a.handler)
    const stream = sseReader(await legacyPost(a.handler, callTool('greet'), session))
    const q = await stream.next()
    expect(
      (await legacyPost(b.handler, answer(q.id, { action: 'accept', content: { name: 'B' } }), session)).status,
    ).toBe(202)
    expect((await stream.next()).result).toEqual({ content: [{ type: 'text', text: 'Hello, B!' }] })
  })

  it('without a shared mailbox the answer reaches nobody and the question times out as a tool error', async () => {
    const a = makeServer({ timeoutMs: 200 })
    const b = makeServer({ timeoutMs: 200 })
    const session = await initialize(a.handler)
    const stream = sseReader(await legacyPost(a.handler, callTool('greet'), session))
    const q = await stream.next()
    expect(
      (await legacyPost(b.handler, answer(q.id, { action: 'accept', content: { name: 'B' } }), session)).status,
    ).toBe(202)
    // the client is told the question is no longer waited for, then gets the tool error
    expect(await stream.next()).toMatchObject({ method: 'notifications/cancelled', params: { requestId: q.id } })
    const final = (await stream.next()).result as { isError: boolean; content: { text: string }[] }
    expect(final.isError).toBe(true)
    expect(final.content[0].text).toContain('no answer within 0.2 s')
  })

  it('stops after maxRounds rounds', async () => {
    const { handler } = makeServer({ maxRounds: 2 })
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('forever'), session))
    for (let i = 0; i < 2; i++) {
      const q = await stream.next()
      await legacyPost(handler, answer(q.id, { action: 'accept', content: { name: 'x' } }), session)
    }
    const final = (await stream.next()).result as { isError: boolean; content: { text: string }[] }
    expect(final.isError).toBe(true)
    expect(final.content[0].text).toBe(
      'This tools/call needed an answer from the client and did not get one: it would take more than 2 rounds of questions.',
    )
  })

  it('a client that goes away aborts the wait and the handler signal', async () => {
    const mailbox = new InMemoryQuestionMailbox()
    const { handler, signals } = makeServer({ mailbox })
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('two_rounds'), session))
    await stream.next()
    expect(mailbox.waiting).toBe(2) // the question, and the watch for a cancellation of the request
    await stream.cancel()
    await new Promise((r) => setTimeout(r, 10))
    expect(mailbox.waiting).toBe(0)
    expect(signals[0].aborted).toBe(true)
  })
})

describe('questions that cannot be asked fail at once', () => {
  const expectCode = async (res: Response, code: number) => {
    expect(res.status).toBe(200)
    const body = (await res.json()) as { error: { code: number; message: string } }
    expect(body.error.code).toBe(code)
    return body.error.message
  }

  it('-32021 when the session did not declare the capability, and without a session', async () => {
    const { handler } = makeServer()
    const noSampling = await initialize(handler, { elicitation: {} })
    expect(await expectCode(await legacyPost(handler, callTool('sample'), noSampling), -32021)).toContain('sampling')
    const noSession = await expectCode(await legacyPost(handler, callTool('greet')), -32021)
    expect(noSession).toContain('elicitation')
    expect(noSession).toContain('carries no Mcp-Session-Id')
  })

  it('a tool error when there is no mailbox (as on Workers without the binding), logged once; -32603 for a prompt', async () => {
    const { handler, warn } = makeServer({ mailbox: null })
    const session = await initialize(handler)
    const res = await legacyPost(handler, callTool('greet'), session)
    const body = (await res.json()) as { result: { isError: boolean; content: { text: string }[] } }
    expect(body.result.isError).toBe(true)
    expect(body.result.content[0].text).toBe(
      'This tools/call needed an answer from the client and did not get one: ' +
        'this server asks no questions of 2025-era clients (legacyQuestions.mailbox is null).',
    )
    await legacyPost(handler, callTool('greet'), session)
    expect(warn.filter((w) => w.includes('could not be asked: this server asks no questions'))).toHaveLength(1)
    const prompt = { jsonrpc: '2.0', id: id++, method: 'prompts/get', params: { name: 'asking' } }
    await expectCode(await legacyPost(handler, prompt, session), -32603)
  })

  it('a mailbox function that throws: its message is the reason', async () => {
    const mailbox = (): QuestionMailbox => {
      throw new Error('env.MCP_MAILBOX is not bound')
    }
    const { handler } = makeServer({ mailbox })
    const session = await initialize(handler)
    const body = (await (await legacyPost(handler, callTool('greet'), session)).json()) as {
      result: { content: { text: string }[] }
    }
    expect(body.result.content[0].text).toContain('env.MCP_MAILBOX is not bound')
  })

  it('a tool error when the client accepts no event stream', async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    const res = await legacyPost(handler, callTool('greet'), { ...session, accept: 'application/json' })
    const body = (await res.json()) as { result: { isError: boolean; content: { text: string }[] } }
    expect(body.result.content[0].text).toContain('text/event-stream')
  })

  it('inputResponses and requestState sent by a 2025 client never reach the handler', async () => {
    const { handler } = makeServer({ mailbox: null })
    const session = await initialize(handler)
    const forged = {
      jsonrpc: '2.0',
      id: id++,
      method: 'tools/call',
      params: {
        name: 'two_rounds',
        arguments: {},
        requestState: 'r1',
        inputResponses: { first: { action: 'accept', content: { name: 'x' } } },
      },
    }
    const body = (await (await legacyPost(handler, forged, session)).json()) as { result: { isError?: boolean } }
    expect(body.result.isError).toBe(true) // asked again from the start, which cannot be delivered
  })
})

describe('answers are checked', () => {
  async function asked() {
    const setup = makeServer()
    const session = await initialize(setup.handler)
    const stream = sseReader(await legacyPost(setup.handler, callTool('greet'), session))
    const q = await stream.next()
    return { ...setup, session, stream, q }
  }

  it('400 for an id that is not a question of this session, or without a session; 404 for a bad session', async () => {
    const { handler, session, q, stream } = await asked()
    const other = await initialize(handler)
    const ok = { action: 'accept', content: { name: 'x' } }
    for (const [body, headers] of [
      [answer('q1.forged', ok), session],
      [answer(7, ok), session],
      [answer(q.id, ok), other],
      [answer(q.id, ok), {}],
    ] as const) {
      const res = await legacyPost(handler, body, headers)
      expect(res.status).toBe(400)
      const err = (await res.json()) as { error: { code: number }; id?: unknown }
      expect(err.error.code).toBe(-32600)
      expect(err).not.toHaveProperty('id')
    }
    const bad = await legacyPost(handler, answer(q.id, ok), { 'mcp-session-id': 's1.nope' })
    expect(bad.status).toBe(404)
    // the real answer still completes the call
    expect((await legacyPost(handler, answer(q.id, ok), session)).status).toBe(202)
    expect((await stream.next()).result).toEqual({ content: [{ type: 'text', text: 'Hello, x!' }] })
  })

  it('a question id and a session id never stand in for each other (own HKDF infos)', async () => {
    const { handler, session, q } = await asked()
    const asSession = await legacyPost(handler, callTool('greet'), { ...session, 'mcp-session-id': String(q.id) })
    expect(asSession.status).toBe(404)
    const sessionAsQuestion = await legacyPost(
      handler,
      answer(session['mcp-session-id'], { action: 'decline' }),
      session,
    )
    expect(sessionAsQuestion.status).toBe(400)
  })

  it('a question id from a server with other keys does not open', async () => {
    const { q } = await asked()
    const otherServer = makeServer({}, ['o'.repeat(32)])
    const session = await initialize(otherServer.handler)
    expect((await legacyPost(otherServer.handler, answer(q.id, {}), session)).status).toBe(400)
  })

  it('a malformed response is a 400 framing error', async () => {
    const { handler } = makeServer()
    for (const body of [
      { jsonrpc: '2.0', id: 1, result: 'text' },
      { jsonrpc: '2.0', id: 1, error: { code: 'x', message: 'm' } },
      { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } },
    ]) {
      const res = await legacyPost(handler, body)
      expect(res.status).toBe(400)
    }
  })

  it('a legacy notification with a session id that does not open gets 404', async () => {
    const { handler } = makeServer()
    const res = await legacyPost(
      handler,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-session-id': 's1.x' },
    )
    expect(res.status).toBe(404)
  })
})
