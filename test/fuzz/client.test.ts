/**
 * Property-based fuzzing of the client (results and SSE streams through a fake fetch), a modest
 * count per property; `npm run fuzz -- --runs N` runs the same properties longer (test/fuzz/run.ts).
 * A failure prints fast-check's seed and path: `npm run fuzz -- --only <name> --seed <seed> --path <path>`.
 */
import fc from 'fast-check'
import { describe, it } from 'vitest'
import { CLIENT_PROPERTIES } from './properties.ts'

describe('fuzz: the client parsing what a server answers', () => {
  for (const p of CLIENT_PROPERTIES) {
    it(`${p.name}: ${p.description}`, async () => {
      await fc.assert(p.property(), { numRuns: p.testRuns })
    })
  }
})
