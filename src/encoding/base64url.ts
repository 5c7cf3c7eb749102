/**
 * Strict, unpadded base64url (RFC 4648 §5) over bytes. Hot path of every sealed token, so it works
 * 3 bytes / 4 characters at a time with lookup tables.
 * @module
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const alphabetCode = (sixBits: number): number => ALPHABET.charCodeAt(sixBits)

// The tables are built on first use, not at import: their loops (4096 steps for PAIRS) would otherwise run
// in every cold start, also of a Worker that never encodes or decodes.

/** Character code → 6-bit value, or -1 for characters outside the alphabet. */
let LOOKUP: Int16Array | undefined
/** 12-bit value → its two characters' codes, in one 16-bit unit (in the platform's byte order). */
let PAIRS: Uint16Array | undefined

function lookupTable(): Int16Array {
  const table = new Int16Array(256).fill(-1)
  for (let i = 0; i < ALPHABET.length; i++) table[alphabetCode(i)] = i
  return (LOOKUP = table)
}

function pairsTable(): Uint16Array {
  const table = new Uint16Array(4096)
  const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
  for (let i = 0; i < 4096; i++) {
    const hi = alphabetCode(i >> 6)
    const lo = alphabetCode(i & 63)
    table[i] = littleEndian ? hi | (lo << 8) : (hi << 8) | lo
  }
  return (PAIRS = table)
}

let ascii: TextDecoder | undefined // one decoder, reused: the output bytes are ASCII, which decode as themselves
/** Output of {@link encodeBase64Url} for texts up to this many characters: written, decoded, never kept. */
const OUT_CHARS = 16 * 1024
let outScratch: Uint8Array | undefined
let outUnits: Uint16Array | undefined

/** Encode bytes as unpadded base64url. */
export function encodeBase64Url(bytes: Uint8Array): string {
  const whole = bytes.length - (bytes.length % 3)
  const rest = bytes.length - whole
  const length = (whole / 3) * 4 + (rest === 0 ? 0 : rest + 1)
  // the characters are written into a reused buffer (no allocation a call): decode copies them out
  let out: Uint8Array
  let units: Uint16Array
  if (length <= OUT_CHARS) {
    out = outScratch ??= new Uint8Array(OUT_CHARS)
    units = outUnits ??= new Uint16Array(out.buffer)
  } else {
    out = new Uint8Array(length)
    units = new Uint16Array(out.buffer, 0, out.length >> 1)
  }
  const table = PAIRS ?? pairsTable()
  let o = 0
  for (let i = 0; i < whole; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    units[o++] = table[n >> 12]!
    units[o++] = table[n & 0xfff]!
  }
  let p = o * 2
  if (rest === 1) {
    const n = bytes[whole]!
    out[p++] = alphabetCode(n >> 2)
    out[p++] = alphabetCode((n << 4) & 63)
  } else if (rest === 2) {
    const n = (bytes[whole]! << 8) | bytes[whole + 1]!
    out[p++] = alphabetCode(n >> 10)
    out[p++] = alphabetCode((n >> 4) & 63)
    out[p++] = alphabetCode((n << 2) & 63)
  }
  return (ascii ??= new TextDecoder()).decode(out.subarray(0, length))
}

/** Reused by {@link decodeBase64UrlStrict} for the ASCII bytes of texts up to this many characters. */
const SCRATCH_CHARS = 16 * 1024
let scratch: Uint8Array | undefined
let utf8: TextEncoder | undefined

/**
 * Decode canonical unpadded base64url: only the 64 alphabet characters, no padding or whitespace,
 * a length that is not 1 mod 4, and zero trailing bits — so exactly one string decodes to given bytes.
 * @returns the bytes, or undefined for any non-canonical input.
 */
export function decodeBase64UrlStrict(text: string): Uint8Array<ArrayBuffer> | undefined {
  const len = text.length
  const tail = len % 4
  if (tail === 1) return undefined
  // the text's UTF-8 bytes, one a character exactly when every character is ASCII (else: not base64url);
  // read as bytes, the table lookups are cheaper than charCodeAt on a (often sliced) string
  const src = len <= SCRATCH_CHARS ? (scratch ??= new Uint8Array(SCRATCH_CHARS)) : new Uint8Array(len)
  const { read, written } = (utf8 ??= new TextEncoder()).encodeInto(text, src)
  if (read !== len || written !== len) return undefined
  const out = new Uint8Array(((len - tail) / 4) * 3 + (tail === 0 ? 0 : tail - 1))
  const whole = len - tail
  const lookup = LOOKUP ?? lookupTable()
  let o = 0
  for (let i = 0; i < whole; i += 4) {
    // a byte past 0x7f (no ASCII character) looks up -1, as every character outside the alphabet does
    const a = lookup[src[i]!]!
    const b = lookup[src[i + 1]!]!
    const c = lookup[src[i + 2]!]!
    const d = lookup[src[i + 3]!]!
    if ((a | b | c | d) < 0) return undefined
    const n = (a << 18) | (b << 12) | (c << 6) | d
    out[o++] = n >> 16
    out[o++] = (n >> 8) & 0xff
    out[o++] = n & 0xff
  }
  if (tail > 0) {
    let n = 0
    for (let i = whole; i < len; i++) {
      const val = lookup[src[i]!]!
      if (val < 0) return undefined
      n = (n << 6) | val
    }
    if (tail === 2) {
      if ((n & 0xf) !== 0) return undefined // 4 trailing bits must be zero
      out[o++] = n >> 4
    } else {
      if ((n & 0x3) !== 0) return undefined // 2 trailing bits must be zero
      out[o++] = n >> 10
      out[o++] = (n >> 2) & 0xff
    }
  }
  return out
}

/**
 * Encode bytes as unpadded base64url through `btoa`: {@link encodeBase64Url}'s output without its tables,
 * for code that encodes a few short values (a browser client's cache keys), not a hot path.
 */
export function encodeBase64UrlCompact(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
}
