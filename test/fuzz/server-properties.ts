/**
 * Properties of the server's HTTP surface, for the fetch handler and the Hono
 * adapter alike: any request gets a bounded, well-formed answer with no 5xx, and no handler runs on a
 * rejected `requestState` — random strings, and truncations or mutations of states the server sealed.
 * 2025-era sessions (initialize, `Mcp-Session-Id`, questions answered or not) too.
 */
import fc from 'fast-check'
import { INVALID_REQUEST_STATE_MESSAGE } from '../../src/protocol/errors.ts'
import { INPUT_REQUIRED_METHODS } from '../../src/protocol/constants.ts'
import { encodeHeaderValue } from '../../src/protocol/headers.ts'
import { fuzzedEnvelope, headerValue, httpRequest, inputResponses, json, V } from './http-arbitraries.ts'
import { fuzzTarget, totalRuns, type FuzzTarget } from './target.ts'
import {
  checkUnhandled,
  checkWire,
  isModern,
  isObject,
  readWire,
  watchUnhandled,
  within,
  type Message,
  type Sent,
  type Wire,
} from './wire.ts'

/** The longest a fuzz request may take to be answered, in ms (a legacy question waits 30 ms). */
const DEADLINE_MS = 3000

let shared: FuzzTarget | undefined
/** One fuzz server for the whole run (its counters are read as differences). */
export function target(): FuzzTarget {
  return (shared ??= fuzzTarget())
}

const frontEnd = fc.boolean().map((hono) => (hono ? 'hono' : 'fetch'))

/** Send one request and read its answer; the server must log no error doing it. */
async function exchange(
  t: FuzzTarget,
  via: 'hono' | 'fetch',
  init: { http: string; headers: Record<string, string>; body: string | Uint8Array | undefined; signal?: AbortSignal },
  onRequest?: (m: Message) => void | Promise<void>,
): Promise<Wire> {
  watchUnhandled()
  const errors = t.errors.length
  const noBody = init.http === 'GET' || init.http === 'HEAD'
  const request = new Request('http://localhost/mcp', {
    method: init.http,
    headers: init.headers,
    body: noBody ? null : ((init.body as BodyInit | undefined) ?? null),
    signal: init.signal ?? null,
  })
  const res = await within(t.handlers[via](request), DEADLINE_MS, `${init.http} answered`)
  const wire = await readWire(res, DEADLINE_MS, onRequest)
  await checkUnhandled()
  if (t.errors.length > errors) throw new Error(`the server logged an error: ${t.errors.slice(errors).join('\n')}`)
  return wire
}

const parse = (text: string | Uint8Array | undefined): unknown => {
  try {
    return typeof text === 'string' ? JSON.parse(text) : undefined
  } catch {
    return undefined
  }
}

/** Whether a request carries a state the server never sealed (random), on a method that opens one. */
function forgedState(body: unknown): boolean {
  if (!isObject(body) || !isModern(body) || typeof body.method !== 'string') return false
  if (!INPUT_REQUIRED_METHODS.has(body.method) || !isObject(body.params)) return false
  const state = body.params.requestState
  return state !== undefined && state !== null
}

const isStateRejection = (wire: Wire) =>
  isObject(wire.final?.error) && (wire.final.error as Message).message === INVALID_REQUEST_STATE_MESSAGE

/**
 * Any request (method, headers, body) to either front end: answered within the deadline, no 5xx, a
 * well-formed JSON-RPC answer whose code goes with its status; a forged requestState never gets a result,
 * and a rejected one runs no handler.
 */
export function httpSurface() {
  return fc.asyncProperty(httpRequest, frontEnd, async (req, via) => {
    const t = target()
    const runs = totalRuns(t)
    const wire = await exchange(t, via, req)
    const sentBody = parse(req.body)
    const sent: Sent = { http: req.http, body: sentBody, modern: isModern(sentBody) }
    checkWire(sent, wire)
    if (forgedState(sentBody) && wire.final && 'result' in wire.final)
      throw new Error('a forged requestState got a result')
    if (isStateRejection(wire) && totalRuns(t) !== runs) throw new Error('a handler ran on a rejected requestState')
  })
}

/** Thrown by a test client that goes away in the middle of a request. */
class Gone extends Error {}

/** The first rounds that seal a state: tool, arguments, and the key of the answer. */
const ASKERS = [
  { method: 'tools/call', params: { name: 'ask', arguments: {} }, key: 'confirm' },
  { method: 'tools/call', params: { name: 'ask2', arguments: { n: 1 } }, key: 'again' },
  { method: 'tools/call', params: { name: 'ask2', arguments: { n: 2 } }, key: 'again' },
  { method: 'tools/call', params: { name: 'shed', arguments: {} }, key: 'x' },
  { method: 'prompts/get', params: { name: 'greet', arguments: { who: 'ask' } }, key: 'c' },
] as const

const CAPS = { elicitation: { form: {} }, sampling: {}, roots: {} }
let nextId = 1

/** POST a well-formed 2026 request (standard headers matching) to a front end. */
async function modernCall(
  t: FuzzTarget,
  via: 'hono' | 'fetch',
  method: string,
  params: Record<string, unknown>,
  meta?: unknown,
) {
  const body = {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: meta ?? {
        [`io.modelcontextprotocol/protocolVersion`]: V,
        [`io.modelcontextprotocol/clientCapabilities`]: CAPS,
      },
    },
  }
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': V,
    'mcp-method': method,
  }
  const target = params.name ?? params.uri
  if (typeof target === 'string') headers['mcp-name'] = encodeHeaderValue(target)
  const wire = await exchange(t, via, { http: 'POST', headers, body: JSON.stringify(body) })
  checkWire({ http: 'POST', body, modern: isModern(body) }, wire)
  return wire
}

/** A first round of `asker`: the state the server sealed. */
async function firstRound(t: FuzzTarget, via: 'hono' | 'fetch', asker: (typeof ASKERS)[number]): Promise<string> {
  const first = await modernCall(t, via, asker.method, asker.params)
  const result = first.final?.result as Message | undefined
  if (result?.resultType !== 'input_required' || typeof result.requestState !== 'string')
    throw new Error(`no sealed state from ${asker.params.name}: ${first.text.slice(0, 200)}`)
  return result.requestState
}

let sealedAt = -Infinity
let sealed: string[] = []
/** A state of each asker, sealed at most a minute ago (well within their 10-minute ttl). */
async function sealedOnce(t: FuzzTarget, via: 'hono' | 'fetch'): Promise<string[]> {
  if (performance.now() - sealedAt > 60_000) {
    sealed = []
    for (const a of ASKERS) sealed.push(await firstRound(t, via, a))
    sealedAt = performance.now()
  }
  return [...sealed]
}

/** Mutations of a sealed state: truncated, a character changed, inserted or removed, appended to, another's. */
const stateMutation = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), to: fc.constantFrom(...'AZaz09-_.=+/ ~é') }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), to: fc.string({ minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('append' as const), to: fc.string({ minLength: 1, maxLength: 8 }) }),
  fc.record({ kind: fc.constant('other' as const), from: fc.nat(ASKERS.length - 1) }),
  fc.record({
    kind: fc.constant('random' as const),
    to: fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...'abcXYZ019-_.') })),
  }),
  fc.record({ kind: fc.constant('case' as const), at: fc.nat() }),
)

function mutate(state: string, m: MutationOf, others: string[]): unknown {
  const at = 'at' in m ? m.at % Math.max(1, state.length) : 0
  switch (m.kind) {
    case 'truncate':
      return state.slice(0, at)
    case 'flip':
      return state.slice(0, at) + m.to + state.slice(at + 1)
    case 'insert':
      return state.slice(0, at) + m.to + state.slice(at)
    case 'delete':
      return state.slice(0, at) + state.slice(at + 1)
    case 'append':
      return state + m.to
    case 'other':
      return others[m.from]
    case 'random':
      return m.to
    case 'case': {
      const c = state[at] ?? ''
      return state.slice(0, at) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + state.slice(at + 1)
    }
  }
}
type MutationOf = typeof stateMutation extends fc.Arbitrary<infer M> ? M : never

/**
 * States sealed in a first round, then sent back mutated (or not) with answers: a state other than the
 * one sealed for that very call is refused with the frozen -32602 and runs no handler; the state itself
 * (unchanged) is accepted.
 */
export function sealedStates() {
  return fc.asyncProperty(
    fc.nat(ASKERS.length - 1),
    fc.option(stateMutation, { freq: 6, nil: undefined }),
    inputResponses,
    frontEnd,
    async (which, mutation, answers, via) => {
      const t = target()
      const asker = ASKERS[which]
      // the state sent back unchanged is sealed afresh; mutations start from states sealed in the last minute
      const states = await sealedOnce(t, via)
      if (mutation === undefined) states[which] = await firstRound(t, via, asker)
      const state = states[which]
      const sentState = mutation === undefined ? state : mutate(state, mutation, states)
      const runs = totalRuns(t)
      const retry = await modernCall(t, via, asker.method, {
        ...asker.params,
        inputResponses: answers,
        requestState: sentState,
      })
      if (sentState === state) {
        if (isStateRejection(retry)) throw new Error('the state the server sealed was refused')
        return
      }
      if (!isStateRejection(retry))
        throw new Error(`a mutated state was not refused: ${JSON.stringify(sentState)} → ${retry.text.slice(0, 200)}`)
      if (totalRuns(t) !== runs) throw new Error('a handler ran on a rejected requestState')
    },
  )
}

/** A 2026 request's envelope fuzzed, everything else well formed: -32602 / -32022 / -32020 or a result, no 5xx. */
export function envelopes() {
  return fc.asyncProperty(
    fc.constantFrom(
      ...ASKERS.map((a) => [a.method, a.params] as const),
      ['tools/list', {}] as const,
      ['server/discover', {}] as const,
    ),
    fuzzedEnvelope,
    frontEnd,
    async ([method, params], meta, via) => {
      await modernCall(target(), via, method, params, meta)
    },
  )
}

/**
 * A 2025-era session: `initialize` (any version, capabilities), then requests carrying the session id
 * (sometimes mutated) and a version header (sometimes wrong); the server's questions on the stream are
 * answered (validly, oddly, or not at all). Every answer keeps the invariants.
 */
export function legacySessions() {
  return fc.asyncProperty(
    fc.record({
      version: fc.constantFrom('2025-11-25', '2025-06-18', '2025-03-26', '1999-01-01'),
      caps: fc.constantFrom({}, { elicitation: {} }, { elicitation: {}, sampling: {}, roots: {} }, { elicitation: 1 }),
      calls: fc.array(
        fc.record({
          method: fc.constantFrom(
            'tools/call',
            'tools/list',
            'prompts/get',
            'ping',
            'server/discover',
            'resources/read',
            'nope',
          ),
          params: fc.constantFrom(
            ...ASKERS.map((a) => a.params),
            { name: 'echo', arguments: { text: 'x' } },
            { uri: 'file:///a.txt' },
            {},
          ),
          sid: fc.oneof(
            { weight: 4, arbitrary: fc.constant('keep') },
            fc.constantFrom('drop', 'truncate'),
            headerValue,
          ),
          versionHeader: fc.oneof(
            { weight: 4, arbitrary: fc.constant('keep') },
            fc.constantFrom('drop', V, '2025-06-18'),
            headerValue,
          ),
          answer: fc.oneof(
            { weight: 3, arbitrary: fc.constant('valid' as const) },
            fc.constantFrom('none' as const, 'gone' as const),
            json,
          ),
          notification: fc.boolean(),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
    frontEnd,
    async ({ version, caps, calls }, via) => {
      const t = target()
      const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
      const init = {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: version, capabilities: caps, clientInfo: { name: 'c', version: '1' } },
      }
      const res = await t.handlers[via](
        new Request('http://localhost/mcp', { method: 'POST', headers: base, body: JSON.stringify(init) }),
      )
      const sid = res.headers.get('mcp-session-id')
      const first = await readWire(res, DEADLINE_MS)
      checkWire({ http: 'POST', body: init, modern: false }, first)
      const negotiated =
        ((first.final?.result as Message | undefined)?.protocolVersion as string | undefined) ?? version
      for (const call of calls) {
        const headers: Record<string, string> = { ...base }
        if (sid !== null && call.sid !== 'drop')
          headers['mcp-session-id'] = call.sid === 'keep' ? sid : call.sid === 'truncate' ? sid.slice(0, -3) : call.sid
        if (call.versionHeader !== 'drop')
          headers['mcp-protocol-version'] = call.versionHeader === 'keep' ? negotiated : call.versionHeader
        if (call.notification) {
          const note = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }
          const wire = await exchange(t, via, { http: 'POST', headers, body: JSON.stringify(note) })
          checkWire({ http: 'POST', body: note, modern: false }, wire)
        }
        const body = { jsonrpc: '2.0', id: nextId++, method: call.method, params: call.params }
        const client = new AbortController()
        const answerQuestion = async (question: Message) => {
          if (call.answer === 'none') return
          if (call.answer === 'gone') {
            client.abort() // the client goes away while asked: the server stops, sends nothing, logs nothing
            throw new Gone()
          }
          const result = call.answer === 'valid' ? { action: 'accept', content: { ok: true } } : call.answer
          const reply = { jsonrpc: '2.0', id: question.id, result }
          const wire = await exchange(t, via, { http: 'POST', headers, body: JSON.stringify(reply) })
          checkWire({ http: 'POST', body: reply, modern: false }, wire)
        }
        const errors = t.errors.length
        let wire: Wire
        try {
          wire = await exchange(
            t,
            via,
            { http: 'POST', headers, body: JSON.stringify(body), signal: client.signal },
            answerQuestion,
          )
        } catch (error) {
          if (!(error instanceof Gone)) throw error
          await new Promise((r) => setTimeout(r, 5))
          await checkUnhandled()
          if (t.errors.length > errors)
            throw new Error(`the server logged an error: ${t.errors.slice(errors).join('\n')}`)
          continue
        }
        checkWire({ http: 'POST', body, modern: false }, wire)
      }
    },
  )
}
