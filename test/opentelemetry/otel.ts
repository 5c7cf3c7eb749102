/**
 * The OpenTelemetry SDK as the tracing tests use it: a BasicTracerProvider exporting to memory, registered
 * globally with an AsyncLocalStorage context manager and the W3C trace-context and baggage propagators
 * (once per test file); `spans()` reads what was exported, `tree()` draws it as `name (KIND)` lines
 * indented under their parents.
 */
import { context, propagation, SpanKind, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base'

export const exporter = new InMemorySpanExporter()
export const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
trace.setGlobalTracerProvider(provider)
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
propagation.setGlobalPropagator(
  new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
)

/** The spans exported so far, in the order they ended. */
export const spans = (): ReadableSpan[] => exporter.getFinishedSpans()

/** The one exported span named `name` (throws when none or several). */
export function span(name: string): ReadableSpan {
  const found = spans().filter((s) => s.name === name)
  if (found.length !== 1)
    throw new Error(
      `${found.length} spans named ${name}: ${spans()
        .map((s) => s.name)
        .join(', ')}`,
    )
  return found[0]
}

/** The exported spans named `name`, in the order they started. */
export const named = (name: string): ReadableSpan[] =>
  spans()
    .filter((s) => s.name === name)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])

/** Whether `child`'s parent is `parent` (same trace, parent span id). */
export const isChildOf = (child: ReadableSpan, parent: ReadableSpan): boolean =>
  child.parentSpanContext?.spanId === parent.spanContext().spanId &&
  child.spanContext().traceId === parent.spanContext().traceId

/** The exported spans as a tree: `name (KIND)` per line, children indented under their parent, by start time. */
export function tree(all: ReadableSpan[] = spans()): string {
  const ids = new Set(all.map((s) => s.spanContext().spanId))
  const byStart = [...all].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
  const lines: string[] = []
  const walk = (parent: string | undefined, depth: number) => {
    for (const s of byStart) {
      const p = s.parentSpanContext?.spanId
      if ((parent === undefined ? p === undefined || !ids.has(p) : p === parent) === false) continue
      lines.push(`${'  '.repeat(depth)}${s.name} (${SpanKind[s.kind]})`)
      walk(s.spanContext().spanId, depth + 1)
    }
  }
  walk(undefined, 0)
  return lines.join('\n')
}
