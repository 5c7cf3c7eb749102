/**
 * `npm run fuzz -- [--runs N] [--seed S] [--only a,b] [--path P]`: the fuzz properties of test/fuzz-*.test.ts,
 * as many runs of each as asked (default 1000). Prints, per property, the runs made, whether it failed,
 * and the time taken; on a failure fast-check's report (counterexample, seed, path) and a command that
 * replays it. Exits 1 when any property failed.
 */
import fc from 'fast-check'
import { ALL_PROPERTIES } from './properties.ts'

function option(name: string): string | undefined {
  const args = process.argv.slice(2)
  const at = args.indexOf(`--${name}`)
  if (at >= 0) return args[at + 1]
  return args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
}

const runs = Number(option('runs') ?? 1000)
if (!(Number.isInteger(runs) && runs > 0)) {
  console.error(`--runs must be a positive integer, got ${option('runs')}`)
  process.exit(2)
}
const seed = option('seed') === undefined ? Date.now() ^ Math.floor(Math.random() * 2 ** 31) : Number(option('seed'))
const path = option('path')
const only = option('only')?.split(',')
const chosen = only ? ALL_PROPERTIES.filter((p) => only.includes(p.name)) : ALL_PROPERTIES
if (chosen.length === 0) {
  console.error(`no property named ${only?.join(', ')}; there are: ${ALL_PROPERTIES.map((p) => p.name).join(', ')}`)
  process.exit(2)
}

console.log(`fuzz: ${chosen.length} properties, ${runs} runs each, seed ${seed}`)
const started = performance.now()
let failures = 0
for (const p of chosen) {
  const t0 = performance.now()
  const params: fc.Parameters<never> = { numRuns: runs, seed }
  if (path !== undefined) params.path = path
  const details = await fc.check(p.property(), params)
  const seconds = (performance.now() - t0) / 1000
  const verdict = details.failed ? 'FAILED' : 'ok'
  console.log(
    `${p.name.padEnd(18)} ${verdict.padEnd(6)} ${String(details.numRuns).padStart(7)} runs  ${seconds.toFixed(1).padStart(7)} s  ` +
      `(${Math.round(details.numRuns / seconds)} runs/s)`,
  )
  if (details.failed) {
    failures++
    console.log(fc.defaultReportMessage(details))
    const error = details.errorInstance
    console.log(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    console.log(`replay: npm run fuzz -- --only ${p.name} --seed ${details.seed} --path ${details.counterexamplePath}`)
  }
}
const total = (performance.now() - started) / 1000
console.log(`fuzz: ${failures} of ${chosen.length} properties failed, seed ${seed}, ${total.toFixed(1)} s in all`)
process.exit(failures > 0 ? 1 : 0)
