/**
 * Integration: the demo Worker runs in local workerd (`wrangler dev`), driven over real HTTP by our
 * Client and by the command-line demo client under Node, Deno and Bun.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { McpError, type InputRequiredResult } from '../../src/index.ts'
import type { WireResponse } from '../helpers.ts'
import { ensureTool } from '../tools.ts'
import { ROOT, startWorker, type RunningWorker } from '../workerd.ts'

const run = promisify(execFile)
let worker: RunningWorker

beforeAll(async () => {
  worker = await startWorker()
})
afterAll(async () => {
  await worker?.stop()
})

function client(answers: Record<string, unknown> = { region: 'eu-west-1', confirm: true }) {
  return new Client({
    transport: new StreamableHttpClientTransport(worker.url),
    clientInfo: { name: 'workerd-test', version: '1' },
    elicitation: (params) => {
      if (params.mode === 'url') return { action: 'decline' }
      const content = Object.fromEntries(
        Object.keys(params.requestedSchema.properties).map((k) => [k, answers[k]]),
      ) as Record<string, string | boolean>
      return { action: 'accept', content }
    },
  })
}

describe('the demo Worker in workerd, over real HTTP', () => {
  it('discovers 2026-07-28 and lists the tools', async () => {
    const c = client()
    const discovered = await c.discover()
    expect(discovered.supportedVersions).toContain('2026-07-28')
    expect((await c.listTools()).map((t) => t.name)).toEqual([
      'provision',
      'reserve_book',
      'order_book',
      'set_order_quantity', // the order card App's own tool (listed; a host does not offer it to the model)
      'recommend_book',
      'open_account',
      'stock_take',
    ])
  })

  it('completes provision and order_book through the input-required loop', async () => {
    const c = client()
    const rounds: number[] = []
    const provision = await c.callTool('provision', { name: 'orders' }, { onRound: (r) => rounds.push(r.round) })
    expect(provision.content[0]).toEqual({ type: 'text', text: "Provisioned 'orders' in eu-west-1." })
    expect(rounds).toEqual([1])
    expect((await c.callTool('order_book', { title: 'Neuromancer' })).content[0]).toMatchObject({
      text: "Backordered 'Neuromancer'; it ships in 2-3 weeks.",
    })
    expect(
      (await client({ confirm: false }).callTool('order_book', { title: 'Neuromancer' })).content[0],
    ).toMatchObject({ text: 'No order placed.' })
    expect((await c.callTool('reserve_book', { title: 'Dune' })).content[0]).toMatchObject({
      text: "Reserved 'Dune' (6 copies left).",
    })
  })

  it('rejects tampered, replayed-elsewhere and rebound requestState with the frozen error', async () => {
    const c = client()
    const irr = (await c.callTool('provision', { name: 'orders' }, { manual: true })) as InputRequiredResult
    const token = irr.requestState!
    expect(token).toMatch(/^v2\./)
    expect(token).not.toContain('provision-v1')
    const answers = { region: { action: 'accept' as const, content: { region: 'eu-west-1' } } }
    const mid = token.length >> 1
    const tampered = token.slice(0, mid) + (token[mid] === 'x' ? 'y' : 'x') + token.slice(mid + 1)
    const attempts = [
      () =>
        c.callTool('provision', { name: 'orders' }, { manual: true, inputResponses: answers, requestState: tampered }),
      () =>
        c.callTool(
          'order_book',
          { title: 'Neuromancer' },
          { manual: true, inputResponses: answers, requestState: token },
        ),
      () =>
        c.callTool('provision', { name: 'billing' }, { manual: true, inputResponses: answers, requestState: token }),
    ]
    for (const attempt of attempts) {
      const error = await attempt().catch((e: unknown) => e)
      expect(error).toBeInstanceOf(McpError)
      expect({ code: (error as McpError).code, message: (error as McpError).message }).toEqual({
        code: -32602,
        message: 'Invalid or expired requestState',
      })
    }
    const ok = await c.callTool(
      'provision',
      { name: 'orders' },
      { manual: true, inputResponses: answers, requestState: token },
    )
    expect(ok).toMatchObject({ content: [{ text: "Provisioned 'orders' in eu-west-1." }] })
  })

  it('answers client mistakes with 4xx, never 500, and keeps serving', async () => {
    const send = (body: string, headers: Record<string, string> = {}) =>
      fetch(worker.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body,
      })
    const cases: Array<[string, Record<string, string>, number, number]> = [
      ['{"jsonrpc":"2.0","id":1,"method":', {}, 400, -32700],
      ['[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]', {}, 400, -32600],
      // an envelope whose claim is malformed is a 2026 request with a bad envelope, not a 2025 one
      [
        '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":5}}}',
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
        400,
        -32602,
      ],
    ]
    for (const [body, headers, status, code] of cases) {
      const res = await send(body, headers)
      expect(res.status).toBe(status)
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(code)
    }
    // no envelope at all: a 2025-era request, served by the legacy lane
    const legacy = await send('{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}')
    expect(legacy.status).toBe(200)
    expect(((await legacy.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0)
    const unknown = await client()
      .callTool('nope')
      .catch((e: unknown) => e)
    expect((unknown as McpError).code).toBe(-32602)
    const invalid = await client().callTool('provision', { name: 42 })
    expect(invalid.isError).toBe(true)
    expect(invalid.content[0]).toMatchObject({ text: expect.stringContaining("field 'name'") as unknown })
    expect((await fetch(worker.url)).status).toBe(405)
    expect((await client().discover()).supportedVersions).toContain('2026-07-28')
  })

  it('refuses a rebound Host (DNS rebinding): 403 for evil.example even with a matching Origin; localhost is served', async () => {
    const { request } = await import('node:http')
    const get = (host: string, path: string) =>
      new Promise<{ status: number; type: string | undefined }>((resolve, reject) => {
        const req = request(new URL(path, worker.url), { headers: { host } })
        req.on(
          'response',
          (res) => (res.resume(), resolve({ status: res.statusCode!, type: res.headers['content-type'] })),
        )
        req.on('error', reject)
        req.end()
      })
    const post = (host: string) =>
      new Promise<{ status: number; body: string; type: string | undefined }>((resolve, reject) => {
        const body = JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        })
        const req = request(worker.url, {
          method: 'POST',
          headers: {
            host,
            origin: `http://${host}`,
            'content-type': 'application/json',
            accept: 'application/json',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/list',
          },
        })
        req.on('response', (res) => {
          let text = ''
          res.on('data', (d) => (text += d))
          res.on('end', () => resolve({ status: res.statusCode!, body: text, type: res.headers['content-type'] }))
        })
        req.on('error', reject)
        req.end(body)
      })
    const evil = await post(`evil.example:${worker.port}`)
    expect(evil.status).toBe(403)
    expect((JSON.parse(evil.body) as WireResponse).error.message).toBe(
      `Forbidden: host evil.example:${worker.port} is not served: this Worker's ALLOWED_HOSTS names only loopback hosts, for local use; deploy with \`npx wrangler deploy --var ALLOWED_HOSTS:<your host>\``,
    )
    expect((JSON.parse(evil.body) as WireResponse).error.code).toBe(-32600)
    expect(JSON.parse(evil.body)).not.toHaveProperty('id') // as the SDK's own 403: MCP forbids a null id
    expect(evil.type).toBe('application/json')
    expect((await post(`localhost:${worker.port}`)).status).toBe(200)
    // only /mcp (and its metadata route, 404 without OAUTH_ISSUER) is refused: the SPA is served under any host
    const spa = await get(`evil.example:${worker.port}`, '/')
    expect(spa.status).toBe(200)
    expect(spa.type).toMatch(/^text\/html/)
    expect((await get(`evil.example:${worker.port}`, '/.well-known/oauth-protected-resource/mcp')).status).toBe(404)
  })
})

describe('dependency injection on the Worker in workerd, over real HTTP', () => {
  it('a three-question chain asks each question exactly once', async () => {
    const asked: string[] = []
    const answers: Record<string, unknown> = { name: 'Ada', plan: 'pro', confirm: true }
    const c = new Client({
      transport: new StreamableHttpClientTransport(worker.url),
      elicitation: (params) => {
        asked.push(params.message)
        if (params.mode === 'url') return { action: 'decline' }
        const content = Object.fromEntries(
          Object.keys(params.requestedSchema.properties).map((k) => [k, answers[k]]),
        ) as Record<string, string | boolean>
        return { action: 'accept', content }
      },
    })
    const rounds: string[][] = []
    const result = await c.callTool('open_account', {}, { onRound: (r) => rounds.push(Object.keys(r.inputRequests)) })
    expect(result.content[0]).toMatchObject({ text: 'Opened a pro account for Ada.' })
    expect(asked).toEqual([
      'What name should the account be under?',
      'Which plan for Ada?',
      'Open a pro account for Ada?',
    ])
    expect(rounds).toEqual([['accountName'], ['accountPlan'], ['accountConfirm']])
  })

  it('a retry whose state (carrying the recorded answers) was tampered with gets the frozen error', async () => {
    const c = new Client({
      transport: new StreamableHttpClientTransport(worker.url),
      capabilities: { elicitation: {} },
    })
    const first = (await c.callTool('open_account', {}, { manual: true })) as InputRequiredResult
    const second = (await c.callTool(
      'open_account',
      {},
      {
        manual: true,
        requestState: first.requestState!,
        inputResponses: { accountName: { action: 'accept', content: { name: 'Ada' } } },
      },
    )) as InputRequiredResult
    expect(Object.keys(second.inputRequests ?? {})).toEqual(['accountPlan']) // the name is now recorded in the state
    const token = second.requestState!
    const at = token.length - 30
    const tampered = token.slice(0, at) + (token[at] === 'Q' ? 'R' : 'Q') + token.slice(at + 1)
    const error = (await c
      .callTool(
        'open_account',
        {},
        {
          manual: true,
          requestState: tampered,
          inputResponses: { accountPlan: { action: 'accept', content: { plan: 'pro' } } },
        },
      )
      .catch((e: unknown) => e)) as McpError
    expect(error).toBeInstanceOf(McpError)
    expect([error.code, error.message]).toEqual([-32602, 'Invalid or expired requestState'])
  })

  it('the bookshop: stock, delivery, backorder decline, sampling, a prompt and a resource template that ask', async () => {
    const c = new Client({
      transport: new StreamableHttpClientTransport(worker.url),
      elicitation: (p) => {
        if (p.mode === 'url') return { action: 'decline' }
        if ('audience' in p.requestedSchema.properties) return { action: 'accept', content: { audience: 'the board' } }
        if ('count' in p.requestedSchema.properties) return { action: 'accept', content: { count: 2 } }
        return { action: 'decline' }
      },
      sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'Hyperion' }, model: 'test' }),
    })
    expect((await c.callTool('order_book', { title: 'Dune', stock: { copies: 999 } })).content[0]).toMatchObject({
      text: "Ordered 'Dune'; it arrives tomorrow.",
    })
    const declined = await c.callTool('order_book', { title: 'Neuromancer' })
    expect(declined).toMatchObject({
      isError: true,
      content: [
        {
          text: 'The user declined: "Neuromancer" is out of stock (2-3 weeks). Order anyway?',
        },
      ],
    })
    expect((await c.callTool('recommend_book', { genre: 'sci-fi' })).content[0]).toMatchObject({
      text: "Today's sci-fi pick: Hyperion",
    })
    const prompt = await c.getPrompt('briefing', { topic: 'Q3 results' })
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Write a one-page briefing on Q3 results for the board.' } },
    ])
    expect((await c.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(['books://{genre}/shortlist'])
    const shortlist = await c.readResource('books://sci-fi/shortlist')
    expect(shortlist.contents).toEqual([
      { uri: 'books://sci-fi/shortlist', mimeType: 'text/plain', text: 'Dune\nNeuromancer' },
    ])
  })
})

describe('the command-line demo client', () => {
  const args = (url: string) => [
    'examples/cli-client.ts',
    '--url',
    url,
    '--answer',
    'region=eu-west-1',
    '--answer',
    'confirm=true',
  ]
  const runtimes: Array<[string, () => Promise<string>, string[]]> = [
    ['Node (tsx)', () => Promise.resolve(join(ROOT, 'node_modules/.bin/tsx')), []],
    ['Deno', () => ensureTool('deno'), ['run', '--allow-net', '--allow-env', '--allow-read']],
    ['Bun', () => ensureTool('bun'), []],
  ]
  for (const [name, bin, pre] of runtimes) {
    it(`completes provision and order_book under ${name}`, { timeout: 180_000 }, async () => {
      const { stdout } = await run(await bin(), [...pre, ...args(worker.url)], {
        cwd: ROOT,
        timeout: 60_000,
        env: { ...process.env, NO_COLOR: '1' },
      })
      expect(stdout).toContain("← Provisioned 'orders' in eu-west-1.")
      expect(stdout).toContain("← Backordered 'Neuromancer'; it ships in 2-3 weeks.")
    })
  }
  it('exits 1 and says why when the user declines', async () => {
    const error = (await run(
      join(ROOT, 'node_modules/.bin/tsx'),
      ['examples/cli-client.ts', '--url', worker.url, '--decline'],
      { cwd: ROOT },
    ).catch((e: unknown) => e)) as {
      code: number
      stdout: string
    }
    expect(error.code).toBe(1)
    expect(error.stdout).toContain('← The user declined: "Neuromancer" is out of stock (2-3 weeks). Order anyway?')
  })
})

describe('a server built at module scope (as in the tutorials) starts in workerd', () => {
  it('tutorial 3 runs as its own Worker: Workers forbid random values at global scope, so keys are made on first use', async () => {
    const tutorial = await startWorker({ script: 'examples/dependencies/tutorial003.ts' })
    try {
      const asked: string[] = []
      const c = new Client({
        transport: new StreamableHttpClientTransport(tutorial.url),
        elicitation: (p) => (asked.push(p.message), { action: 'accept', content: { confirm: true } }),
      })
      expect((await c.callTool('order_book', { title: 'Neuromancer' })).content[0]).toMatchObject({
        text: "Backordered 'Neuromancer'; it ships in 2-3 weeks.",
      })
      expect(asked).toEqual(["'Neuromancer' is out of stock (2-3 weeks). Order anyway?"])
    } finally {
      await tutorial.stop()
    }
  })
})

describe('the official SDK 2.4.0 client against the Worker in workerd', () => {
  it('auto mode negotiates 2026-07-28; list, call, and an MRTR elicitation over real HTTP', async () => {
    const { Client: OfficialClient, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client')
    const client = new OfficialClient({ name: 'official', version: '2.4.0' }, {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: 'auto' },
    } as never)
    client.setRequestHandler(
      'elicitation/create' as never,
      (() => Promise.resolve({ action: 'accept', content: { region: 'eu-west-1' } })) as never,
    )
    const transport = new StreamableHTTPClientTransport(new URL(worker.url))
    await client.connect(transport)
    expect(transport.protocolVersion).toBe('2026-07-28')
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('provision')
    const result = (await client.callTool({ name: 'provision', arguments: { name: 'orders' } })) as {
      content: Array<{ text: string }>
    }
    expect(result.content[0].text).toBe("Provisioned 'orders' in eu-west-1.")
    await client.close()
  })
})
