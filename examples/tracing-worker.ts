/**
 * OpenTelemetry traces from a Cloudflare Worker: the bookshop of tutorial 3 with serverTracing, its spans
 * sent with `fetch` to the URL in the `TRACES_URL` binding as JSON, one POST per span.
 *
 *   npx wrangler dev -c examples/wrangler.toml examples/tracing-worker.ts --var TRACES_URL:http://127.0.0.1:4318/spans
 *
 * What a Worker needs, beyond `mcp.use(serverTracing())`:
 * - the OpenTelemetry API and SDK core, which run on Workers as they are (@opentelemetry/api,
 *   @opentelemetry/sdk-trace-base, @opentelemetry/core), with the provider set up once per isolate;
 * - an exporter that sends with `fetch` (the Node SDK's exporters use Node's http): here a small one that
 *   POSTs JSON; for a real backend, an OTLP/HTTP exporter that uses fetch;
 * - to flush before the invocation ends: `ctx.waitUntil(provider.forceFlush())` once the response is
 *   built (a timer of a batching processor does not outlive the request);
 * - a propagator, so that the trace context a client puts in `params._meta` (or the HTTP `traceparent`
 *   header) is read: W3C trace context here.
 * No context manager is needed: serverTracing finds each span's parent through the middleware's calls, so
 * the handler, resolver and question spans sit under their request span without one. (With one — e.g.
 * AsyncLocalStorage under `nodejs_compat` — a handler also sees its span as `trace.getActiveSpan()`.)
 */
import { propagation, trace } from '@opentelemetry/api'
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core'
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base'
import { serverTracing } from '../src/opentelemetry/index.ts'
import { createFetchHandler } from '../src/server/index.ts'
import { createServer } from './dependencies/tutorial003.ts'

interface Env {
  /** Where the spans are POSTed, as JSON. */
  TRACES_URL: string
}
interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void
}

/** The fields of a span a reader needs, as JSON. */
function toJson(span: ReadableSpan) {
  return {
    name: span.name,
    kind: span.kind,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    links: span.links.map((l) => l.context.spanId),
    attributes: span.attributes,
    status: span.status,
  }
}

/** An exporter that POSTs each batch of spans as JSON with `fetch`; `forceFlush` waits for the POSTs under way. */
class FetchSpanExporter implements SpanExporter {
  readonly #url: string
  readonly #pending = new Set<Promise<void>>()
  constructor(url: string) {
    this.#url = url
  }
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const sent = fetch(this.#url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(spans.map(toJson)),
    }).then(
      async (response) => {
        await response.body?.cancel()
        done({ code: response.ok ? ExportResultCode.SUCCESS : ExportResultCode.FAILED })
      },
      (error: Error) => done({ code: ExportResultCode.FAILED, error }),
    )
    this.#pending.add(sent)
    void sent.finally(() => this.#pending.delete(sent))
  }
  async forceFlush(): Promise<void> {
    await Promise.all(this.#pending)
  }
  shutdown(): Promise<void> {
    return this.forceFlush()
  }
}

propagation.setGlobalPropagator(new W3CTraceContextPropagator())
const mcp = createServer()
mcp.use(serverTracing())
const handler = createFetchHandler(mcp)
/** Set up on the first request (the exporter's URL is a binding), then kept for the isolate's life. */
let provider: BasicTracerProvider | undefined

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    if (!provider) {
      provider = new BasicTracerProvider({
        spanProcessors: [new SimpleSpanProcessor(new FetchSpanExporter(env.TRACES_URL))],
      })
      trace.setGlobalTracerProvider(provider)
    }
    const response = await handler(request, env, ctx)
    ctx.waitUntil(provider.forceFlush())
    return response
  },
}
