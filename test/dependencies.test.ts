/**
 * Dependency injection: the seed's four tutorials with the outcomes it states, and the DI tests of
 * python-sdk-semantics.md §E (45–58), expressed against our API, through a real Client.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import {
  Client,
  InputRequiredRoundsExceededError,
  StreamableHttpClientTransport,
  type ClientOptions,
} from '../src/client/index.ts'
import type { ElicitRequestFormParams } from '../src/protocol/schemas/index.ts'
import { UriTemplate, McpError, type CallToolResult, type InputRequiredResult } from '../src/index.ts'
import type { Outcome } from '../src/server/resolve/resolver.ts'
import {
  InvalidSignatureError,
  McpServer,
  RequestStateSecurity,
  arg,
  context,
  createFetchHandler,
  elicit,
  formSchema,
  inputRequired,
  listRoots,
  outcome,
  resolver,
  sample,
} from '../src/server/index.ts'
import { decodeBase64UrlStrict, encodeBase64Url } from '../src/encoding/base64url.ts'
import * as t1 from '../examples/dependencies/tutorial001.ts'
import * as t2 from '../examples/dependencies/tutorial002.ts'
import * as t3 from '../examples/dependencies/tutorial003.ts'
import * as t4 from '../examples/dependencies/tutorial004.ts'
import { json, recordingLogger, wireResponse, type WireClaims, type WireRequest } from './helpers.ts'

/** A Client over an in-process server (2026-07-28, no era probe); records every request body it sends. */
function connect(mcp: McpServer, options: Omit<ClientOptions, 'transport'> = {}) {
  const handler = createFetchHandler(mcp)
  const sent: WireRequest[] = []
  const client = new Client({
    versionNegotiation: 'modern',
    ...options,
    transport: new StreamableHttpClientTransport('http://x/mcp', {
      fetch: async (r) => (sent.push(await json<WireRequest>(r.clone())), handler(r)),
    }),
  })
  return { client, sent, handler }
}

const text = (r: { content: Array<{ type: string; text?: string }> }) => r.content.map((c) => c.text).join('\n')
const answering = (fields: Record<string, unknown>) => (p: { mode?: string | undefined }) =>
  ({
    action: 'accept',
    content: Object.fromEntries(
      Object.keys((p as ElicitRequestFormParams).requestedSchema.properties).map((k) => [k, fields[k]]),
    ),
  }) as never

class CountingInventory extends Map<string, number> {
  lookups = 0
  override get(key: string) {
    this.lookups++
    return super.get(key)
  }
}

describe("the seed's tutorials", () => {
  it('1: a resolved parameter is hidden from the model, filled by the resolver, and a client-supplied value is ignored', async () => {
    const mcp = t1.createServer()
    const { client } = connect(mcp)
    const [tool] = await client.listTools()
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: { title: { type: 'string' } },
      required: ['title'],
    })
    expect(text(await client.callTool('reserve_book', { title: 'Dune' }))).toBe("Reserved 'Dune' (6 copies left).")
    expect(text(await client.callTool('reserve_book', { title: 'Dune', stock: { title: 'Dune', copies: 999 } }))).toBe(
      "Reserved 'Dune' (6 copies left).",
    )
    expect(text(await client.callTool('reserve_book', { title: 'Neuromancer' }))).toBe("'Neuromancer' is out of stock.")
  })

  it('2: resolvers depend on resolvers; check_stock runs once per call, and again on the next call', async () => {
    const inventory = new CountingInventory([
      ['Dune', 7],
      ['Neuromancer', 0],
    ])
    const { client } = connect(t2.createServer(inventory))
    expect(text(await client.callTool('order_book', { title: 'Dune' }))).toBe("Ordered 'Dune'; it arrives tomorrow.")
    expect(inventory.lookups).toBe(1)
    expect(text(await client.callTool('order_book', { title: 'Neuromancer' }))).toBe(
      "'Neuromancer' is on backorder; it would arrive in 2-3 weeks.",
    )
    expect(inventory.lookups).toBe(2)
  })

  it('3: asks only when out of stock; yes backorders, no places nothing, decline fails the call', async () => {
    const asked: string[] = []
    let reply: unknown = { action: 'accept', content: { confirm: true } }
    const { client, sent } = connect(t3.createServer(), { elicitation: (p) => (asked.push(p.message), reply as never) })
    expect(text(await client.callTool('order_book', { title: 'Dune' }))).toBe("Ordered 'Dune'.")
    expect(asked).toEqual([])
    expect(sent).toHaveLength(1)
    expect(text(await client.callTool('order_book', { title: 'Neuromancer' }))).toBe(
      "Backordered 'Neuromancer'; it ships in 2-3 weeks.",
    )
    expect(asked).toEqual(["'Neuromancer' is out of stock (2-3 weeks). Order anyway?"])
    const question = sent[1].params
    expect(question.name).toBe('order_book')
    reply = { action: 'accept', content: { confirm: false } }
    expect(text(await client.callTool('order_book', { title: 'Neuromancer' }))).toBe('No order placed.')
    for (const action of ['decline', 'cancel']) {
      reply = { action }
      const result = await client.callTool('order_book', { title: 'Neuromancer' })
      expect(result.isError).toBe(true)
      expect(text(result)).toBe(
        `The user ${action === 'decline' ? 'declined' : 'cancelled'}: 'Neuromancer' is out of stock (2-3 weeks). Order anyway?`,
      )
    }
  })

  it('3: the question is a form with the Backorder schema, under a stable key', async () => {
    const mcp = t3.createServer()
    const res = wireResponse(
      await mcp.server.handleRequest({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'order_book',
          arguments: { title: 'Neuromancer' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
          },
        },
      }),
    )
    expect(res.result.inputRequests).toEqual({
      confirmBackorder: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: "'Neuromancer' is out of stock (2-3 weeks). Order anyway?",
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean', description: 'Order anyway and wait?' } },
            required: ['confirm'],
          },
        },
      },
    })
    expect(res.result.requestState).toMatch(/^v2\./)
  })

  it("4: sampling: the client's model picks the book", async () => {
    const prompts: string[] = []
    const { client } = connect(t4.createServer(), {
      sampling: (p) => {
        prompts.push((p.messages[0].content as { text: string }).text)
        return { role: 'assistant', content: { type: 'text', text: 'Dune' }, model: 'test-model' }
      },
    })
    expect(text(await client.callTool('recommend_book', { genre: 'sci-fi' }))).toBe("Today's sci-fi pick: Dune")
    expect(prompts).toEqual(['Suggest one sci-fi book title. Answer with the title only.'])
    const noSampling = connect(t4.createServer()).client
    const error = (await noSampling.callTool('recommend_book', { genre: 'x' }).catch((e: unknown) => e)) as McpError
    expect(error.code).toBe(-32021)
    expect(error.data).toEqual({ requiredCapabilities: { sampling: {} } })
  })
})

describe('registration-time checks (InvalidSignatureError naming the culprit)', () => {
  const mcp = () => new McpServer({ name: 's', version: '1' })
  it('an argument the tool does not declare', () => {
    const needsIsbn = resolver({ isbn: arg<string>() }, function needsIsbn({ isbn }) {
      return isbn
    })
    // @ts-expect-error -- the tool has no string `isbn`
    expect(() => mcp().tool('t', { input: { title: v.string() }, use: { x: needsIsbn } }, () => 'x')).toThrow(
      new InvalidSignatureError(
        "tool 't': resolver 'needsIsbn' parameter 'isbn' needs argument 'isbn', which tool 't' does not declare",
      ),
    )
  })
  it('a need that is neither an argument, a resolver nor the context', () => {
    const bad = resolver({ odd: 'not a need' as never }, function bad() {
      return 1
    })
    expect(() => mcp().tool('t', { use: { x: bad } }, () => 'x')).toThrow(
      /resolver 'bad' parameter 'odd' cannot be resolved/,
    )
  })
  it('a cycle, naming the resolvers in it', () => {
    const needs: Record<string, never> = {}
    const a = resolver(needs, function a() {
      return 1
    })
    const b = resolver({ a }, function b() {
      return 2
    })
    ;(needs as Record<string, unknown>).b = b // close the loop after the fact
    expect(() => mcp().tool('t', { use: { x: b } }, () => 'x')).toThrow(
      /resolver 'b' has a cyclic dependency \(b → a → b\)/,
    )
  })
  it('a resolved name colliding with an argument', () => {
    const r = resolver({}, function title() {
      return 'x'
    })
    // @ts-expect-error -- 'title' is both an argument and a resolved parameter
    expect(() => mcp().tool('t', { input: { title: v.string() }, use: { title: r } }, () => 'x')).toThrow(
      /'title' is both an argument and a resolved parameter/,
    )
  })
  it('a use entry that is no resolver, and a collision, when no entry is a resolver', () => {
    // no resolver in `use`: the registration errors are those of a graph with one
    expect(() => mcp().tool('t', { use: { x: 42 as never } }, () => 'x')).toThrow(
      new InvalidSignatureError("tool 't': use.x must be a resolver or outcome(resolver)"),
    )
    expect(() => mcp().tool('t', { use: { x: arg() as never } }, () => 'x')).toThrow(
      new InvalidSignatureError("tool 't': use.x must be a resolver or outcome(resolver)"),
    )
    expect(() =>
      mcp().tool('t', { input: { title: v.string() }, use: { title: context() as never } }, () => 'x'),
    ).toThrow(new InvalidSignatureError("tool 't': 'title' is both an argument and a resolved parameter"))
    // the first bad entry is named, whichever entries hold resolvers
    const r = resolver({}, function r() {
      return 1
    })
    expect(() => mcp().tool('t', { use: { bad: null as never, r } }, () => 'x')).toThrow(
      new InvalidSignatureError("tool 't': use.bad must be a resolver or outcome(resolver)"),
    )
    expect(() => mcp().prompt('p', { use: { o: outcome(r), bad: 'x' as never } }, () => 'x')).toThrow(
      new InvalidSignatureError("prompt 'p': use.bad must be a resolver or outcome(resolver)"),
    )
  })
  it("a form schema outside the spec's subset", () => {
    expect(() => formSchema({ nested: v.object({ a: v.string() }) })).toThrow(/field 'nested' has type "object"/)
    expect(() => formSchema({ list: v.array(v.string()) })).toThrow(
      /field 'list' is an array that is not a multi-select enum/,
    )
    expect(() =>
      formSchema({
        ok: v.string(),
        color: v.picklist(['red']),
        tags: v.array(v.picklist(['a', 'b'])),
        n: v.pipe(v.number(), v.minValue(1)),
      }),
    ).not.toThrow()
  })
})

describe('compile-time checks (the same mistakes fail to compile)', () => {
  it('type errors are caught by tsc (this file is type-checked by npm test)', () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    const needsTitle = resolver({ title: arg<string>() }, function needsTitle({ title }) {
      return title.length
    })
    const asks = resolver({}, function asks() {
      return elicit('?', formSchema({ ok: v.boolean() }))
    })
    const register = (f: () => void) => {
      try {
        f()
      } catch {
        // runtime checks are tested above; here only the compiler's verdict matters
      }
    }
    // OK: the tool declares a string title
    register(() => mcp.tool('a', { input: { title: v.string() }, use: { n: needsTitle } }, ({ n }) => String(n + 1)))
    // @ts-expect-error -- no title at all
    register(() => mcp.tool('b', { input: { name: v.string() }, use: { n: needsTitle } }, () => 'x'))
    // @ts-expect-error -- title is a number, the resolver needs a string
    register(() => mcp.tool('c', { input: { title: v.number() }, use: { n: needsTitle } }, () => 'x'))
    // @ts-expect-error -- a handler with resolvers may not return an InputRequiredResult itself
    register(() => mcp.tool('d', { use: { ok: asks } }, () => inputRequired(undefined, 'x')))
    // the injected types follow the resolvers: `ok` is the form's output, an outcome is a union
    register(() =>
      mcp.tool('e', { use: { ok: asks, full: outcome(asks) } }, ({ ok, full }) => {
        const flag: boolean = ok.ok
        const o: Outcome<{ ok: boolean }> = full
        return String(flag) + o.action
      }),
    )
    expect(true).toBe(true)
  })
})

describe('resolution semantics', () => {
  const Q = (label: string) => formSchema({ [label]: v.string() })

  it('once per round per resolver, whatever its consumers; again on the next call (§E 46)', async () => {
    let runs = 0
    const shared = resolver({}, function shared() {
      return ++runs
    })
    const a = resolver({ s: shared }, function a({ s }) {
      return s
    })
    const b = resolver({ s: shared }, function b({ s }) {
      return s
    })
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('t', { use: { a, b, s: shared } }, ({ a, b, s }) => `${a},${b},${s}`)
    const { client } = connect(mcp)
    expect(text(await client.callTool('t'))).toBe('1,1,1')
    expect(text(await client.callTool('t'))).toBe('2,2,2')
  })

  it('the first round carries one elicitation and a non-null state, with no side effects (§E 50)', async () => {
    let bodyRuns = 0
    const login = resolver({}, function login() {
      return elicit('Username?', Q('user'))
    })
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('whoami', { use: { login } }, ({ login }) => (bodyRuns++, `you are ${login.user}`))
    const res = wireResponse(
      await mcp.server.handleRequest({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'whoami',
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
          },
        },
      }),
    )
    expect(Object.values(res.result.inputRequests).map((r) => r.method)).toEqual(['elicitation/create'])
    expect(typeof res.result.requestState).toBe('string')
    expect(bodyRuns).toBe(0)
  })

  it('batches every independent question of a round, nested ones included (§E 51)', async () => {
    const rounds: string[][] = []
    const e1 = resolver({}, function e1() {
      return elicit('First?', Q('a'))
    })
    const e2 = resolver({}, function e2() {
      return elicit('Second?', Q('b'))
    })
    const nested = resolver({ e2 }, function nested({ e2 }) {
      return e2.b
    })
    const s = resolver({}, function s() {
      return sample('Say hi', { maxTokens: 5 })
    })
    const r = resolver({}, function r() {
      return listRoots()
    })
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool(
      'all',
      { use: { e1, nested, s, r } },
      ({ e1, nested, s, r }) => `${e1.a}/${nested}/${(s.content as { text: string }).text}/${r.roots.length}`,
    )
    const { client } = connect(mcp, {
      elicitation: answering({ a: 'A', b: 'B' }),
      sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' }),
      roots: () => ({ roots: [{ uri: 'file:///w' }] }),
    })
    const result = await client.callTool('all', {}, { onRound: (info) => rounds.push(Object.keys(info.inputRequests)) })
    expect(text(result)).toBe('A/B/hi/1')
    expect(rounds).toEqual([['e1', 'e2', 's', 'r']])
  })

  it('asks each question once while bodies re-run each round: login → confirm (§E 52)', async () => {
    const counts = { login: 0, confirm: 0 }
    const asked: string[] = []
    const login = resolver({}, function login() {
      counts.login++
      return elicit('Username?', Q('user'))
    })
    const confirm = resolver({ login }, function confirm({ login }) {
      counts.confirm++
      return elicit(`As ${login.user}?`, formSchema({ ok: v.boolean() }))
    })
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('deploy', { use: { confirm } }, ({ confirm }) => (confirm.ok ? 'deployed' : 'not deployed'))
    const { client } = connect(mcp, {
      elicitation: (p) => (asked.push(p.message), answering({ user: 'octocat', ok: true })(p)),
    })
    expect(text(await client.callTool('deploy'))).toBe('deployed')
    expect(asked).toEqual(['Username?', 'As octocat?'])
    expect(counts).toEqual({ login: 3, confirm: 2 })
  })

  it('persists outcomes: a 4-link chain asks each once; an 11-link chain stops at the round limit (§E 53)', async () => {
    /* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access -- a chain of n resolvers built in a loop has no static type */
    const chain = (n: number) => {
      let prev: any
      const links: any[] = []
      for (let i = 0; i < n; i++) {
        const needs: Record<string, any> = prev ? { prev } : {}
        const link = resolver(needs, ({ prev: p }: any) => elicit(`Step ${i}${p ? ` after ${p.v}` : ''}?`, Q('v')), {
          name: `step${i}`,
        })
        links.push(link)
        prev = link
      }
      const mcp = new McpServer({ name: 's', version: '1' })
      mcp.tool('chain', { use: { last: prev } }, ({ last }: any) => `done: ${last.v}`)
      return mcp
    }
    /* eslint-enable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access */
    const asked: string[] = []
    const four = connect(chain(4), { elicitation: (p) => (asked.push(p.message), answering({ v: 'x' })(p)) })
    expect(text(await four.client.callTool('chain'))).toBe('done: x')
    expect(asked).toEqual(['Step 0?', 'Step 1 after x?', 'Step 2 after x?', 'Step 3 after x?'])
    expect(four.sent).toHaveLength(5)
    const eleven = connect(chain(11), { elicitation: answering({ v: 'x' }) })
    await expect(eleven.client.callTool('chain')).rejects.toBeInstanceOf(InputRequiredRoundsExceededError)
    expect(eleven.sent).toHaveLength(11)
  })

  it('a recorded decline persists and is not re-asked; an outcome consumer branches on it (§E 49, 53)', async () => {
    const asked: string[] = []
    const login = resolver({}, function login() {
      return elicit('Username?', Q('user'))
    })
    const other = resolver({}, function other() {
      return elicit('Anything else?', Q('more'))
    })
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('whoami', { use: { login: outcome(login), more: other } }, ({ login, more }) =>
      login.action === 'accept'
        ? `you are ${login.value.user} (${more.more})`
        : `anonymous after ${login.action} (${more.more})`,
    )
    let first = true
    const { client } = connect(mcp, {
      elicitation: (p) => {
        asked.push(p.message)
        if (p.message === 'Username?') return { action: 'decline' }
        if (first) {
          first = false
          return { action: 'accept', content: {} } // does not fit the schema: asked again, not failed
        }
        return { action: 'accept', content: { more: 'no' } }
      },
    })
    expect(text(await client.callTool('whoami'))).toBe('anonymous after decline (no)')
    expect(asked.slice(0, 2)).toEqual(['Username?', 'Anything else?'])
    expect(asked[2]).toMatch(/^The last answer did not fit \(field 'more': .+\)\. Anything else\?$/)
    expect(asked).toHaveLength(3)
  })

  it('pins answers to the exact question: a reworded question is asked again, its siblings survive (§E 54)', async () => {
    let wording = 'v1'
    const asked: string[] = []
    const a = resolver({}, function a() {
      return elicit(`Question A (${wording})?`, Q('a'))
    })
    const b = resolver({}, function b() {
      return elicit('Question B?', Q('b'))
    })
    const c = resolver({ b }, function c({ b }) {
      return elicit(`Question C after ${b.b}?`, Q('c'))
    })
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: recordingLogger().logger })
    mcp.tool('t', { use: { a, c } }, ({ a, c }) => `${a.a}+${c.c}`)
    const { client } = connect(mcp, {
      elicitation: (p) => {
        asked.push(p.message)
        if (p.message.startsWith('Question C')) wording = 'v2' // the server is redeployed with new text mid-flow
        return answering({ a: `answer-${asked.length}`, b: 'B', c: 'C' })(p)
      },
    })
    expect(text(await client.callTool('t'))).toBe('answer-4+C')
    // A's recorded answer was dropped and A asked again under its new wording; B was asked once
    expect(asked).toEqual(['Question A (v1)?', 'Question B?', 'Question C after B?', 'Question A (v2)?'])
  })

  it('an answer that arrives after its question was reworded is not consumed, and a decline of the old wording does not suppress the new one (§E 54)', async () => {
    let wording = 'v1'
    const asked: string[] = []
    const a = resolver({}, function a() {
      return elicit(`Question A (${wording})?`, Q('a'))
    })
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: recordingLogger().logger })
    mcp.tool('t', { use: { a: outcome(a) } }, ({ a }) => (a.action === 'accept' ? `accepted ${a.value.a}` : a.action))
    const { client } = connect(mcp, {
      elicitation: (p) => {
        asked.push(p.message)
        if (asked.length === 1) {
          wording = 'v2' // reworded while the user was answering: this answer is for a question no longer asked
          return { action: 'decline' }
        }
        return answering({ a: 'yes' })(p)
      },
    })
    expect(text(await client.callTool('t'))).toBe('accepted yes')
    expect(asked).toEqual(['Question A (v1)?', 'Question A (v2)?'])
  })

  it('an answer sent without the state it answers, or to another question, is not consumed (§E 54, 55)', async () => {
    let runs = 0
    const login = resolver({}, function login() {
      return elicit('Username?', Q('user'))
    })
    const log = recordingLogger()
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: log.logger })
    mcp.tool('whoami', { use: { login } }, ({ login }) => (runs++, `you are ${login.user}`))
    const { client } = connect(mcp, { capabilities: { elicitation: {} } })
    const forged = await client.callTool(
      'whoami',
      {},
      { manual: true, inputResponses: { login: { action: 'accept', content: { user: 'mallory' } } } },
    )
    expect(forged.resultType).toBe('input_required') // no state that asked it: asked again
    expect(runs).toBe(0)
    expect(log.warn).toEqual([
      "Discarding the answer for resolver 'login': it was never asked in a round this request carries the requestState of",
    ])
  })

  it('state never overrides a value a resolver computes itself (§E 55)', async () => {
    // a passthrough codec lets the test write any state the boundary will accept
    const codec = {
      seal: (b: Uint8Array) => Promise.resolve('p.' + encodeBase64Url(b)),
      unseal: (t: string) => Promise.resolve(decodeBase64UrlStrict(t.slice(2))!),
    }
    const mcp = new McpServer(
      { name: 's', version: '1' },
      { requestStateSecurity: new RequestStateSecurity({ codec }) },
    )
    const price = resolver({}, function price() {
      return 42
    })
    const login = resolver({}, function login() {
      return elicit('Username?', Q('user'))
    })
    mcp.tool('quote', { use: { price, login } }, ({ price, login }) => `${login.user} pays ${price}`)
    const { client } = connect(mcp, { elicitation: answering({ user: 'octocat' }) })
    const first = (await client.callTool('quote', {}, { manual: true })) as InputRequiredResult
    const claims = JSON.parse(
      new TextDecoder().decode(decodeBase64UrlStrict(first.requestState!.slice(2))),
    ) as WireClaims
    const state = claims.s as { outcomes: Record<string, unknown> } // the resolver state, serialised once
    state.outcomes.price = { action: 'accept', data: 0, q: 'forged' } // a ghost entry for a resolver that never asks
    const tampered = 'p.' + encodeBase64Url(new TextEncoder().encode(JSON.stringify(claims)))
    const done = await client.callTool(
      'quote',
      {},
      {
        manual: true,
        requestState: tampered,
        inputResponses: { login: { action: 'accept', content: { user: 'octocat' } } },
      },
    )
    expect(text(done as CallToolResult)).toBe('octocat pays 42')
  })

  it('validates answers by kind (§E 56)', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    const login = resolver({}, function login() {
      return elicit('Username?', Q('user'))
    })
    const s = resolver({}, function s() {
      return sample('hi', { maxTokens: 5 })
    })
    mcp.tool('a', { use: { login } }, ({ login }) => login.user)
    mcp.tool('b', { use: { s } }, () => 'ok')
    const { client } = connect(mcp, { capabilities: { elicitation: {}, sampling: {} } })
    const first = (await client.callTool('a', {}, { manual: true })) as InputRequiredResult
    const wrong = await client.callTool(
      'a',
      {},
      {
        manual: true,
        requestState: first.requestState!,
        inputResponses: { login: { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' } },
      },
    )
    expect(text(wrong as CallToolResult)).toBe(
      "Error executing tool a: The answer to input request 'login' is not an elicitation result",
    )
    const firstB = (await client.callTool('b', {}, { manual: true })) as InputRequiredResult
    const wrongB = await client.callTool(
      'b',
      {},
      { manual: true, requestState: firstB.requestState!, inputResponses: { s: { action: 'accept', content: {} } } },
    )
    expect(text(wrongB as CallToolResult)).toBe(
      "Error executing tool b: The answer to input request 's' is an elicitation result, not a sampling result",
    )
  })

  it('gates on capabilities declared in this request: -32021 with requiredCapabilities, and the server stays usable (§E 58)', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    const ask = resolver({}, function ask() {
      return elicit('?', Q('x'))
    })
    const withTools = resolver({}, function withTools() {
      return sample({
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
        maxTokens: 5,
        tools: [{ name: 't', inputSchema: { type: 'object' } }],
      })
    })
    const roots = resolver({}, function roots() {
      return listRoots()
    })
    const url = resolver({}, function url() {
      return elicit.url('Connect your account', 'https://auth.example/connect')
    })
    mcp.tool('ask', { use: { ask } }, () => 'ok')
    mcp.tool('tools', { use: { withTools } }, () => 'ok')
    mcp.tool('roots', { use: { roots } }, () => 'ok')
    mcp.tool('url', { use: { url } }, () => 'ok')
    mcp.tool('plain', {}, () => 'still here')
    const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, string]> = [
      [
        'ask',
        {},
        { elicitation: { form: {} } },
        "Client did not declare the form elicitation capability required by resolver 'ask'",
      ],
      ['ask', { elicitation: { url: {} } }, { elicitation: { form: {} } }, 'form elicitation'],
      ['tools', { sampling: {} }, { sampling: { tools: {} } }, 'sampling.tools'],
      ['roots', { sampling: {} }, { roots: {} }, 'roots'],
      ['url', { elicitation: {} }, { elicitation: { url: {} } }, 'URL elicitation'],
    ]
    for (const [tool, capabilities, required, message] of cases) {
      const error = (await connect(mcp, { capabilities })
        .client.callTool(tool)
        .catch((e: unknown) => e)) as McpError
      expect(error, tool).toBeInstanceOf(McpError)
      expect(error.code).toBe(-32021)
      expect(error.data).toEqual({ requiredCapabilities: required })
      expect(error.message).toContain(message)
    }
    expect(text(await connect(mcp).client.callTool('plain'))).toBe('still here')
  })

  it('URL-mode elicitation through a resolver where the client declared elicitation.url', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    const consent = resolver({}, function consent() {
      return elicit.url('Connect your calendar', 'https://auth.example/connect?x=1')
    })
    mcp.tool('sync', { use: { consent } }, ({ consent }) => `consent: ${consent}`)
    const seen: unknown[] = []
    const { client } = connect(mcp, { elicitation: (p) => (seen.push(p), { action: 'accept' }) })
    expect(text(await client.callTool('sync'))).toBe('consent: true')
    expect(seen).toEqual([{ mode: 'url', message: 'Connect your calendar', url: 'https://auth.example/connect?x=1' }])
  })

  it('a handler with resolvers that returns an InputRequiredResult anyway is a tool error (§E 48)', async () => {
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: recordingLogger().logger })
    const r = resolver({}, function r() {
      return 1
    })
    mcp.tool('both', { use: { r } }, (() => inputRequired(undefined, 'x')) as never)
    const result = await connect(mcp).client.callTool('both')
    expect(result.isError).toBe(true)
    expect(text(result)).toBe(
      'Error executing tool both: the handler returned an InputRequiredResult, but its parameters use resolvers: ' +
        'the questions of a call come from its resolvers or from its handler, not both',
    )
  })

  it('an empty use: the SDK owns the questions and the state, as with resolvers', async () => {
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: recordingLogger().logger })
    const seen: unknown[] = []
    mcp.tool('empty', { input: { a: v.string() }, use: {} }, ({ a }, ctx) => {
      seen.push([a, ctx.inputResponses, ctx.requestState])
      return `a: ${a}`
    })
    mcp.tool('asks', { use: {} }, () => inputRequired(undefined, 'x'))
    const { client } = connect(mcp)
    expect(text(await client.callTool('empty', { a: 'x' }))).toBe('a: x')
    expect(seen).toEqual([['x', undefined, undefined]])
    const result = await client.callTool('asks')
    expect([result.isError, text(result)]).toEqual([
      true,
      'Error executing tool asks: the handler returned an InputRequiredResult, but its parameters use resolvers: ' +
        'the questions of a call come from its resolvers or from its handler, not both',
    ])
  })

  it('resolvers receive the context and async resolvers work', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    const who = resolver({ ctx: context() }, async function who({ ctx }) {
      await new Promise((r) => setTimeout(r, 1))
      return ctx.clientInfo?.name ?? 'unknown'
    })
    mcp.tool('hello', { use: { who } }, ({ who }) => `hello ${who}`)
    expect(text(await connect(mcp, { clientInfo: { name: 'tester', version: '1' } }).client.callTool('hello'))).toBe(
      'hello tester',
    )
  })
})

describe('prompts and resource templates accept resolved parameters', () => {
  it('a prompt that asks for its audience, and a template that asks a question', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    const audience = resolver({}, function audience() {
      return elicit('Who is the briefing for?', formSchema({ audience: v.string() }))
    })
    mcp.prompt(
      'briefing',
      { description: 'Draft a briefing', arguments: { topic: v.string() }, use: { audience } },
      ({ topic, audience }) => `Write a briefing on ${topic} for ${audience.audience}.`,
    )
    const count = resolver({ genre: arg<string>() }, function count({ genre }) {
      return elicit(
        `How many ${genre} picks?`,
        formSchema({ n: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5)) }),
      )
    })
    mcp.resourceTemplate(
      'picks',
      new UriTemplate('books://{genre}/picks'),
      { mimeType: 'text/plain', use: { count } },
      ({ genre, count }) => `${count.n} ${genre} picks`,
    )
    const { client } = connect(mcp, { elicitation: answering({ audience: 'the board', n: 3 }) })
    const prompt = await client.request('prompts/get', { name: 'briefing', arguments: { topic: 'Q3' } })
    expect(prompt.resultType).toBe('input_required')
    const sealed = await client.request('prompts/get', {
      name: 'briefing',
      arguments: { topic: 'Q3' },
      requestState: prompt.requestState,
      inputResponses: { audience: { action: 'accept', content: { audience: 'the board' } } },
    })
    expect(sealed.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Write a briefing on Q3 for the board.' } },
    ])
    const first = await client.request('resources/read', { uri: 'books://sci-fi/picks' })
    const read = await client.request('resources/read', {
      uri: 'books://sci-fi/picks',
      requestState: first.requestState,
      inputResponses: { count: { action: 'accept', content: { n: 3 } } },
    })
    expect(read.contents).toEqual([{ uri: 'books://sci-fi/picks', mimeType: 'text/plain', text: '3 sci-fi picks' }])
    const notFound = (await client.request('resources/read', { uri: 'books://x' }).catch((e: unknown) => e)) as McpError
    expect([notFound.code, notFound.data]).toEqual([-32602, { uri: 'books://x' }])
    const declined = (await client
      .request('prompts/get', {
        name: 'briefing',
        arguments: { topic: 'Q3' },
        requestState: prompt.requestState,
        inputResponses: { audience: { action: 'decline' } },
      })
      .catch((e: unknown) => e)) as McpError
    expect(declined.code).toBe(-32602)
    expect(declined.message).toBe('Could not get prompt briefing because the user declined: Who is the briefing for?')
  })
})

describe('forms, names, args, caching, concurrency', () => {
  it('formSchema refuses what a form cannot express and normalises literal multi-selects', () => {
    expect(() => formSchema({ code: v.pipe(v.string(), v.regex(/^[a-z]+$/)) })).toThrow(/field 'code' uses 'pattern'/)
    expect(() => formSchema({ n: v.pipe(v.number(), v.multipleOf(2)) })).toThrow(/field 'n' uses 'multipleOf'/)
    expect(() =>
      formSchema({
        even: v.pipe(
          v.number(),
          v.check((n) => n % 2 === 0),
        ),
      }),
    ).toThrow(InvalidSignatureError)
    const tags = formSchema({ tags: v.array(v.union([v.literal('x'), v.literal('y')])) })
    expect(tags.requestedSchema.properties.tags).toEqual({ type: 'array', items: { type: 'string', enum: ['x', 'y'] } })
    expect(() => elicit('?', { ok: v.boolean() } as never)).toThrow(/formSchema/)
    expect(() => elicit.url('Connect', '/oauth/start')).toThrow(/absolute URL/)
    expect(() => elicit.url('Connect', 'javascript:alert(1)')).toThrow(/http\(s\) URL/)
  })

  it('an answer that never fits is asked again at most twice, then the call fails', async () => {
    const Age = formSchema({ age: v.pipe(v.number(), v.integer(), v.minValue(18)) })
    const age = resolver({}, function age() {
      return elicit('Age?', Age)
    })
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('t', { use: { age } }, ({ age }) => `age ${age.age}`)
    const messages: string[] = []
    const { client } = connect(mcp, {
      elicitation: (params) => (messages.push(params.message), { action: 'accept', content: { age: 3 } }),
    })
    const result = await client.callTool('t')
    expect(result.isError).toBe(true)
    const why = "field 'age': Invalid value: Expected >=18 but received 3"
    expect(text(result)).toBe(
      `Error executing tool t: The answer to input request 'age' still does not fit its form after 2 re-asks (${why})`,
    )
    // asked again saying why; the answer is still checked against the original question
    expect(messages).toEqual([
      'Age?',
      `The last answer did not fit (${why}). Age?`,
      `The last answer did not fit (${why}). Age?`,
    ])
  })

  it('a resolver needs a name; arg().from() takes another argument; optional arguments type-check', async () => {
    expect(() => resolver({}, () => 1)).toThrow(/needs a named function/)
    const mcp = new McpServer({ name: 's', version: '1' })
    const byAlias = resolver(
      { t: arg<string>().from('title'), note: arg<string | undefined>() },
      function byAlias({ t, note }) {
        return `${t.toUpperCase()}${note ? ` (${note})` : ''}`
      },
    )
    mcp.tool(
      't',
      { input: { title: v.string(), note: v.optional(v.string()) }, use: { shout: byAlias } },
      ({ shout }) => shout,
    )
    const { client } = connect(mcp)
    expect(text(await client.callTool('t', { title: 'dune' }))).toBe('DUNE')
    expect(text(await client.callTool('t', { title: 'dune', note: 'gift' }))).toBe('DUNE (gift)')
  })

  it('resource templates check their resolvers against the template variables at compile time', () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    const needsIsbn = resolver({ isbn: arg<string>() }, function needsIsbn({ isbn }) {
      return isbn
    })
    mcp.resourceTemplate(
      'ok',
      new UriTemplate('books://{isbn}'),
      { use: { x: needsIsbn } },
      ({ isbn, x }) => `${isbn}${x}`,
    )
    expect(() =>
      // @ts-expect-error -- the template has no {isbn}
      mcp.resourceTemplate('bad', new UriTemplate('books://{id}'), { use: { x: needsIsbn } }, () => 'x'),
    ).toThrow(InvalidSignatureError)
  })

  it('a result reached through rounds is never cacheable', async () => {
    const mcp = new McpServer({ name: 's', version: '1' }, { cache: { ttlMs: 60_000, cacheScope: 'public' } })
    const n = resolver({}, function n() {
      return elicit('How many?', formSchema({ n: v.number() }))
    })
    mcp.resourceTemplate('list', new UriTemplate('list://{kind}'), { use: { n } }, ({ kind, n }) => `${n.n} ${kind}`)
    mcp.resourceTemplate('plain', new UriTemplate('plain://{kind}'), {}, ({ kind }) => kind)
    const { client } = connect(mcp, { elicitation: () => ({ action: 'accept', content: { n: 2 } }) })
    expect(await client.readResource('list://books')).toMatchObject({ ttlMs: 0, cacheScope: 'private' })
    expect(await client.readResource('plain://books')).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' })
  })

  it('independent resolvers run concurrently, and keys stay in plan order', async () => {
    let active = 0
    let maxActive = 0
    const slow = (name: string, ms: number) =>
      resolver(
        {},
        async () => {
          maxActive = Math.max(maxActive, ++active)
          await new Promise((r) => setTimeout(r, ms))
          active--
          return elicit(`${name}?`, formSchema({ v: v.string() }))
        },
        { name },
      )
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool(
      't',
      { use: { a: slow('a', 60), b: slow('b', 10), c: slow('c', 30) } },
      ({ a, b, c }) => `${a.v}${b.v}${c.v}`,
    )
    const keys: string[][] = []
    const { client } = connect(mcp, { elicitation: () => ({ action: 'accept', content: { v: '.' } }) })
    expect(text(await client.callTool('t', {}, { onRound: (r) => keys.push(Object.keys(r.inputRequests)) }))).toBe(
      '...',
    )
    expect(keys).toEqual([['a', 'b', 'c']]) // declaration order, although b finished first
    expect(maxActive).toBe(3) // all three were running at once
  })

  it('records only validated fields: extra answer fields do not grow the state', async () => {
    const codec = {
      seal: (b: Uint8Array) => Promise.resolve('p.' + encodeBase64Url(b)),
      unseal: (t: string) => Promise.resolve(decodeBase64UrlStrict(t.slice(2))!),
    }
    const mcp = new McpServer(
      { name: 's', version: '1' },
      { requestStateSecurity: new RequestStateSecurity({ codec }) },
    )
    const s = resolver({}, function s() {
      return sample('hi', { maxTokens: 5 })
    })
    const e = resolver({ s }, function e() {
      return elicit('Then?', formSchema({ x: v.string() }))
    })
    mcp.tool('t', { use: { e } }, ({ e }) => e.x)
    const { client } = connect(mcp, { capabilities: { sampling: {}, elicitation: {} } })
    const first = (await client.callTool('t', {}, { manual: true })) as InputRequiredResult
    const second = (await client.callTool(
      't',
      {},
      {
        manual: true,
        requestState: first.requestState!,
        inputResponses: {
          s: {
            role: 'assistant',
            content: { type: 'text', text: 'hi' },
            model: 'm',
            junk: 'x'.repeat(50_000),
          } as never,
        },
      },
    )) as InputRequiredResult
    const claims = JSON.parse(
      new TextDecoder().decode(decodeBase64UrlStrict(second.requestState!.slice(2))),
    ) as WireClaims
    expect((claims.s as { outcomes: Record<string, { data: unknown }> }).outcomes.s.data).toEqual({
      role: 'assistant',
      content: { type: 'text', text: 'hi' },
      model: 'm',
    })
    expect(second.requestState!.length).toBeLessThan(2000)
  })

  it('a prompt handler with resolvers that returns an InputRequiredResult is a server error (-32603), not invalid params', async () => {
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: recordingLogger().logger })
    const r = resolver({}, function r() {
      return 1
    })
    mcp.prompt('p', { use: { r } }, (() => inputRequired(undefined, 'x')) as never)
    const error = (await connect(mcp)
      .client.getPrompt('p')
      .catch((e: unknown) => e)) as McpError
    expect([error.code, error.message]).toEqual([-32603, 'Internal error'])
  })
})
