/**
 * The fuzz properties by name, shared by the vitest files (a modest count each) and `npm run fuzz`
 * (test/fuzz/run.ts, any count).
 */
import type fc from 'fast-check'
import { clientResults, eraNegotiation, sseFraming, sseGarbage } from './client-properties.ts'
import { envelopes, httpSurface, legacySessions, sealedStates } from './server-properties.ts'

export interface FuzzProperty {
  name: string
  description: string
  property: () => fc.IAsyncProperty<never>
  /** Runs in `npm test`. */
  testRuns: number
}

const p = <T>(
  name: string,
  description: string,
  property: () => fc.IAsyncProperty<T>,
  testRuns: number,
): FuzzProperty => ({
  name,
  description,
  property: property as unknown as () => fc.IAsyncProperty<never>,
  testRuns,
})

export const SERVER_PROPERTIES: FuzzProperty[] = [
  p('http-surface', 'any method, headers and body: a bounded, well-formed JSON-RPC answer, no 5xx', httpSurface, 300),
  p('envelopes', 'a fuzzed 2026 _meta envelope: the right error or a result, no 5xx', envelopes, 100),
  p('sealed-states', 'a mutated sealed requestState is refused (-32602) and runs no handler', sealedStates, 60),
  p('legacy-sessions', '2025-era sessions, ids and questions fuzzed: well-formed answers', legacySessions, 60),
]

export const CLIENT_PROPERTIES: FuzzProperty[] = [
  p(
    'client-results',
    'mutated results and JSON-RPC responses, any status: every call settles with a documented outcome',
    clientResults,
    300,
  ),
  p('sse-framing', 'a valid answer in any legal SSE framing and chunking gives exactly the result', sseFraming, 200),
  p('sse-garbage', 'random SSE lines, chunked anywhere: every call settles with a documented outcome', sseGarbage, 200),
  p(
    'era-negotiation',
    "'auto' and 'legacy' clients against scripted servers of unknown era: everything settles",
    eraNegotiation,
    100,
  ),
]

export const ALL_PROPERTIES = [...SERVER_PROPERTIES, ...CLIENT_PROPERTIES]
