/**
 * The pure parts of `npm run load` (bench/load-lib.ts): the command line, the verdict on one flow
 * (crossing detection) and the percentiles. The load run itself is not part of `npm test`.
 */
import { describe, expect, it } from 'vitest'
import { judgeFlow, LoadStats, parseLoadArgs, percentile, type LoadOptions } from '../../bench/load-lib.ts'

const ok = (args: string[]): LoadOptions => {
  const parsed = parseLoadArgs(args)
  if (typeof parsed === 'string') throw new Error(parsed)
  return parsed
}

describe('parseLoadArgs', () => {
  it('defaults to 1,000 flows at once, one-shot, 2026 era, against a wrangler dev it starts', () => {
    expect(ok([])).toEqual({
      concurrency: 1000,
      flows: 1000,
      intervalS: 30,
      era: '2026',
      flowTimeoutMs: 60_000,
      timeoutMs: 600_000,
      keepAlive: false,
      rampMs: 1000,
      help: false,
    })
  })

  it('--ramp spreads the first starts over S seconds (0: all at once); out of range is an error', () => {
    expect(ok(['--ramp', '0']).rampMs).toBe(0)
    expect(ok(['--ramp', '2.5']).rampMs).toBe(2500)
    expect(parseLoadArgs(['--ramp', '61'])).toMatch(/--ramp must be a number/)
    expect(parseLoadArgs(['--ramp', '-1'])).toMatch(/--ramp must be a number/)
  })

  it('soak: --minutes with concurrency 8 by default, no flow count, a hard limit of minutes + 2', () => {
    const o = ok(['--minutes', '10'])
    expect(o).toMatchObject({ minutes: 10, concurrency: 8, intervalS: 30, timeoutMs: 720_000 })
    expect(o.flows).toBeUndefined()
    expect(ok(['--minutes=0.5', '--concurrency=3', '--interval', '5'])).toMatchObject({
      minutes: 0.5,
      concurrency: 3,
      intervalS: 5,
    })
  })

  it('takes every option in both spellings', () => {
    expect(
      ok([
        '--concurrency',
        '50',
        '--flows=200',
        '--era',
        'both',
        '--url',
        'http://127.0.0.1:8787/mcp',
        '--flow-timeout',
        '5',
        '--timeout=30',
        '--keep-alive',
      ]),
    ).toEqual({
      concurrency: 50,
      flows: 200,
      intervalS: 30,
      era: 'both',
      url: 'http://127.0.0.1:8787/mcp',
      flowTimeoutMs: 5000,
      timeoutMs: 30_000,
      keepAlive: true,
      rampMs: 1000,
      help: false,
    })
    expect(ok(['--help']).help).toBe(true)
  })

  it.each([
    [['--concurrency', '0'], /--concurrency must be an integer from 1 up to 5000/],
    [['--concurrency', '5001'], /--concurrency/],
    [['--concurrency', '2.5'], /--concurrency/],
    [['--flows', 'many'], /--flows/],
    [['--minutes', '0'], /--minutes must be a number above 0/],
    [['--minutes', '121'], /--minutes/],
    [['--minutes', '1', '--flows', '5'], /exclude each other/],
    [['--interval', '5'], /only with --minutes/],
    [['--era', '2024'], /--era must be 2026, 2025 or both/],
    [['--url', 'not a url'], /--url is not a URL/],
    [['--url', 'ftp://x/mcp'], /must be http/],
    [['--concurrency'], /needs a value/],
    [['--concurrency', '5', '--concurrency', '6'], /given twice/],
    [['--conncurrency', '5'], /unknown option --conncurrency/],
    [['1000'], /unknown option 1000/],
  ])('refuses %j', (args, message) => {
    const parsed = parseLoadArgs(args)
    expect(typeof parsed).toBe('string')
    expect(parsed).toMatch(message)
  })
})

describe('judgeFlow', () => {
  const expected = { nonce: 'n0nce', answer: 'region-a' }
  const one = { questions: 1, strangeQuestions: 0 }

  it('completed: one provision question, a result echoing this flow’s nonce and answer', () => {
    expect(judgeFlow(expected, { ...one, resultText: "Provisioned 'n0nce' in region-a." })).toEqual({
      kind: 'completed',
    })
  })

  it('crossed: the result names another flow’s nonce or answer', () => {
    expect(judgeFlow(expected, { ...one, resultText: "Provisioned 'other' in region-a." })).toEqual({
      kind: 'crossed',
      reason: 'nonce other instead of n0nce',
    })
    expect(judgeFlow(expected, { ...one, resultText: "Provisioned 'n0nce' in region-b." })).toEqual({
      kind: 'crossed',
      reason: 'answer region-b instead of region-a',
    })
    // a flow that was asked twice (or never) but got someone else's result still counts as crossed
    expect(judgeFlow(expected, { questions: 0, strangeQuestions: 0, resultText: "Provisioned 'x' in y." }).kind).toBe(
      'crossed',
    )
  })

  it('failed: errors, isError, other results, and anything but exactly one provision question', () => {
    const failed = (seen: Parameters<typeof judgeFlow>[1]) => judgeFlow(expected, seen).kind
    expect(failed({ ...one, error: 'timed out after 60000 ms' })).toBe('failed')
    expect(failed({ ...one, isError: true, resultText: 'No database provisioned' })).toBe('failed')
    expect(failed({ ...one, resultText: 'something else' })).toBe('failed')
    expect(failed({ ...one })).toBe('failed')
    expect(failed({ questions: 2, strangeQuestions: 0, resultText: "Provisioned 'n0nce' in region-a." })).toBe('failed')
    expect(failed({ questions: 0, strangeQuestions: 0, resultText: "Provisioned 'n0nce' in region-a." })).toBe('failed')
    expect(failed({ questions: 1, strangeQuestions: 1, resultText: "Provisioned 'n0nce' in region-a." })).toBe('failed')
    expect(judgeFlow(expected, { ...one, error: 'HttpError: HTTP 503' })).toEqual({
      kind: 'failed',
      reason: 'HttpError: HTTP 503',
    })
  })
})

describe('percentile and LoadStats', () => {
  it('nearest rank over an ascending list', () => {
    const list = Array.from({ length: 100 }, (_, i) => i + 1) // 1..100
    expect([50, 90, 99, 100].map((p) => percentile(list, p))).toEqual([50, 90, 99, 100])
    expect(percentile([7], 50)).toBe(7)
    expect(percentile([1, 2, 3], 50)).toBe(2)
    expect(percentile([1, 2, 3, 4], 50)).toBe(2)
    expect(percentile([1, 2, 3, 4], 99)).toBe(4)
    expect(percentile([1, 2, 3, 4], 0.1)).toBe(1)
    expect(percentile([], 50)).toBeNaN()
  })

  it('counts verdicts, keeps latencies of completed flows only, and is clean only without failures', () => {
    const stats = new LoadStats()
    expect(stats.clean).toBe(false) // nothing completed
    for (const ms of [30, 10, 20]) stats.add({ kind: 'completed' }, ms)
    expect(stats.clean).toBe(true)
    expect(stats.latency()).toEqual({ p50: 20, p90: 30, p99: 30, max: 30 })
    expect(stats.line(1500)).toBe(
      'completed 3, failed 0, crossed 0; latency ms p50 20 p90 30 p99 30 max 30; throughput 2.0 flows/s',
    )
    stats.add({ kind: 'crossed', reason: 'nonce 0123456789abcdef01 instead of x' }, 5)
    stats.add({ kind: 'failed', reason: 'timed out' }, 60_000)
    stats.add({ kind: 'failed', reason: 'timed out' }, 60_000)
    expect([stats.completed, stats.failed, stats.crossed, stats.total]).toEqual([3, 2, 1, 6])
    expect(stats.latency().max).toBe(30)
    expect(stats.clean).toBe(false)
    expect([...stats.reasons]).toEqual([
      ['crossed: nonce … instead of x', 1],
      ['failed: timed out', 2],
    ])
  })
})
