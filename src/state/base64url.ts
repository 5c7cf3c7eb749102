/**
 * Strict, unpadded base64url (RFC 4648 §5) over bytes.
 * @module
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const LOOKUP = new Int16Array(128).fill(-1)
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i

/** Encode bytes as unpadded base64url. */
export function encodeBase64Url(bytes: Uint8Array): string {
  let out = ''
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!
  }
  const rest = bytes.length - i
  if (rest === 1) {
    const n = bytes[i]! << 16
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]!
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8)
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]!
  }
  return out
}

/**
 * Decode canonical unpadded base64url: only the 64 alphabet characters, no padding or whitespace,
 * a length that is not 1 mod 4, and zero trailing bits — so exactly one string decodes to given bytes.
 * @returns the bytes, or undefined for any non-canonical input.
 */
export function decodeBase64UrlStrict(text: string): Uint8Array<ArrayBuffer> | undefined {
  const len = text.length
  if (len % 4 === 1) return undefined
  const out = new Uint8Array((len * 3) >> 2)
  let o = 0
  let acc = 0
  let bits = 0
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i)
    const val = c < 128 ? LOOKUP[c]! : -1
    if (val < 0) return undefined
    acc = (acc << 6) | val
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out[o++] = (acc >> bits) & 0xff
    }
  }
  if (bits > 0 && (acc & ((1 << bits) - 1)) !== 0) return undefined
  return out
}
