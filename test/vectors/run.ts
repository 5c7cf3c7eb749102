/** Run the request-state vectors in any runtime (deno run / bun / tsx) and print the result as JSON. */
import { runVectors } from './request-state-vectors.ts'

const result = await runVectors()
console.log(
  JSON.stringify({
    runtime:
      typeof navigator !== 'undefined'
        ? navigator.userAgent
        : `Node.js/${(globalThis as { process?: { version?: string } }).process?.version}`,
    passed: result.passed,
    failures: result.failures,
  }),
)
