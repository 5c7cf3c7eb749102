/**
 * serverTracing and clientTracing on their own, driven with hand-made calls (the shapes the server's and
 * the client's middleware hand them): span names, kinds and attributes of the MCP semantic conventions,
 * parents through the calls' object links, trace context read from `_meta` (else the HTTP `traceparent`
 * header) and written into `_meta`, the first round's span context kept in `carry` and linked (or taken
 * as parent) on the next round, errors as the conventions record them, and the span current inside `next`.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { beforeEach, describe, expect, it } from 'vitest'
import { clientTracing, serverTracing } from '../../src/opentelemetry/index.ts'
import type { ClientAnswerCall, ClientCall, ClientRequestCall } from '../../src/client/index.ts'
import type { InvocationCall, QuestionCall, RequestCall, ResolverCall } from '../../src/server/index.ts'
import { McpError } from '../../src/index.ts'
import { exporter, isChildOf, span, spans } from './otel.ts'

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`

function requestCall(over: Partial<RequestCall> = {}): RequestCall {
  return {
    method: 'tools/call',
    requestId: 7,
    params: { name: 'order_book', arguments: { title: 'Dune' } },
    era: 'modern',
    protocolVersion: '2026-07-28',
    sessionId: undefined,
    transport: 'http',
    info: {},
    principal: undefined,
    round: 1,
    carry: {},
    meta: {},
    ...over,
  }
}

const ok = () => Promise.resolve({ content: [] })
const server = serverTracing()
const client = clientTracing()

beforeEach(() => exporter.reset())

describe('serverTracing: the request span', () => {
  it('is a SERVER span `tools/call {tool}` with the conventions’ attributes, child of the `_meta` traceparent', async () => {
    const call = requestCall({ params: { name: 'order_book', _meta: { traceparent: PARENT, tracestate: 'rojo=1' } } })
    await server.request!(call, ok)
    const s = span('tools/call order_book')
    expect(s.kind).toBe(SpanKind.SERVER)
    expect(s.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'order_book',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'jsonrpc.request.id': '7',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'edge_mcp.round': 1,
    })
    expect(s.spanContext().traceId).toBe(TRACE_ID)
    expect(s.parentSpanContext?.spanId).toBe('00f067aa0ba902b7')
    expect(s.parentSpanContext?.traceState?.get('rojo')).toBe('1')
    expect(s.status.code).toBe(SpanStatusCode.UNSET)
    expect(s.instrumentationScope).toEqual({
      name: 'edge-mcp',
      version: (
        JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }
      ).version,
    })
  })

  it('names prompts and resources as the conventions do (a resource URI never in the name); stdio is a pipe; the 2025 session id', async () => {
    await server.request!(requestCall({ method: 'prompts/get', params: { name: 'greet' }, transport: 'stdio' }), ok)
    await server.request!(
      requestCall({ method: 'resources/read', params: { uri: 'file:///a.txt' }, era: 'legacy', sessionId: 'sid-1' }),
      ok,
    )
    await server.request!(requestCall({ method: 'tools/list', params: {}, requestId: 'x-1', transport: undefined }), ok)
    expect(span('prompts/get greet').attributes).toMatchObject({
      'gen_ai.prompt.name': 'greet',
      'network.transport': 'pipe',
    })
    expect(span('prompts/get greet').attributes['network.protocol.name']).toBeUndefined()
    expect(span('resources/read').attributes).toMatchObject({
      'mcp.resource.uri': 'file:///a.txt',
      'mcp.session.id': 'sid-1',
    })
    const list = span('tools/list')
    expect(list.attributes).toEqual({
      'mcp.method.name': 'tools/list',
      'mcp.protocol.version': '2026-07-28',
      'jsonrpc.request.id': 'x-1',
    })
  })

  it('takes the HTTP `traceparent` header when `_meta` has none, and `_meta` over the header', async () => {
    const headers = { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` }
    const request = new Request('http://x/mcp', { method: 'POST', headers })
    await server.request!(requestCall({ info: { request }, params: { name: 'a' } }), ok)
    await server.request!(requestCall({ info: { request }, params: { name: 'b', _meta: { traceparent: PARENT } } }), ok)
    expect(span('tools/call a').spanContext().traceId).toBe('a'.repeat(32))
    expect(span('tools/call a').parentSpanContext?.spanId).toBe('b'.repeat(16))
    expect(span('tools/call b').spanContext().traceId).toBe(TRACE_ID)
  })

  it('is a root span without trace context, and a child of the ambient span otherwise (linked when the client sent one)', async () => {
    await server.request!(requestCall({ params: { name: 'a' } }), ok)
    expect(span('tools/call a').parentSpanContext).toBeUndefined()
    const ambient = trace.getTracer('t').startSpan('POST /mcp')
    await context.with(trace.setSpan(ROOT_CONTEXT, ambient), async () => {
      await server.request!(requestCall({ params: { name: 'b' } }), ok)
      await server.request!(requestCall({ params: { name: 'c', _meta: { traceparent: PARENT } } }), ok)
    })
    ambient.end()
    expect(span('tools/call b').parentSpanContext?.spanId).toBe(ambient.spanContext().spanId)
    expect(span('tools/call b').links).toEqual([])
    expect(span('tools/call c').spanContext().traceId).toBe(TRACE_ID)
    expect(span('tools/call c').links.map((l) => l.context.spanId)).toEqual([ambient.spanContext().spanId])
  })

  it('keeps the first round’s span context in `carry`; a later round links to it, and takes it as parent when the client sent none', async () => {
    const first = requestCall()
    await server.request!(first, ok)
    const one = span('tools/call order_book')
    expect(first.carry).toEqual({ traceparent: `00-${one.spanContext().traceId}-${one.spanContext().spanId}-01` })
    exporter.reset()

    const uninstrumented = requestCall({ round: 2, carry: { ...first.carry } })
    await server.request!(uninstrumented, ok)
    const two = span('tools/call order_book')
    expect(two.spanContext().traceId).toBe(one.spanContext().traceId)
    expect(two.parentSpanContext?.spanId).toBe(one.spanContext().spanId)
    expect(two.attributes['edge_mcp.round']).toBe(2)
    expect(uninstrumented.carry).toEqual(first.carry) // still the first round's, for round 3
    exporter.reset()

    const instrumented = requestCall({
      round: 2,
      carry: { ...first.carry },
      params: { _meta: { traceparent: PARENT } },
    })
    await server.request!(instrumented, ok)
    const three = span('tools/call')
    expect(three.spanContext().traceId).toBe(TRACE_ID)
    expect(three.links.map((l) => l.context.spanId)).toEqual([one.spanContext().spanId])
  })

  it('ignores a malformed carried or sent traceparent; carries nothing for a method without rounds', async () => {
    const call = requestCall({
      round: 2,
      carry: { traceparent: 'not-one' },
      params: { _meta: { traceparent: '00-zz' } },
    })
    await server.request!(call, ok)
    expect(span('tools/call').parentSpanContext).toBeUndefined()
    const list = requestCall({ method: 'tools/list', params: {} })
    await server.request!(list, ok)
    expect(list.carry).toEqual({})
  })

  it('records a tool error result as `tool_error`, a JSON-RPC error by its code, anything else by its name', async () => {
    await server.request!(requestCall({ params: { name: 'a' } }), () => Promise.resolve({ content: [], isError: true }))
    const rpc = server.request!(requestCall({ params: { name: 'b' } }), () =>
      Promise.reject(new McpError(-32602, 'Unknown tool: b')),
    )
    await expect(rpc).rejects.toThrow('Unknown tool: b')
    const bug = server.request!(requestCall({ params: { name: 'c' } }), () => Promise.reject(new TypeError('boom')))
    await expect(bug).rejects.toThrow('boom')
    expect(span('tools/call a').attributes['error.type']).toBe('tool_error')
    expect(span('tools/call a').status.code).toBe(SpanStatusCode.ERROR)
    expect(span('tools/call b').attributes).toMatchObject({
      'error.type': '-32602',
      'rpc.response.status_code': '-32602',
    })
    expect(span('tools/call b').status).toEqual({ code: SpanStatusCode.ERROR, message: 'Unknown tool: b' })
    expect(span('tools/call c').attributes['error.type']).toBe('TypeError')
    expect(span('tools/call c').events.map((e) => e.name)).toEqual(['exception'])
  })

  it('makes its span current inside `next` (user code sees it) and returns next()’s result', async () => {
    let seen: string | undefined
    const result = await server.request!(requestCall(), () => {
      seen = trace.getActiveSpan()?.spanContext().spanId
      return Promise.resolve({ content: [{ type: 'text', text: 'hi' }] })
    })
    expect(result).toEqual({ content: [{ type: 'text', text: 'hi' }] })
    expect(seen).toBe(span('tools/call order_book').spanContext().spanId)
  })
})

describe('serverTracing: invocation, resolver and question spans', () => {
  it('hang under the request span through the calls’ links, whatever the active context', async () => {
    const request = requestCall({ round: 2 })
    const invocation: InvocationCall = {
      kind: 'tool',
      name: 'order_book',
      arguments: { title: 'Dune' },
      principal: undefined,
      round: 2,
      request,
    }
    const resolver: ResolverCall = { key: 'backorder', invocation }
    const question: QuestionCall = { key: 'backorder', method: 'elicitation/create', era: 'modern', request, resolver }
    let invoked: () => Promise<unknown> = () => Promise.resolve(undefined)
    await server.request!(request, async () => {
      // the invocation runs outside the request's context: parents come from the links alone
      await context.with(ROOT_CONTEXT, () =>
        server.invocation!(invocation, async () => {
          await context.with(ROOT_CONTEXT, () =>
            server.resolver!(resolver, () =>
              context.with(
                ROOT_CONTEXT,
                () => server.question!(question, () => Promise.resolve({})) as Promise<unknown>,
              ),
            ),
          )
          return { resultType: 'input_required' }
        }),
      )
      invoked = () =>
        server.invocation!({ ...invocation, kind: 'prompt', name: 'greet' }, () =>
          Promise.resolve({
            messages: [],
          }),
        ) as Promise<unknown>
      return { content: [] }
    })
    const req = span('tools/call order_book')
    const inv = span('execute_tool order_book')
    const res = span('resolve backorder')
    const q = span('elicitation/create')
    expect(inv.kind).toBe(SpanKind.INTERNAL)
    expect(inv.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'order_book',
      'edge_mcp.round': 2,
    })
    expect(isChildOf(inv, req)).toBe(true)
    expect(isChildOf(res, inv)).toBe(true)
    expect(isChildOf(q, res)).toBe(true)
    expect(q.attributes).toEqual({ 'mcp.method.name': 'elicitation/create', 'edge_mcp.question.key': 'backorder' })
    await invoked()
    expect(isChildOf(span('prompt greet'), req)).toBe(true)
    expect(span('prompt greet').attributes['gen_ai.prompt.name']).toBe('greet')
  })

  it('a question without a resolver hangs under its request; a tool error result marks the invocation', async () => {
    const request = requestCall({ era: 'legacy' })
    await server.request!(request, async () => {
      await server.question!({ key: 'q', method: 'roots/list', era: 'legacy', request, resolver: undefined }, () =>
        Promise.resolve({ roots: [] }),
      )
      await server.invocation!(
        { kind: 'tool', name: 'order_book', arguments: {}, principal: 'p', round: 1, request },
        () => Promise.resolve({ content: [], isError: true }),
      )
      return { content: [] }
    })
    expect(isChildOf(span('roots/list'), span('tools/call order_book'))).toBe(true)
    expect(span('execute_tool order_book').attributes['error.type']).toBe('tool_error')
  })

  it('a resource invocation carries its URI as `mcp.resource.uri`, not in its name', async () => {
    const request = requestCall({ method: 'resources/read', params: { uri: 'file:///a' } })
    await server.request!(
      request,
      () =>
        server.invocation!(
          { kind: 'resource', name: 'file:///a', arguments: {}, principal: undefined, round: 1, request },
          () => Promise.resolve({ contents: [] }),
        ) as Promise<Record<string, unknown>>,
    )
    expect(span('resource').attributes['mcp.resource.uri']).toBe('file:///a')
    expect(isChildOf(span('resource'), span('resources/read'))).toBe(true)
  })
})

describe('clientTracing', () => {
  const call: ClientCall = { method: 'tools/call', target: 'order_book', arguments: { title: 'Dune' } }
  const roundCall = (round: number) => ({ call, round })
  const requestOf = (round: number | undefined, over: Partial<ClientRequestCall> = {}): ClientRequestCall => ({
    method: 'tools/call',
    params: { name: 'order_book', arguments: { title: 'Dune' } },
    meta: {},
    era: 'modern',
    protocolVersion: '2026-07-28',
    transport: 'http',
    requestId: 1,
    ...(round === undefined ? {} : { round: roundCall(round) }),
    ...over,
  })

  it('a call span over CLIENT request spans (one per round) and the answers, trace context injected into `meta`', async () => {
    const sent: ClientRequestCall[] = []
    await client.call!(call, async () => {
      for (const round of [1, 2]) {
        const request = requestOf(round)
        sent.push(request)
        // the rounds run outside the call's context: parents come from the links alone
        await context.with(ROOT_CONTEXT, () =>
          client.request!(request, () => Promise.resolve({ resultType: 'input_required' })),
        )
        if (round === 1) {
          const answer: ClientAnswerCall = {
            key: 'backorder',
            method: 'elicitation/create',
            era: 'modern',
            round: roundCall(1),
          }
          await context.with(ROOT_CONTEXT, () => client.answer!(answer, () => Promise.resolve({ action: 'accept' })))
        }
      }
      return { content: [] }
    })
    const [top, ...more] = spans().filter((s) => s.name === 'tools/call order_book' && s.kind === SpanKind.INTERNAL)
    const rounds = spans().filter((s) => s.name === 'tools/call order_book' && s.kind === SpanKind.CLIENT)
    expect(more).toEqual([])
    expect(top.kind).toBe(SpanKind.INTERNAL)
    expect(top.parentSpanContext).toBeUndefined()
    expect(top.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'order_book',
      'gen_ai.operation.name': 'execute_tool',
    })
    expect(rounds).toHaveLength(2)
    for (const [i, r] of rounds.entries()) {
      expect(r.kind).toBe(SpanKind.CLIENT)
      expect(isChildOf(r, top)).toBe(true)
      expect(r.attributes).toEqual({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'order_book',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': '2026-07-28',
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'edge_mcp.round': i + 1,
        'jsonrpc.request.id': '1',
      })
      const { spanId, traceId } = r.spanContext()
      expect(sent[i].meta).toEqual({ traceparent: `00-${traceId}-${spanId}-01` })
    }
    const answer = span('elicitation/create')
    expect(answer.kind).toBe(SpanKind.INTERNAL)
    expect(isChildOf(answer, top)).toBe(true)
    expect(answer.attributes).toEqual({
      'mcp.method.name': 'elicitation/create',
      'edge_mcp.question.key': 'backorder',
      'edge_mcp.round': 1,
    })
  })

  it('a request outside a logical call is a child of the active span; baggage travels too; a 2025 answer is a SERVER span under its request', async () => {
    const outer = trace.getTracer('t').startSpan('agent')
    const bag = propagation.setBaggage(
      trace.setSpan(ROOT_CONTEXT, outer),
      propagation.createBaggage({ user: { value: 'ada' } }),
    )
    const request = requestOf(undefined, {
      method: 'tools/list',
      params: {},
      era: 'legacy',
      transport: 'stdio',
    })
    await context.with(bag, () =>
      client.request!(request, async () => {
        await client.answer!({ key: 'server-request-1', method: 'roots/list', era: 'legacy', request }, () =>
          Promise.resolve({}),
        )
        return { tools: [] }
      }),
    )
    outer.end()
    const list = span('tools/list')
    expect(isChildOf(list, outer as never)).toBe(true)
    expect(list.attributes['network.transport']).toBe('pipe')
    expect(request.meta.baggage).toBe('user=ada')
    const answer = span('roots/list')
    expect(answer.kind).toBe(SpanKind.SERVER)
    expect(isChildOf(answer, list)).toBe(true)
  })

  it('records the request id, a tool error, and a JSON-RPC error by its code', async () => {
    const withId = { ...requestOf(1), requestId: 3 } as ClientRequestCall
    await client.request!(withId, () => Promise.resolve({ content: [], isError: true }))
    expect(span('tools/call order_book').attributes).toMatchObject({
      'jsonrpc.request.id': '3',
      'error.type': 'tool_error',
    })
    exporter.reset()
    await expect(
      client.request!(requestOf(1), () => Promise.reject(new McpError(-32603, 'Internal error'))),
    ).rejects.toThrow('Internal error')
    expect(span('tools/call order_book').attributes).toMatchObject({
      'error.type': '-32603',
      'rpc.response.status_code': '-32603',
    })
  })

  it('takes a tracer and a propagator of its own', async () => {
    const injected: string[] = []
    const own = clientTracing({
      tracer: trace.getTracer('mine', '9.9.9'),
      propagator: { inject: (_ctx, carrier: Record<string, unknown>) => void (carrier.x = 'y'), extract: (ctx) => ctx },
    })
    const request = requestOf(undefined)
    await own.request!(request, () => (injected.push('sent'), Promise.resolve({})))
    expect(request.meta).toEqual({ x: 'y' })
    expect(span('tools/call order_book').instrumentationScope).toEqual({ name: 'mine', version: '9.9.9' })
  })
})
