/**
 * Structured logs: with `logger.record`, every diagnostic of the server is a record with a stable event name,
 * and each JSON-RPC request adds one `request` record (method, target, duration, outcome, era, id) — over
 * HTTP in both eras and over stdio. A request full of secrets (bearer token, session id, requestState,
 * arguments, answers, handler state, an error's cause) leaves none of them in any record or console line.
 * Without `record`, the text output is what it was, and no request costs a clock read.
 */
import { format } from 'node:util'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as v from 'valibot'
import {
  McpServer,
  RequestStateSecurity,
  Server,
  createFetchHandler,
  elicitForm,
  inputRequired,
  toolError,
  type FetchHandler,
  type HandlerContext,
  type LogRecord,
  type Logger,
} from '../../src/server/index.ts'
import { protectedResource } from '../../src/oauth/index.ts'
import { post, req, std, recordingLogger, type Posted } from '../helpers.ts'
import { answer, initializeLegacy, legacyPost, sseReader } from '../legacy-wire.ts'
import { pipe, type Out } from '../stdio-harness.ts'

const MARKER = 'MARKER-c0ffee-5ecret'
const BEARER = 'bearer-token-of-alice-0123456789'
/** A token the verifier cannot check: its error's cause holds the token. */
const BROKEN_BEARER = 'bearer-token-that-breaks-the-verifier'
const KEY = 'k'.repeat(32)
const pinForm = { type: 'object' as const, properties: { pin: { type: 'string' as const } }, required: ['pin'] }

/** A logger that keeps every record, and whether `warn` / `error` were ever called. */
function structured(): { logger: Logger; records: LogRecord[]; text: string[] } {
  const records: LogRecord[] = []
  const text: string[] = []
  return {
    records,
    text,
    logger: { warn: (m) => text.push(m), error: (m) => text.push(m), record: (record) => records.push(record) },
  }
}

/** Every console line printed while the test runs. */
function captureConsole(): string[] {
  const lines: string[] = []
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const)
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void lines.push(format(...args)))
  return lines
}
afterEach(() => {
  vi.restoreAllMocks()
})

/**
 * The vault: `echo` (ok), `deny` (a tool error), `wait` (until cancelled); the tool `vault` and the prompt
 * `vault` each ask a PIN with state holding the marker, then throw an Error whose message is fine and
 * whose cause holds the arguments, the answers and the state (the tool's becomes a tool error; the
 * prompt's, -32603 and a `handler.failed` record).
 */
function vault(logger: Logger): McpServer {
  const mcp = new McpServer(
    { name: 'vault', version: '1' },
    { logger, requestStateSecurity: new RequestStateSecurity({ keys: [KEY] }) },
  )
  mcp.tool('echo', { input: { secret: v.string() } }, ({ secret }) => `got ${secret.length} characters`)
  mcp.tool('deny', { input: { secret: v.string() } }, () => toolError('denied'))
  mcp.tool('wait', {}, (_args, ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', reject)))
  const run = (secret: string, ctx: HandlerContext) => {
    if (ctx.requestState === undefined) return inputRequired({ pin: elicitForm('PIN?', pinForm) }, `state-${MARKER}`)
    const cause = new Error(`${secret} ${JSON.stringify(ctx.inputResponses)} ${JSON.stringify(ctx.requestState)}`)
    throw new Error('the vault failed', { cause })
  }
  mcp.tool('vault', { input: { secret: v.string() } }, ({ secret }, ctx) => run(secret, ctx))
  mcp.prompt('vault', { arguments: { secret: v.string() } }, ({ secret }, ctx) => run(secret, ctx))
  return mcp
}

/** The fetch handler of `mcp` behind a bearer check; `as(token)` sends every request with that token. */
function guarded(mcp: McpServer): { handler: FetchHandler; as: (token: string) => FetchHandler } {
  const handler = createFetchHandler(mcp, {
    oauth: protectedResource({
      authorizationServers: ['https://as.test'],
      resource: 'http://localhost/mcp',
      verifyToken: (token) => {
        if (token === BEARER) return Promise.resolve({ clientId: 'c', subject: 'alice', scopes: [] })
        return Promise.reject(new Error('introspection is down', { cause: new Error(`token ${token}`) }))
      },
    }),
  })
  return {
    handler,
    as: (token) => (request) => {
      request.headers.set('authorization', `Bearer ${token}`)
      return handler(request)
    },
  }
}

/** A modern request posted to `handler`. */
function send(handler: FetchHandler, method: string, params: Record<string, unknown>): Promise<Posted> {
  return post(handler, req(method, params), std(method, params.name as string))
}
const callTool = (handler: FetchHandler, params: Record<string, unknown>) => send(handler, 'tools/call', params)

/** No secret in any record (as JSON) or console line. */
function expectNoSecrets(records: LogRecord[], lines: string[], secrets: string[]): void {
  const seen = [...records.map((r) => JSON.stringify(r)), ...lines]
  for (const secret of [MARKER, BEARER, BROKEN_BEARER, ...secrets]) {
    expect(secret.length).toBeGreaterThan(8)
    for (const line of seen) expect(line).not.toContain(secret)
  }
}

describe('a request full of secrets leaves none in the logs', () => {
  it('modern HTTP: bearer, arguments, requestState, answers, handler state, an error cause, a forged token', async () => {
    const lines = captureConsole()
    const { logger, records, text } = structured()
    const { as } = guarded(vault(logger))
    const alice = as(BEARER)
    const inputResponses = { pin: { action: 'accept', content: { pin: MARKER } } }
    const states: string[] = []
    for (const [method, args] of [
      ['tools/call', { name: 'vault', arguments: { secret: MARKER } }],
      ['prompts/get', { name: 'vault', arguments: { secret: MARKER } }],
    ] as const) {
      const first = await send(alice, method, args)
      expect(first.body.result.resultType).toBe('input_required')
      const state = first.body.result.requestState
      states.push(state)
      const second = await send(alice, method, { ...args, inputResponses, requestState: state })
      if (method === 'tools/call') expect(second.body.result.isError).toBe(true)
      else expect(second.body.error.code).toBe(-32603)
    }
    const args = { name: 'vault', arguments: { secret: MARKER } }
    const forged = await callTool(alice, { ...args, inputResponses, requestState: `${states[0].slice(0, -4)}AAAA` })
    expect(forged.body.error.code).toBe(-32602)
    const echoed = await callTool(alice, { name: 'echo', arguments: { secret: [MARKER] } }) // invalid arguments
    expect(echoed.body.result.isError).toBe(true)
    expect((await callTool(as(BROKEN_BEARER), args)).status).toBe(503)

    expect(text).toEqual([]) // with `record`, warn and error are not called
    expect(records.map((r) => [r.event, r.outcome])).toEqual([
      ['request', 'inputRequired'],
      ['request', 'toolError'],
      ['request', 'inputRequired'],
      ['handler.failed', undefined],
      ['request', 'error'],
      ['requestState.rejected', undefined],
      ['request', 'refused'],
      ['request', 'toolError'],
      ['auth.verifyFailed', undefined],
    ])
    expect(records[3]).toMatchObject({ error: { name: 'Error', message: 'the vault failed' }, method: 'prompts/get' })
    expect(records[5]).toMatchObject({ level: 'warn', method: 'tools/call' })
    expect(records[8]).toMatchObject({ level: 'error', error: { name: 'Error', message: 'introspection is down' } })
    expectNoSecrets(records, lines, states)
    expect(lines).toEqual([])
  })

  it('2025-era HTTP: the session id, the question id, answers and arguments, a forged session', async () => {
    const lines = captureConsole()
    const { logger, records, text } = structured()
    const { as } = guarded(vault(logger))
    const alice = as(BEARER)
    const session = await initializeLegacy(alice, { elicitation: { form: {} } })
    const call = {
      jsonrpc: '2.0',
      id: 7,
      method: 'prompts/get',
      params: { name: 'vault', arguments: { secret: MARKER } },
    }
    const stream = sseReader(await legacyPost(alice, call, session))
    const question = await stream.next()
    expect(question.method).toBe('elicitation/create')
    const questionId = String(question.id)
    const reply = answer(question.id, { action: 'accept', content: { pin: MARKER } })
    expect((await legacyPost(alice, reply, session)).status).toBe(202)
    expect((await stream.next()).error).toMatchObject({ code: -32603 })
    const sessionId = session['mcp-session-id']
    const forged = { ...session, 'mcp-session-id': `${sessionId.slice(0, -4)}AAAA` }
    expect((await legacyPost(alice, { ...call, id: 8 }, forged)).status).toBe(404)

    expect(text).toEqual([])
    expect(records.map((r) => r.event)).toEqual([
      'request',
      'handler.failed',
      'request',
      'sessionId.rejected',
      'request',
    ])
    expect(records[0]).toMatchObject({ method: 'initialize', era: 'legacy', outcome: 'ok', requestId: 0 })
    expect(records[2]).toMatchObject({ method: 'prompts/get', target: 'vault', era: 'legacy', outcome: 'error' })
    expect(records[4]).toMatchObject({ method: 'prompts/get', era: 'legacy', outcome: 'refused' })
    expectNoSecrets(records, lines, [sessionId, questionId])
    expect(lines).toEqual([])
  })

  it('stdio: arguments, state, answers and an error cause', async () => {
    const lines = captureConsole()
    const { logger, records, text } = structured()
    const p = pipe(vault(logger))
    const args = { name: 'vault', arguments: { secret: MARKER } }
    const first = req('prompts/get', args)
    await p.send(first)
    const state = (await p.next((m) => m.id === first.id)).result.requestState
    const inputResponses = { pin: { action: 'accept', content: { pin: MARKER } } }
    const second = req('prompts/get', { ...args, inputResponses, requestState: state })
    await p.send(second)
    expect((await p.next((m) => m.id === second.id)).error.code).toBe(-32603)
    await p.raw(`{"not json ${MARKER}\n`)
    await p.next((m) => m.error?.code === -32700)
    await p.end()
    await p.outputClosed

    expect(text).toEqual([])
    expect(records.map((r) => r.event)).toEqual(['request', 'handler.failed', 'request', 'stdio.parseError'])
    expectNoSecrets(records, lines, [state])
    expect(lines).toEqual([])
  })
})

describe('the request record', () => {
  it('one per request: method, target, duration, era, id, and the outcome of each kind (modern HTTP)', async () => {
    const { logger, records } = structured()
    const handler = createFetchHandler(vault(logger))
    const outcomes: Array<[Record<string, unknown>, Partial<LogRecord>]> = [
      [
        { name: 'echo', arguments: { secret: 'x' } },
        { outcome: 'ok', level: 'info' },
      ],
      [
        { name: 'deny', arguments: { secret: 'x' } },
        { outcome: 'toolError', level: 'info' },
      ],
      [
        { name: 'nope', arguments: {} },
        { outcome: 'refused', level: 'warn', code: -32602 },
      ],
      [
        { name: 'vault', arguments: { secret: 'x' } },
        { outcome: 'inputRequired', level: 'info' },
      ],
    ]
    for (const [params, expected] of outcomes) {
      records.length = 0
      const body = req('tools/call', params)
      await post(handler, body, std('tools/call', params.name as string))
      expect(records).toHaveLength(1)
      const record = records[0]
      expect(record).toMatchObject({
        event: 'request',
        method: 'tools/call',
        target: params.name,
        era: 'modern',
        requestId: body.id,
        ...expected,
      })
      expect(record.durationMs).toBeGreaterThanOrEqual(0)
      expect(record.message).toBe(`tools/call ${String(params.name)}: ${expected.outcome} in ${record.durationMs} ms`)
      expect('code' in record).toBe(expected.code !== undefined)
      expect('error' in record).toBe(false)
    }
    records.length = 0
    await post(handler, req('tools/list'), std('tools/list'))
    expect(records).toMatchObject([{ event: 'request', method: 'tools/list', outcome: 'ok' }])
    expect('target' in records[0]).toBe(false)
  })

  it('a server failure is outcome error (-32603, level error), after the handler.failed record', async () => {
    const { logger, records } = structured()
    const server = new Server({ name: 's', version: '1' }, { logger })
    server.setRequestHandler('resources/read', () => {
      throw new TypeError('broken')
    })
    const body = req('resources/read', { uri: 'file:///a' })
    await post(createFetchHandler(server), body, std('resources/read', 'file:///a'))
    expect(records).toMatchObject([
      {
        event: 'handler.failed',
        level: 'error',
        method: 'resources/read',
        error: { name: 'TypeError', message: 'broken' },
      },
      { event: 'request', level: 'error', outcome: 'error', code: -32603, target: 'file:///a', requestId: body.id },
    ])
  })

  it('stdio: a cancelled request is outcome cancelled', async () => {
    const { logger, records } = structured()
    const p = pipe(vault(logger))
    const waiting = req('tools/call', { name: 'wait', arguments: {} })
    await p.send(waiting)
    await vi.waitFor(() => expect(p.connection).toBeDefined())
    await p.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: waiting.id } })
    await vi.waitFor(() => expect(records).toHaveLength(1))
    expect(records[0]).toMatchObject({ event: 'request', method: 'tools/call', target: 'wait', outcome: 'cancelled' })
    expect(p.out.filter((m: Out) => m.id === waiting.id)).toEqual([])
    await p.end()
    await p.outputClosed
  })

  it('a logger whose record throws breaks no request', async () => {
    const logger: Logger = {
      warn: () => {},
      error: () => {},
      record: () => {
        throw new Error('log down')
      },
    }
    const res = await post(createFetchHandler(vault(logger)), req('tools/list'), std('tools/list'))
    expect(res.body.result.tools).toHaveLength(4)
  })
})

describe('without record: the text output, unchanged', () => {
  it('warn and error get the same lines as before; no request lines; no clock read per request', async () => {
    const { logger, warn, error } = recordingLogger()
    const handler = createFetchHandler(vault(logger))
    const now = vi.spyOn(performance, 'now')
    const args = { name: 'vault', arguments: { secret: 'x' } }
    const first = await send(handler, 'prompts/get', args)
    const state = first.body.result.requestState
    const inputResponses = { pin: { action: 'accept', content: { pin: '1' } } }
    await send(handler, 'prompts/get', { ...args, inputResponses, requestState: state })
    await send(handler, 'prompts/get', { ...args, inputResponses, requestState: `${state.slice(0, -4)}AAAA` })
    await callTool(handler, { name: 'echo', arguments: { secret: 'x' } })
    expect(now).not.toHaveBeenCalled()
    expect(error).toEqual(['handler for prompts/get failed the vault failed'])
    expect(warn).toHaveLength(1)
    expect(warn[0]).toMatch(/^requestState rejected on prompts\/get: /)
  })

  it('the default logger prints to the console as before', async () => {
    const lines = captureConsole()
    const server = new Server({ name: 's', version: '1' })
    const thrown = new Error('broken')
    server.setRequestHandler('tools/list', () => {
      throw thrown
    })
    await post(createFetchHandler(server), req('tools/list'), std('tools/list'))
    expect(console.error).toHaveBeenCalledWith('[edge-mcp] handler for tools/list failed', thrown)
    expect(lines).toHaveLength(1)
  })
})

describe('logger: console', () => {
  it('keeps printing lines of text: console has log, not record', async () => {
    const lines: unknown[][] = []
    const original = { warn: console.warn, error: console.error, log: console.log }
    console.warn = (...args: unknown[]) => void lines.push(args)
    console.log = (...args: unknown[]) => void lines.push(['log', ...args])
    try {
      const mcp = new McpServer({ name: 'c', version: '1' }, { logger: console })
      mcp.tool('echo', { description: 'e' }, () => 'ok')
      const res = await post(createFetchHandler(mcp), req('tools/list'), std('tools/list'))
      expect(res.body.result.tools).toHaveLength(1)
      expect(lines).toEqual([]) // no request record went to console.log
    } finally {
      Object.assign(console, original)
    }
  })
})
