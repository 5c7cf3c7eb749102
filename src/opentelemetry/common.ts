/**
 * What the server's and the client's tracing share: the options, the span names and attributes of the
 * OpenTelemetry MCP semantic conventions (gen-ai/mcp.md), errors as the conventions record them, the
 * carriers of trace context (`params._meta`, HTTP headers), and the W3C `traceparent` form of a span
 * context that travels in a logical call's sealed `carry`.
 */
import {
  context,
  isSpanContextValid,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
  type Tracer,
} from '@opentelemetry/api'

/** The instrumentation scope of the default tracer: this package's name and version. */
export const SCOPE_NAME = 'edge-mcp'
export const SCOPE_VERSION = '0.1.0'

/** Options of {@link serverTracing} and {@link clientTracing}. */
export interface TracingOptions {
  /** The tracer spans are started with. Default: `trace.getTracer('edge-mcp', <package version>)` (the global provider's). */
  tracer?: Tracer
  /**
   * Injects (client) and extracts (server) trace context in `params._meta`, and extracts it from the HTTP
   * headers when `_meta` has none. Default: the global `propagation` API — whatever propagator the
   * application registered (W3C trace context and baggage with the Node SDK; none until one is set with
   * `propagation.setGlobalPropagator`).
   */
  propagator?: Pick<TextMapPropagator, 'inject' | 'extract'>
}

/** Reads string values of a `_meta` object. */
export const metaGetter: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key]
    return typeof value === 'string' ? value : undefined
  },
}
/** Writes a `_meta` object (SEP-414: the keys unprefixed, top-level). */
export const metaSetter: TextMapSetter<Record<string, unknown>> = {
  set: (carrier, key, value) => {
    carrier[key] = value
  },
}
/** Reads HTTP request headers. */
export const headerGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
}

/** The `network.transport` of an MCP transport: stdio is a pipe, HTTP runs on TCP (gen-ai/mcp.md). */
export function networkAttributes(transport: string | undefined, attributes: Attributes): void {
  if (transport === 'http') {
    attributes['network.transport'] = 'tcp'
    attributes['network.protocol.name'] = 'http'
  } else if (transport === 'stdio') attributes['network.transport'] = 'pipe'
}

/**
 * The span name `{mcp.method.name} {target}` and the attributes naming what a request is about: a tool
 * (`gen_ai.tool.name`, `gen_ai.operation.name` = `execute_tool`), a prompt (`gen_ai.prompt.name`), a
 * resource (`mcp.resource.uri`, never in the name: high cardinality).
 */
export function describeRequest(
  method: string,
  params: Readonly<Record<string, unknown>>,
): { name: string; attributes: Attributes } {
  const attributes: Attributes = { 'mcp.method.name': method }
  const target = params.name
  if (method === 'tools/call' && typeof target === 'string') {
    attributes['gen_ai.tool.name'] = target
    attributes['gen_ai.operation.name'] = 'execute_tool'
    return { name: `${method} ${target}`, attributes }
  }
  if (method === 'prompts/get' && typeof target === 'string') {
    attributes['gen_ai.prompt.name'] = target
    return { name: `${method} ${target}`, attributes }
  }
  if (method.startsWith('resources/') && typeof params.uri === 'string') attributes['mcp.resource.uri'] = params.uri
  return { name: method, attributes }
}

/** Whether a result is a tool's error result (`isError: true`). */
export function isToolError(result: unknown): boolean {
  return typeof result === 'object' && result !== null && (result as { isError?: unknown }).isError === true
}

/** Marks a span as ended by a tool error result: `error.type` = `tool_error`, status ERROR (gen-ai/mcp.md). */
export function markToolError(span: Span): void {
  span.setAttribute('error.type', 'tool_error')
  span.setStatus({ code: SpanStatusCode.ERROR })
}

/**
 * Records a thrown error: a JSON-RPC error (an error with a numeric `code`, as McpError) sets `error.type`
 * and `rpc.response.status_code` to its code; anything else sets `error.type` to the error's name and
 * records it as an exception. Status ERROR with the error's message, either way.
 */
export function recordError(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : String(error)
  if (typeof code === 'number') {
    span.setAttribute('error.type', String(code))
    span.setAttribute('rpc.response.status_code', String(code))
  } else {
    span.setAttribute('error.type', error instanceof Error ? error.name : '_OTHER')
    if (error instanceof Error) span.recordException(error)
  }
  span.setStatus({ code: SpanStatusCode.ERROR, message })
}

/**
 * Runs `next` with `span` current (so user code sees it, where a context manager is installed), records
 * what it throws or what `check` finds in its value, and ends the span.
 */
export async function within<T>(
  span: Span,
  parent: Context,
  next: () => Promise<T>,
  check?: (value: T) => void,
): Promise<T> {
  try {
    const value = await context.with(trace.setSpan(parent, span), next)
    check?.(value)
    return value
  } catch (error) {
    recordError(span, error)
    throw error
  } finally {
    span.end()
  }
}

/** The context with `span` as parent when there is one, else the active context. */
export function parentContext(span: Span | undefined): Context {
  return span ? trace.setSpan(context.active(), span) : context.active()
}

/** A span context as a W3C `traceparent` (version 00). */
export function traceparentOf(spanContext: SpanContext): string {
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** A W3C `traceparent` (version 00) as a remote span context; undefined when absent or malformed. */
export function parseTraceparent(value: string | undefined): SpanContext | undefined {
  const m = value === undefined ? null : TRACEPARENT.exec(value)
  if (!m) return undefined
  const spanContext: SpanContext = { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16), isRemote: true }
  return isSpanContextValid(spanContext) ? spanContext : undefined
}
