/**
 * Benchmark: full two-round MRTR flows per second, in-process through each SDK's fetch handler:
 * `tools/call deploy` → `InputRequiredResult` (one form elicitation + `requestState`) → the retry with
 * `inputResponses` and the echoed `requestState` → the final result. Both sides are driven by the same
 * hand-built JSON-RPC (a fresh `Request` per round, the same bytes apart from each server's own token),
 * so the client's share of the cost is identical and only the servers differ; either SDK's `Client`
 * would add its own, different overhead (version discovery, schema validation) to what is measured.
 * requestState: edge-mcp seals (AES-256-GCM, the default); the official SDK signs with its opt-in
 * HMAC-SHA256 codec (its default is no protection at all, shown for information).
 * Target: edge-mcp ≥ 2× the official SDK with its codec.
 */
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

/** Median flows/s (sequential and 32 in flight) and the table lines. */
export async function benchMrtr(): Promise<{ ours: number; theirs: number; lines: string[] }> {
  const sides: Array<[string, Handler]> = [
    ['edge-mcp', ourHandler()],
    ['official SDK 2.4.0 (HMAC codec)', officialHandler()],
    ['official SDK 2.4.0 (no protection)', officialHandler({ protectState: false })],
  ]
  for (const [side, handler] of sides.slice(0, 2)) await verifyRejectsTampering(side, handler)
  const ops = sides.map(([side, handler]) => {
    let id = 0
    return () => flow(side, handler, (id += 2))
  })
  const [ours, theirs, raw] = (await measureAll(ops, { warmup: 1000, rounds: 7 })) as [number, number, number]
  const [oursC, theirsC, rawC] = (await measureAll(ops, { concurrency: 32, rounds: 5, warmup: 100 })) as [
    number,
    number,
    number,
  ]
  const lines = [
    '### Two-round MRTR flows, in-process',
    '',
    '| two-round MRTR flow, in-process fetch handler (flows/s) | sequential | 32 in flight |',
    '| --- | ---: | ---: |',
    `| edge-mcp (state sealed: AES-256-GCM, bound to tool + arguments) | ${fmt(ours)} | ${fmt(oursC)} |`,
    `| official SDK 2.4.0 (state signed: \`createRequestStateCodec\`, HMAC-SHA256) | ${fmt(theirs)} | ${fmt(theirsC)} |`,
    `| official SDK 2.4.0 (its default: state unprotected; info) | ${fmt(raw)} | ${fmt(rawC)} |`,
    `| **ratio** edge-mcp ÷ official with codec (target ≥ 2×) | **${x(ours / theirs)}** ${met(ours / theirs >= 2)} | ${x(oursC / theirsC)} ${met(oursC / theirsC >= 2)} |`,
    `| ratio edge-mcp ÷ official unprotected (info) | ${x(ours / raw)} | ${x(oursC / rawC)} |`,
  ]
  return { ours, theirs, lines }
}
