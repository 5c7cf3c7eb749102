/** `x-mcp-header` → `Mcp-Param-{Name}` (spec: streamable-http.mdx "Custom headers"), both directions. */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'
import { McpError } from '../../src/index.ts'
import { MAX_SCHEMA_DEPTH, headerParamsOf } from '../../src/protocol/param-headers.ts'
import { adapters, call as callMethod, env, post, req, requestId, std } from '../helpers.ts'

function deployer() {
  const mcp = new McpServer({ name: 's', version: '1' })
  mcp.tool(
    'deploy',
    {
      input: {
        region: v.string(),
        replicas: v.optional(v.pipe(v.number(), v.integer())),
        dryRun: v.optional(v.boolean()),
        note: v.optional(v.string()),
      },
      headers: { region: 'Region', replicas: 'Replicas', dryRun: 'Dry-Run' },
    },
    ({ region, replicas, dryRun }) => `deploy ${region} x${replicas ?? 1}${dryRun ? ' (dry run)' : ''}`,
  )
  return mcp
}

describe('x-mcp-header declarations', () => {
  it('are advertised on the property and validated', () => {
    expect(
      headerParamsOf({
        type: 'object',
        properties: {
          a: { type: 'string', 'x-mcp-header': 'A' },
          o: { type: 'object', properties: { b: { type: 'integer', 'x-mcp-header': 'B' } } },
        },
      }),
    ).toEqual({
      params: [
        { path: ['a'], name: 'A', type: 'string' },
        { path: ['o', 'b'], name: 'B', type: 'integer' },
      ],
    })
    const invalid = [
      { properties: { a: { type: 'number', 'x-mcp-header': 'A' } } },
      { properties: { a: { type: 'string', 'x-mcp-header': 'Bad Name' } } },
      { properties: { a: { type: 'string', 'x-mcp-header': '' } } },
      { properties: { a: { type: 'string', 'x-mcp-header': 'X' }, b: { type: 'string', 'x-mcp-header': 'x' } } },
      { properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'L' } } } },
      { properties: { u: { anyOf: [{ type: 'string', 'x-mcp-header': 'U' }] } } },
    ]
    for (const schema of invalid)
      expect(headerParamsOf({ type: 'object', ...schema }), JSON.stringify(schema)).toHaveProperty('invalid')
    expect(() =>
      new McpServer({ name: 's', version: '1' }).tool(
        't',
        { input: { n: v.number() }, headers: { n: 'N' } },
        () => 'x',
      ),
    ).toThrow(/"number" property/)
  })

  it('come from metadata too: checked at registration, while a plain-argument tool lists its usual definition', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    const annotated = (header: string) => ({
      input: { a: v.pipe(v.string(), v.metadata({ 'x-mcp-header': header })) },
    })
    expect(() => mcp.tool('bad', annotated('Bad Name'), () => 'x')).toThrow(/Tool 'bad': .*not an HTTP token/)
    mcp.tool('good', annotated('A'), () => 'x')
    const config = {
      title: 'Plain',
      input: { s: v.string(), n: v.optional(v.number()), b: v.boolean() } as Record<string, v.GenericSchema>,
    }
    mcp.tool('plain', config, () => 'x')
    config.title = 'Changed after registration'
    config.input.late = v.string()
    mcp.tool('none', {}, () => 'x')
    const res = await callMethod(createFetchHandler(mcp), 'tools/list')
    const tools = (res.body.result as { tools: unknown[] }).tools
    // key order too: the definition of a plain tool (built on first read) is the one built at registration
    expect(JSON.stringify(tools)).toBe(
      JSON.stringify([
        {
          name: 'good',
          inputSchema: {
            type: 'object',
            properties: { a: { type: 'string', 'x-mcp-header': 'A' } },
            required: ['a'],
          },
        },
        {
          name: 'plain',
          inputSchema: {
            type: 'object',
            properties: { s: { type: 'string' }, n: { type: 'number' }, b: { type: 'boolean' } },
            required: ['s', 'b'],
          },
          title: 'Plain',
        },
        { name: 'none', inputSchema: { type: 'object', properties: {}, required: [] } },
      ]),
    )
  })
})

for (const [label, handler] of adapters(deployer())) {
  describe(`the server checks Mcp-Param-* via ${label}`, () => {
    const call = (args: Record<string, unknown>, headers: Record<string, string>) =>
      post(handler, req('tools/call', { name: 'deploy', arguments: args }), {
        ...std('tools/call', 'deploy'),
        ...headers,
      })
    it('accepts matching headers (decoded, integers compared numerically)', async () => {
      const ok = await call(
        { region: 'us-west1', replicas: 3, dryRun: true },
        { 'mcp-param-region': 'us-west1', 'mcp-param-replicas': '3', 'mcp-param-dry-run': 'true' },
      )
      expect(ok.body.result.content[0].text).toBe('deploy us-west1 x3 (dry run)')
      const encoded = await call({ region: 'Zürich' }, { 'mcp-param-region': '=?base64?WsO8cmljaA==?=' })
      expect(encoded.body.result.content[0].text).toBe('deploy Zürich x1')
    })
    it('answers a missing, different or unexpected header with 400 -32020', async () => {
      for (const [args, headers] of [
        [{ region: 'eu' }, {}],
        [{ region: 'eu' }, { 'mcp-param-region': 'us' }],
        [
          { region: 'eu', replicas: 3 },
          { 'mcp-param-region': 'eu', 'mcp-param-replicas': '4' },
        ],
        [{ region: 'eu' }, { 'mcp-param-region': 'eu', 'mcp-param-replicas': '2' }],
        [
          { region: 'eu', dryRun: false },
          { 'mcp-param-region': 'eu', 'mcp-param-dry-run': 'true' },
        ],
      ] as const) {
        const res = await call(args, headers)
        expect(res.status, JSON.stringify([args, headers])).toBe(400)
        expect(res.body.error.code).toBe(-32020)
      }
    })
  })
}

describe('the client mirrors x-mcp-header arguments', () => {
  it('sends Mcp-Param-* for known tools, drops tools with invalid declarations, and re-lists after -32020', async () => {
    const handler = createFetchHandler(deployer())
    const sent: Headers[] = []
    const warnings: string[] = []
    let extraTool = false
    const client = new Client({
      onWarning: (m) => warnings.push(m),
      transport: new StreamableHttpClientTransport('http://x/mcp', {
        fetch: async (r) => {
          sent.push(r.headers)
          const body = (await r.clone().json()) as { method: string }
          const res = await handler(r)
          if (!extraTool || body.method !== 'tools/list') return res
          const json = (await res.json()) as { result: { tools: unknown[] } }
          json.result.tools.push({
            name: 'bad',
            inputSchema: { type: 'object', properties: { x: { type: 'number', 'x-mcp-header': 'X' } } },
          })
          return Response.json(json)
        },
      }),
    })
    // not listed yet: the first call goes without headers, gets -32020, re-lists, and retries with them
    expect((await client.callTool('deploy', { region: 'eu', replicas: 2 })).content[0]).toMatchObject({
      text: 'deploy eu x2',
    })
    expect(sent.at(-1)!.get('mcp-param-region')).toBe('eu')
    expect(sent.at(-1)!.get('mcp-param-replicas')).toBe('2')
    expect(sent.at(-1)!.get('mcp-param-dry-run')).toBeNull()
    extraTool = true
    expect((await client.listTools()).map((t) => t.name)).toEqual(['deploy'])
    expect(warnings).toEqual([expect.stringContaining("Ignoring tool 'bad'")])
    const unknown = (await client.callTool('nope').catch((e: unknown) => e)) as McpError
    expect(unknown.code).toBe(-32602)
  })
})

// found by the fuzzer (test/fuzz/), pinned with its input
describe('a 2025-era tools/call is not held to 2026 Mcp-Param-* headers', () => {
  const mcp = new McpServer({ name: 'r1', version: '1' })
  mcp.tool('find', { input: { city: v.string() }, headers: { city: 'City' } }, ({ city }) => `found ${city}`)
  const handler = createFetchHandler(mcp)
  const legacy = (params: Record<string, unknown>, headers: Record<string, string> = {}) =>
    post(
      handler,
      { jsonrpc: '2.0', id: 18, method: 'tools/call', params },
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    )

  it('arguments null and Mcp-Param-City "undefined" is a tool error (bad arguments), not -32020', async () => {
    const res = await legacy({ name: 'find', arguments: null }, { 'mcp-name': 'find', 'mcp-param-city': 'undefined' })
    expect(res.status).toBe(200)
    expect(res.body.error).toBeUndefined()
    expect(res.body.result.isError).toBe(true)
  })

  it('a 2025 client (no Mcp-Param-City, as 2025 has none) gets the result, with or without a version header', async () => {
    for (const headers of [{}, { 'mcp-protocol-version': '2025-11-25' }]) {
      const res = await legacy({ name: 'find', arguments: { city: 'Oslo' } }, headers)
      expect([res.status, res.body.result?.content?.[0]?.text]).toEqual([200, 'found Oslo'])
    }
  })

  it('a stray Mcp-Param-City on a 2025 request is ignored', async () => {
    const res = await legacy({ name: 'find', arguments: { city: 'Oslo' } }, { 'mcp-param-city': 'Rome' })
    expect(res.body.result?.content?.[0]?.text).toBe('found Oslo')
  })

  it('a 2026 request still needs the header (-32020, HTTP 400)', async () => {
    const missing = await callMethod(handler, 'tools/call', { name: 'find', arguments: { city: 'Oslo' } })
    expect([missing.status, missing.body.error.code]).toEqual([400, -32020])
    const body = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'find', arguments: { city: 'Oslo' } } }
    const withEnvelope = await post(
      handler,
      { ...body, params: { ...body.params, _meta: env() } },
      {
        ...std('tools/call', 'find'),
        'mcp-param-city': 'Oslo',
      },
    )
    expect(withEnvelope.body.result.content[0].text).toBe('found Oslo')
  })
})

// found by the fuzzer (test/fuzz/), pinned with its input
describe('a tools/list whose inputSchema is nested thousands of levels deep', () => {
  const deep = (levels: number) => {
    let node: unknown = { type: 'string' }
    for (let i = 0; i < levels; i++) node = { a: node }
    return node
  }
  const serve = (tools: unknown[]) =>
    new StreamableHttpClientTransport('http://x/mcp', {
      fetch: async (r) =>
        Response.json({ jsonrpc: '2.0', id: await requestId(r), result: { resultType: 'complete', tools } }),
    })

  it('3,000 levels under properties.x: the tool is dropped with a warning, not a raw RangeError', async () => {
    const warnings: string[] = []
    const tools = [
      { name: 'deep', inputSchema: { type: 'object', properties: { x: deep(3000) } } },
      { name: 'flat', inputSchema: { type: 'object' } },
    ]
    const client = new Client({
      transport: serve(tools),
      versionNegotiation: 'modern',
      onWarning: (m) => warnings.push(m),
    })
    expect((await client.listTools()).map((t) => t.name)).toEqual(['flat'])
    expect(warnings.join('\n')).toMatch(/deep.*nested deeper than 256 levels/)
  })

  it('the bound itself: 256 levels are searched (an annotation there is found), 257 are invalid', () => {
    let at256: unknown = { type: 'string', 'x-mcp-header': 'Deep' }
    for (let i = 0; i < 127; i++) at256 = { type: 'object', properties: { p: at256 } } // 2 levels each
    expect(headerParamsOf({ type: 'object', properties: { p: at256 } })).toMatchObject({ params: [{ name: 'Deep' }] })
    expect(headerParamsOf({ type: 'object', properties: { p: { wrap: at256 } } })).toEqual({
      invalid: `inputSchema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`,
    })
  })
})

/** ../shared/cases/robustness.md R14: integers in Mcp-Param-* headers are written and compared as numbers. */
describe('integers in Mcp-Param-* headers (R14)', () => {
  function counted() {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool(
      'counted',
      { input: { n: v.pipe(v.number(), v.integer()) }, headers: { n: 'N' } },
      ({ n }) => `n=${String(n)}`,
    )
    return mcp
  }

  it("callTool('counted', { n: 1e21 }) sends Mcp-Param-N in plain decimal and succeeds (n=1e+21 on the server)", async () => {
    const handler = createFetchHandler(counted())
    const sent: Headers[] = []
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', {
        fetch: (r) => (sent.push(r.headers), handler(r)),
      }),
    })
    await client.listTools()
    expect((await client.callTool('counted', { n: 1e21 })).content[0]).toMatchObject({ text: 'n=1e+21' })
    expect(sent.at(-1)!.get('mcp-param-n')).toBe('1000000000000000000000')
    await client.callTool('counted', { n: -42 })
    expect(sent.at(-1)!.get('mcp-param-n')).toBe('-42')
  })

  for (const [label, handler] of adapters(counted())) {
    const call = (n: number, header: string) =>
      post(handler, req('tools/call', { name: 'counted', arguments: { n } }), {
        ...std('tools/call', 'counted'),
        'mcp-param-n': header,
      })

    it(`${label}: Mcp-Param-N: 42.0 with arguments.n = 42 is accepted (compared numerically)`, async () => {
      for (const header of ['42.0', '42', '4.2e1']) {
        const res = await call(42, header)
        expect(res.status, header).toBe(200)
        expect(res.body.result.content[0].text).toBe('n=42')
      }
    })

    it(`${label}: Mcp-Param-N: 42.5 with arguments.n = 42 is 400 -32020 naming both values`, async () => {
      for (const header of ['42.5', '0x2A', '42abc', '']) {
        const res = await call(42, header)
        expect(res.status, header).toBe(400)
        expect(res.body.error.code).toBe(-32020)
        expect(res.body.error.message).toContain(`value '${header}'`)
        expect(res.body.error.message).toContain('arguments.n 42')
      }
    })
  }
})
