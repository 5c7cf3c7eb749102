/**
 * Benchmark: in-process `tools/call` requests per second through each SDK's fetch handler (no network): a
 * fresh `Request` per call (the same body and headers for every side of a wire), the handler called
 * directly, the response body read (JSON or the request-scoped SSE stream), 1 and 8 requests in flight.
 * Every side of both wires is measured in the same interleaved windows (`measureAll`), so drift hits all alike.
 * - 2026-07-28 wire (per-request `_meta` envelope, no session): the official SDK 2.4.0, edge-mcp, tmcp 1.20.0
 *   and the hand-written floor (`bench/floor.ts`). mcp-lite 0.10.0 has no 2026 wire.
 * - 2025-11-25 wire, as a 2025 host sends it: each side is initialized once (`initialize` offering 2025-11-25,
 *   then `notifications/initialized`), then every timed request is a plain `tools/call` carrying the
 *   `MCP-Protocol-Version` the server negotiated and its `Mcp-Session-Id` when it returned one: the
 *   official SDK (`legacy: 'stateless'`), edge-mcp (sealed session token), mcp-lite (stateless) and tmcp
 *   (in-memory session). tmcp negotiates the offer down to 2025-06-18 and mcp-lite to 2025-03-26, their
 *   newest / fallback revisions; the table prints what each negotiated.
 * Every response is checked (status 200, the echoed text, no `isError`, no JSON-RPC error), and one answer per
 * side is checked whole before timing, so an error path can never be what is timed.
 * Targets: edge-mcp ≥ 4× official and ≥ 1.5× tmcp on the 2026 wire, ≥ 1.0× mcp-lite on the 2025 wire,
 * at both concurrencies.
 */
import { floorHandler } from './floor.ts'
import { answer, check, fmt, measureAll, met, x } from './measure.ts'
import { mcpLiteHandler, tmcpHandler } from './peers.ts'
import { officialHandler, ourHandler, toolCall, type Handler } from './servers.ts'

/** req/s `[1 in flight, 8 in flight]`. */
export type Pair = [number, number]

const URL_ = 'http://localhost/mcp'
const ECHO = { name: 'echo', arguments: { text: 'hello' } }
const CONTENT = '[{"type":"text","text":"hello"}]'

export interface Side {
  name: string
  handler: Handler
  /** The timed request with JSON-RPC id `id`. */
  request: (id: number) => Request
  /** What the side negotiated and answers with, for the table (filled by `verify`). */
  how?: string
}

/** One `echo` call; throws (naming the side) unless the answer is 200 with the echoed text. */
async function echo(side: Side, id: number): Promise<void> {
  const response = await side.handler(side.request(id))
  const body = await response.text()
  check(
    response.status === 200 &&
      body.includes('"text":"hello"') &&
      !body.includes('"isError"') &&
      !body.includes('"error"'),
    side.name,
    'echo did not answer 200 with its text',
    `${response.status} ${body}`,
  )
}

/** Full check of one answer before anything is timed; records the answer's content type on the side. */
async function verify(side: Side, wire: '2026' | '2025'): Promise<void> {
  const response = await side.handler(side.request(7))
  const body = await response.text()
  const type = response.headers.get('content-type')
  check(response.status === 200, side.name, 'echo did not answer 200', `${response.status} ${body}`)
  const message = answer(side.name, type, body, 7) as { result?: { content?: unknown; resultType?: unknown } }
  const ok =
    message.result !== undefined &&
    JSON.stringify(message.result.content) === CONTENT &&
    (wire === '2025' || message.result.resultType === 'complete') &&
    !('isError' in message.result)
  check(ok, side.name, 'echo answered something else than its text', body)
  const sse = type?.startsWith('text/event-stream') ? 'SSE' : 'JSON'
  side.how = side.how ? `${side.how}, answers ${sse}` : `answers ${sse}`
}

/** The 2026-07-28 side: the bench's `tools/call` request (envelope, standard headers). */
function modern(name: string, handler: Handler): Side {
  return { name, handler, request: (id) => toolCall(id, 'echo', ECHO) }
}

/**
 * The 2025-11-25 side: `initialize` (offering 2025-11-25) and `notifications/initialized` once, as a host
 * does; then each request is a plain `tools/call` with the negotiated `MCP-Protocol-Version` and the
 * session id, if the server returned one.
 */
async function legacy(name: string, handler: Handler): Promise<Side> {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const init = await handler(
    new Request(URL_, {
      method: 'POST',
      headers: base,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
      }),
    }),
  )
  const initBody = await init.text()
  check(init.status === 200, name, 'initialize did not answer 200', `${init.status} ${initBody}`)
  const result = answer(name, init.headers.get('content-type'), initBody, 1).result as { protocolVersion?: unknown }
  const version = result?.protocolVersion
  check(
    typeof version === 'string' && version.startsWith('2025-'),
    name,
    'initialize negotiated no 2025 revision',
    initBody,
  )
  const session = init.headers.get('mcp-session-id')
  const headers: Record<string, string> = { ...base, 'mcp-protocol-version': version }
  if (session) headers['mcp-session-id'] = session
  const initialized = await handler(
    new Request(URL_, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    }),
  )
  await initialized.text()
  check(initialized.status === 202, name, 'notifications/initialized was not accepted (202)', initialized.status)
  return {
    name,
    handler,
    request: (id) =>
      new Request(URL_, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: ECHO }),
      }),
    how: `negotiated ${version}, ${session ? 'session id' : 'no session'}`,
  }
}

export interface Throughput {
  /** 2026-07-28 wire: official SDK, edge-mcp, floor, tmcp. */
  theirs: Pair
  ours: Pair
  floor: Pair
  tmcp: Pair
  /** 2025-11-25 wire. */
  legacy: { official: Pair; ours: Pair; mcpLite: Pair; tmcp: Pair }
  lines: string[]
}

/**
 * Every side of both wires, in the order `benchThroughput` measures them (2026: official, edge-mcp, floor,
 * tmcp; 2025: official, edge-mcp, mcp-lite, tmcp), 2025 sides initialized, each answer checked whole once.
 */
export async function throughputSides(): Promise<Side[]> {
  const modernSides = [
    modern('official SDK 2.4.0', officialHandler()),
    modern('edge-mcp', ourHandler()),
    modern('floor', floorHandler()),
    modern('tmcp 1.20.0', tmcpHandler()),
  ]
  const legacySides = [
    await legacy('official SDK 2.4.0 (2025 wire)', officialHandler({ legacy: 'stateless' })),
    await legacy('edge-mcp (2025 wire)', ourHandler()),
    await legacy('mcp-lite 0.10.0 (2025 wire)', mcpLiteHandler()),
    await legacy('tmcp 1.20.0 (2025 wire)', tmcpHandler()),
  ]
  for (const side of modernSides) await verify(side, '2026')
  for (const side of legacySides) await verify(side, '2025')
  return [...modernSides, ...legacySides]
}

/** Per side `[1 in flight, 8 in flight]` median req/s on both wires, plus the table lines. */
export async function benchThroughput(): Promise<Throughput> {
  const sides = await throughputSides()
  const ops = sides.map((side) => {
    let id = 7
    return () => echo(side, ++id)
  })
  const c1 = await measureAll(ops, { warmup: 2000, ms: 300 })
  const c8 = await measureAll(ops, { concurrency: 8, warmup: 300, ms: 300 })
  const [theirs, ours, floor, tmcp, lOfficial, lOurs, lLite, lTmcp] = sides.map((_, i) => [c1[i], c8[i]] as Pair) as [
    Pair,
    Pair,
    Pair,
    Pair,
    Pair,
    Pair,
    Pair,
    Pair,
  ]
  const row = (label: string, [a, b]: Pair) => `| ${label} | ${fmt(a)} | ${fmt(b)} |`
  const ratio = (label: string, a: Pair, b: Pair, target?: number) => {
    const [r1, r8] = [a[0] / b[0], a[1] / b[1]]
    return target === undefined
      ? `| ratio ${label} (info) | ${x(r1)} | ${x(r8)} |`
      : `| **ratio** ${label} (target ≥ ${target}×) | **${x(r1)}** ${met(r1 >= target)} | **${x(r8)}** ${met(r8 >= target)} |`
  }
  const how = (i: number) => (sides[i].how ? `; ${sides[i].how}` : '')
  const lines = [
    '### `tools/call` throughput, in-process',
    '',
    '| 2026-07-28 wire: `tools/call` `echo`, in-process fetch handler (req/s) | 1 in flight | 8 in flight |',
    '| --- | ---: | ---: |',
    row(`official SDK 2.4.0 (\`createMcpHandler\`, \`legacy: 'reject'\`${how(0)})`, theirs),
    row(`edge-mcp (\`createFetchHandler\`${how(1)})`, ours),
    row(`tmcp 1.20.0 (\`HttpTransport.respond\`${how(3)})`, tmcp),
    row(`floor (\`bench/floor.ts\`: parse, check, answer${how(2)})`, floor),
    ratio('edge-mcp ÷ official', ours, theirs, 4),
    ratio('edge-mcp ÷ tmcp', ours, tmcp, 1.5),
    ratio('edge-mcp ÷ floor', ours, floor),
    '',
    '| 2025-11-25 wire (after `initialize`): `tools/call` `echo`, in-process fetch handler (req/s) | 1 in flight | 8 in flight |',
    '| --- | ---: | ---: |',
    row(`official SDK 2.4.0 (\`createMcpHandler\`, \`legacy: 'stateless'\`${how(4)})`, lOfficial),
    row(`edge-mcp (\`createFetchHandler\`${how(5)})`, lOurs),
    row(`mcp-lite 0.10.0 (\`StreamableHttpTransport\`, stateless${how(6)})`, lLite),
    row(`tmcp 1.20.0 (\`HttpTransport.respond\`${how(7)})`, lTmcp),
    ratio('edge-mcp ÷ mcp-lite', lOurs, lLite, 1),
    ratio('edge-mcp ÷ tmcp', lOurs, lTmcp),
    ratio('edge-mcp ÷ official', lOurs, lOfficial),
  ]
  return {
    theirs,
    ours,
    floor,
    tmcp,
    legacy: { official: lOfficial, ours: lOurs, mcpLite: lLite, tmcp: lTmcp },
    lines,
  }
}
