/**
 * The client's spans: one INTERNAL span per logical call (every round of callTool / getPrompt /
 * readResource), a CLIENT span per request sent (trace context injected in its `params._meta`), a span
 * per question answered; parented through the middleware's object links.
 */
import { context, propagation, SpanKind, trace, type Attributes, type Span } from '@opentelemetry/api'
import type { ClientCall, ClientMiddleware, ClientRequestCall } from '../client/middleware.ts'
import {
  SCOPE_NAME,
  SCOPE_VERSION,
  describeRequest,
  isToolError,
  markToolError,
  metaSetter,
  networkAttributes,
  parentContext,
  within,
  type TracingOptions,
} from './common.ts'

/**
 * Client middleware that traces with OpenTelemetry, after the MCP semantic conventions (gen-ai/mcp.md):
 * - an INTERNAL span per logical call (`tools/call get_weather`: all its rounds, the answers between
 *   them), with `mcp.method.name`, `gen_ai.tool.name` and `gen_ai.operation.name` = `execute_tool`,
 *   `gen_ai.prompt.name` or `mcp.resource.uri`;
 * - a CLIENT span per request sent, named `{mcp.method.name} {target}`, with the same and
 *   `mcp.protocol.version`, `network.transport` (`tcp` over HTTP, `pipe` over stdio), `jsonrpc.request.id`
 *   when the client tells it, and `edge_mcp.round` for a round of a logical call; its trace context is
 *   injected as top-level keys of the request's `params._meta` (SEP-414: `traceparent`, `tracestate`,
 *   `baggage`, as the propagator writes them);
 * - a span per question the client answers (`elicitation/create`, …): INTERNAL for a 2026 round's input
 *   request, SERVER for a 2025 server's request.
 * `error.type`: `tool_error` for a tool's error result, the JSON-RPC code (also `rpc.response.status_code`)
 * for an error response, the error's name otherwise.
 *
 * Needs `@opentelemetry/api` (an optional peer) and a registered tracer provider and propagator.
 * @example
 * client.use(clientTracing())
 */
export function clientTracing(options: TracingOptions = {}): ClientMiddleware {
  const tracer = options.tracer ?? trace.getTracer(SCOPE_NAME, SCOPE_VERSION)
  const propagator = options.propagator ?? propagation
  const calls = new WeakMap<ClientCall, Span>()
  const requests = new WeakMap<ClientRequestCall, Span>()

  return {
    call: (call, next) => {
      const { name, attributes } = describeRequest(call.method, { name: call.target, uri: call.target })
      const parent = context.active()
      const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent)
      calls.set(call, span)
      return within(span, parent, next, (result) => {
        if (call.method === 'tools/call' && isToolError(result)) markToolError(span)
      })
    },

    request: (call, next) => {
      const parent = parentContext(call.round && calls.get(call.round.call))
      const { name, attributes } = describeRequest(call.method, call.params)
      attributes['mcp.protocol.version'] = call.protocolVersion
      attributes['jsonrpc.request.id'] = String(call.requestId)
      networkAttributes(call.transport, attributes)
      if (call.round) attributes['edge_mcp.round'] = call.round.round
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent)
      propagator.inject(trace.setSpan(parent, span), call.meta, metaSetter)
      requests.set(call, span)
      return within(span, parent, next, (result) => {
        if (call.method === 'tools/call' && isToolError(result)) markToolError(span)
      })
    },

    answer: (call, next) => {
      const parent = parentContext(
        (call.request && requests.get(call.request)) ?? (call.round && calls.get(call.round.call)),
      )
      const attributes: Attributes = { 'mcp.method.name': call.method, 'edge_mcp.question.key': call.key }
      if (call.round) attributes['edge_mcp.round'] = call.round.round
      const kind = call.era === 'legacy' ? SpanKind.SERVER : SpanKind.INTERNAL
      const span = tracer.startSpan(call.method, { kind, attributes }, parent)
      return within(span, parent, next)
    },
  }
}
