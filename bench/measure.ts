/** Shared timing and formatting for the benchmarks in `bench/` (run by `npm run bench`). */

/**
 * Ops/s of each candidate, measured in interleaved windows (so drift hits every candidate alike):
 * `rounds` windows of `ms` milliseconds each per candidate after `warmup` operations per candidate,
 * `concurrency` operations in flight; the median window counts. A candidate that throws fails the run.
 */
export async function measureAll(
  candidates: Array<() => Promise<unknown>>,
  { ms = 400, rounds = 9, warmup = 1500, concurrency = 1 } = {},
): Promise<number[]> {
  for (const fn of candidates) for (let i = 0; i < warmup; i++) await fn()
  const samples: number[][] = candidates.map(() => [])
  for (let r = 0; r < rounds; r++) {
    for (const [c, fn] of candidates.entries()) {
      let ops = 0
      const start = performance.now()
      let now = start
      while (now - start < ms) {
        const batch: Promise<unknown>[] = []
        for (let i = 0; i < concurrency; i++) batch.push(fn())
        await Promise.all(batch)
        ops += concurrency
        if (concurrency === 1) for (let i = 0; i < 49; i++, ops++) await fn()
        now = performance.now()
      }
      samples[c].push((ops * 1000) / (now - start))
    }
  }
  return samples.map((s) => s.sort((a, b) => a - b)[Math.floor(s.length / 2)])
}

/** `12,345` */
export const fmt = (n: number): string => Math.round(n).toLocaleString('en-US')
/** `2.31×` */
export const x = (n: number): string => `${n.toFixed(2)}×`
/** `met` or `**missed**` (a missed target is printed, never hidden). */
export const met = (ok: boolean): string => (ok ? 'met' : '**missed**')

/** Throw a clear error naming the side and what it answered when a benchmark sanity check fails. */
export function check(ok: boolean, side: string, what: string, got: unknown): asserts ok {
  if (!ok) throw new Error(`${side}: ${what}; got ${typeof got === 'string' ? got.slice(0, 500) : JSON.stringify(got)}`)
}

/**
 * The JSON-RPC message answering `id` in a JSON or SSE body (SSE: the `data:` line holding that id).
 * @throws Error naming the side when the body is neither, or the SSE stream holds no message with that id.
 */
export function answer(side: string, type: string | null, body: string, id: number): Record<string, unknown> {
  const parse = (text: string) => JSON.parse(text) as Record<string, unknown>
  if (type?.startsWith('text/event-stream')) {
    for (const line of body.split('\n')) {
      if (!line.startsWith('data:')) continue
      const message = parse(line.slice(5))
      if (message.id === id) return message
    }
    check(false, side, `the SSE answer holds no message with id ${id}`, body)
  }
  check(type?.startsWith('application/json') === true, side, 'answered neither JSON nor SSE', `${type} ${body}`)
  return parse(body)
}
