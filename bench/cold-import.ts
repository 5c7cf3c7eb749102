/**
 * Benchmark: cold import of each one-tool Worker bundle (the exact script `bench/bundle.ts` gets from
 * `wrangler deploy --dry-run --minify`): milliseconds of `await import()` of the bundled module, timed with
 * `performance.now()` inside a fresh Node process (process start excluded), each import of a copy with a
 * unique file name (no module or code cache can be reused), after the child has imported a one-line module (so
 * the ESM loader's own start-up, paid once by any process, is not counted). Candidates are run in turn (interleaved), the
 * median of `runs` counts. After timing, each child calls the module's `fetch` with one `tools/call echo`
 * and the answer is checked (200, JSON, the echoed text), so a bundle that imports but does not work fails.
 * Target: edge-mcp ≤ 5 ms.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import type { Bundle } from './bundle.ts'
import { check, met, x } from './measure.ts'
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

async function requestJson(): Promise<string> {
  const request = toolCall(7, 'echo', { arguments: { text: 'hello' } })
  return JSON.stringify({ url: request.url, headers: Object.fromEntries(request.headers), body: await request.text() })
}

/** One fresh process importing `file`; its import time in ms (throws unless the echo answer is right). */
async function importOnce(side: string, file: string, request: string): Promise<number> {
  const warm = file.replace(/\.mjs$/, '-warm.mjs')
  await writeFile(warm, 'export default 1\n')
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', CHILD], {
    env: {
      ...process.env,
      COLD_URL: pathToFileURL(file).href,
      COLD_WARM: pathToFileURL(warm).href,
      COLD_REQUEST: request,
    },
    timeout: 30_000,
  })
  const out = JSON.parse(stdout) as { ms: number; status: number; type: string | null; body: string }
  const message = JSON.parse(out.body) as { id?: unknown; result?: { content?: unknown; resultType?: unknown } }
  check(
    out.status === 200 &&
      out.type === 'application/json' &&
      message.id === 7 &&
      message.result?.resultType === 'complete' &&
      JSON.stringify(message.result.content) === '[{"type":"text","text":"hello"}]',
    side,
    'the imported Worker did not answer echo with its text',
    out,
  )
  return out.ms
}

const median = (s: number[]) => [...s].sort((a, b) => a - b)[Math.floor(s.length / 2)]
const ms = (n: number) => `${n.toFixed(2)} ms`

/**
 * Median cold-import times of the official, edge-mcp and floor Worker bundles, and the table lines.
 * @param runs - fresh processes per candidate (default 15).
 */
export async function benchColdImport(
  bundles: { theirs: Bundle; ours: Bundle; floor: Bundle },
  runs = 15,
): Promise<{ theirs: number; ours: number; floor: number; lines: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'edge-mcp-cold-'))
  try {
    const request = await requestJson()
    const sides = [
      ['official SDK 2.4.0', bundles.theirs],
      ['edge-mcp', bundles.ours],
      ['floor', bundles.floor],
    ] as const
    const samples: number[][] = sides.map(() => [])
    for (let i = 0; i < runs; i++) {
      for (const [s, [side, bundle]] of sides.entries()) {
        const file = join(dir, `worker-${s}-${i}.mjs`)
        await writeFile(file, bundle.code)
        samples[s].push(await importOnce(side, file, request))
      }
    }
    const [theirs, ours, floor] = samples.map(median) as [number, number, number]
    const lines = [
      '### Cold import of the Worker bundle',
      '',
      `| \`await import()\` of the one-tool Worker bundle, fresh Node process (median of ${runs}) | min | median | max |`,
      '| --- | ---: | ---: | ---: |',
      ...sides.map(
        ([side], s) =>
          `| ${side} | ${ms(Math.min(...samples[s]))} | ${ms(median(samples[s]))} | ${ms(Math.max(...samples[s]))} |`,
      ),
      `| **edge-mcp** (target ≤ 5 ms) | | **${ms(ours)}** ${met(ours <= 5)} | |`,
      `| ratio edge-mcp ÷ official; edge-mcp ÷ floor | | ${x(ours / theirs)}; ${x(ours / floor)} | |`,
    ]
    return { theirs, ours, floor, lines }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
