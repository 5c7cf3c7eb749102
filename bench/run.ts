/**
 * `npm run bench`: every benchmark, measured against the official SDK 2.4.0 in the same run, next to a
 * hand-written floor where one exists — in-process `tools/call` throughput and two-round MRTR flows (1 and
 * 8 in flight), the requestState seal+open rate and sealed size, the one-tool Worker bundle and its cold
 * import, and the browser client bundle. The edge-first peers tmcp 1.20.0 and mcp-lite 0.10.0 are measured
 * in the same runs where they apply: `tools/call` on each wire they serve (2026-07-28: tmcp; the 2025 wire
 * after `initialize`: both), and their one-tool Worker's size and cold import.
 * Prints the summary table (one row per target, met/missed), then each benchmark's own table. A
 * side that errors fails its benchmark with the reason (the others still run) and the process exits 1.
 */
import { availableParallelism, loadavg } from 'node:os'
import { benchBrowserBundle } from './browser-bundle.ts'
import { benchBundle, bundle, type Bundle } from './bundle.ts'
import { benchColdImport } from './cold-import.ts'
import { fmt, met, x } from './measure.ts'
import { benchMrtr } from './mrtr.ts'
import { benchRequestState } from './request-state.ts'
import { benchStateSize } from './state-size.ts'
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
    return { summary: `| ${name} | — | — | — | — | — | **failed** |`, lines: [`### ${name}`, '', `FAILED: ${reason}`] }
  }
}

console.error(`npm run bench — Node ${process.version}, ${cpus} CPUs, load average ${loadAtStart}`)
const pair = ([a, b]: [number, number]) => `${fmt(a)} / ${fmt(b)}`
const B = (n: number) => `${fmt(n)} B`
const results = [
  await attempt('tools/call throughput', async () => {
    const r = await benchThroughput()
    const ratios = (a: [number, number], b: [number, number]) => [a[0] / b[0], a[1] / b[1]] as const
    const [r1, r8] = ratios(r.ours, r.theirs)
    const [t1, t8] = ratios(r.ours, r.tmcp)
    const [l1, l8] = ratios(r.legacy.ours, r.legacy.mcpLite)
    const [lt1, lt8] = ratios(r.legacy.ours, r.legacy.tmcp)
    const [lo1, lo8] = ratios(r.legacy.ours, r.legacy.official)
    return {
      summary: [
        `| tools/call, 2026 wire, c=1 / c=8 | ${pair(r.theirs)} req/s | ${pair(r.ours)} | ${pair(r.floor)} | ${x(r1)} / ${x(r8)} | ≥ 4× both | ${met(r1 >= 4 && r8 >= 4)} |`,
        `| tools/call, 2026 wire, vs tmcp 1.20.0, c=1 / c=8 | tmcp ${pair(r.tmcp)} req/s | ${pair(r.ours)} | ${pair(r.floor)} | ${x(t1)} / ${x(t8)} | ≥ 1.5× both | ${met(t1 >= 1.5 && t8 >= 1.5)} |`,
        `| tools/call, 2025 wire, vs mcp-lite 0.10.0, c=1 / c=8 | mcp-lite ${pair(r.legacy.mcpLite)} req/s | ${pair(r.legacy.ours)} | — | ${x(l1)} / ${x(l8)} | ≥ 1.0× both | ${met(l1 >= 1 && l8 >= 1)} |`,
        `| tools/call, 2025 wire, vs tmcp 1.20.0, c=1 / c=8 | tmcp ${pair(r.legacy.tmcp)} req/s | ${pair(r.legacy.ours)} | — | ${x(lt1)} / ${x(lt8)} | info | — |`,
        `| tools/call, 2025 wire, c=1 / c=8 | ${pair(r.legacy.official)} req/s | ${pair(r.legacy.ours)} | — | ${x(lo1)} / ${x(lo8)} | info | — |`,
      ].join('\n'),
      lines: r.lines,
    }
  }),
  await attempt('two-round MRTR flow', async () => {
    const r = await benchMrtr()
    const [r1, r8] = [r.ours[0] / r.theirs[0], r.ours[1] / r.theirs[1]]
    return {
      summary: `| two-round MRTR flow c=1 / c=8 | ${pair(r.theirs)} flows/s | ${pair(r.ours)} | ${pair(r.floor)} | ${x(r1)} / ${x(r8)} | ≥ 3× both | ${met(r1 >= 3 && r8 >= 3)} |`,
      lines: r.lines,
    }
  }),
  await attempt('requestState seal+open', async () => {
    const r = await benchRequestState()
    const [ratio, ofRaw] = [r.ours / r.theirs, r.ours / r.floor]
    return {
      summary: `| requestState seal+open, 1 KiB, with the full policy | ${fmt(r.theirs)} ops/s | ${fmt(r.ours)} | ${fmt(r.floor)} (raw AES-GCM) | ${x(ratio)}; ${Math.round(ofRaw * 100)} % of raw AES-GCM | ≥ 1.2×; ≥ 80 % of raw AES-GCM | ${met(ratio >= 1.2 && ofRaw >= 0.8)} |`,
      lines: r.lines,
    }
  }),
  await attempt('sealed size', async () => {
    const r = await benchStateSize()
    const ratio = r.ours / r.theirs
    return {
      summary: `| sealed size of a 1 KiB state | ${B(r.theirs)} | ${B(r.ours)} | ${B(r.floor)} (bare AES-GCM layer) | ${x(ratio)} | ≤ 1.0× | ${met(ratio <= 1)} |`,
      lines: r.lines,
    }
  }),
  await attempt('one-tool Worker bundle and cold import', async () => {
    const [r, floor] = await Promise.all([benchBundle(), bundle('floor.ts')])
    const cold = await benchColdImport({ theirs: r.theirs, ours: r.ours, floor, tmcp: r.tmcp, mcpLite: r.mcpLite })
    const ms = (n: number) => `${n.toFixed(2)} ms`
    /** One info row per peer: its gzipped Worker and cold import (or why it was not bundled). */
    const peer = (name: string, b: Bundle | string, coldMs: number | undefined) =>
      typeof b === 'string' || coldMs === undefined
        ? `| one-tool Worker vs ${name} | not bundled | ${B(r.ours.gzipped)} | — | — | info | — |`
        : `| one-tool Worker gzip / cold import vs ${name} | ${B(b.gzipped)} / ${ms(coldMs)} | ${B(r.ours.gzipped)} / ${ms(cold.ours)} | — | ${x(r.ours.gzipped / b.gzipped)} / ${x(cold.ours / coldMs)} | info | — |`
    return {
      summary: [
        `| one-tool Worker, gzip | ${B(r.theirs.gzipped)} | ${B(r.ours.gzipped)} | — | ${x(r.ours.gzipped / r.theirs.gzipped)} | ≤ 28,000 B with both eras | ${met(r.ours.gzipped <= 28_000)} |`,
        `| cold import of the Worker bundle | ${ms(cold.theirs)} | ${ms(cold.ours)} | ${ms(cold.floor)} | ${x(cold.ours / cold.theirs)} | ≤ 5 ms | ${met(cold.ours <= 5)} |`,
        peer('tmcp 1.20.0', r.tmcp, cold.tmcp),
        peer('mcp-lite 0.10.0', r.mcpLite, cold.mcpLite),
      ].join('\n'),
      lines: [...r.lines, '', ...cold.lines],
    }
  }),
  await attempt('browser client app bundle', async () => {
    const r = await benchBrowserBundle()
    return {
      summary: [
        `| browser client app, gzip | ${B(r.theirs.gzipped)} | ${B(r.ours.gzipped)} | — | ${x(r.ours.gzipped / r.theirs.gzipped)} | ≤ 16,000 B with both eras | ${met(r.ours.gzipped <= 16_000)} |`,
        `| browser client app with the MCP Apps host, gzip | — | ${B(r.apps.gzipped)} (+${B(r.apps.gzipped - r.ours.gzipped)}) | — | — | growth ≤ 4,000 B | ${met(r.apps.gzipped - r.ours.gzipped <= 4_000)} |`,
      ].join('\n'),
      lines: r.lines,
    }
  }),
]

/** The summary rows, in order (the Worker's two rows come from one benchmark). */
const summaryRows = results.flatMap((r) => (r.summary ? r.summary.split('\n') : []))
const order = ['tools/call', 'two-round', 'requestState', 'sealed size', 'one-tool', 'browser', 'cold import']
const rank = (row: string) => {
  const i = order.findIndex((o) => row.startsWith(`| ${o}`))
  return i < 0 ? order.length : i
}
summaryRows.sort((a, b) => rank(a) - rank(b))

const lines = [
  `## edge-mcp vs official SDK 2.4.0, tmcp 1.20.0, mcp-lite 0.10.0 and the floor (Node ${process.version}, ${cpus} CPUs, load average ${loadAtStart} at start, ${load()} at end; medians of interleaved windows)`,
  '',
  '| benchmark | official (or the peer named) | edge-mcp | floor | edge-mcp ÷ official (or peer) | target | |',
  '| --- | ---: | ---: | ---: | ---: | --- | --- |',
  ...summaryRows,
  '',
  ...results.flatMap((r) => [...r.lines, '']),
]
console.log(lines.join('\n'))
console.error(`  total ${((performance.now() - started) / 1000).toFixed(0)} s`)
if (failures.length > 0) {
  console.error(`\n${failures.length} benchmark(s) failed:\n${failures.map((f) => `  - ${f}`).join('\n')}`)
  process.exitCode = 1
}
