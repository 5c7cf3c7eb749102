/**
 * OpenTelemetry traces of an MCP tool call, printed to the console (Node). A server and a client in one
 * process, both traced: the client calls a tool whose resolver asks the user a question, so the call takes
 * two rounds (MRTR) — and every span, on both sides, lands in one trace.
 *
 *   npx tsx examples/tracing-console.ts
 *
 * The setup is the OpenTelemetry SDK's usual one: a tracer provider with an exporter (here the console's;
 * in production an OTLP exporter), a context manager (AsyncLocalStorage, so user code sees the current
 * span), and the W3C trace-context and baggage propagators, which carry the trace from client to server in
 * each request's `params._meta`. Packages: @opentelemetry/api, @opentelemetry/sdk-trace-base,
 * @opentelemetry/core, @opentelemetry/context-async-hooks.
 */
import { pathToFileURL } from 'node:url'
import { context, propagation, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core'
import {
  BasicTracerProvider,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base'
import * as v from 'valibot'
import { Client, StreamableHttpClientTransport } from '../src/client/index.ts'
import { clientTracing, serverTracing } from '../src/opentelemetry/index.ts'
import { McpServer, arg, createFetchHandler, elicit, formSchema, resolver } from '../src/server/index.ts'

/** Registers the OpenTelemetry SDK globally: spans to `exporter`, AsyncLocalStorage context, W3C propagation. */
export function setupTracing(exporter: SpanExporter = new ConsoleSpanExporter()): BasicTracerProvider {
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  trace.setGlobalTracerProvider(provider)
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  )
  return provider
}

/** A shop whose `order_book` asks before backordering a book that is out of stock. */
export function createServer(): McpServer {
  const mcp = new McpServer({ name: 'Bookshop', version: '1.0.0' })
  mcp.use(serverTracing())
  const Confirm = formSchema({ confirm: v.pipe(v.boolean(), v.description('Order anyway?')) })
  const confirmBackorder = resolver({ title: arg<string>() }, function confirmBackorder({ title }) {
    return elicit(`'${title}' is out of stock. Order anyway?`, Confirm)
  })
  mcp.tool(
    'order_book',
    { description: 'Order a book.', input: { title: v.string() }, use: { backorder: confirmBackorder } },
    ({ title, backorder }) => (backorder.confirm ? `Backordered '${title}'.` : 'No order placed.'),
  )
  return mcp
}

/** Calls `order_book` through a traced client (the question answered yes); returns the tool's text. */
export async function run(): Promise<string> {
  const handler = createFetchHandler(createServer())
  const client = new Client({
    transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch: (request) => handler(request) }),
    versionNegotiation: 'modern',
    elicitation: () => ({ action: 'accept', content: { confirm: true } }),
  })
  client.use(clientTracing())
  const result = await client.callTool('order_book', { title: 'Neuromancer' })
  await client.close()
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const provider = setupTracing()
  console.log(await run())
  await provider.shutdown()
}
