/**
 * The server's spans: one SERVER span per request, INTERNAL spans for each handler run, resolver and
 * question, parented through the middleware's object links (no context manager needed: Workers have none).
 */
import {
  context,
  propagation,
  SpanKind,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api'
import type { InvocationCall, RequestCall, ResolverCall, ServerMiddleware } from '../server/middleware.ts'
import {
  SCOPE_NAME,
  SCOPE_VERSION,
  describeRequest,
  headerGetter,
  isToolError,
  markToolError,
  metaGetter,
  networkAttributes,
  parentContext,
  parseTraceparent,
  traceparentOf,
  within,
  type TracingOptions,
} from './common.ts'

/** The key of the first round's span context (a `traceparent`) in a logical call's sealed `carry`. */
export const CARRY_KEY = 'traceparent'

/** The methods whose logical call spans rounds (MRTR). */
const ROUNDED = new Set(['tools/call', 'prompts/get', 'resources/read'])

/**
 * Server middleware that traces each request with OpenTelemetry, after the MCP semantic conventions
 * (gen-ai/mcp.md):
 * - a SERVER span per request, named `{mcp.method.name} {target}` (`tools/call get_weather`), with
 *   `mcp.method.name`, `mcp.protocol.version`, `mcp.session.id` (2025 era), `jsonrpc.request.id`,
 *   `network.transport` (`tcp` over HTTP, `pipe` over stdio), `gen_ai.tool.name` and
 *   `gen_ai.operation.name` = `execute_tool`, `gen_ai.prompt.name` or `mcp.resource.uri`, and
 *   `edge_mcp.round` for the rounds of a logical call; `error.type` on failure: `tool_error` for a tool's
 *   error result, the JSON-RPC code (also `rpc.response.status_code`) for an error response;
 * - INTERNAL spans for each handler run (`execute_tool {name}`, `prompt {name}`, `resource`), each
 *   resolver (`resolve {key}`) and each question put to the client (`elicitation/create`, …).
 *
 * The request span's parent is the trace context the client put in `params._meta` (SEP-414: `traceparent`,
 * `tracestate`, `baggage`), else the HTTP request's `traceparent` header; the ambient span (an HTTP
 * server span, say) is linked. MRTR: the first round's span context travels in the call's sealed `carry`;
 * later rounds link to it — and take it as parent when the client sent no trace context, so the rounds of
 * an uninstrumented client's call still form one trace.
 *
 * Needs `@opentelemetry/api` (an optional peer) and a registered tracer provider; without a provider the
 * spans are no-ops.
 * @example
 * mcp.use(serverTracing())
 */
export function serverTracing(options: TracingOptions = {}): ServerMiddleware {
  const tracer = options.tracer ?? trace.getTracer(SCOPE_NAME, SCOPE_VERSION)
  const propagator = options.propagator ?? propagation
  const requests = new WeakMap<RequestCall, Span>()
  const invocations = new WeakMap<InvocationCall, Span>()
  const resolvers = new WeakMap<ResolverCall, Span>()

  /** The trace context the client sent: in `params._meta`, else in the HTTP headers; undefined when none. */
  const incoming = (call: RequestCall, active: Context): Context | undefined => {
    const found = (ctx: Context) => {
      const spanContext = trace.getSpanContext(ctx)
      return spanContext !== undefined && spanContext !== trace.getSpanContext(active) ? ctx : undefined
    }
    const meta = call.params._meta
    const fromMeta =
      typeof meta === 'object' && meta !== null ? found(propagator.extract(active, meta, metaGetter)) : undefined
    const headers = call.info.request?.headers
    return fromMeta ?? (headers ? found(propagator.extract(active, headers, headerGetter)) : undefined)
  }

  return {
    request: (call, next) => {
      const { name, attributes } = describeRequest(call.method, call.params)
      attributes['mcp.protocol.version'] = call.protocolVersion
      if (call.sessionId !== undefined) attributes['mcp.session.id'] = call.sessionId
      if (call.requestId !== null) attributes['jsonrpc.request.id'] = String(call.requestId)
      networkAttributes(call.transport, attributes)
      const rounded = ROUNDED.has(call.method)
      if (rounded) attributes['edge_mcp.round'] = call.round

      const active = context.active()
      const sent = incoming(call, active)
      const carried = rounded ? parseTraceparent(call.carry[CARRY_KEY]) : undefined
      const links: Link[] = []
      let parent = active
      if (sent) {
        parent = sent
        if (carried) links.push({ context: carried })
      } else if (carried) parent = trace.setSpanContext(active, carried)
      // the ambient span (an HTTP server span, say), unless it is the parent already (an in-process client's span)
      const ambient = trace.getSpanContext(active)
      const parentSpan = trace.getSpanContext(parent)
      if (
        ambient &&
        parent !== active &&
        !(ambient.spanId === parentSpan?.spanId && ambient.traceId === parentSpan.traceId)
      )
        links.push({ context: ambient })

      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes, links }, parent)
      if (rounded && !carried) call.carry[CARRY_KEY] = traceparentOf(span.spanContext())
      requests.set(call, span)
      return within(span, parent, next, (result) => {
        if (call.method === 'tools/call' && isToolError(result)) markToolError(span)
      })
    },

    invocation: (call, next) => {
      const parent = parentContext(requests.get(call.request))
      const attributes: Attributes = { 'edge_mcp.round': call.round }
      let name: string
      if (call.kind === 'tool') {
        name = `execute_tool ${call.name}`
        attributes['gen_ai.operation.name'] = 'execute_tool'
        attributes['gen_ai.tool.name'] = call.name
      } else if (call.kind === 'prompt') {
        name = `prompt ${call.name}`
        attributes['gen_ai.prompt.name'] = call.name
      } else {
        name = 'resource'
        attributes['mcp.resource.uri'] = call.name
      }
      const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent)
      invocations.set(call, span)
      return within(span, parent, next, (result) => {
        if (call.kind === 'tool' && isToolError(result)) markToolError(span)
      })
    },

    resolver: (call, next) => {
      const parent = parentContext(invocations.get(call.invocation))
      const span = tracer.startSpan(`resolve ${call.key}`, { kind: SpanKind.INTERNAL }, parent)
      resolvers.set(call, span)
      return within(span, parent, next)
    },

    question: (call, next) => {
      const parent = parentContext((call.resolver && resolvers.get(call.resolver)) ?? requests.get(call.request))
      const attributes: Attributes = { 'mcp.method.name': call.method, 'edge_mcp.question.key': call.key }
      const span = tracer.startSpan(call.method, { kind: SpanKind.INTERNAL, attributes }, parent)
      return within(span, parent, next)
    },
  }
}
