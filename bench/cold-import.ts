/**
 * Benchmark: cold import of each one-tool Worker bundle (the exact script `bench/bundle.ts` gets from
 * `wrangler deploy --dry-run --minify`): milliseconds of `await import()` of the bundled module, timed with
 * `performance.now()` inside a fresh Node process (process start excluded), each import of a copy with a
 * unique file name (no module or code cache can be reused), after the child has imported a one-line module (so
 * the ESM loader's own start-up, paid once by any process, is not counted). Candidates are run in turn (interleaved), the
 * median of `runs` counts. After timing, each child calls the module's `fetch` with one `tools/call echo`
 * and the answer is checked (200, JSON — SSE for the peers, which answer that way —, the echoed text), so a
 * bundle that imports but does not work fails. The peers (tmcp, mcp-lite) are timed beside the others when
 * they bundled; mcp-lite, which has no 2026 wire, answers a stateless 2025 `tools/call`.
 * Target: edge-mcp ≤ 5 ms.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import type { Bundle } from './bundle.ts'
import { answer, check, met, x } from './measure.ts'
import { toolCall } from './servers.ts'

const run = promisify(execFile)

/**
 * The child: import a one-line module first (so the ESM loader's own start-up is not counted), time the
 * import of the bundle, then answer one request; print both as JSON.
 */
const CHILD = `
await import(process.env.COLD_WARM)
const t0 = performance.now()
const mod = await import(process.env.COLD_URL)
const ms = performance.now() - t0
const r = JSON.parse(process.env.COLD_REQUEST)
const response = await mod.default.fetch(new Request(r.url, { method: 'POST', headers: r.headers, body: r.body }))
const body = await response.text()
process.stdout.write(JSON.stringify({ ms, status: response.status, type: response.headers.get('content-type'), body }))
`

/** The bench's 2026-07-28 `tools/call echo` request, as the child rebuilds it. */
async function modernRequest(): Promise<string> {
  const request = toolCall(7, 'echo', { arguments: { text: 'hello' } })
  return JSON.stringify({ url: request.url, headers: Object.fromEntries(request.headers), body: await request.text() })
}

/**
 * A 2025-era `tools/call echo` for a stateless server with no 2026 wire (mcp-lite): no session, the
 * `MCP-Protocol-Version` it negotiates for a 2025-11-25 offer (2025-03-26).
 */
function legacyRequest(version: string): string {
  return JSON.stringify({
    url: 'http://localhost/mcp',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hello' } },
    }),
  })
}

/** One candidate: its bundle, the request the child sends, and the content type its answer must have. */
interface Candidate {
  side: string
  bundle: Bundle
  request: string
  wire: '2026' | '2025'
  type: 'application/json' | 'text/event-stream'
}

/** One fresh process importing `file`; its import time in ms (throws unless the echo answer is right). */
async function importOnce(c: Candidate, file: string): Promise<number> {
  const warm = file.replace(/\.mjs$/, '-warm.mjs')
  await writeFile(warm, 'export default 1\n')
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', CHILD], {
    env: {
      ...process.env,
      COLD_URL: pathToFileURL(file).href,
      COLD_WARM: pathToFileURL(warm).href,
      COLD_REQUEST: c.request,
    },
    timeout: 30_000,
  })
  const out = JSON.parse(stdout) as { ms: number; status: number; type: string | null; body: string }
  check(out.status === 200 && out.type?.startsWith(c.type) === true, c.side, `did not answer 200 ${c.type}`, out)
  const message = answer(c.side, out.type, out.body, 7) as { result?: { content?: unknown; resultType?: unknown } }
  check(
    message.result !== undefined &&
      (c.wire === '2025' || message.result.resultType === 'complete') &&
      JSON.stringify(message.result.content) === '[{"type":"text","text":"hello"}]',
    c.side,
    'the imported Worker did not answer echo with its text',
    out,
  )
  return out.ms
}

const median = (s: number[]) => [...s].sort((a, b) => a - b)[Math.floor(s.length / 2)]
const ms = (n: number) => `${n.toFixed(2)} ms`

/**
 * Median cold-import times of the official, edge-mcp and floor Worker bundles, and of the peers' (tmcp,
 * mcp-lite) when they bundled (a reason string otherwise: printed, not timed), and the table lines.
 * @param runs - fresh processes per candidate (default 15).
 */
export async function benchColdImport(
  bundles: { theirs: Bundle; ours: Bundle; floor: Bundle; tmcp: Bundle | string; mcpLite: Bundle | string },
  runs = 15,
): Promise<{
  theirs: number
  ours: number
  floor: number
  tmcp: number | undefined
  mcpLite: number | undefined
  lines: string[]
}> {
  const dir = await mkdtemp(join(tmpdir(), 'edge-mcp-cold-'))
  try {
    const modern = await modernRequest()
    const json = 'application/json' as const
    const candidates: Candidate[] = [
      { side: 'official SDK 2.4.0', bundle: bundles.theirs, request: modern, wire: '2026', type: json },
      { side: 'edge-mcp', bundle: bundles.ours, request: modern, wire: '2026', type: json },
      { side: 'floor', bundle: bundles.floor, request: modern, wire: '2026', type: json },
    ]
    if (typeof bundles.tmcp !== 'string')
      candidates.push({
        side: 'tmcp 1.20.0',
        bundle: bundles.tmcp,
        request: modern,
        wire: '2026',
        type: 'text/event-stream',
      })
    if (typeof bundles.mcpLite !== 'string')
      candidates.push({
        side: 'mcp-lite 0.10.0 (answers a 2025 `tools/call`: it has no 2026 wire)',
        bundle: bundles.mcpLite,
        request: legacyRequest('2025-03-26'),
        wire: '2025',
        type: 'text/event-stream',
      })
    const samples: number[][] = candidates.map(() => [])
    for (let i = 0; i < runs; i++) {
      for (const [s, c] of candidates.entries()) {
        const file = join(dir, `worker-${s}-${i}.mjs`)
        await writeFile(file, c.bundle.code)
        samples[s].push(await importOnce(c, file))
      }
    }
    const medians = samples.map(median)
    const [theirs, ours, floor] = medians as [number, number, number]
    const of = (b: Bundle | string) => {
      const i = candidates.findIndex((c) => c.bundle === b)
      return i < 0 ? undefined : medians[i]
    }
    const [tmcp, mcpLite] = [of(bundles.tmcp), of(bundles.mcpLite)]
    const skipped = [
      ['tmcp 1.20.0', bundles.tmcp],
      ['mcp-lite 0.10.0', bundles.mcpLite],
    ].flatMap(([side, b]) => (typeof b === 'string' ? [`| ${side as string}: not bundled (${b}) | | — | |`] : []))
    const vs = (label: string, n: number | undefined) => (n === undefined ? [] : [`edge-mcp ÷ ${label} ${x(ours / n)}`])
    const lines = [
      '### Cold import of the Worker bundle',
      '',
      `| \`await import()\` of the one-tool Worker bundle, fresh Node process (median of ${runs}) | min | median | max |`,
      '| --- | ---: | ---: | ---: |',
      ...candidates.map(
        ({ side }, s) =>
          `| ${side} | ${ms(Math.min(...samples[s]))} | ${ms(median(samples[s]))} | ${ms(Math.max(...samples[s]))} |`,
      ),
      ...skipped,
      `| **edge-mcp** (target ≤ 5 ms) | | **${ms(ours)}** ${met(ours <= 5)} | |`,
      `| ratio edge-mcp ÷ official; edge-mcp ÷ floor | | ${x(ours / theirs)}; ${x(ours / floor)} | |`,
      `| ratio (info) | | ${[...vs('tmcp', tmcp), ...vs('mcp-lite', mcpLite)].join('; ') || '—'} | |`,
    ]
    return { theirs, ours, floor, tmcp, mcpLite, lines }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
