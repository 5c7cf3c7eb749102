/**
 * A retry refused with the frozen requestState error starts the call over once, and the
 * questions already answered in this call are answered from those answers — the user is never asked twice.
 *
 * Two instances of the demo server, each with its own ephemeral key (no `REQUEST_STATE_KEYS`), behind an
 * in-process router that knows which instance minted each `requestState`. Each call's first attempt
 * sends a retry to the instance that did NOT mint its state (the frozen error), as when the isolate that
 * served the call is gone; the restarted attempt then meets its own instance. A router that sends EVERY
 * retry to the other instance can complete no call that asks a question (an answer counts only under the
 * sealed state of the round that asked it, python-sdk-semantics test 55 "an answer sent without the echoed
 * state is re-asked"): that case is pinned too — one restart, no loop, no question asked twice.
 *
 * Then the memo at its limits: a question asked twice in one call, re-asks in the second attempt, `_meta`
 * and questions without canonical form, a resumed call, an abort during the refused retry, what restarts
 * and what does not, and `maxRounds` per attempt.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport, type RoundInfo } from '../../src/client/index.ts'
import { driveInputRequired } from '../../src/client/input-required.ts'
import { encodeBase64Url } from '../../src/encoding/base64url.ts'
import { McpError, type ElicitRequestParams, type InputRequest, type InputRequiredResult } from '../../src/index.ts'
import type { InputResponse } from '../../src/protocol/schemas/index.ts'
import {
  McpServer,
  RequestStateSecurity,
  acceptedContent,
  createFetchHandler,
  elicitForm,
  inputRequired,
} from '../../src/server/index.ts'
import { createDemoServer } from '../../worker/server.ts'
import { ASK, scriptedTransport } from '../helpers.ts'

type Name = 'a' | 'b'
const other = (n: Name): Name => (n === 'a' ? 'b' : 'a')

interface Served {
  instance: Name
  method: string
  retry: boolean
  error?: string
}

/** Two demo servers on ephemeral keys and a router over them (see the module comment). */
function fleet() {
  const handlers = { a: createFetchHandler(createDemoServer()), b: createFetchHandler(createDemoServer()) }
  const minted = new Map<string, Name>()
  const served: Served[] = []
  let next: Name = 'a'
  let crossesLeft = 0
  /** Retries that pass through to their own instance before the one that crosses (per call). */
  let passBeforeCross = 0
  const state = {
    /** Every retry goes to the instance that did not mint its state. */
    alwaysCross: false,
    /** Before each call: cross once, after `pass` retries reached their own instance. */
    arm(pass = 0) {
      crossesLeft = 1
      passBeforeCross = pass
    },
  }
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init)
    const body = (await request.clone().json()) as { method: string; params?: { requestState?: string } }
    const token = body.params?.requestState
    let instance: Name
    if (token === undefined) {
      instance = next
      next = other(next) // fresh requests alternate, so a restart may start anywhere
    } else {
      const owner = minted.get(token) ?? 'a'
      if (state.alwaysCross) instance = other(owner)
      else if (crossesLeft > 0 && passBeforeCross === 0) {
        crossesLeft--
        instance = other(owner)
      } else {
        passBeforeCross--
        instance = owner
      }
    }
    const response = await handlers[instance](request)
    const text = await response.clone().text()
    const parsed = JSON.parse(text.startsWith('{') ? text : '{}') as {
      result?: { requestState?: string }
      error?: { message: string }
    }
    if (parsed.result?.requestState) minted.set(parsed.result.requestState, instance)
    served.push({
      instance,
      method: body.method,
      retry: token !== undefined,
      ...(parsed.error ? { error: parsed.error.message } : {}),
    })
    return response
  }
  return { fetch, served, state }
}

/** A client answering the demo's questions; `asked` records each question (its message) the callbacks saw. */
function userClient(fetch: typeof globalThis.fetch, options: { restart?: boolean } = {}) {
  const asked: string[] = []
  const rounds: RoundInfo[] = []
  const answers: Record<string, Record<string, string | number | boolean>> = {
    'What name should the account be under?': { name: 'Ada' },
    'Which plan for Ada?': { plan: 'pro' },
    'Open a pro account for Ada?': { confirm: true },
    'Who is the briefing for?': { audience: 'the board' },
    '"Neuromancer" is out of stock (2-3 weeks). Order anyway?': { confirm: true },
  }
  const client = new Client({
    transport: new StreamableHttpClientTransport('http://fleet/mcp', { fetch }),
    versionNegotiation: 'modern',
    ...(options.restart === undefined ? {} : { restartOnInvalidRequestState: options.restart }),
    elicitation: (params: ElicitRequestParams) => {
      asked.push(params.message)
      const content = answers[params.message]
      if (!content) throw new Error(`unexpected question: ${params.message}`)
      return Promise.resolve({ action: 'accept' as const, content })
    },
    sampling: (params) => {
      asked.push(JSON.stringify(params.messages))
      return Promise.resolve({ role: 'assistant', content: { type: 'text', text: 'Dune' }, model: 'test' })
    },
  })
  return { client, asked, rounds, onRound: (info: RoundInfo) => rounds.push(info) }
}

const FROZEN = 'Invalid or expired requestState'

describe('restart recovery on two instances with ephemeral keys', () => {
  it.each([0, 1, 2])(
    'open_account (three chained questions) crossing after %i retries: completes, each question asked once',
    async (pass) => {
      const { fetch, served, state } = fleet()
      const { client, asked, rounds, onRound } = userClient(fetch)
      state.arm(pass)
      const result = await client.callTool('open_account', {}, { onRound })
      expect(result.content).toEqual([{ type: 'text', text: 'Opened a pro account for Ada.' }])
      expect(asked).toEqual([
        'What name should the account be under?',
        'Which plan for Ada?',
        'Open a pro account for Ada?',
      ])
      expect(served.filter((s) => s.error === FROZEN)).toHaveLength(1)
      const crossed = served.findIndex((s) => s.error === FROZEN)
      expect(served[crossed].instance).not.toBe(served[crossed - 1].instance) // the retry went to the other one
      // the first attempt answered pass + 1 rounds; the second recalled every one of them, then asked the rest
      expect(rounds.filter((r) => r.attempt === 1)).toHaveLength(pass + 1)
      const second = rounds.filter((r) => r.attempt === 2)
      expect(second).toHaveLength(3)
      expect(second.map((r) => r.recalled)).toEqual(
        [['accountName'], ['accountPlan'], ['accountConfirm']].map((keys, i) => (i <= pass ? keys : [])),
      )
    },
  )

  it('every call of a sequence recovers, tools (elicitation, sampling) and prompts alike', async () => {
    const { fetch, served, state } = fleet()
    const { client, asked } = userClient(fetch)
    state.arm()
    expect((await client.callTool('order_book', { title: 'Neuromancer' })).content).toEqual([
      { type: 'text', text: "Backordered 'Neuromancer'; it ships in 2-3 weeks." },
    ])
    state.arm()
    expect((await client.callTool('recommend_book', { genre: 'sf' })).content).toEqual([
      { type: 'text', text: "Today's sf pick: Dune" },
    ])
    state.arm()
    const prompt = await client.getPrompt('briefing', { topic: 'Q3' })
    expect(JSON.stringify(prompt.messages)).toContain('for the board')
    expect(asked).toHaveLength(3) // one question per call, each asked once
    expect(served.filter((s) => s.error === FROZEN)).toHaveLength(3)
  })

  it('a router that sends every retry to the other instance: one restart, then the frozen error; nobody asked twice', async () => {
    const { fetch, served, state } = fleet()
    const { client, asked, rounds, onRound } = userClient(fetch)
    state.alwaysCross = true
    const error = await client.callTool('open_account', {}, { onRound }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(McpError)
    expect((error as McpError).message).toBe(FROZEN)
    expect(asked).toEqual(['What name should the account be under?'])
    expect(rounds.map((r) => [r.attempt, r.recalled])).toEqual([
      [1, []],
      [2, ['accountName']],
    ])
    expect(served.map((s) => s.retry)).toEqual([false, true, false, true]) // bounded: exactly one restart
  })

  it('restartOnInvalidRequestState: false surfaces the frozen error as before (client-wide and per call)', async () => {
    for (const [clientWide, perCall] of [
      [false, undefined],
      [true, false],
    ] as const) {
      const { fetch, served, state } = fleet()
      const { client, asked } = userClient(fetch, { restart: clientWide })
      state.arm()
      const options = perCall === undefined ? {} : { restartOnInvalidRequestState: perCall }
      const error = await client.callTool('order_book', { title: 'Neuromancer' }, options).catch((e: unknown) => e)
      expect((error as McpError).message).toBe(FROZEN)
      expect(served).toHaveLength(2)
      expect(asked).toHaveLength(1)
    }
  })

  it('manual mode is unchanged: a resumed retry refused is thrown, never restarted', async () => {
    const { fetch, served, state } = fleet()
    const { client } = userClient(fetch)
    const first = (await client.callTool(
      'order_book',
      { title: 'Neuromancer' },
      { manual: true },
    )) as InputRequiredResult
    expect(first.resultType).toBe('input_required')
    state.arm()
    const error = await client
      .callTool(
        'order_book',
        { title: 'Neuromancer' },
        {
          inputResponses: { backorder: { action: 'accept', content: { confirm: true } } },
          requestState: first.requestState!,
        },
      )
      .catch((e: unknown) => e)
    expect((error as McpError).message).toBe(FROZEN)
    expect(served).toHaveLength(2)
  })
})

describe('driveInputRequired: the memo of a restarted call', () => {
  const ask = (message: string): InputRequest => ({
    method: 'elicitation/create',
    params: { mode: 'form', message, requestedSchema: { type: 'object', properties: {} } },
  })
  const irr = (inputRequests: Record<string, InputRequest>, requestState = 's'): InputRequiredResult => ({
    resultType: 'input_required',
    inputRequests,
    requestState,
  })
  const frozen = () => new McpError(-32602, FROZEN)

  /** Drive a scripted server: `script[i]` answers the i-th request after the first (a result or an error). */
  async function drive(first: unknown, script: Array<() => unknown>, restart: Array<() => unknown>) {
    const dispatched: string[] = []
    let retries = 0
    let restarts = 0
    const result = await driveInputRequired(first as InputRequiredResult, {
      dispatch: (_key, request) => {
        dispatched.push((request.params as { message: string }).message)
        return Promise.resolve({ action: 'accept', content: { n: dispatched.length } })
      },
      retry: () => Promise.resolve().then(() => script[retries++]()) as Promise<InputRequiredResult>,
      restart: () => Promise.resolve().then(() => restart[restarts++]()) as Promise<InputRequiredResult>,
      isInputRequired: (value): value is InputRequiredResult =>
        (value as { resultType?: string }).resultType === 'input_required',
    })
    return { result, dispatched }
  }

  it('a question re-asked in the second attempt reaches the callback again (each answer recalled once)', async () => {
    const { result, dispatched } = await drive(
      irr({ q: ask('Name?') }),
      [
        () => {
          throw frozen()
        },
        () => irr({ q: ask('Name?') }), // the server re-asks (say the answer no longer fits)
        () => ({ resultType: 'complete', ok: true }),
      ],
      [() => irr({ q: ask('Name?') })],
    )
    expect(result).toEqual({ resultType: 'complete', ok: true })
    expect(dispatched).toEqual(['Name?', 'Name?'])
  })

  it('a question that changed since it was answered is asked again; the error of the restart itself is thrown', async () => {
    const { dispatched } = await drive(
      irr({ q: ask('Delete X?') }),
      [
        () => {
          throw frozen()
        },
        () => ({ resultType: 'complete' }),
      ],
      [() => irr({ q: ask('Delete Y?') })],
    )
    expect(dispatched).toEqual(['Delete X?', 'Delete Y?'])
    const failing = drive(
      irr({ q: ask('A?') }),
      [
        () => {
          throw frozen()
        },
      ],
      [
        () => {
          throw new McpError(-32603, 'boom')
        },
      ],
    )
    await expect(failing).rejects.toThrow('boom')
  })

  it('only the frozen error restarts: another -32602 is thrown at once', async () => {
    const failing = drive(
      irr({ q: ask('A?') }),
      [
        () => {
          throw new McpError(-32602, 'Invalid params: title')
        },
      ],
      [() => ({ resultType: 'complete' })],
    )
    await expect(failing).rejects.toThrow('Invalid params: title')
  })
})

const frozen = () => new McpError(-32602, FROZEN)
const ask = (message: string, extra: Record<string, unknown> = {}): InputRequest => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties: {} }, ...extra },
})
const irr = (inputRequests: Record<string, InputRequest>, requestState = 's'): InputRequiredResult => ({
  resultType: 'input_required',
  inputRequests,
  requestState,
})
const isIrr = (value: unknown): value is InputRequiredResult =>
  (value as { resultType?: string }).resultType === 'input_required'

/** A scripted driver: `answers` are given by the "user" in order; records what the user was asked and every retry. */
async function drive(first: unknown, script: Array<() => unknown>, restart: () => unknown, answers: string[]) {
  const asked: string[] = []
  const sent: Array<Record<string, InputResponse> | undefined> = []
  let i = 0
  const result = await driveInputRequired(first as InputRequiredResult, {
    dispatch: (_key, request) => {
      asked.push((request.params as { message: string }).message)
      return Promise.resolve({ action: 'accept', content: { v: answers[asked.length - 1] ?? 'EXTRA' } })
    },
    retry: (responses) => {
      sent.push(responses)
      return Promise.resolve().then(() => script[i++]())
    },
    restart: () => Promise.resolve().then(restart) as Promise<InputRequiredResult>,
    isInputRequired: isIrr,
  })
  return { result, asked, sent }
}

describe('restart recovery: the memo', () => {
  it('a question asked twice in the first attempt (two guests) is recalled twice, in order, nobody re-asked', async () => {
    const { asked, sent } = await drive(
      irr({ g1: ask('Guest name?') }),
      [
        () => irr({ g2: ask('Guest name?') }),
        () => {
          throw frozen()
        },
        () => irr({ g2: ask('Guest name?') }),
        () => ({ resultType: 'complete' }),
      ],
      () => irr({ g1: ask('Guest name?') }),
      ['Alice', 'Bob'],
    )
    // attempt 2 must send Alice for g1 (what the user said to that asking), and Bob for g2 without asking
    expect(sent[2]).toEqual({ g1: { action: 'accept', content: { v: 'Alice' } } })
    expect(asked).toEqual(['Guest name?', 'Guest name?'])
  })

  it('the same words under another key are another question: asked, never answered from the memo', async () => {
    const { asked, sent } = await drive(
      irr({ confirmDelete: ask('Are you sure?') }),
      [
        () => {
          throw frozen()
        },
        () => ({ resultType: 'complete' }),
      ],
      () => irr({ confirmCharge: ask('Are you sure?') }),
      ['delete: yes', 'charge: yes'],
    )
    expect(asked).toEqual(['Are you sure?', 'Are you sure?'])
    expect(sent[1]).toEqual({ confirmCharge: { action: 'accept', content: { v: 'charge: yes' } } })
  })

  it('a question first asked in the SECOND attempt and re-asked there reaches the callback again (as documented)', async () => {
    const { asked } = await drive(
      irr({ a: ask('Name?') }),
      [
        () => {
          throw frozen()
        },
        () => irr({ b: ask('Code?') }), // attempt 2, round 2: new question, the user answers
        () => irr({ b: ask('Code?') }), // the server re-asks it (the code was wrong)
        () => ({ resultType: 'complete' }),
      ],
      () => irr({ a: ask('Name?') }),
      ['Ada', '1234', '4321'],
    )
    // DriveOptions.restart: "each answer used at most once (a re-asked question reaches the callbacks again)"
    expect(asked).toEqual(['Name?', 'Code?', 'Code?'])
  })

  it('a question nested deeper than 256 levels is still asked (the memo must not fail the call)', async () => {
    let schema: Record<string, unknown> = { type: 'string' }
    for (let d = 0; d < 300; d++) schema = { type: 'object', properties: { x: schema } }
    const deep: InputRequest = {
      method: 'elicitation/create',
      params: { mode: 'form', message: 'Deep?', requestedSchema: schema },
    } as InputRequest
    const { result, asked } = await drive(irr({ d: deep }), [() => ({ resultType: 'complete' })], () => undefined, [
      'x',
    ])
    expect(result).toEqual({ resultType: 'complete' })
    expect(asked).toEqual(['Deep?'])
  })

  it('a question whose _meta differs (not rendered) is recalled, not asked twice', async () => {
    const { asked } = await drive(
      irr({ a: ask('Name?', { _meta: { 'example.com/trace': 't1' } }) }),
      [
        () => {
          throw frozen()
        },
        () => ({ resultType: 'complete' }),
      ],
      () => irr({ a: ask('Name?', { _meta: { 'example.com/trace': 't2' } }) }),
      ['Ada'],
    )
    expect(asked).toEqual(['Name?'])
  })
})

describe('restart recovery through the Client', () => {
  it('a resumed (seeded, not manual) call is not restarted: the memo lacks what was answered before the resume', async () => {
    const asked: string[] = []
    const rounds: RoundInfo[] = []
    const transport = scriptedTransport((message) => {
      const m = message as { id: number; params: { requestState?: string; inputResponses?: Record<string, unknown> } }
      const state = m.params.requestState
      const reply = (result: unknown) => ({ jsonrpc: '2.0', id: m.id, result })
      if (state === undefined) return reply(irr({ name: ask('Name?') }, 'r1'))
      if (state === 'stored') return reply(irr({ plan: ask('Plan?') }, 'r2')) // the resume: the next question
      if (state === 'r2') return { jsonrpc: '2.0', id: m.id, error: { code: -32602, message: FROZEN } }
      if (state === 'r1') return reply(irr({ plan: ask('Plan?') }, 'r3'))
      return reply({ resultType: 'complete', content: [] })
    })
    const client = new Client({
      transport,
      versionNegotiation: 'modern',
      elicitation: (params) => {
        asked.push(params.message)
        return { action: 'accept', content: {} }
      },
    })
    // "Name?" was answered in an earlier process (manual mode); this process resumes with callbacks
    const error = await client
      .callTool(
        't',
        {},
        {
          requestState: 'stored',
          inputResponses: { name: { action: 'accept', content: {} } },
          onRound: (r) => rounds.push(r),
        },
      )
      .catch((e: unknown) => e)
    expect((error as McpError).message).toBe(FROZEN) // without restart recovery: the app decides
    expect(asked).toEqual(['Plan?']) // before the fix: ['Plan?', 'Name?'], the restart asked "Name?" again
  })

  it('abort while the refused retry is in flight: no restart, the abort reason is thrown, no callback after', async () => {
    const controller = new AbortController()
    let calls = 0
    let requests = 0
    const transport = scriptedTransport((message) => {
      requests++
      const m = message as { id: number; params: { requestState?: string } }
      if (m.params.requestState === undefined)
        return { jsonrpc: '2.0', id: m.id, result: irr({ name: ask('Name?') }, 'r1') }
      controller.abort(new Error('user aborted'))
      return { jsonrpc: '2.0', id: m.id, error: { code: -32602, message: FROZEN } }
    })
    const client = new Client({
      transport,
      versionNegotiation: 'modern',
      elicitation: () => {
        calls++
        return { action: 'accept', content: {} }
      },
    })
    const error = await client.callTool('t', {}, { signal: controller.signal }).catch((e: unknown) => e)
    expect((error as Error).message).toBe('user aborted')
    expect([calls, requests]).toEqual([1, 2])
  })
})

describe('restart recovery: deep question through Client', () => {
  it('a question whose _meta nests 300 deep: answered, restart on or off', async () => {
    let schema: Record<string, unknown> = { type: 'string' }
    for (let d = 0; d < 300; d++) schema = { x: schema }
    const transport = scriptedTransport((message) => {
      const m = message as { id: number; params: { requestState?: string } }
      const result =
        m.params.requestState === undefined
          ? {
              resultType: 'input_required',
              requestState: 's',
              inputRequests: {
                d: {
                  method: 'elicitation/create',
                  params: { mode: 'form', message: 'Deep?', requestedSchema: ASK, _meta: schema },
                },
              },
            }
          : { resultType: 'complete', content: [] }
      return { jsonrpc: '2.0', id: m.id, result }
    })
    const outcome = async (restartOnInvalidRequestState: boolean) => {
      const client = new Client({
        transport,
        versionNegotiation: 'modern',
        restartOnInvalidRequestState,
        elicitation: () => ({ action: 'accept', content: {} }),
      })
      return client.callTool('t', {}).then(
        () => 'ok',
        (e: unknown) => String(e),
      )
    }
    expect(await outcome(false)).toBe('ok')
    expect(await outcome(true)).toBe('ok')
  })
})

describe('restart recovery: what restarts and what does not', () => {
  const clientWith = (
    answer: (m: { id: number; params: { requestState?: string } }, n: number) => unknown,
    maxRounds = 10,
  ) => {
    let n = 0
    const asked: string[] = []
    const client = new Client({
      transport: scriptedTransport((message) => answer(message as never, ++n)),
      versionNegotiation: 'modern',
      maxRounds,
      elicitation: (p) => {
        asked.push(p.message)
        return { action: 'accept', content: {} }
      },
    })
    return { client, asked, count: () => n }
  }
  it('the frozen error on the first (unseeded) request is thrown, no restart', async () => {
    const { client, count } = clientWith((m) => ({
      jsonrpc: '2.0',
      id: m.id,
      error: { code: -32602, message: FROZEN },
    }))
    expect(((await client.callTool('t').catch((e: unknown) => e)) as McpError).message).toBe(FROZEN)
    expect(count()).toBe(1)
  })
  it('the frozen message under another code does not restart; data.reason alone does', async () => {
    for (const [error, requests] of [
      [{ code: -32600, message: FROZEN }, 2],
      [{ code: -32602, message: 'Bad state', data: { reason: 'invalid_request_state' } }, 4],
    ] as const) {
      const { client, count } = clientWith((m) =>
        m.params.requestState === undefined
          ? { jsonrpc: '2.0', id: m.id, result: irr({ q: ask('Q?') }) }
          : { jsonrpc: '2.0', id: m.id, error },
      )
      await client.callTool('t').catch(() => undefined)
      expect(count()).toBe(requests)
    }
  })
  it('maxRounds is per attempt: 2 x maxRounds rounds at most, then InputRequiredRoundsExceededError', async () => {
    const { client, count } = clientWith(
      (m, n) =>
        n === 3
          ? { jsonrpc: '2.0', id: m.id, error: { code: -32602, message: FROZEN } }
          : { jsonrpc: '2.0', id: m.id, result: irr({ [`q${n}`]: ask(`Q${n}?`) }) },
      3,
    )
    const e = await client.callTool('t').catch((x: unknown) => x)
    expect((e as Error).name).toBe('InputRequiredRoundsExceededError')
    expect(count()).toBe(3 + 4) // attempt 1: first + 2 retries (3rd refused); attempt 2: first + 3 retries
  })
})

describe('restart recovery: a -32020 on a retry (the tool gained an x-mcp-header mid-call)', () => {
  it('callTool re-lists and drives again from the same memo: the user is asked once (attempt 2 recalls)', async () => {
    const KEY = encodeBase64Url(new Uint8Array(32).fill(5))
    const make = (withHeaders: boolean) => {
      const mcp = new McpServer(
        { name: 's', version: '1' },
        { requestStateSecurity: new RequestStateSecurity({ keys: [KEY] }) },
      )
      const headers = withHeaders ? { headers: { region: 'Region' } } : {}
      mcp.tool('order', { input: { region: v.string() }, ...headers }, ({ region }, ctx) => {
        const answer = acceptedContent(ctx.inputResponses?.ok)
        if (!answer) return inputRequired({ ok: elicitForm(`Charge $100 in ${region}?`, CONFIRM) }, 'st')
        return `charged in ${region}`
      })
      return createFetchHandler(mcp)
    }
    const before = make(false) // the old deployment: the first list and the first call
    const after = make(true) // the new one: everything after
    let calls = 0
    const fetch = (request: Request) => {
      const method = request.headers.get('mcp-method')
      if (method === 'tools/call') calls++
      return (method === 'tools/call' && calls === 1) || (method === 'tools/list' && calls === 0)
        ? before(request)
        : after(request)
    }
    const asked: string[] = []
    const rounds: RoundInfo[] = []
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch }),
      versionNegotiation: 'modern',
      elicitation: (params) => {
        asked.push((params as { message: string }).message)
        return { action: 'accept', content: { yes: true } }
      },
    })
    await client.listTools()
    const result = await client.callTool('order', { region: 'eu' }, { onRound: (r) => rounds.push(r) })
    expect(result.content).toEqual([{ type: 'text', text: 'charged in eu' }])
    expect(asked).toEqual(['Charge $100 in eu?'])
    expect(rounds.map((r) => [r.attempt, r.recalled])).toEqual([
      [1, []],
      [2, ['ok']],
    ])
  })
})

const CONFIRM = { type: 'object' as const, properties: { yes: { type: 'boolean' as const } } }
