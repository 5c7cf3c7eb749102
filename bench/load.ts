/**
 * `npm run load`: many concurrent two-round flows against the demo Worker (worker/index.ts) under
 * `wrangler dev` on loopback, then the figures: completed, failed, crossed, latency percentiles of whole
 * flows, throughput, and the workerd process's memory before and after.
 *
 *   npm run load                                      # 1,000 flows at once (one-shot)
 *   npm run load -- --minutes 10 --concurrency 8      # soak: 8 in flight for 10 minutes, a line every 30 s
 *   npm run load -- --era 2025 --concurrency 100      # 2025-11-25 clients (sessions, questions over SSE)
 *   npm run load -- --url http://127.0.0.1:8787/mcp   # a server already running (no memory figures)
 *
 * One flow is edge-mcp's own `Client` (src/client; a fresh one per flow, so no state is shared between
 * flows) calling the demo's `provision` tool with a random nonce as its `name`. Round 1 asks which
 * region (a form elicitation); the flow answers with a region of its own, random too, and round 2 must
 * return `Provisioned '<nonce>' in <region>.` — a result naming another nonce or region is a flow that
 * received another flow's result or answer (crossed). 2026: `tools/call` → `InputRequiredResult` → the
 * retry with `inputResponses` and the sealed `requestState`. 2025: `initialize` (a sealed session),
 * `tools/call` answered over SSE, the server's `elicitation/create` on that stream, the answer POSTed
 * (and carried to the waiting question by the Durable Object mailbox when needed), the result on the
 * stream; then the session is closed (not timed). The SDK's `Client` is what real clients run, and it
 * speaks both eras; its overhead is in the figures (client and server share this machine).
 *
 * Bounded: at most 5,000 flows in flight, a per-flow timeout, a hard limit on the whole run, and
 * `wrangler dev` (its own process group) is killed at the end, on failure and on Ctrl-C.
 */
import { setMaxListeners } from 'node:events'
import { Agent } from 'undici'
import { Client, StreamableHttpClientTransport } from '../src/client/index.ts'
import {
  judgeFlow,
  LoadStats,
  mib,
  parseLoadArgs,
  PROVISION_QUESTION,
  USAGE,
  type FlowObservation,
  type FlowVerdict,
  type LoadOptions,
} from './load-lib.ts'
import { startDevServer, workerdMemory, type DevServer, type WorkerdMemory } from './load-server.ts'

/** `Name: message (cause: …)`, following `cause` two levels deep (undici's `fetch failed` hides the reason there). */
function describe(error: unknown): string {
  let text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  let cause = error instanceof Error ? error.cause : undefined
  for (let depth = 0; depth < 2 && cause instanceof Error; depth++, cause = cause.cause) {
    const code = (cause as { code?: unknown }).code
    text += ` (cause: ${typeof code === 'string' ? `${code} ` : ''}${cause.message})`
  }
  return text.slice(0, 300)
}

/** Warnings of the flows' clients (e.g. an answer that could not be sent), counted instead of printed. */
const warnings = new Map<string, number>()

const nonce = () => Buffer.from(crypto.getRandomValues(new Uint8Array(12))).toString('hex')

/** One two-round flow; its verdict and how long it took (ms, the close of a 2025 session not included). */
async function runFlow(
  url: string,
  era: '2026' | '2025',
  timeoutMs: number,
  stop: AbortSignal,
  keepAlive = false,
): Promise<{ verdict: FlowVerdict; ms: number }> {
  const expected = { nonce: nonce(), answer: `region-${nonce()}` }
  const seen: FlowObservation = { questions: 0, strangeQuestions: 0 }
  // Its own connection pool, as a separate client would have; by default a fresh connection per request
  // (`--keep-alive`: reused within the flow, never across flows). Reused connections failed under load
  // behind wrangler dev: ~20% of 1,000 flows with `other side closed` / ECONNRESET when one pool served all
  // flows, and still ~7% with HTTP 503 from wrangler's proxy Worker (its own hop to the Worker lost the
  // connection) with a pool per flow — a POST is not retried. With fresh connections the same runs were clean.
  const pool = new Agent(keepAlive ? {} : { pipelining: 0 })
  const client = new Client({
    transport: new StreamableHttpClientTransport(url, {
      fetch: (request) => fetch(request, { dispatcher: pool } as RequestInit),
    }),
    clientInfo: { name: 'edge-mcp-load', version: '0.1.0' },
    versionNegotiation: era === '2026' ? 'modern' : 'legacy',
    requestTimeoutMs: timeoutMs,
    maxRounds: 3,
    onWarning: (message) => {
      const key = message.replace(/[0-9a-f]{16,}|:\d{2,5}\//g, '…').slice(0, 200)
      if (warnings.has(key) || warnings.size < 20) warnings.set(key, (warnings.get(key) ?? 0) + 1)
    },
    elicitation: (params, ctx) => {
      seen.questions++
      if (ctx.target !== 'provision' || params.message !== PROVISION_QUESTION) seen.strangeQuestions++
      return { action: 'accept', content: { region: expected.answer } }
    },
  })
  // one controller per flow, its timer cleared and its listener on `stop` removed when the flow ends (not
  // AbortSignal.timeout + AbortSignal.any: Node 20 keeps those alive for the timeout, or for as long as `stop`)
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort(new Error(`timed out after ${timeoutMs} ms`))
  }, timeoutMs)
  const onStop = () => controller.abort(stop.reason)
  stop.addEventListener('abort', onStop, { once: true })
  const t0 = performance.now()
  try {
    const result = await client.callTool('provision', { name: expected.nonce }, { signal: controller.signal })
    const first = result.content[0]
    if (first?.type === 'text') seen.resultText = first.text
    seen.isError = result.isError === true
  } catch (error) {
    seen.error = timedOut ? `timed out after ${timeoutMs} ms` : stop.aborted ? 'stopped' : describe(error)
  } finally {
    clearTimeout(timer)
    stop.removeEventListener('abort', onStop)
  }
  const ms = performance.now() - t0
  if (era === '2025') {
    await Promise.race([client.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000).unref())])
  }
  await pool.destroy().catch(() => {})
  return { verdict: judgeFlow(expected, seen), ms }
}

const memoryLine = (m: WorkerdMemory | undefined) =>
  m
    ? `workerd RSS ${mib(m.rssBytes)} (${m.pids.map((pid, i) => `${pid}: ${mib(m.eachBytes[i])}`).join(', ')}; peak ${mib(m.peakBytes)})`
    : 'workerd RSS n/a'
const clientRss = () => `load client RSS ${mib(process.memoryUsage().rss)}`

async function main(options: LoadOptions): Promise<number> {
  const stop = new AbortController()
  setMaxListeners(0, stop.signal) // one listener per flow in flight (each removed when its flow ends)
  let timedOut = false
  let interrupted = false
  let server: DevServer | undefined
  const hardLimit = setTimeout(() => {
    timedOut = true
    console.log(`\nhard limit of ${options.timeoutMs / 1000} s reached: stopping`)
    stop.abort()
  }, options.timeoutMs)
  const onSignal = (sig: string) => {
    if (interrupted) {
      server?.kill()
      process.exit(130)
    }
    interrupted = true
    console.log(`\n${sig}: stopping (again to quit at once)`)
    stop.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  const eraOf = (i: number): '2026' | '2025' => (options.era === 'both' ? (i % 2 ? '2025' : '2026') : options.era)
  const stats = new LoadStats()
  const byEra = { '2026': new LoadStats(), '2025': new LoadStats() }
  try {
    let url = options.url
    if (url === undefined) {
      console.log('starting wrangler dev (bench/workers/load.toml: the demo Worker, a random REQUEST_STATE_KEYS)…')
      server = await startDevServer(90_000, stop.signal)
      url = server.url
    }
    // warm-up (not counted): one flow per era, so compilation and first-request costs are not in the figures
    for (const era of options.era === 'both' ? (['2026', '2025'] as const) : [options.era]) {
      const { verdict } = await runFlow(url, era, options.flowTimeoutMs, stop.signal, options.keepAlive)
      if (verdict.kind !== 'completed') throw new Error(`the warm-up flow (${era}) ${verdict.kind}: ${verdict.reason}`)
    }
    warnings.clear()
    const before = server ? workerdMemory(server.pid) : undefined
    const soak = options.minutes !== undefined
    console.log(
      `${url}: era ${options.era}, ${options.concurrency} in flight, ` +
        (soak ? `soak for ${options.minutes} min` : `${options.flows} flows`) +
        `, flow timeout ${options.flowTimeoutMs / 1000} s` +
        (options.keepAlive ? ', keep-alive' : '') +
        (options.rampMs > 0 ? `, starts spread over ${options.rampMs / 1000} s` : '') +
        (server ? `; workerd pid(s) ${before?.pids.join(',') ?? 'not found'}` : ''),
    )
    console.log(`before: ${memoryLine(before)}; ${clientRss()}`)

    const start = performance.now()
    const endAt = soak ? start + options.minutes! * 60_000 : Infinity
    let next = 0
    const more = () => !stop.signal.aborted && (soak ? performance.now() < endAt : next < options.flows!)
    let inFlight = 0
    let peak = 0
    const worker = async (k: number) => {
      // the first flows' starts spread over --ramp (see LoadOptions.rampMs)
      if (options.rampMs > 0) await new Promise((r) => setTimeout(r, (k * options.rampMs) / options.concurrency))
      while (more()) {
        const i = next++
        const era = eraOf(i)
        peak = Math.max(peak, ++inFlight)
        const { verdict, ms } = await runFlow(url, era, options.flowTimeoutMs, stop.signal, options.keepAlive)
        inFlight--
        if (stop.signal.aborted && verdict.kind === 'failed' && verdict.reason === 'stopped') return
        stats.add(verdict, ms)
        byEra[era].add(verdict, ms)
      }
    }
    let ticker: ReturnType<typeof setInterval> | undefined
    if (soak) {
      ticker = setInterval(() => {
        const s = ((performance.now() - start) / 1000).toFixed(0)
        const mem = server ? memoryLine(workerdMemory(server.pid)) : 'workerd RSS n/a'
        console.log(`[${s} s] ${stats.line(performance.now() - start)}; ${mem}; ${clientRss()}`)
      }, options.intervalS * 1000)
    }
    await Promise.all(Array.from({ length: options.concurrency }, (_, k) => worker(k)))
    clearInterval(ticker)
    const elapsed = performance.now() - start
    const after = server ? workerdMemory(server.pid) : undefined

    console.log(`\nsummary after ${(elapsed / 1000).toFixed(1)} s (${stats.total} flows):`)
    console.log(`  ${stats.line(elapsed)}`)
    console.log(`  peak flows in flight: ${peak}`)
    if (options.era === 'both')
      for (const era of ['2026', '2025'] as const) console.log(`  ${era}: ${byEra[era].line(elapsed)}`)
    console.log(`  before: ${memoryLine(before)}`)
    console.log(`  after:  ${memoryLine(after)}; ${clientRss()}`)
    for (const [reason, count] of [...stats.reasons].sort((a, b) => b[1] - a[1]).slice(0, 10))
      console.log(`  ${count} × ${reason}`)
    for (const [warning, count] of warnings) console.log(`  client warning, ${count} ×: ${warning}`)
    if (interrupted) {
      console.log('interrupted')
      return 130
    }
    if (timedOut) {
      console.log('NOT CLEAN: the hard limit stopped the run')
      return 1
    }
    if (!stats.clean && server) {
      const said = new Map<string, number>()
      for (const line of server.output().split('\n')) {
        // eslint-disable-next-line no-control-regex
        const text = line.replace(/\x1b\[[0-9;]*m/g, '').trim()
        if (text && !text.startsWith('stack:')) said.set(text.slice(0, 200), (said.get(text.slice(0, 200)) ?? 0) + 1)
      }
      for (const [text, count] of [...said].sort((a, b) => b[1] - a[1]).slice(0, 8))
        console.log(`  wrangler dev said, ${count} ×: ${text}`)
    }
    console.log(stats.clean ? 'clean' : 'NOT CLEAN')
    return stats.clean ? 0 : 1
  } catch (error) {
    console.error(`load: ${error instanceof Error ? error.message : String(error)}`)
    return interrupted ? 130 : 1
  } finally {
    clearTimeout(hardLimit)
    await server?.stop()
  }
}

const parsed = parseLoadArgs(process.argv.slice(2))
if (typeof parsed === 'string') {
  console.error(`load: ${parsed}\n${USAGE}`)
  process.exit(2)
}
if (parsed.help) {
  console.log(USAGE)
  process.exit(0)
}
process.exit(await main(parsed))
