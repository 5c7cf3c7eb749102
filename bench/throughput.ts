/**
 * Benchmark: in-process `tools/call` requests per second through each SDK's fetch handler (no
 * network): a fresh `Request` per call (same body and headers for both), the handler called directly,
 * the response body read, 1 and 8 requests in flight. Every response is checked (status 200, JSON, the
 * echoed text), so an error path can never be what is timed. Next to them, the hand-written floor
 * (`bench/floor.ts`). Target: edge-mcp ≥ 4× the official SDK at both concurrencies.
 */
import { floorHandler } from './floor.ts'
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

/** Per side `[1 in flight, 8 in flight]` median req/s, plus the table lines. */
export async function benchThroughput(): Promise<{
  theirs: [number, number]
  ours: [number, number]
  floor: [number, number]
  lines: string[]
}> {
  const sides: Array<[string, Handler]> = [
    ['official SDK 2.4.0', officialHandler()],
    ['edge-mcp', ourHandler()],
    ['floor', floorHandler()],
  ]
  for (const [side, handler] of sides) await verify(side, handler)
  const ops = sides.map(([side, handler]) => {
    let id = 0
    return () => echo(side, handler, ++id)
  })
  const c1 = await measureAll(ops, { warmup: 2000, ms: 300 })
  const c8 = await measureAll(ops, { concurrency: 8, warmup: 300, ms: 300 })
  const [theirs, ours, floor] = [0, 1, 2].map((i) => [c1[i], c8[i]] as [number, number])
  const r1 = ours[0] / theirs[0]
  const r8 = ours[1] / theirs[1]
  const lines = [
    '### `tools/call` throughput, in-process',
    '',
    '| `tools/call` `echo`, in-process fetch handler (req/s) | 1 in flight | 8 in flight |',
    '| --- | ---: | ---: |',
    `| official SDK 2.4.0 (\`createMcpHandler\`) | ${fmt(theirs[0])} | ${fmt(theirs[1])} |`,
    `| edge-mcp (\`createFetchHandler\`) | ${fmt(ours[0])} | ${fmt(ours[1])} |`,
    `| floor (\`bench/floor.ts\`: parse, check, answer) | ${fmt(floor[0])} | ${fmt(floor[1])} |`,
    `| **ratio** edge-mcp ÷ official (target ≥ 4×) | **${x(r1)}** ${met(r1 >= 4)} | **${x(r8)}** ${met(r8 >= 4)} |`,
    `| ratio edge-mcp ÷ floor (info) | ${x(ours[0] / floor[0])} | ${x(ours[1] / floor[1])} |`,
  ]
  return { theirs, ours, floor, lines }
}
