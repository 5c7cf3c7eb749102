/**
 * `npm run bench`: every benchmark, measured against the official SDK 2.4.0 in the same run — in-process
 * `tools/call` throughput, two-round MRTR flows, the one-tool Worker bundle, the browser client bundle, and
 * the requestState codec.
 * Prints a summary table with the ratios and targets, then each benchmark's own table. A side that
 * errors fails its benchmark with the reason (the others still run) and the process exits 1.
 */
import { availableParallelism, loadavg } from 'node:os'
import { benchBrowserBundle } from './browser-bundle.ts'
import { benchBundle } from './bundle.ts'
import { fmt, met, x } from './measure.ts'
import { benchMrtr } from './mrtr.ts'
import { benchRequestState } from './request-state.ts'
import { benchThroughput } from './throughput.ts'

interface Outcome {
  summary?: string
  lines: string[]
}

const failures: string[] = []
const started = performance.now()
const cpus = availableParallelism()
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
const loadAtStart = load()

async function attempt(name: string, fn: () => Promise<Outcome>): Promise<Outcome> {
  const t0 = performance.now()
  try {
    const outcome = await fn()
    console.error(`  ${name}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    return outcome
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    failures.push(`${name}: ${reason}`)
    console.error(`  ${name}: FAILED — ${reason}`)
    return { summary: `| ${name} | — | — | — | — | **failed** |`, lines: [`### ${name}`, '', `FAILED: ${reason}`] }
  }
}

console.error(`npm run bench — Node ${process.version}, ${cpus} CPUs, load average ${loadAtStart}`)
const results = [
  await attempt('tools/call throughput', async () => {
    const r = await benchThroughput()
    return {
      summary: `| \`tools/call\` req/s, in-process (sequential) | ${fmt(r.ours)} | ${fmt(r.theirs)} | ${x(r.ours / r.theirs)} | ≥ 2× | ${met(r.ours / r.theirs >= 2)} |`,
      lines: r.lines,
    }
  }),
  await attempt('MRTR flows', async () => {
    const r = await benchMrtr()
    return {
      summary: `| two-round MRTR flows/s, in-process (sequential) | ${fmt(r.ours)} | ${fmt(r.theirs)} | ${x(r.ours / r.theirs)} | ≥ 2× | ${met(r.ours / r.theirs >= 2)} |`,
      lines: r.lines,
    }
  }),
  await attempt('Worker bundle', async () => {
    const r = await benchBundle()
    const ratio = r.ours.gzipped / r.theirs.gzipped
    return {
      summary: [
        `| one-tool Worker, minified + gzipped bytes | ${fmt(r.ours.gzipped)} | ${fmt(r.theirs.gzipped)} | ${x(ratio)} | ≤ 0.33× | ${met(ratio <= 1 / 3)} |`,
        `| same Worker with OAuth (\`jwtVerifier\`, jose), minified + gzipped bytes | ${fmt(r.oauth.gzipped)} | — | — | info (+${fmt(r.oauth.gzipped - r.ours.gzipped)}) | |`,
      ].join('\n'),
      lines: r.lines,
    }
  }),
  await attempt('browser bundle', async () => {
    const r = await benchBrowserBundle()
    const ratio = r.ours.gzipped / r.theirs.gzipped
    return {
      summary: `| browser client (\`Client\` + transport + elicitation), minified + gzipped bytes | ${fmt(r.ours.gzipped)} | ${fmt(r.theirs.gzipped)} | ${x(ratio)} | ≤ 0.25× | ${met(ratio <= 1 / 4)} |`,
      lines: r.lines,
    }
  }),
  await attempt('requestState codec', async () => {
    const r = await benchRequestState()
    const [ours, theirs] = [r.rows[1].opsPerSec, r.rows[3].opsPerSec]
    return {
      summary: `| requestState codec seal+unseal ops/s, 1 KiB (sequential) | ${fmt(ours)} | ${fmt(theirs)} | ${x(ours / theirs)} | > 1× | ${met(ours > theirs)} |`,
      lines: r.lines,
    }
  }),
]

const lines = [
  `## edge-mcp vs official SDK 2.4.0 (Node ${process.version}, ${cpus} CPUs, load average ${loadAtStart} at start, ${load()} at end; medians of interleaved windows)`,
  '',
  '| benchmark | edge-mcp | official SDK | ratio | target | |',
  '| --- | ---: | ---: | ---: | --- | --- |',
  ...results.flatMap((r) => (r.summary ? [r.summary] : [])),
  '',
  ...results.flatMap((r) => [...r.lines, '']),
]
console.log(lines.join('\n'))
console.error(`  total ${((performance.now() - started) / 1000).toFixed(0)} s`)
if (failures.length > 0) {
  console.error(`\n${failures.length} benchmark(s) failed:\n${failures.map((f) => `  - ${f}`).join('\n')}`)
  process.exitCode = 1
}
