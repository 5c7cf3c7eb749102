/** describeIssue (src/protocol/issues.ts): one readable message for a schema's issues. */
import { describe, expect, it } from 'vitest'

describe('describeIssue', () => {
  it('explains a union of object shapes by the alternative that got furthest, with the full path', async () => {
    const v = await import('valibot')
    const { InputResponses } = await import('../../src/protocol/schemas/index.ts')
    const { describeIssue } = await import('../../src/protocol/issues.ts')
    const nested = v.safeParse(InputResponses, { region: { action: 'accept', content: { region: { nested: 1 } } } })
    expect(nested.success).toBe(false)
    expect(describeIssue(nested.issues![0])).toBe(
      "field 'region.content.region': Invalid type: Expected (string | number | boolean | Array) but received Object",
    )
    const flat = v.safeParse(v.object({ a: v.union([v.string(), v.number()]) }), { a: true })
    expect(describeIssue(flat.issues![0])).toBe("field 'a': Invalid type: Expected (string | number) but received true")
  })
})
