/**
 * Properties of the client's parsing, through a fake `fetch` into `Client`: whatever a
 * server answers (mutated results, odd JSON-RPC envelopes, statuses, SSE streams chunked anywhere), every
 * call settles — resolves, or rejects with one of the SDK's documented errors — and no rejection goes
 * unhandled; a well-formed answer framed any legal way gives the same result.
 */
import fc from 'fast-check'
import {
  Client,
  HttpError,
  InputRequiredRoundsExceededError,
  InvalidInputResponseError,
  InvalidResultError,
  MissingInputHandlerError,
  NetworkError,
  OAuthError,
  RequestTimeoutError,
  StreamableHttpClientTransport,
  SubscriptionDroppedError,
  type ClientOptions,
} from '../../src/client/index.ts'
import { McpError } from '../../src/index.ts'
import {
  CALLS,
  DISCOVER,
  INPUT_REQUIRED,
  callName,
  chunked,
  delivery,
  envelopeChange,
  framing,
  garbageSse,
  mutateJson,
  op,
  responseOf,
  sseText,
  type CallName,
} from './client-arbitraries.ts'
import { checkUnhandled, watchUnhandled, within } from './wire.ts'

/** The errors a call may reject with. */
const DOCUMENTED = [
  McpError,
  HttpError,
  InvalidResultError,
  NetworkError,
  OAuthError,
  RequestTimeoutError,
  InputRequiredRoundsExceededError,
  MissingInputHandlerError,
  InvalidInputResponseError,
  SubscriptionDroppedError,
]

/** A fake server: each POST's parsed body (and its index) to a Response. */
type Respond = (body: { id: unknown; method: string }, n: number) => Response | Promise<Response>

function clientOver(respond: Respond, options: Partial<ClientOptions> = {}): Client {
  let n = 0
  const fetch = async (request: Request) => {
    const text = await request.text()
    const body = (text ? JSON.parse(text) : {}) as { id: unknown; method: string }
    return respond(body, n++)
  }
  return new Client({
    transport: new StreamableHttpClientTransport('http://fuzz.example/mcp', { fetch }),
    versionNegotiation: 'modern',
    requestTimeoutMs: 1000,
    maxRounds: 2,
    elicitation: () => ({ action: 'accept', content: { ok: true } }),
    sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' }),
    roots: () => ({ roots: [] }),
    onWarning: () => {},
    ...options,
  })
}

function run(client: Client, name: CallName): Promise<unknown> {
  switch (name) {
    case 'listTools':
      return client.listTools()
    case 'callTool':
      return client.callTool('a', {})
    case 'discover':
      return client.discover()
    case 'getPrompt':
      return client.getPrompt('p')
    case 'readResource':
      return client.readResource('x://r')
    case 'listPrompts':
      return client.listPrompts()
    case 'listResources':
      return client.listResources()
    case 'complete':
      return client.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' })
  }
}

/** The outcome of a call that must settle within a bound; a rejection must be a documented error. */
async function settle(
  call: () => Promise<unknown>,
): Promise<{ ok: true; value: unknown } | { ok: false; error: unknown }> {
  let outcome: { ok: true; value: unknown } | { ok: false; error: unknown }
  try {
    outcome = { ok: true, value: await within(call(), 3000, 'a client call that did not settle') }
  } catch (error) {
    outcome = { ok: false, error }
    if (!DOCUMENTED.some((E) => error instanceof E)) {
      const e = error as Error
      throw new Error(`the call rejected with an undocumented ${e?.constructor?.name}: ${e?.stack ?? String(error)}`)
    }
  }
  await checkUnhandled()
  return outcome
}

/** A Response carrying `message` delivered as `how` says (SSE: framed and chunked). */
function deliver(
  message: unknown,
  how: { sse: boolean; status: number; type: string },
  f?: Parameters<typeof sseText>[1],
): Response {
  const headers: Record<string, string> = how.type ? { 'content-type': how.type } : {}
  const noBody = how.status === 204
  if (!how.sse || !f) return new Response(noBody ? null : JSON.stringify(message), { status: how.status, headers })
  const bytes = new TextEncoder().encode(sseText(message, f))
  return new Response(noBody ? null : chunked(bytes, f.chunks), { status: how.status, headers })
}

/**
 * A mutated result of each method (or an InputRequiredResult, answered on), in a changed JSON-RPC
 * response, delivered as JSON or SSE with any status: the call settles with a documented outcome; an
 * unchanged result delivered plainly resolves.
 */
export function clientResults() {
  watchUnhandled()
  return fc.asyncProperty(
    callName,
    fc.boolean(),
    fc.array(op, { maxLength: 3 }),
    envelopeChange,
    delivery,
    framing,
    async (name, asks, ops, change, how, f) => {
      const call = CALLS[name]
      const asking = asks && ['callTool', 'getPrompt', 'readResource'].includes(name)
      const first = mutateJson(asking ? INPUT_REQUIRED : call.result, ops)
      const client = clientOver((body, n) => {
        if (n === 0) return deliver(responseOf(body.id, first, change), how, f)
        return Response.json({ jsonrpc: '2.0', id: body.id, result: call.result })
      })
      const outcome = await settle(() => run(client, name))
      // unchanged, status 200, and framed as its content type says (a JSON body labelled SSE carries no event)
      const framed = how.sse || how.type !== 'text/event-stream'
      const pristine = ops.length === 0 && change.kind === 'none' && how.status === 200 && framed
      if (pristine && !outcome.ok) throw new Error(`a valid ${name} answer was refused: ${String(outcome.error)}`)
    },
  )
}

/**
 * A valid answer framed any legal way (noise events, comments, fields, CR / LF / CRLF, a BOM, indented
 * JSON over several `data:` lines, no final blank line, chunked anywhere, inside UTF-8 sequences too)
 * gives exactly the result.
 */
export function sseFraming() {
  watchUnhandled()
  return fc.asyncProperty(callName, framing, async (name, f) => {
    const call = CALLS[name]
    const client = clientOver((body) =>
      deliver(
        { jsonrpc: '2.0', id: body.id, result: call.result },
        { sse: true, status: 200, type: 'text/event-stream' },
        f,
      ),
    )
    const outcome = await settle(() => run(client, name))
    if (!outcome.ok) throw new Error(`a valid ${name} answer over SSE was refused: ${String(outcome.error)}`)
    if (
      name === 'callTool' &&
      JSON.stringify((outcome.value as { content: unknown }).content) !== JSON.stringify(CALLS.callTool.result.content)
    )
      throw new Error(`callTool gave ${JSON.stringify(outcome.value)}`)
  })
}

/** Random SSE text (maybe followed by the real answer), chunked anywhere: the call settles with a documented outcome. */
export function sseGarbage() {
  watchUnhandled()
  return fc.asyncProperty(
    callName,
    garbageSse,
    fc.boolean(),
    fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 5 }),
    fc.nat(49).map((n) => n === 0),
    async (name, garbage, thenAnswer, sizes, stall) => {
      const call = CALLS[name]
      const client = clientOver(
        (body) => {
          // a stalled stream sends the garbage, then nothing, never closing: the request must time out
          const answer =
            thenAnswer && !stall
              ? `\n\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result: call.result })}\n\n`
              : ''
          const bytes = new TextEncoder().encode(garbage + answer)
          return new Response(chunked(bytes, sizes, stall), { headers: { 'content-type': 'text/event-stream' } })
        },
        stall ? { requestTimeoutMs: 20 } : {},
      )
      const outcome = await settle(() => run(client, name))
      if (stall && outcome.ok) throw new Error(`a ${name} call over a stalled stream resolved`)
    },
  )
}

/** One scripted answer of a server of unknown era. */
const eraAnswer = fc.oneof(
  fc.constant({ status: 200, body: { result: DISCOVER } }),
  fc.constant({ status: 404, body: { error: { code: -32601, message: 'Method not found' } } }),
  fc.record({
    status: fc.constantFrom(200, 400),
    body: fc.record({
      error: fc.record({
        code: fc.constant(-32022),
        message: fc.constant('x'),
        data: fc.record({ supported: fc.oneof(fc.constant(['2026-07-28']), fc.jsonValue()) }, { requiredKeys: [] }),
      }),
    }),
  }),
  fc.record({
    status: fc.constant(200),
    body: fc.record({
      result: fc.record(
        {
          protocolVersion: fc.constantFrom('2025-11-25', '2025-06-18', '1999-01-01'),
          capabilities: fc.constantFrom({}, { tools: {} }),
          serverInfo: fc.constant({ name: 's', version: '1' }),
        },
        { requiredKeys: [] },
      ),
    }),
  }),
  fc.constant({ status: 200, body: { result: { tools: [{ name: 'a', inputSchema: { type: 'object' } }] } } }),
  fc.record({ status: fc.constantFrom(200, 400, 404, 405, 500), body: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ status: fc.constantFrom(200, 400, 401, 404, 405, 502), body: fc.constant('<html>nope</html>') }),
  // a 2025 server's question on the request's stream (valid or mutated params), then the answer
  fc.record({
    status: fc.constant(200),
    sse: fc.constant(true),
    question: fc.record({
      method: fc.constantFrom('elicitation/create', 'sampling/createMessage', 'roots/list', 'ping', 'nope'),
      params: fc.oneof(
        fc.constant({ mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: {} } }),
        fc.constant({ messages: [], maxTokens: 5 }),
        fc.jsonValue({ maxDepth: 2 }),
      ),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 1 })),
    }),
    body: fc.constant({ result: { tools: [], content: [] } }),
  }),
)

/**
 * `'auto'` and `'legacy'` clients against a server of unknown era (scripted answers for the probe,
 * `initialize`, the call and `close()`'s DELETE, with or without a session id): everything settles.
 */
export function eraNegotiation() {
  watchUnhandled()
  return fc.asyncProperty(
    fc.constantFrom('auto' as const, 'legacy' as const),
    fc.array(eraAnswer, { minLength: 1, maxLength: 5 }),
    fc.boolean(),
    callName,
    async (negotiation, script, session, name) => {
      const client = clientOver(
        (body, n) => {
          const answer = script[n % script.length]
          const text =
            typeof answer.body === 'string'
              ? answer.body
              : JSON.stringify({ jsonrpc: '2.0', id: body.id, ...(answer.body as object) })
          const headers: Record<string, string> = {
            'content-type': typeof answer.body === 'string' ? 'text/html' : 'application/json',
          }
          if (session) headers['mcp-session-id'] = 'sid-1'
          if ('question' in answer && body.method !== undefined) {
            headers['content-type'] = 'text/event-stream'
            const question = JSON.stringify({ jsonrpc: '2.0', ...answer.question })
            return new Response(`id: 1\ndata: ${question}\n\ndata: ${text}\n\n`, { status: 200, headers })
          }
          return new Response(text, { status: answer.status, headers })
        },
        { versionNegotiation: negotiation },
      )
      await settle(() => run(client, name))
      await settle(() => client.close())
    },
  )
}
