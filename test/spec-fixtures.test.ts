/** The vendored spec files equal the project's shared copy, when it sits next to the clone (as in CI). */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const FIXTURES = join(import.meta.dirname, 'fixtures/spec')
const SHARED = join(import.meta.dirname, '../../shared/spec')

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith('.json'))
    .map((d) => relative(dir, join(d.parentPath, d.name)))
    .sort()
}

describe('vendored spec fixtures', () => {
  it('hold the schemas and at least 120 examples', () => {
    expect(files(join(FIXTURES, 'examples-2026-07-28')).length).toBeGreaterThanOrEqual(120)
    expect(
      (JSON.parse(readFileSync(join(FIXTURES, 'schema-2026-07-28.json'), 'utf8')) as { $defs: Record<string, unknown> })
        .$defs.InputRequiredResult,
    ).toBeDefined()
  })
  it.runIf(existsSync(SHARED))('are identical to ../shared/spec', () => {
    const pairs: Array<[string, string]> = [
      ['schema-2026-07-28.json', '2026-07-28/schema.json'],
      ['schema-2025-11-25.json', '2025-11-25/schema.json'],
      ...files(join(SHARED, '2026-07-28/examples')).map((f): [string, string] => [
        `examples-2026-07-28/${f}`,
        `2026-07-28/examples/${f}`,
      ]),
    ]
    expect(files(join(FIXTURES, 'examples-2026-07-28'))).toEqual(files(join(SHARED, '2026-07-28/examples')))
    for (const [ours, theirs] of pairs)
      expect(readFileSync(join(FIXTURES, ours), 'utf8'), ours).toBe(readFileSync(join(SHARED, theirs), 'utf8'))
  })
})
