/**
 * Prints one plain closing line — "N passed, N failed" (", N skipped" when any) — after vitest's own
 * report, so CI can read the count without knowing vitest's format.
 *
 * A failure is a failed test, an unhandled error, or a file or suite that failed with no failed test in
 * it: a file that did not load, or a `beforeAll` / `afterAll` that threw (its tests are then reported as
 * skipped). Each of those counts once, so the line never says "0 failed" when vitest exits 1.
 */
import type { Reporter, TestCase, TestModule } from 'vitest/node'

/** The parts of vitest's TestModule / TestSuite / TestCase this reporter reads (its test passes plain objects). */
export interface SummaryTest {
  readonly fullName: string
  result(): { readonly state: ReturnType<TestCase['result']>['state'] }
}
export interface SummarySuite {
  readonly fullName: string
  errors(): ReadonlyArray<unknown>
  readonly children: { allTests(): Iterable<SummaryTest> }
}
export interface SummaryModule {
  readonly moduleId: string
  state(): ReturnType<TestModule['state']>
  errors(): ReadonlyArray<unknown>
  readonly children: { allTests(): Iterable<SummaryTest>; allSuites(): Iterable<SummarySuite> }
}

export interface Summary {
  passed: number
  failed: number
  skipped: number
  /** One `FAILED file > name` line per failure that has a place (not for unhandled errors). */
  failures: string[]
}

export function summarize(modules: ReadonlyArray<SummaryModule>, unhandledErrors: ReadonlyArray<unknown>): Summary {
  const summary: Summary = { passed: 0, failed: 0, skipped: 0, failures: [] }
  const fail = (file: string, name: string) => {
    summary.failed++
    summary.failures.push(`FAILED ${file} > ${name}`)
  }
  const anyFailed = (tests: Iterable<SummaryTest>) => [...tests].some((test) => test.result().state === 'failed')
  for (const mod of modules) {
    const file = mod.moduleId.split('/test/').pop()!
    const before = summary.failed
    for (const test of mod.children.allTests()) {
      const state = test.result().state
      if (state === 'passed') summary.passed++
      else if (state === 'failed') fail(file, test.fullName)
      else summary.skipped++
    }
    // a suite whose own hooks threw while none of its tests failed
    for (const suite of mod.children.allSuites())
      if (suite.errors().length > 0 && !anyFailed(suite.children.allTests()))
        fail(file, `${suite.fullName} (suite failed: ${firstMessage(suite.errors())})`)
    // the file itself: a load error or a top-level hook, or a failed state nothing above accounts for
    if (
      (mod.errors().length > 0 && !anyFailed(mod.children.allTests())) ||
      (mod.state() === 'failed' && summary.failed === before)
    )
      fail(file, `(file failed: ${firstMessage(mod.errors())})`)
  }
  summary.failed += unhandledErrors.length
  return summary
}

function firstMessage(errors: ReadonlyArray<unknown>): string {
  const first = errors[0] as { message?: unknown } | undefined
  return typeof first?.message === 'string' ? first.message.split('\n')[0] : 'no error reported'
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const { passed, failed, skipped, failures } = summarize(testModules, unhandledErrors)
    // Printed last, alone on its line.
    setTimeout(
      () =>
        console.log(
          `\n${failures.join('\n')}${failures.length ? '\n' : ''}${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`,
        ),
      0,
    )
  }
}
