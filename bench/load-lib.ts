/**
 * The pure parts of `npm run load` (bench/load.ts): the command line, how one flow is judged (completed,
 * failed, or crossed — it received another flow's answer or result), percentiles and the printed figures.
 * No I/O here, so test/bench/load-lib.test.ts checks it directly.
 */

/** Which protocol era the flows speak: 2026-07-28 (stateless, MRTR), 2025-11-25 (session + SSE), or alternating. */
export type LoadEra = '2026' | '2025' | 'both'

/** What `npm run load -- …` asked for. */
export interface LoadOptions {
  /** Flows in flight at once (1–5,000). Default 1,000 in one-shot mode, 8 in soak mode. */
  concurrency: number
  /** One-shot mode: flows to run in all (default: `concurrency`). Unset in soak mode. */
  flows?: number
  /** Soak mode: run flows continuously for this many **minutes** (0 < M ≤ 120). */
  minutes?: number
  /** Soak mode: seconds between progress lines (1–600, default 30). */
  intervalS: number
  era: LoadEra
  /** An MCP endpoint already running (e.g. `http://127.0.0.1:8787/mcp`); unset: start `wrangler dev`. */
  url?: string
  /** Longest one flow may take, in **ms** (default 60,000); then it counts as failed. */
  flowTimeoutMs: number
  /** Hard limit on the whole run, in **ms** (default 600 s one-shot; soak: its minutes + 120 s). */
  timeoutMs: number
  /** Reuse each flow's connections for its later requests (default: a fresh connection per request). */
  keepAlive: boolean
  /**
   * The first flows' starts are spread over this many **ms** (0–60,000; default 1,000): wrangler dev's proxy
   * answers some of a thousand POSTs that arrive in the same instant with 503 "Your worker restarted
   * mid-request" (a broken pipe between its proxy and the Worker), which a deployed Worker never sees.
   */
  rampMs: number
  help: boolean
}

export const USAGE = `usage: npm run load -- [options]
  (no options)          1,000 concurrent two-round flows against the demo Worker under wrangler dev
  --concurrency N       flows in flight at once (1-5000; default 1000, or 8 with --minutes)
  --flows N             one-shot: flows in all (default: the concurrency)
  --minutes M           soak: run flows continuously for M minutes (up to 120), a line every --interval s
  --interval S          soak: seconds between progress lines (default 30)
  --era 2026|2025|both  protocol era of the flows (default 2026; both alternates)
  --url URL             target this running MCP endpoint instead of starting wrangler dev
  --flow-timeout S      a flow taking longer fails (default 60)
  --timeout S           hard limit on the whole run (default 600; soak: minutes*60 + 120)
  --keep-alive          reuse each flow's connections (default: a fresh connection per request)
  --ramp S              spread the first flows' starts over S seconds (0-60, default 1; 0: all at once)
Exits 1 when any flow failed or crossed (or none completed), 2 on bad options, 130 on Ctrl-C.`

/** Parse the command line (the arguments after `npm run load --`); an error message instead of throwing. */
export function parseLoadArgs(args: readonly string[]): LoadOptions | string {
  const seen = new Map<string, string>()
  let help = false
  let keepAlive = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (arg === '--help' || arg === '-h') {
      help = true
      continue
    }
    if (arg === '--keep-alive') {
      keepAlive = true
      continue
    }
    const eq = arg.indexOf('=')
    const [name, inline] = eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined]
    if (!FLAGS.has(name)) return `unknown option ${arg}`
    const value = inline ?? args[++i]
    if (value === undefined || value === '') return `${name} needs a value`
    if (seen.has(name)) return `${name} given twice`
    seen.set(name, value)
  }
  const number = (name: string, min: number, max: number, integer: boolean): number | string | undefined => {
    const text = seen.get(name)
    if (text === undefined) return undefined
    const n = Number(text)
    if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max || (min === 0 && n === 0))
      return `${name} must be ${integer ? 'an integer' : 'a number'} ${min === 0 ? 'above 0' : `from ${min}`} up to ${max}, got '${text}'`
    return n
  }
  const concurrency = number('--concurrency', 1, 5000, true)
  const flows = number('--flows', 1, 1_000_000, true)
  const minutes = number('--minutes', 0, 120, false)
  const interval = number('--interval', 1, 600, false)
  const flowTimeout = number('--flow-timeout', 1, 600, false)
  const timeout = number('--timeout', 1, 3 * 3600, false)
  const ramp = seen.get('--ramp') === '0' ? 0 : number('--ramp', 0, 60, false)
  for (const v of [concurrency, flows, minutes, interval, flowTimeout, timeout, ramp])
    if (typeof v === 'string') return v
  const era = seen.get('--era') ?? '2026'
  if (era !== '2026' && era !== '2025' && era !== 'both') return `--era must be 2026, 2025 or both, got '${era}'`
  if (minutes !== undefined && flows !== undefined) return '--flows and --minutes exclude each other'
  if (minutes === undefined && interval !== undefined) return '--interval applies only with --minutes'
  const url = seen.get('--url')
  if (url !== undefined) {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return `--url is not a URL: '${url}'`
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `--url must be http(s), got '${url}'`
  }
  const soak = minutes !== undefined
  const c = (concurrency as number | undefined) ?? (soak ? 8 : 1000)
  const options: LoadOptions = {
    concurrency: c,
    intervalS: (interval as number | undefined) ?? 30,
    era,
    flowTimeoutMs: ((flowTimeout as number | undefined) ?? 60) * 1000,
    timeoutMs: ((timeout as number | undefined) ?? (soak ? (minutes as number) * 60 + 120 : 600)) * 1000,
    keepAlive,
    rampMs: ((ramp as number | undefined) ?? 1) * 1000,
    help,
  }
  if (soak) options.minutes = minutes as number
  else options.flows = (flows as number | undefined) ?? c
  if (url !== undefined) options.url = url
  return options
}

const FLAGS = new Set([
  '--concurrency',
  '--flows',
  '--minutes',
  '--interval',
  '--era',
  '--url',
  '--flow-timeout',
  '--timeout',
  '--ramp',
])

// ---------------------------------------------------------------- one flow

/** The demo's `provision` tool: round 1 asks this question, round 2 answers `Provisioned '<name>' in <region>.` */
export const PROVISION_QUESTION = 'Which region should the database live in?'
const PROVISION_RESULT = /^Provisioned '([^']*)' in (.*)\.$/

/** What one flow sent: its nonce (the tool's `name` argument) and its answer (the `region` it gave in round 2). */
export interface FlowExpectation {
  nonce: string
  answer: string
}

/** What one flow saw. */
export interface FlowObservation {
  /** Questions put to this flow's elicitation callback (exactly one is right). */
  questions: number
  /** Questions whose text or target (tool name) was not `provision`'s. */
  strangeQuestions: number
  /** The result's text, when a result came. */
  resultText?: string
  /** The result's `isError`. */
  isError?: boolean
  /** The error thrown instead of a result. */
  error?: string
}

/** The verdict on one flow. */
export type FlowVerdict = { kind: 'completed' } | { kind: 'crossed' | 'failed'; reason: string }

/**
 * Judge a flow. Crossed: the result is a `provision` result but names another nonce or another region than
 * this flow sent — it carries another flow's arguments or answer. Failed: an error, a timeout, `isError`,
 * an unexpected result, or not exactly one (`provision`) question. Completed: everything matched.
 */
export function judgeFlow(expected: FlowExpectation, seen: FlowObservation): FlowVerdict {
  const match = seen.resultText === undefined ? null : PROVISION_RESULT.exec(seen.resultText)
  if (match && !seen.isError) {
    const [, name, region] = match
    const wrong = [
      name !== expected.nonce && `nonce ${name} instead of ${expected.nonce}`,
      region !== expected.answer && `answer ${region} instead of ${expected.answer}`,
    ].filter(Boolean)
    if (wrong.length) return { kind: 'crossed', reason: wrong.join(', ') }
  }
  if (seen.error !== undefined) return { kind: 'failed', reason: seen.error }
  if (seen.strangeQuestions > 0) return { kind: 'failed', reason: 'asked a question that is not provision’s' }
  if (seen.questions !== 1) return { kind: 'failed', reason: `asked ${seen.questions} questions, not 1` }
  if (seen.isError) return { kind: 'failed', reason: `isError result: ${seen.resultText ?? ''}`.slice(0, 200) }
  if (!match) return { kind: 'failed', reason: `unexpected result: ${String(seen.resultText)}`.slice(0, 200) }
  return { kind: 'completed' }
}

// ---------------------------------------------------------------- figures

/** The p-th percentile (0 < p ≤ 100) of ascending `sorted`, nearest-rank; NaN for an empty list. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]
}

/** Running counts and latencies (ms, of completed flows) of a load run. */
export class LoadStats {
  completed = 0
  failed = 0
  crossed = 0
  readonly latenciesMs: number[] = []
  /** Failure and crossing reasons with their counts (first 50 distinct kept). */
  readonly reasons = new Map<string, number>()

  add(verdict: FlowVerdict, latencyMs: number): void {
    if (verdict.kind === 'completed') {
      this.completed++
      this.latenciesMs.push(latencyMs)
      return
    }
    if (verdict.kind === 'crossed') this.crossed++
    else this.failed++
    const key = `${verdict.kind}: ${verdict.reason.replace(/[0-9a-f]{16,}/g, '…')}`
    if (this.reasons.has(key) || this.reasons.size < 50) this.reasons.set(key, (this.reasons.get(key) ?? 0) + 1)
  }

  get total(): number {
    return this.completed + this.failed + this.crossed
  }

  /** p50/p90/p99/max of completed flows, in ms. */
  latency(): { p50: number; p90: number; p99: number; max: number } {
    const sorted = [...this.latenciesMs].sort((a, b) => a - b)
    return {
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: percentile(sorted, 100),
    }
  }

  /** One line: counts, latency percentiles (ms) and completed flows per second over `elapsedMs`. */
  line(elapsedMs: number): string {
    const l = this.latency()
    const ms = (n: number) => (Number.isNaN(n) ? '-' : n.toFixed(0))
    const rate = elapsedMs > 0 ? (this.completed * 1000) / elapsedMs : 0
    return (
      `completed ${this.completed}, failed ${this.failed}, crossed ${this.crossed}; ` +
      `latency ms p50 ${ms(l.p50)} p90 ${ms(l.p90)} p99 ${ms(l.p99)} max ${ms(l.max)}; ` +
      `throughput ${rate.toFixed(1)} flows/s`
    )
  }

  /** Whether the run is clean: something completed, nothing failed or crossed. */
  get clean(): boolean {
    return this.completed > 0 && this.failed === 0 && this.crossed === 0
  }
}

/** `123.4 MiB` for a byte count; `n/a` when unknown. */
export function mib(bytes: number | undefined): string {
  return bytes === undefined ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}
