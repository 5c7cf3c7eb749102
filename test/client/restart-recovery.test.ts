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
 */
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport, type RoundInfo } from '../../src/client/index.ts'
import { driveInputRequired } from '../../src/client/input-required.ts'
import { McpError, type ElicitRequestParams, type InputRequest, type InputRequiredResult } from '../../src/index.ts'
import { createFetchHandler } from '../../src/server/index.ts'
import { createDemoServer } from '../../worker/server.ts'

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
