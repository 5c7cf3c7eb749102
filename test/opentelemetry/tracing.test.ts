/**
 * One trace for a whole multi-round tool call, with the OpenTelemetry SDK's in-memory exporter: our Client
 * (clientTracing) calls a tool whose resolver asks one question on our McpServer (serverTracing) — two
 * rounds in the 2026 era, one request with a server-to-client question in the 2025 era — over HTTP
 * (in-process fetch handler) and over stdio (in-process streams). The exported spans form one trace from
 * the client's call through each round's request, the server's request spans, the handler runs, the
 * resolvers and the question, with the conventions' names, kinds and attributes. The server alone (an
 * uninstrumented client) is test/opentelemetry/server.test.ts. Last, the console example runs.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { beforeEach, describe, expect, it } from 'vitest'
import { stdioClient } from '../stdio-harness.ts'
import { Client, StreamableHttpClientTransport, type ClientOptions } from '../../src/client/index.ts'
import { clientTracing, serverTracing } from '../../src/opentelemetry/index.ts'
import { createFetchHandler } from '../../src/server/index.ts'
import { createServer as bookshop } from '../../examples/dependencies/tutorial003.ts'
import { exporter, isChildOf, spans, tree } from './otel.ts'

const ROOT = join(import.meta.dirname, '../..')
const yes = () => ({ action: 'accept' as const, content: { confirm: true } })
const text = (r: { content: Array<{ type: string; text?: string }> }) => r.content.map((c) => c.text).join('\n')

/** The traced bookshop (tutorial 3: `order_book` asks before backordering a book out of stock). */
function tracedShop() {
  const mcp = bookshop()
  mcp.use(serverTracing())
  return mcp
}

/** A client over HTTP to `mcp` in-process. */
function overHttp(
  mcp = tracedShop(),
  era: 'modern' | 'legacy' = 'modern',
  elicitation: ClientOptions['elicitation'] = yes,
) {
  const handler = createFetchHandler(mcp)
  return new Client({
    transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch: (request) => handler(request) }),
    versionNegotiation: era,
    elicitation,
  })
}

/** A client over stdio to `mcp` served in-process (serveStdio on TransformStreams). */
function overStdio(mcp = tracedShop(), era: 'modern' | 'legacy' = 'modern') {
  return stdioClient(mcp, { versionNegotiation: era, elicitation: yes })
}

const of = (kind: SpanKind, name: string) => spans().filter((s) => s.kind === kind && s.name === name)
const byStart = (list: ReadableSpan[]) =>
  [...list].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])

/** The spans of the trace the client's call span starts. */
function callTrace(): { call: ReadableSpan; all: ReadableSpan[] } {
  const [call, ...others] = of(SpanKind.INTERNAL, 'tools/call order_book')
  expect(others).toEqual([])
  return { call, all: spans().filter((s) => s.spanContext().traceId === call.spanContext().traceId) }
}

/** The two-round call's trace: what the 2026 era gives over either transport. */
function expectTwoRounds(transport: 'tcp' | 'pipe') {
  const { call, all } = callTrace()
  expect(tree()).toBe(
    [
      'tools/call order_book (INTERNAL)', // the client's logical call
      '  tools/call order_book (CLIENT)', // round 1
      '    tools/call order_book (SERVER)',
      '      execute_tool order_book (INTERNAL)',
      '        resolve checkStock (INTERNAL)',
      '        resolve confirmBackorder (INTERNAL)',
      '          elicitation/create (INTERNAL)', // the question, in round 1's InputRequiredResult
      '  elicitation/create (INTERNAL)', // the client's callback answers it
      '  tools/call order_book (CLIENT)', // round 2, with the answer
      '    tools/call order_book (SERVER)',
      '      execute_tool order_book (INTERNAL)',
      '        resolve checkStock (INTERNAL)',
      '        resolve confirmBackorder (INTERNAL)',
    ].join('\n'),
  )
  expect(call.parentSpanContext).toBeUndefined()
  const requests = byStart(of(SpanKind.CLIENT, 'tools/call order_book'))
  const served = byStart(of(SpanKind.SERVER, 'tools/call order_book'))
  expect(requests).toHaveLength(2)
  expect(served).toHaveLength(2)
  for (const [i, request] of requests.entries()) {
    expect(isChildOf(request, call), `round ${i + 1}: the client's request under its call`).toBe(true)
    expect(isChildOf(served[i], request), `round ${i + 1}: the server's span under the client's request`).toBe(true)
    for (const s of [request, served[i]]) {
      expect(s.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'order_book',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': '2026-07-28',
        'network.transport': transport,
        'edge_mcp.round': i + 1,
      })
    }
    // the client and the server name the same JSON-RPC request
    expect(served[i].attributes['jsonrpc.request.id']).toMatch(/./)
    expect(request.attributes['jsonrpc.request.id']).toBe(served[i].attributes['jsonrpc.request.id'])
  }
  // round 2 links to round 1's server span (the carried context)
  expect(served[1].links.map((l) => l.context.spanId)).toEqual([served[0].spanContext().spanId])
  // each round ran the tool under its server span, and the resolvers under the tool
  const runs = byStart(of(SpanKind.INTERNAL, 'execute_tool order_book'))
  expect(runs).toHaveLength(2)
  for (const [i, run] of runs.entries()) expect(isChildOf(run, served[i])).toBe(true)
  const resolvers = all.filter((s) => s.name.startsWith('resolve '))
  for (const r of resolvers) expect(runs.some((run) => isChildOf(r, run))).toBe(true)
  // the question: asked by the backorder resolver in round 1, answered by the client under its call
  const asked = all.filter((s) => s.name === 'elicitation/create' && s.kind === SpanKind.INTERNAL)
  const question = asked.find((s) => resolvers.some((r) => isChildOf(s, r)))
  const answer = asked.find((s) => isChildOf(s, call))
  expect(question, tree(all)).toBeDefined()
  expect(answer, tree(all)).toBeDefined()
  expect(question!.attributes['mcp.method.name']).toBe('elicitation/create')
  // one trace: every span the call made, on both sides, shares the call's trace id
  expect(all).toHaveLength(spans().length)
}

beforeEach(() => exporter.reset())

describe('one trace for a two-round tool call (2026 era)', () => {
  it('over HTTP', async () => {
    const client = overHttp()
    client.use(clientTracing())
    expect(text(await client.callTool('order_book', { title: 'Neuromancer' }))).toBe(
      "Backordered 'Neuromancer'; it ships in 2-3 weeks.",
    )
    expectTwoRounds('tcp')
  })

  it('over stdio', async () => {
    const { client, connection } = overStdio()
    client.use(clientTracing())
    expect(text(await client.callTool('order_book', { title: 'Neuromancer' }))).toBe(
      "Backordered 'Neuromancer'; it ships in 2-3 weeks.",
    )
    await client.close()
    await connection.close()
    expectTwoRounds('pipe')
  })
})

describe('one trace for a tool call that asks (2025 era: the question inside the one request)', () => {
  for (const transport of ['http', 'stdio'] as const) {
    it(`over ${transport}`, async () => {
      const pair = transport === 'http' ? { client: overHttp(undefined, 'legacy') } : overStdio(undefined, 'legacy')
      pair.client.use(clientTracing())
      expect(text(await pair.client.callTool('order_book', { title: 'Neuromancer' }))).toBe(
        "Backordered 'Neuromancer'; it ships in 2-3 weeks.",
      )
      await pair.client.close()
      if ('connection' in pair) await pair.connection.close()
      const { call, all } = callTrace()
      expect(tree()).toBe(
        [
          'tools/call order_book (INTERNAL)', // the client's logical call
          '  initialize (CLIENT)', // the 2025 session starts with the first request
          '    initialize (SERVER)',
          '  tools/call order_book (CLIENT)',
          '    tools/call order_book (SERVER)',
          '      execute_tool order_book (INTERNAL)', // the first run asks…
          '        resolve checkStock (INTERNAL)',
          '        resolve confirmBackorder (INTERNAL)',
          '          elicitation/create (INTERNAL)', // …a server-to-client request, answered within
          '      execute_tool order_book (INTERNAL)', // the second run has the answer
          '        resolve checkStock (INTERNAL)',
          '        resolve confirmBackorder (INTERNAL)',
          '    elicitation/create (SERVER)', // the client answering the server's request
        ].join('\n'),
      )
      const [request, ...more] = of(SpanKind.CLIENT, 'tools/call order_book')
      const [served, ...moreServed] = of(SpanKind.SERVER, 'tools/call order_book')
      expect([...more, ...moreServed]).toEqual([])
      expect(isChildOf(request, call)).toBe(true)
      expect(isChildOf(served, request)).toBe(true)
      expect(served.attributes).toMatchObject({
        'mcp.protocol.version': '2025-11-25',
        'network.transport': transport === 'http' ? 'tcp' : 'pipe',
      })
      expect(served.attributes['mcp.session.id']).toMatch(/./)
      const runs = of(SpanKind.INTERNAL, 'execute_tool order_book')
      for (const run of runs) expect(isChildOf(run, served)).toBe(true)
      const resolvers = all.filter((s) => s.name.startsWith('resolve '))
      for (const r of resolvers) expect(runs.some((run) => isChildOf(r, run))).toBe(true)
      const question = all.find((s) => s.name === 'elicitation/create' && s.kind === SpanKind.INTERNAL)
      expect(question && resolvers.some((r) => isChildOf(question, r)), tree(all)).toBe(true)
      // the client answers the server's request: a SERVER span under the request it came during
      const [answer] = of(SpanKind.SERVER, 'elicitation/create')
      expect(isChildOf(answer, request), tree(all)).toBe(true)
    })
  }
})

describe('errors, on both sides', () => {
  it('a tool error result is `tool_error` on the client’s call and request and on the server’s request', async () => {
    const client = overHttp(undefined, 'modern', () => ({ action: 'decline' as const }))
    client.use(clientTracing())
    const declined = await client.callTool('order_book', { title: 'Neuromancer' })
    expect(declined.isError).toBe(true)
    const last = (list: ReadableSpan[]) => byStart(list).at(-1)!
    for (const s of [
      of(SpanKind.INTERNAL, 'tools/call order_book')[0],
      last(of(SpanKind.CLIENT, 'tools/call order_book')),
      last(of(SpanKind.SERVER, 'tools/call order_book')),
    ]) {
      expect(s.attributes['error.type'], s.name).toBe('tool_error')
      expect(s.status.code).toBe(SpanStatusCode.ERROR)
    }
    // the run itself failed (the resolver refused: the decline), which the server answered as the tool error
    const run = last(of(SpanKind.INTERNAL, 'execute_tool order_book'))
    expect(run.attributes['error.type']).toMatch(/Error$/)
    expect(run.status.code).toBe(SpanStatusCode.ERROR)
  })

  it('a JSON-RPC error carries its code on the client’s and the server’s spans, and its message as their status', async () => {
    const client = overHttp()
    client.use(clientTracing())
    const error = (await client.callTool('no_such_tool', {}).catch((e: unknown) => e)) as {
      code: number
      message: string
    }
    expect(error.code).toBeLessThan(0)
    const sides = [of(SpanKind.CLIENT, 'tools/call no_such_tool'), of(SpanKind.SERVER, 'tools/call no_such_tool')]
    for (const [s] of sides) {
      expect(s.attributes).toMatchObject({
        'error.type': String(error.code),
        'rpc.response.status_code': String(error.code),
      })
      expect(s.status).toEqual({ code: SpanStatusCode.ERROR, message: error.message })
    }
    expect(isChildOf(sides[1][0], sides[0][0])).toBe(true)
  })
})

describe('examples/tracing-console.ts', () => {
  it('prints the spans of its call to the console, all in one trace', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'examples/tracing-console.ts')],
      { cwd: ROOT, timeout: 60_000 },
    )
    expect(stdout).toContain("Backordered 'Neuromancer'.")
    const traceIds = new Set([...stdout.matchAll(/traceId: '([0-9a-f]{32})'/g)].map((m) => m[1]))
    expect(traceIds.size).toBe(1)
    for (const name of [
      "name: 'tools/call order_book'",
      "name: 'execute_tool order_book'",
      "name: 'elicitation/create'",
    ])
      expect(stdout).toContain(name)
  }, 60_000)
})
