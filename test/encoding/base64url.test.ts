/** base64url (RFC 4648 section 5) without padding: encoding, and strict decoding that refuses anything else. */
import { describe, expect, it } from 'vitest'
import { decodeBase64UrlStrict, encodeBase64Url, encodeBase64UrlCompact } from '../../src/encoding/base64url.ts'

describe('base64url', () => {
  it('encodeBase64UrlCompact writes what encodeBase64Url writes, for every length up to 100 bytes', () => {
    for (let length = 0; length <= 100; length++) {
      const bytes = crypto.getRandomValues(new Uint8Array(length))
      expect(encodeBase64UrlCompact(bytes)).toBe(encodeBase64Url(bytes))
    }
    expect(encodeBase64UrlCompact(new Uint8Array([251, 255, 191]))).toBe('-_-_')
  })

  it('round-trips every length and rejects non-canonical text', () => {
    for (let n = 0; n < 40; n++) {
      const bytes = crypto.getRandomValues(new Uint8Array(n))
      const text = encodeBase64Url(bytes)
      expect(text).toMatch(/^[A-Za-z0-9_-]*$/)
      expect(decodeBase64UrlStrict(text)).toEqual(bytes)
    }
    expect(decodeBase64UrlStrict('AQ==')).toBeUndefined() // padding
    expect(decodeBase64UrlStrict('AQ\n')).toBeUndefined() // whitespace
    expect(decodeBase64UrlStrict('AR')).toBeUndefined() // non-zero trailing bits
    expect(decodeBase64UrlStrict('A')).toBeUndefined() // impossible length
    expect(decodeBase64UrlStrict('AQ+/')).toBeUndefined() // standard alphabet
    expect(decodeBase64UrlStrict('AQ')).toEqual(new Uint8Array([1]))
  })
})
