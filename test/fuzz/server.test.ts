/**
 * Property-based fuzzing of the server's HTTP surface (fetch handler and Hono), a modest
 * count per property; `npm run fuzz -- --runs N` runs the same properties longer (test/fuzz/run.ts).
 * A failure prints fast-check's seed and path: `npm run fuzz -- --only <name> --seed <seed> --path <path>`.
 */
import fc from 'fast-check'
import { describe, it } from 'vitest'
import { SERVER_PROPERTIES } from './properties.ts'

describe('fuzz: the server over HTTP', () => {
  for (const p of SERVER_PROPERTIES) {
    it(`${p.name}: ${p.description}`, async () => {
      await fc.assert(p.property(), { numRuns: p.testRuns })
    })
  }
})
