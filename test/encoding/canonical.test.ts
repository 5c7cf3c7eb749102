/** Canonical JSON and the argument digests bound into a sealed requestState. */
import { describe, expect, it } from 'vitest'
import { encodeBase64Url } from '../../src/encoding/base64url.ts'
import { argumentsDigest, canonicalJson } from '../../src/encoding/canonical.ts'

const enc = (s: string) => new TextEncoder().encode(s)

describe('canonical JSON and argument digests', () => {
  it('sorts keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 0, y: 1 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"y":1,"z":0}]},"b":1}',
    )
  })
  it('binds absent, null and {} identically, and key order never matters', async () => {
    const empty = await argumentsDigest({})
    expect(await argumentsDigest(undefined)).toBe(empty)
    expect(await argumentsDigest(null)).toBe(empty)
    expect(empty).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(await argumentsDigest({ env: 'prod', n: { b: 1, a: 2 } })).toBe(
      await argumentsDigest({ n: { a: 2, b: 1 }, env: 'prod' }),
    )
    expect(await argumentsDigest({ env: 'prod' })).not.toBe(await argumentsDigest({ env: 'staging' }))
  })
  it('keeps lone surrogates distinct', async () => {
    expect(await argumentsDigest({ env: '\ud800-prod' })).not.toBe(await argumentsDigest({ env: '\udfff-prod' }))
  })
  it('digests short and long arguments as base64url of the first 16 bytes of SHA-256 (crypto.subtle)', async () => {
    for (const length of [10, 1010, 1020, 2000]) {
      const args = { text: 'é'.repeat(length) } // 2 bytes per character in UTF-8
      const canonical = enc(canonicalJson(args))
      const expected = encodeBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', canonical)).subarray(0, 16))
      expect(await argumentsDigest(args), `${canonical.length} bytes`).toBe(expected)
    }
  })
})
