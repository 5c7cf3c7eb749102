/** The closing "N passed, N failed" line counts a file or suite that failed without a failed test. */
import { describe, expect, it } from 'vitest'
import { summarize, type SummaryModule, type SummarySuite, type SummaryTest } from './summary-reporter.ts'

type State = ReturnType<SummaryTest['result']>['state']

const test = (fullName: string, state: State): SummaryTest => ({ fullName, result: () => ({ state }) })
const suite = (fullName: string, tests: SummaryTest[], errors: unknown[] = []): SummarySuite => ({
  fullName,
  errors: () => errors,
  children: { allTests: () => tests },
})
function file(
  name: string,
  state: ReturnType<SummaryModule['state']>,
  suites: SummarySuite[],
  errors: unknown[] = [],
): SummaryModule {
  return {
    moduleId: `/repo/test/${name}`,
    state: () => state,
    errors: () => errors,
    children: { allTests: () => suites.flatMap((s) => [...s.children.allTests()]), allSuites: () => suites },
  }
}

describe('summarize', () => {
  it('counts passed, failed and skipped tests', () => {
    const ok = file('a.test.ts', 'failed', [
      suite('a', [test('a > one', 'passed'), test('a > two', 'failed'), test('a > three', 'skipped')]),
    ])
    expect(summarize([ok], [])).toEqual({
      passed: 1,
      failed: 1,
      skipped: 1,
      failures: ['FAILED a.test.ts > a > two'],
    })
  })

  it('a beforeAll that threw (tests reported skipped) is one failure, not "0 failed"', () => {
    const chromium = file('browser.test.ts', 'failed', [
      suite('forms', [test('forms > x', 'skipped'), test('forms > y', 'skipped')], [new Error('no Chromium\nstack')]),
    ])
    const fine = file('b.test.ts', 'passed', [suite('b', [test('b > ok', 'passed')])])
    expect(summarize([chromium, fine], [])).toEqual({
      passed: 1,
      failed: 1,
      skipped: 2,
      failures: ['FAILED browser.test.ts > forms (suite failed: no Chromium)'],
    })
  })

  it('a file that failed to load, or failed with no error attached, is one failure', () => {
    const unloadable = file('c.test.ts', 'failed', [], [new Error('Cannot find module')])
    const silent = file('d.test.ts', 'failed', [suite('d', [test('d > skipped', 'skipped')])])
    expect(summarize([unloadable, silent], [new Error('unhandled')])).toEqual({
      passed: 0,
      failed: 3,
      skipped: 1,
      failures: [
        'FAILED c.test.ts > (file failed: Cannot find module)',
        'FAILED d.test.ts > (file failed: no error reported)',
      ],
    })
  })

  it('a suite whose hook threw and whose test failed counts the test only', () => {
    const both = file('e.test.ts', 'failed', [suite('e', [test('e > bad', 'failed')], [new Error('hook')])])
    expect(summarize([both], []).failed).toBe(1)
  })
})
