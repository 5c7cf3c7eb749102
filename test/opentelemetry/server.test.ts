/**
 * serverTracing with an uninstrumented client (our Client without clientTracing) on our McpServer over
 * HTTP in-process: the two rounds of a tool call that asks form one trace through the first round's span
 * context, carried in the sealed requestState; the HTTP `traceparent` header is read when `_meta` has none.
 * The whole client-to-server trace is test/opentelemetry/tracing.test.ts.
 */
import { SpanKind } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { beforeEach, describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { serverTracing } from '../../src/opentelemetry/index.ts'
import { createFetchHandler } from '../../src/server/index.ts'
import { createServer as bookshop } from '../../examples/dependencies/tutorial003.ts'
import { exporter, isChildOf, spans, tree } from './otel.ts'

const text = (r: { content: Array<{ type: string; text?: string }> }) => r.content.map((c) => c.text).join('\n')

/** An uninstrumented client over HTTP to the traced bookshop in-process; `headers` added to each request. */
function overHttp(headers: Record<string, string> = {}) {
  const mcp = bookshop()
  mcp.use(serverTracing())
  const handler = createFetchHandler(mcp)
  return new Client({
    transport: new StreamableHttpClientTransport('http://localhost/mcp', {
      fetch: (request) => {
        for (const [k, v] of Object.entries(headers)) request.headers.set(k, v)
        return handler(request)
      },
    }),
    versionNegotiation: 'modern',
    elicitation: () => ({ action: 'accept', content: { confirm: true } }),
  })
}

const of = (kind: SpanKind, name: string) => spans().filter((s) => s.kind === kind && s.name === name)
const byStart = (list: ReadableSpan[]) =>
  [...list].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])

beforeEach(() => exporter.reset())

describe('the server alone', () => {
  it('an uninstrumented client’s rounds form one trace through the carried context', async () => {
    const client = overHttp()
    expect(text(await client.callTool('order_book', { title: 'Neuromancer' }))).toMatch(/^Backordered/)
    const served = byStart(of(SpanKind.SERVER, 'tools/call order_book'))
    expect(served).toHaveLength(2)
    expect(tree()).toBe(
      [
        'tools/call order_book (SERVER)',
        '  execute_tool order_book (INTERNAL)',
        '    resolve checkStock (INTERNAL)',
        '    resolve confirmBackorder (INTERNAL)',
        '      elicitation/create (INTERNAL)',
        '  tools/call order_book (SERVER)',
        '    execute_tool order_book (INTERNAL)',
        '      resolve checkStock (INTERNAL)',
        '      resolve confirmBackorder (INTERNAL)',
      ].join('\n'),
    )
    expect(served[0].parentSpanContext).toBeUndefined()
    expect(isChildOf(served[1], served[0])).toBe(true)
    const traceId = served[0].spanContext().traceId
    expect(spans().every((s) => s.spanContext().traceId === traceId)).toBe(true)
  })

  it('reads the HTTP traceparent header when `_meta` has none', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c'
    const client = overHttp({ traceparent: `00-${traceId}-b7ad6b7169203331-01` })
    await client.callTool('order_book', { title: 'Dune' })
    const [served] = of(SpanKind.SERVER, 'tools/call order_book')
    expect(served.spanContext().traceId).toBe(traceId)
    expect(served.parentSpanContext?.spanId).toBe('b7ad6b7169203331')
  })
})
