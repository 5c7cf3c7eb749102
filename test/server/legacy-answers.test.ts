/**
 * Attacks on the legacy lane's questions: malformed answers, progress across the
 * re-runs of one request, version headers on answers and notifications, the early-answer buffer as a
 * memory sink, timer options that overflow, abandoned questions the client is never told about, and a
 * disconnect logged as a server failure.
 */
import { describe, expect, it } from 'vitest'
import {
  InMemoryQuestionMailbox,
  McpServer,
  RequestStateSecurity,
  Server,
  createFetchHandler,
  elicitForm,
  inputRequired,
  type QuestionAnswer,
} from '../../src/server/index.ts'
import { UpstreamError } from '../../src/server/errors.ts'
import { recordingLogger } from '../helpers.ts'
import { answer, legacyPost, sseReader, type Message } from '../legacy-wire.ts'
import { schemaErrors2025 } from '../spec-schema.ts'
import { KEY, askName, callTool, initialize, makeServer, nameForm, toolText } from '../fixtures/asker.ts'

describe('malformed answers', () => {
  it('fail the question they answer as a tool error naming it (not -32602 about inputResponses the client never sent)', async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    for (const bad of [{ action: 'bogus' }, {}, { action: 'accept', content: { name: { x: 1 } } }]) {
      const stream = sseReader(await legacyPost(handler, callTool('greet'), session))
      const q = await stream.next()
      expect((await legacyPost(handler, answer(q.id, bad), session)).status).toBe(202)
      const final = await stream.next()
      expect(final.error).toBeUndefined()
      expect((final.result as { isError?: boolean }).isError).toBe(true)
      expect(toolText(final)).toContain('invalid answer to elicitation/create')
      expect(toolText(final)).not.toContain('inputResponses')
    }
  })

  it('a sampling answer that is not a CreateMessageResult fails too', async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('sample'), session))
    const q = await stream.next()
    await legacyPost(handler, answer(q.id, { role: 'assistant' }), session)
    expect(toolText(await stream.next())).toContain('invalid answer to sampling/createMessage')
  })

  it('a low-level Server handler gets only valid answers (the SDK built its inputResponses)', async () => {
    const server = new Server({ name: 'low', version: '1' })
    server.useRequestStateSecurity(new RequestStateSecurity({ keys: [KEY] }))
    const seen: unknown[] = []
    server.setRequestHandler('tools/call', (params) => {
      if (params.inputResponses === undefined) return inputRequired({ q: elicitForm('Q?', nameForm) })
      seen.push(params.inputResponses)
      return { content: [{ type: 'text', text: 'ok' }] }
    })
    const handler = createFetchHandler(server)
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('x'), session))
    const q = await stream.next()
    await legacyPost(handler, answer(q.id, { action: 'maybe' }), session)
    expect((await stream.next()).result).toMatchObject({ isError: true })
    expect(seen).toEqual([])
  })
})

describe('progress across the re-runs of one legacy request', () => {
  it('never repeats a progress value on the one progressToken (spec: progress MUST increase)', async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('progress', { progressToken: 'p' }), session))
    const seen: Message[] = []
    let m = await stream.next()
    for (; m.method !== 'elicitation/create'; m = await stream.next()) seen.push(m)
    await legacyPost(handler, answer(m.id, { action: 'accept', content: { name: 'x' } }), session)
    for (m = await stream.next(); m.method !== undefined; m = await stream.next()) seen.push(m)
    expect(toolText(m)).toBe('done')
    expect(seen.map((n) => n.params?.progress)).toEqual([1])
  })
})

describe('MCP-Protocol-Version on answers and notifications (spec 2025-11-25: transports.mdx, MUST 400)', () => {
  it('an unsupported version is 400, as on requests; a version other than the session’s too', async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('greet'), session))
    const q = await stream.next()
    const ok = { action: 'accept', content: { name: 'x' } }
    for (const version of ['1999-01-01', '2025-06-18']) {
      const headers = { ...session, 'mcp-protocol-version': version }
      expect((await legacyPost(handler, answer(q.id, ok), headers)).status).toBe(400)
      const note = { jsonrpc: '2.0', method: 'notifications/initialized' }
      expect((await legacyPost(handler, note, headers)).status).toBe(400)
    }
    expect(
      (await legacyPost(handler, { jsonrpc: '2.0', method: 'notifications/x' }, { 'mcp-protocol-version': 'x' }))
        .status,
    ).toBe(400)
    expect((await legacyPost(handler, answer(q.id, ok), session)).status).toBe(202)
    expect(toolText(await stream.next())).toBe('Hello, x!')
  })
})

describe('the early-answer buffer', () => {
  const big = (n: number): QuestionAnswer => ({ result: { action: 'accept', content: { name: 'x'.repeat(n) } } })

  it('keeps at most maxEarlyAnswerBytes of answers (oldest dropped), none bigger than that', async () => {
    const mailbox = new InMemoryQuestionMailbox({ maxEarlyAnswerBytes: 1000 })
    await mailbox.deliver('a', big(600))
    await mailbox.deliver('b', big(600)) // over the cap with a: a goes
    await mailbox.deliver('c', big(5000)) // never kept
    await expect(mailbox.wait('a', 20)).rejects.toThrow('no answer')
    await expect(mailbox.wait('c', 20)).rejects.toThrow('no answer')
    await expect(mailbox.wait('b', 20)).resolves.toEqual(big(600))
  })

  it('by default holds no more than 8 MiB of answers to questions nobody waits on (late, replayed)', async () => {
    const mailbox = new InMemoryQuestionMailbox()
    const answerOf4MiB = big(4 * 1024 * 1024 - 64)
    for (const qid of ['1', '2', '3']) await mailbox.deliver(qid, answerOf4MiB)
    await expect(mailbox.wait('1', 20)).rejects.toThrow('no answer')
    await expect(mailbox.wait('3', 20)).resolves.toBe(answerOf4MiB)
  })
})

describe('timer options', () => {
  const mcp = () => new McpServer({ name: 't', version: '1' })
  it('keepAliveMs must be a positive number of ms that a timer can hold (0, Infinity, NaN would flood every 1 ms)', () => {
    for (const keepAliveMs of [0, -1, Infinity, NaN, 2 ** 31])
      expect(() => createFetchHandler(mcp(), { keepAliveMs })).toThrow(RangeError)
    expect(() => createFetchHandler(mcp(), { keepAliveMs: 2 ** 31 - 1 })).not.toThrow()
  })

  it('legacyQuestions.timeoutMs and earlyAnswerMs past 2^31-1 ms (a timer fires at once) are refused', () => {
    expect(() => new McpServer({ name: 't', version: '1' }, { legacyQuestions: { timeoutMs: 2 ** 31 } })).toThrow(
      RangeError,
    )
    expect(() => new InMemoryQuestionMailbox({ earlyAnswerMs: 2 ** 31 })).toThrow(RangeError)
  })
})

describe('abandoned questions', () => {
  it('the client is told (notifications/cancelled) about questions the server no longer waits for', async () => {
    const { handler } = makeServer({ timeoutMs: 200 })
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('two'), session))
    const a = await stream.next()
    const b = await stream.next()
    await legacyPost(handler, answer(a.id, { action: 'accept', content: { name: 'x' } }), session)
    const cancelled = await stream.next()
    expect(cancelled).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: b.id, reason: 'no answer within 0.2 s' },
    })
    expect(schemaErrors2025('CancelledNotification', cancelled)).toEqual([])
    expect(toolText(await stream.next())).toContain('no answer within 0.2 s')
  })

  it('when one answer is an error, the other question still open is cancelled', async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('two'), session))
    const a = await stream.next()
    const b = await stream.next()
    await legacyPost(handler, { jsonrpc: '2.0', id: a.id, error: { code: -1, message: 'no' } }, session)
    const cancelled = await stream.next()
    expect(cancelled.method).toBe('notifications/cancelled')
    expect(cancelled.params?.requestId).toBe(b.id)
    expect((await stream.next()).result).toMatchObject({ isError: true })
  })
})

describe('a client that goes away', () => {
  it('is not logged as a failure of the handler', async () => {
    const mailbox = new InMemoryQuestionMailbox()
    const { handler, error } = makeServer({ mailbox })
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('greet'), session))
    await stream.next()
    await stream.cancel()
    await new Promise((r) => setTimeout(r, 10))
    expect(mailbox.waiting).toBe(0)
    expect(error).toEqual([])
  })
})

describe('a client that goes away while the handler runs again', () => {
  it('asks nothing more: no waiter is left for the next round', async () => {
    const { logger } = recordingLogger()
    const mailbox = new InMemoryQuestionMailbox()
    const mcp = new McpServer(
      { name: 'asker', version: '1' },
      { logger, legacyQuestions: { mailbox }, requestStateSecurity: new RequestStateSecurity({ keys: [KEY] }) },
    )
    let release!: () => void
    const rerunning = new Promise<void>((resolve) => (release = resolve))
    let started!: () => void
    const rerunStarted = new Promise<void>((resolve) => (started = resolve))
    mcp.tool('slow', { description: 'slow second run, then asks again' }, async (_args, ctx) => {
      if (ctx.requestState === undefined) return inputRequired({ q: elicitForm('Q?', nameForm) }, 'r1')
      started()
      await rerunning
      return inputRequired({ q: elicitForm('Again?', nameForm) }, 'r2')
    })
    const handler = createFetchHandler(mcp)
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('slow'), session))
    const q = await stream.next()
    await legacyPost(handler, answer(q.id, { action: 'accept', content: { name: 'x' } }), session)
    await rerunStarted
    await stream.cancel() // gone while the handler runs its second round
    release()
    await new Promise((r) => setTimeout(r, 20))
    expect(mailbox.waiting).toBe(0)
  })
})

describe('answers and principals (authenticate)', () => {
  it("another principal cannot answer a question, not with the asker's session nor with its own", async () => {
    let subject = 'alice'
    const mcp = new McpServer(
      { name: 'asker', version: '1' },
      { logger: recordingLogger().logger, requestStateSecurity: new RequestStateSecurity({ keys: [KEY] }) },
    )
    mcp.tool('greet', { description: 'asks a name', use: { who: askName } }, ({ who }) => `Hello, ${who.name}!`)
    const handler = createFetchHandler(mcp, { authenticate: () => ({ clientId: 'c', subject }) })
    const alice = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('greet'), alice))
    const q = await stream.next()
    const ok = { action: 'accept', content: { name: 'mallory' } }
    subject = 'bob'
    const bob = await initialize(handler)
    expect((await legacyPost(handler, answer(q.id, ok), alice)).status).toBe(404)
    expect((await legacyPost(handler, answer(q.id, ok), bob)).status).toBe(400)
    subject = 'alice'
    expect((await legacyPost(handler, answer(q.id, { ...ok, content: { name: 'Alice' } }), alice)).status).toBe(202)
    expect(toolText(await stream.next())).toBe('Hello, Alice!')
  })
})

describe('an answer that arrives before the wait (a mailbox behind an async hop, as the Durable Object)', () => {
  it('is kept and handed to the wait that comes after it', async () => {
    const inner = new InMemoryQuestionMailbox()
    const slow = {
      wait: async (qid: string, timeoutMs: number, signal?: AbortSignal) => {
        await new Promise((r) => setTimeout(r, 30)) // the wait reaches the object after the answer
        return inner.wait(qid, timeoutMs, signal)
      },
      deliver: (qid: string, a: QuestionAnswer) => inner.deliver(qid, a),
    }
    const { handler } = makeServer({ mailbox: slow })
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('greet'), session))
    const q = await stream.next()
    await legacyPost(handler, answer(q.id, { action: 'accept', content: { name: 'Early' } }), session)
    expect(toolText(await stream.next())).toBe('Hello, Early!')
  })
})

describe('a 2025 client that cancels its request (notifications/cancelled) while a question is open', () => {
  // The official client 1.x does exactly this when its request timeout (default 60 s, shorter than the
  // default question timeout of 300 s) runs out: it sends notifications/cancelled and keeps the stream
  // open. The cancel ends the request: its open questions are cancelled on the stream, a late answer runs
  // nothing. On another instance (Workers: another isolate) it travels through the mailbox.
  function sideEffectServer(mailbox?: InMemoryQuestionMailbox) {
    const effects: string[] = []
    const signals: AbortSignal[] = []
    const mcp = new McpServer(
      { name: 'asker', version: '1' },
      {
        logger: recordingLogger().logger,
        requestStateSecurity: new RequestStateSecurity({ keys: [KEY] }),
        ...(mailbox ? { legacyQuestions: { mailbox } } : {}),
      },
    )
    mcp.tool('provision', { description: 'side effect', use: { who: askName } }, ({ who }, ctx) => {
      signals.push(ctx.signal)
      effects.push(who.name)
      return 'provisioned'
    })
    return { handler: createFetchHandler(mcp), effects }
  }
  const cancelOf = (requestId: unknown) => ({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId, reason: 'timeout' },
  })

  for (const where of ['the same instance', 'another instance sharing the mailbox'] as const) {
    it(`on ${where}: the open question is cancelled on the stream, a late answer runs nothing`, async () => {
      const mailbox = new InMemoryQuestionMailbox()
      const a = sideEffectServer(mailbox)
      const b = where === 'the same instance' ? a : sideEffectServer(mailbox)
      const session = await initialize(a.handler)
      const call = callTool('provision')
      const stream = sseReader(await legacyPost(a.handler, call, session))
      const q = await stream.next()
      expect((await legacyPost(b.handler, cancelOf(call.id), session)).status).toBe(202)
      const cancelled = await stream.next()
      expect(cancelled).toMatchObject({ method: 'notifications/cancelled', params: { requestId: q.id } })
      expect(schemaErrors2025('CancelledNotification', cancelled)).toEqual([])
      expect(mailbox.waiting).toBe(0)
      // no response for the cancelled request (spec: cancellation.mdx): the stream just ends
      await expect(stream.next()).rejects.toThrow('stream ended')
      await legacyPost(a.handler, answer(q.id, { action: 'accept', content: { name: 'late' } }), session)
      expect(a.effects).toEqual([])
    })
  }

  it('a cancel naming another session’s request, or another id, cancels nothing', async () => {
    const { handler, effects } = sideEffectServer()
    const session = await initialize(handler)
    const other = await initialize(handler)
    const call = callTool('provision')
    const stream = sseReader(await legacyPost(handler, call, session))
    const q = await stream.next()
    expect((await legacyPost(handler, cancelOf(call.id), other)).status).toBe(202)
    expect((await legacyPost(handler, cancelOf(9_999_999), session)).status).toBe(202)
    expect((await legacyPost(handler, cancelOf({ x: 1 }), session)).status).toBe(202)
    await legacyPost(handler, answer(q.id, { action: 'accept', content: { name: 'kept' } }), session)
    expect(toolText(await stream.next())).toBe('provisioned')
    expect(effects).toEqual(['kept'])
  })
})

describe('a mailbox that fails (its service down: Redis, a Durable Object)', () => {
  const failing = (error: Error) => {
    const inner = new InMemoryQuestionMailbox()
    return {
      wait: (qid: string, timeoutMs: number, signal?: AbortSignal) => inner.wait(qid, timeoutMs, signal),
      deliver: () => Promise.reject(error),
    }
  }

  it('an UpstreamError from deliver: the answer POST gets 503 -32603 saying to send it again, and the server logs why', async () => {
    const { handler, error } = makeServer({ mailbox: failing(new UpstreamError('Redis did not answer SET')) })
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('greet'), session))
    const q = await stream.next()
    const res = await legacyPost(handler, answer(q.id, { action: 'accept', content: { name: 'x' } }), session)
    expect(res.status).toBe(503)
    const body = (await res.json()) as { error: { code: number; message: string } }
    expect(body.error.code).toBe(-32603)
    expect(body.error.message).toMatch(/could not be handed to the request waiting for it.*send it again/)
    expect(body.error.message).not.toContain('Redis') // the service's own words go to the log
    expect(error.join('\n')).toContain('an answer could not be delivered: Redis did not answer SET')
    await stream.cancel()
  })

  it('any other failure of deliver is still a logged 500 Internal error', async () => {
    const { handler, error } = makeServer({ mailbox: failing(new Error('a bug')) })
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('greet'), session))
    const q = await stream.next()
    const res = await legacyPost(handler, answer(q.id, { action: 'accept', content: { name: 'x' } }), session)
    expect(res.status).toBe(500)
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('Internal error')
    expect(error.join('\n')).toContain('a bug')
    await stream.cancel()
  })

  it('an UpstreamError from wait: the tool call ends in a tool error with its message, and the server logs it', async () => {
    const mailbox = {
      wait: () => Promise.reject(new UpstreamError('the wait lost its service; call the tool again')),
      deliver: () => Promise.resolve(),
    }
    const { handler, error } = makeServer({ mailbox })
    const session = await initialize(handler)
    const stream = sseReader(await legacyPost(handler, callTool('greet'), session))
    let final = await stream.next()
    while (final.id === undefined || final.method !== undefined) final = await stream.next()
    expect((final.result as { isError?: boolean }).isError).toBe(true)
    expect(toolText(final)).toContain('call the tool again')
    expect(error.join('\n')).toContain('a question to a 2025-era client failed: the wait lost its service')
  })
})
