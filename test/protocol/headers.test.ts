/** The header value codec (src/protocol/headers.ts): values that are not safe ASCII, encoded and decoded. */
import { describe, expect, it } from 'vitest'
import { decodeHeaderValue, encodeHeaderValue } from '../../src/protocol/headers.ts'

describe('header value codec', () => {
  it('passes safe ASCII and base64-encodes everything else', () => {
    expect(encodeHeaderValue('get_weather')).toBe('get_weather')
    for (const value of ['café', ' padded ', 'line\nbreak', '=?base64?Zm9v?=', '日本語', '']) {
      const encoded = encodeHeaderValue(value)
      expect(/^[\x20-\x7e]*$/.test(encoded)).toBe(true)
      expect(decodeHeaderValue(encoded)).toBe(value)
    }
    expect(encodeHeaderValue('café')).toBe('=?base64?Y2Fmw6k=?=')
    expect(decodeHeaderValue('=?base64?//79?=')).toBeUndefined() // not UTF-8
  })
  it('accepts only canonical base64 in Mcp-Name', () => {
    expect(decodeHeaderValue('=?base64?ZWNobw==?=')).toBe('echo')
    for (const bad of ['=?base64?ZWNobw?=', '=?base64?YR==?=', '=?base64?77u/ZWNobw==?=']) {
      const decoded = decodeHeaderValue(bad)
      expect(decoded === undefined || decoded !== 'echo', bad).toBe(true)
    }
    expect(decodeHeaderValue('=?base64?77u/ZWNobw==?=')).toBe('\ufeffecho') // the BOM is kept, so it cannot pass as "echo"
  })
})
