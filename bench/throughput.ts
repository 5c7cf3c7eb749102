/**
 * Benchmark: in-process `tools/call` requests per second through each SDK's fetch handler (no
 * network): a fresh `Request` per call (same body and headers for both), the handler called directly,
 * the response body read. Every response is checked (status 200, JSON, the echoed text), so an error
 * path can never be what is timed. Target: edge-mcp ≥ 2× the official SDK.
 */
import { check, fmt, measureAll, met, x } from './measure.ts'
import { officialHandler, ourHandler, toolCall, type Handler } from './servers.ts'

/** One `echo` call; throws (naming the side) unless the answer is 200 with the echoed text. */
async function echo(side: string, handler: Handler, id: number): Promise<void> {
  const response = await handler(toolCall(id, 'echo', { arguments: { text: 'hello' } }))
  const body = await response.text()
  check(
    response.status === 200 && body.includes('"text":"hello"') && !body.includes('"isError"'),
    side,
    'echo did not answer 200 with its text',
    `${response.status} ${body}`,
  )
}

/** Full check of one answer before anything is timed: the exact result both must produce. */
async function verify(side: string, handler: Handler): Promise<void> {
  const response = await handler(toolCall(7, 'echo', { arguments: { text: 'hello' } }))
  const body = await response.text()
  check(
    response.headers.get('content-type') === 'application/json',
    side,
    'echo did not answer application/json',
    response.headers.get('content-type'),
  )
  const message = JSON.parse(body) as { id?: unknown; result?: { content?: unknown; resultType?: unknown } }
  const ok =
    message.id === 7 &&
    message.result?.resultType === 'complete' &&
    JSON.stringify(message.result.content) === '[{"type":"text","text":"hello"}]'
  check(ok, side, 'echo answered something else than its text', body)
}

/** Median req/s, sequential and 32 in flight, plus the table lines. */
export async function benchThroughput(): Promise<{ ours: number; theirs: number; lines: string[] }> {
  const sides: Array<[string, Handler]> = [
    ['edge-mcp', ourHandler()],
    ['official SDK 2.4.0', officialHandler()],
  ]
  for (const [side, handler] of sides) await verify(side, handler)
  const ops = sides.map(([side, handler]) => {
    let id = 0
    return () => echo(side, handler, ++id)
  })
  const [ours, theirs] = (await measureAll(ops, { warmup: 2000 })) as [number, number]
  const [oursC, theirsC] = (await measureAll(ops, { concurrency: 32, rounds: 7, warmup: 200 })) as [number, number]
  const lines = [
    '### `tools/call` throughput, in-process',
    '',
    '| `tools/call` `echo`, in-process fetch handler (req/s) | sequential | 32 in flight |',
    '| --- | ---: | ---: |',
    `| edge-mcp (\`createFetchHandler\`) | ${fmt(ours)} | ${fmt(oursC)} |`,
    `| official SDK 2.4.0 (\`createMcpHandler\`) | ${fmt(theirs)} | ${fmt(theirsC)} |`,
    `| **ratio** (target ≥ 2×) | **${x(ours / theirs)}** ${met(ours / theirs >= 2)} | ${x(oursC / theirsC)} ${met(oursC / theirsC >= 2)} |`,
  ]
  return { ours, theirs, lines }
}
