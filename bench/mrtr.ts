/**
 * Benchmark: full two-round MRTR flows per second, in-process through each SDK's fetch handler:
 * `tools/call deploy` → `InputRequiredResult` (one form elicitation + `requestState`) → the retry with
 * `inputResponses` and the echoed `requestState` → the final result. Both sides are driven by the same
 * hand-built JSON-RPC (a fresh `Request` per round, the same bytes apart from each server's own token),
 * so the client's share of the cost is identical and only the servers differ; either SDK's `Client`
 * would add its own, different overhead (version discovery, schema validation) to what is measured.
 * requestState: edge-mcp seals (AES-256-GCM, the default); the official SDK signs with its opt-in
 * HMAC-SHA256 codec (its default is no protection at all, shown for information); the floor
 * (`bench/floor.ts`) seals with raw AES-256-GCM bound to method, tool and arguments, with an expiry.
 * 1 and 8 flows in flight. Target: edge-mcp ≥ 3× the official SDK with its codec at both.
 */
import { floorHandler } from './floor.ts'
import { check, fmt, measureAll, met, x } from './measure.ts'
import { officialHandler, ourHandler, toolCall, type Handler } from './servers.ts'

const ARGS = { env: 'prod' }
const ANSWER = { confirm: { action: 'accept', content: { confirm: true } } }

/** One flow; throws (naming the side) unless round 1 asks exactly one question and round 2 completes. */
async function flow(side: string, handler: Handler, id: number): Promise<void> {
  const first = await handler(toolCall(id, 'deploy', { arguments: ARGS }))
  const firstBody = await first.text()
  check(first.status === 200, side, 'round 1 did not answer 200', `${first.status} ${firstBody}`)
  const asked = JSON.parse(firstBody) as {
    result?: { resultType?: string; requestState?: unknown; inputRequests?: { confirm?: { method?: string } } }
  }
  const state = asked.result?.requestState
  const ok =
    asked.result?.resultType === 'input_required' &&
    asked.result.inputRequests?.confirm?.method === 'elicitation/create' &&
    typeof state === 'string'
  check(ok, side, 'round 1 was not an InputRequiredResult with one elicitation and a requestState', firstBody)
  const second = await handler(
    toolCall(id + 1, 'deploy', { arguments: ARGS, inputResponses: ANSWER, requestState: state }),
  )
  const secondBody = await second.text()
  check(
    second.status === 200 &&
      secondBody.includes('"text":"deployed to prod"') &&
      secondBody.includes('"resultType":"complete"'),
    side,
    'round 2 did not complete',
    `${second.status} ${secondBody}`,
  )
}

/** Before timing: a tampered requestState must be refused by both protected sides (so state really is checked). */
async function verifyRejectsTampering(side: string, handler: Handler): Promise<void> {
  const asked = JSON.parse(await (await handler(toolCall(1, 'deploy', { arguments: ARGS }))).text()) as {
    result: { requestState: string }
  }
  const token = asked.result.requestState
  const tampered = token.slice(0, 10) + (token[10] === 'A' ? 'B' : 'A') + token.slice(11)
  const body = await (
    await handler(toolCall(2, 'deploy', { arguments: ARGS, inputResponses: ANSWER, requestState: tampered }))
  ).text()
  check(body.includes('Invalid or expired requestState'), side, 'a tampered requestState was not refused', body)
}

/** Per side `[1 in flight, 8 in flight]` median flows/s, and the table lines. */
export async function benchMrtr(): Promise<{
  theirs: [number, number]
  ours: [number, number]
  floor: [number, number]
  lines: string[]
}> {
  const sides: Array<[string, Handler]> = [
    ['official SDK 2.4.0 (HMAC codec)', officialHandler()],
    ['edge-mcp', ourHandler()],
    ['floor', floorHandler()],
    ['official SDK 2.4.0 (no protection)', officialHandler({ protectState: false })],
  ]
  for (const [side, handler] of sides.slice(0, 3)) await verifyRejectsTampering(side, handler)
  const ops = sides.map(([side, handler]) => {
    let id = 0
    return () => flow(side, handler, (id += 2))
  })
  const c1 = await measureAll(ops, { warmup: 800, rounds: 7, ms: 300 })
  const c8 = await measureAll(ops, { concurrency: 8, rounds: 7, warmup: 100, ms: 300 })
  const [theirs, ours, floor, raw] = [0, 1, 2, 3].map((i) => [c1[i], c8[i]] as [number, number])
  const r1 = ours[0] / theirs[0]
  const r8 = ours[1] / theirs[1]
  const lines = [
    '### Two-round MRTR flows, in-process',
    '',
    '| two-round MRTR flow, in-process fetch handler (flows/s) | 1 in flight | 8 in flight |',
    '| --- | ---: | ---: |',
    `| official SDK 2.4.0 (state signed: \`createRequestStateCodec\`, HMAC-SHA256, bound to the method) | ${fmt(theirs[0])} | ${fmt(theirs[1])} |`,
    `| edge-mcp (state sealed: AES-256-GCM, bound to method, tool, arguments, audience, time) | ${fmt(ours[0])} | ${fmt(ours[1])} |`,
    `| floor (\`bench/floor.ts\`: raw AES-256-GCM, bound to method, tool and arguments, expiry) | ${fmt(floor[0])} | ${fmt(floor[1])} |`,
    `| official SDK 2.4.0 (its default: state unprotected; info) | ${fmt(raw[0])} | ${fmt(raw[1])} |`,
    `| **ratio** edge-mcp ÷ official with codec (target ≥ 3×) | **${x(r1)}** ${met(r1 >= 3)} | **${x(r8)}** ${met(r8 >= 3)} |`,
    `| ratio edge-mcp ÷ floor (info) | ${x(ours[0] / floor[0])} | ${x(ours[1] / floor[1])} |`,
  ]
  return { theirs, ours, floor, lines }
}
