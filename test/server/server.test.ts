import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import {
  McpServer,
  RequestStateSecurity,
  Server,
  acceptedContent,
  createFetchHandler,
  elicitForm,
  elicitUrl,
  inputRequired,
} from '../../src/server/index.ts'
import { McpError } from '../../src/index.ts'
import { createDemoServer } from '../../worker/server.ts'
import { ASK, call, env, post, recordingLogger, req, std } from '../helpers.ts'

const FROZEN = { code: -32602, message: 'Invalid or expired requestState', data: { reason: 'invalid_request_state' } }
const REGION = { type: 'object' as const, properties: { region: { type: 'string' as const } }, required: ['region'] }

/** A server whose `deploy` tool asks once and counts how often its body ran after an answer. */
function deployServer(options: { now?: () => number; security?: RequestStateSecurity } = {}) {
  const log = recordingLogger()
  const seen: unknown[] = []
  const security =
    options.security ??
    new RequestStateSecurity({ keys: ['k'.repeat(32)], ...(options.now ? { now: options.now } : {}) })
  const mcp = new McpServer(
    { name: 'deployer', version: '1.0.0' },
    { requestStateSecurity: security, logger: log.logger },
  )
  for (const name of ['deploy', 'other']) {
    mcp.tool(name, { input: { env: v.string() } }, ({ env }, ctx) => {
      seen.push(ctx.requestState)
      const answer = acceptedContent(ctx.inputResponses?.region)
      if (ctx.requestState !== 'awaiting-region' || !answer)
        return inputRequired({ region: elicitForm('Region?', REGION) }, 'awaiting-region')
      return `deployed ${env} to ${String(answer.region)}`
    })
  }
  return { mcp, handler: createFetchHandler(mcp), seen, log }
}

const accept = { region: { action: 'accept', content: { region: 'eu-west-1' } } }

describe('McpServer tools', () => {
  it('lists tools in registration order with inputSchema generated from valibot', async () => {
    const handler = createFetchHandler(createDemoServer())
    const res = await call(handler, 'tools/list')
    expect(res.status).toBe(200)
    expect(res.body.result.tools.map((t: { name: string }) => t.name)).toEqual([
      'provision',
      'reserve_book',
      'order_book',
      'set_order_quantity',
      'recommend_book',
      'open_account',
    ])
    expect(res.body.result.tools[0].inputSchema).toEqual({
      type: 'object',
      properties: { name: { type: 'string', minLength: 1 } },
      required: ['name'],
    })
    expect(res.body.result).toMatchObject({ resultType: 'complete', ttlMs: 60000, cacheScope: 'public' })
    expect(res.body.result._meta['io.modelcontextprotocol/serverInfo'].name).toBe('edge-mcp-demo')
  })

  it('answers invalid arguments with an isError result naming the field', async () => {
    const handler = createFetchHandler(createDemoServer())
    const missing = await call(handler, 'tools/call', { name: 'provision', arguments: {} })
    expect(missing.status).toBe(200)
    expect(missing.body.result.isError).toBe(true)
    expect(missing.body.result.resultType).toBe('complete')
    expect(missing.body.result.content[0].text).toMatch(/^Invalid arguments for tool provision: field 'name': /)
    const wrongType = await call(handler, 'tools/call', { name: 'reserve_book', arguments: { title: 42 } })
    expect(wrongType.body.result.content[0].text).toMatch(
      /field 'title': Invalid type: Expected string but received 42/,
    )
  })

  it('answers an unknown tool with -32602 (HTTP 200)', async () => {
    const res = await call(createFetchHandler(createDemoServer()), 'tools/call', { name: 'nope', arguments: {} })
    expect(res.status).toBe(200)
    expect(res.body.error).toEqual({ code: -32602, message: 'Unknown tool: nope' })
  })

  it('turns a throwing handler into isError and passes McpError through', async () => {
    const log = recordingLogger()
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: log.logger })
    mcp.tool('boom', {}, () => {
      throw new Error('disk full')
    })
    mcp.tool('rpc', {}, () => {
      throw new McpError(-32021, 'need roots', { requiredCapabilities: { roots: {} } })
    })
    const handler = createFetchHandler(mcp)
    const boom = await call(handler, 'tools/call', { name: 'boom' })
    expect(boom.body.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Error executing tool boom: disk full' }],
    })
    const rpc = await call(handler, 'tools/call', { name: 'rpc' })
    expect(rpc.status).toBe(400)
    expect(rpc.body.error).toEqual({
      code: -32021,
      message: 'need roots',
      data: { requiredCapabilities: { roots: {} } },
    })
  })

  it('rejects a duplicate tool name at registration', () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('a', {}, () => 'x')
    expect(() => mcp.tool('a', {}, () => 'y')).toThrow(/already registered/)
  })

  it('answers -32021 when a tool needs elicitation the client did not declare', async () => {
    const res = await call(
      createFetchHandler(createDemoServer()),
      'tools/call',
      { name: 'provision', arguments: { name: 'orders' } },
      {},
    )
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe(-32021)
    expect(res.body.error.data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } })
  })

  it('answers malformed inputResponses with -32602', async () => {
    const { handler } = deployServer()
    const res = await call(handler, 'tools/call', {
      name: 'deploy',
      arguments: { env: 'prod' },
      inputResponses: { region: { action: 'maybe' } },
    })
    expect(res.body.error.code).toBe(-32602)
    expect(res.body.error.message).toMatch(/inputResponses/)
  })
})

describe('sealed requestState (McpServer default)', () => {
  it('seals state on the wire and hands the handler plaintext', async () => {
    const { handler, seen } = deployServer()
    const first = await call(handler, 'tools/call', { name: 'deploy', arguments: { env: 'prod' } })
    const token: string = first.body.result.requestState
    expect(first.body.result.resultType).toBe('input_required')
    expect(token).toMatch(/^v2\.[A-Za-z0-9_-]+$/)
    expect(token).not.toContain('awaiting')
    expect(first.body.result._meta).toBeDefined()
    const done = await call(handler, 'tools/call', {
      name: 'deploy',
      arguments: { env: 'prod' },
      inputResponses: accept,
      requestState: token,
    })
    expect(done.body.result.content[0].text).toBe('deployed prod to eu-west-1')
    expect(seen).toEqual([undefined, 'awaiting-region'])
  })

  it('rejects a token with one character changed, and the handler never runs', async () => {
    const { handler, seen, log } = deployServer()
    const first = await call(handler, 'tools/call', { name: 'deploy', arguments: { env: 'prod' } })
    const token: string = first.body.result.requestState
    const mid = Math.floor(token.length / 2)
    const tampered = token.slice(0, mid) + (token[mid] === 'A' ? 'B' : 'A') + token.slice(mid + 1)
    seen.length = 0
    const res = await call(handler, 'tools/call', {
      name: 'deploy',
      arguments: { env: 'prod' },
      inputResponses: accept,
      requestState: tampered,
    })
    expect(res.status).toBe(200)
    expect(res.body.error).toEqual(FROZEN)
    expect(seen).toEqual([])
    expect(log.warn).toEqual(['requestState rejected on tools/call: seal'])
    expect(log.warn.join()).not.toContain(tampered)
  })

  it('rejects a token presented to another tool, with other arguments, after expiry, or not a string', async () => {
    let now = 1_800_000_000_000
    const { handler, seen, log } = deployServer({ now: () => now })
    const first = await call(handler, 'tools/call', { name: 'deploy', arguments: { env: 'prod' } })
    const requestState: string = first.body.result.requestState
    seen.length = 0
    const otherTool = await call(handler, 'tools/call', {
      name: 'other',
      arguments: { env: 'prod' },
      inputResponses: accept,
      requestState,
    })
    const otherArgs = await call(handler, 'tools/call', {
      name: 'deploy',
      arguments: { env: 'staging' },
      inputResponses: accept,
      requestState,
    })
    const nonString = await call(handler, 'tools/call', {
      name: 'deploy',
      arguments: { env: 'prod' },
      inputResponses: accept,
      requestState: 123,
    })
    const plaintextEcho = await call(handler, 'tools/call', {
      name: 'deploy',
      arguments: { env: 'prod' },
      inputResponses: accept,
      requestState: 'awaiting-region',
    })
    now += 601_000
    const expired = await call(handler, 'tools/call', {
      name: 'deploy',
      arguments: { env: 'prod' },
      inputResponses: accept,
      requestState,
    })
    for (const res of [otherTool, otherArgs, nonString, plaintextEcho, expired]) expect(res.body.error).toEqual(FROZEN)
    expect(seen).toEqual([])
    expect(log.warn.map((l) => l.split(': ')[1])).toEqual([
      'seal', // another tool or other arguments change the AAD, so the tag fails
      'seal',
      'non-string requestState',
      'malformed',
      'expired',
    ])
    now -= 2_000 // the same token is still good one second before expiry
    const ok = await call(handler, 'tools/call', {
      name: 'deploy',
      arguments: { env: 'prod' },
      inputResponses: accept,
      requestState,
    })
    expect(ok.body.result.content[0].text).toBe('deployed prod to eu-west-1')
  })

  it('treats an explicit null requestState as absent', async () => {
    const { handler, seen } = deployServer()
    const res = await call(handler, 'tools/call', { name: 'deploy', arguments: { env: 'prod' }, requestState: null })
    expect(res.body.result.resultType).toBe('input_required')
    expect(seen).toEqual([undefined])
  })

  it("two default servers cannot open each other's tokens", async () => {
    const a = deployServer({ security: RequestStateSecurity.ephemeral() })
    const b = deployServer({ security: RequestStateSecurity.ephemeral() })
    const first = await call(a.handler, 'tools/call', { name: 'deploy', arguments: { env: 'prod' } })
    const res = await call(b.handler, 'tools/call', {
      name: 'deploy',
      arguments: { env: 'prod' },
      inputResponses: accept,
      requestState: first.body.result.requestState,
    })
    expect(res.body.error).toEqual(FROZEN)
    expect(b.log.warn).toEqual(['requestState rejected on tools/call: unknown key'])
  })

  it('answers -32603 with no detail when sealing fails', async () => {
    const log = recordingLogger()
    const security = new RequestStateSecurity({
      codec: {
        seal: () => Promise.reject(new Error('kms down: secret detail')),
        unseal: () => Promise.resolve(new Uint8Array()),
      },
    })
    const mcp = new McpServer({ name: 's', version: '1' }, { requestStateSecurity: security, logger: log.logger })
    mcp.tool('t', {}, () => inputRequired(undefined, 'state'))
    const res = await call(createFetchHandler(mcp), 'tools/call', { name: 't' })
    expect(res.body.error).toEqual({ code: -32603, message: 'Internal error' })
    expect(res.text).not.toContain('kms')
  })

  it('refuses an explicit policy on a server with no name', () => {
    expect(
      () =>
        new McpServer(
          { name: '', version: '1' },
          { requestStateSecurity: new RequestStateSecurity({ keys: ['k'.repeat(32)] }) },
        ),
    ).toThrow(/no name/)
    expect(() => new McpServer({ name: '', version: '1' })).not.toThrow()
  })
})

describe('low-level Server', () => {
  function provisioner() {
    const server = new Server({ name: 'Provisioner', version: '1.0.0' }, { logger: recordingLogger().logger })
    server.setRequestHandler('tools/call', (params) => {
      const answer = acceptedContent((params.inputResponses as Record<string, never> | undefined)?.region)
      if (!answer)
        return inputRequired(
          { region: elicitForm('Which region should the database live in?', REGION) },
          'provision-v1',
        )
      return {
        content: [
          {
            type: 'text',
            text: `Provisioned '${(params.arguments as { name: string }).name}' in ${String(answer.region)}.`,
          },
        ],
      }
    })
    return server
  }
  it('sends requestState verbatim by default', async () => {
    const handler = createFetchHandler(provisioner())
    const first = await call(handler, 'tools/call', { name: 'provision', arguments: { name: 'orders' } })
    expect(first.body.result).toMatchObject({ resultType: 'input_required', requestState: 'provision-v1' })
    const done = await call(handler, 'tools/call', {
      name: 'provision',
      arguments: { name: 'orders' },
      inputResponses: accept,
      requestState: 'provision-v1',
    })
    expect(done.body.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: "Provisioned 'orders' in eu-west-1." }],
    })
  })
  it('seals with one line', async () => {
    const server = provisioner().useRequestStateSecurity(RequestStateSecurity.ephemeral())
    const handler = createFetchHandler(server)
    const first = await call(handler, 'tools/call', { name: 'provision', arguments: { name: 'orders' } })
    expect(first.body.result.requestState).toMatch(/^v2\./)
    const plain = await call(handler, 'tools/call', {
      name: 'provision',
      arguments: { name: 'orders' },
      inputResponses: accept,
      requestState: 'provision-v1',
    })
    expect(plain.body.error).toEqual(FROZEN)
  })
  it('refuses an InputRequiredResult from a method that may not return one', async () => {
    const log = recordingLogger()
    const server = new Server({ name: 's', version: '1' }, { logger: log.logger })
    server.setRequestHandler('tools/list', () => inputRequired(undefined, 'x'))
    const res = await call(createFetchHandler(server), 'tools/list')
    expect(res.body.error).toEqual({ code: -32603, message: 'Internal error' })
    expect(log.error[0]).toMatch(/only tools\/call, prompts\/get and resources\/read/)
  })
  it('answers server/discover with versions, capabilities, cache hints and serverInfo in _meta', async () => {
    const res = await call(createFetchHandler(createDemoServer()), 'server/discover')
    expect(res.body.result).toEqual({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        // the order card App (worker/order-card.ts)
        extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
      },
      instructions: 'A demo server: provision databases, reserve, order and recommend books, open accounts.',
      ttlMs: 60000,
      cacheScope: 'public',
      _meta: {
        'io.modelcontextprotocol/serverInfo': {
          name: 'edge-mcp-demo',
          version: '0.1.0',
          title: 'edge-mcp demo: provisioner and bookshop',
        },
      },
    })
  })
})

describe('server-side checks of what a handler returns', () => {
  function serverReturning(result: Record<string, unknown>, security?: RequestStateSecurity) {
    const log = recordingLogger()
    const server = new Server({ name: 's', version: '1' }, { logger: log.logger })
    if (security) server.useRequestStateSecurity(security)
    server.setRequestHandler('tools/call', () => result)
    server.setRequestHandler('tools/list', () => ({ tools: [] }))
    return { handler: createFetchHandler(server), log }
  }
  it('answers -32021 when a handler asks for what the client did not declare', async () => {
    const cases: Array<[Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]> = [
      [{ s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } } }, {}, { sampling: {} }],
      [
        { s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5, tools: [] } } },
        { sampling: {} },
        { sampling: { tools: {} } },
      ],
      [{ r: { method: 'roots/list' } }, { elicitation: {} }, { roots: {} }],
      [{ u: elicitUrl('Connect', 'https://auth.example/x') }, { elicitation: {} }, { elicitation: { url: {} } }],
      [{ f: elicitForm('?', ASK) }, { elicitation: { url: {} } }, { elicitation: { form: {} } }],
    ]
    for (const [inputRequests, declared, required] of cases) {
      const { handler } = serverReturning(inputRequired(inputRequests as never, 'x'))
      const res = await call(handler, 'tools/call', { name: 't' }, declared)
      expect(res.status).toBe(400)
      expect(res.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: required } })
    }
    const { handler } = serverReturning(inputRequired({ f: elicitForm('?', ASK), r: { method: 'roots/list' } }, 'x'))
    const ok = await call(handler, 'tools/call', { name: 't' }, { elicitation: {}, roots: {} })
    expect(ok.body.result.resultType).toBe('input_required')
  })
  it('refuses an empty InputRequiredResult and drops an empty inputRequests', async () => {
    const empty = serverReturning({ resultType: 'input_required', inputRequests: {} })
    const res = await call(empty.handler, 'tools/call', { name: 't' })
    expect(res.body.error).toEqual({ code: -32603, message: 'Internal error' })
    expect(empty.log.error[0]).toMatch(/neither inputRequests nor requestState/)
    const stateOnly = serverReturning({ resultType: 'input_required', inputRequests: {}, requestState: 's' })
    const res2 = await call(stateOnly.handler, 'tools/call', { name: 't' })
    expect(res2.body.result).toEqual({
      resultType: 'input_required',
      requestState: 's',
      _meta: expect.any(Object) as unknown,
    })
  })
  it('never sends a non-string requestState: a JSON state is sealed into a token, unsealed it is refused', async () => {
    const objectState = { resultType: 'input_required', requestState: { secret: 'plaintext-secret' } }
    const unsealed = await call(serverReturning(objectState, undefined).handler, 'tools/call', { name: 't' })
    expect(unsealed.body.error).toEqual({ code: -32603, message: 'Internal error' })
    expect(unsealed.text).not.toContain('plaintext-secret')
    const sealed = await call(serverReturning(objectState, RequestStateSecurity.ephemeral()).handler, 'tools/call', {
      name: 't',
    })
    expect(sealed.body.result.requestState).toMatch(/^v2\.[A-Za-z0-9_-]+$/)
    expect(sealed.text).not.toContain('plaintext-secret')
    for (const notJson of [{ n: 1n }, () => 1]) {
      const { handler } = serverReturning(
        { resultType: 'input_required', requestState: notJson },
        RequestStateSecurity.ephemeral(),
      )
      const res = await call(handler, 'tools/call', { name: 't' })
      expect(res.body.error).toEqual({ code: -32603, message: 'Internal error' })
    }
    const badCodec = new RequestStateSecurity({
      codec: { seal: () => Promise.resolve(42 as never), unseal: () => Promise.resolve(new Uint8Array()) },
    })
    const { handler } = serverReturning(inputRequired(undefined, 'x'), badCodec)
    expect((await call(handler, 'tools/call', { name: 't' })).body.error).toEqual({
      code: -32603,
      message: 'Internal error',
    })
  })
  it('stamps resultType and cache hints on list results', async () => {
    const { handler } = serverReturning({ resultType: undefined, content: [] })
    expect((await call(handler, 'tools/call', { name: 't' })).body.result.resultType).toBe('complete')
    const list = await call(handler, 'tools/list')
    expect(list.body.result).toMatchObject({ resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'private' })
  })
  it('answers arguments nested too deeply to bind with -32602, not an internal error', async () => {
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: recordingLogger().logger })
    mcp.tool('t', {}, () => inputRequired({ q: elicitForm('?', ASK) }, 'x'))
    let deep: unknown = 'leaf'
    for (let i = 0; i < 300; i++) deep = { d: deep }
    const handler = createFetchHandler(mcp)
    const first = await call(handler, 'tools/call', { name: 't', arguments: { deep } })
    expect(first.body.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('nested deeper than 256 levels') as unknown,
    })
    const retry = await call(handler, 'tools/call', { name: 't', arguments: { deep }, requestState: 'v2.AAAA' })
    expect(retry.body.error.code).toBe(-32602)
  })
  it('refuses to send an invalid CallToolResult or a token it would itself reject', async () => {
    const log = recordingLogger()
    const mcp = new McpServer(
      { name: 's', version: '1' },
      {
        logger: log.logger,
        requestStateSecurity: new RequestStateSecurity({ keys: ['k'.repeat(32)], maxTokenLength: 200 }),
      },
    )
    mcp.tool('bad', {}, () => ({ content: 'nope' }) as never)
    mcp.tool('big', {}, () => inputRequired(undefined, 'x'.repeat(500)))
    const handler = createFetchHandler(mcp)
    expect((await call(handler, 'tools/call', { name: 'bad' })).body.error).toEqual({
      code: -32603,
      message: 'Internal error',
    })
    expect((await call(handler, 'tools/call', { name: 'big' })).body.error).toEqual({
      code: -32603,
      message: 'Internal error',
    })
    expect(log.error.join('\n')).toMatch(/invalid CallToolResult[\s\S]*over maxTokenLength/)
  })
})

describe('params and method routing', () => {
  it('refuses arrays where the spec wants objects', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('t', {}, () => 'ran')
    const handler = createFetchHandler(mcp)
    const args = await call(handler, 'tools/call', { name: 't', arguments: ['zz', 'yy'] })
    expect(args.body.error).toEqual({ code: -32602, message: 'Invalid params: arguments must be an object' })
    const responses = await call(handler, 'tools/call', { name: 't', inputResponses: [{ action: 'accept' }] })
    expect(responses.body.error.code).toBe(-32602)
    for (const caps of [[], { elicitation: [] }, { sampling: { tools: [] } }]) {
      const res = await post(
        handler,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: { _meta: { ...env(), 'io.modelcontextprotocol/clientCapabilities': caps } },
        },
        std('tools/list'),
      )
      expect([res.status, res.body.error?.code], JSON.stringify(caps)).toEqual([400, -32602])
    }
  })
  it('routes prototype-named methods as unknown methods (404), not as tools/call', async () => {
    const handler = createFetchHandler(createDemoServer())
    for (const method of ['constructor', '__proto__', 'hasOwnProperty', 'toString']) {
      const res = await post(handler, req(method), std(method))
      expect([res.status, res.body.error.code], method).toEqual([404, -32601])
    }
  })
})
