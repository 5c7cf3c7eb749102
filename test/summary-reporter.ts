/**
 * Prints one plain closing line — "N passed, N failed" (", N skipped" when any) — after vitest's own
 * report, so CI can read the count without knowing vitest's format.
 */
import type { Reporter, TestModule } from 'vitest/node'

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0
    let failed = 0
    let skipped = 0
    const failures: string[] = []
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state
        if (state === 'passed') passed++
        else if (state === 'failed') {
          failed++
          failures.push(`FAILED ${mod.moduleId.split('/test/').pop()} > ${test.fullName}`)
        } else skipped++
      }
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) failed++
    }
    failed += unhandledErrors.length
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
