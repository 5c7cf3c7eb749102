/**
 * The value codec of the standard MCP request headers (`Mcp-Name`, `Mcp-Param-*`): safe ASCII goes
 * as-is; anything else as `=?base64?<base64 of UTF-8>?=` (spec: basic/transports/streamable-http.mdx
 * "Value encoding").
 * @module
 */

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/

/** True when a value can travel in a header verbatim: printable ASCII, no leading/trailing whitespace. */
function isSafe(value: string): boolean {
  if (value !== value.trim()) return false
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c < 0x20 || c > 0x7e) return false
  }
  return !SENTINEL.test(value)
}

/**
 * Encode a header value: verbatim when safe, otherwise `=?base64?…?=` of its UTF-8 bytes.
 * @example encodeHeaderValue('café') // '=?base64?Y2Fmw6k=?='
 */
export function encodeHeaderValue(value: string): string {
  if (isSafe(value)) return value
  const bytes = new TextEncoder().encode(value)
  let binary = ''
  for (const b of bytes) binary += String.fromCharCode(b)
  return `=?base64?${btoa(binary)}?=`
}

/**
 * True when a received header value is all tab or visible ASCII (0x20–0x7E): the only form a standard
 * header value may arrive in (non-ASCII travels as `=?base64?…?=`). Checked on the raw value before any
 * decoding: a Latin-1 byte (a char 0x80–0xFF from a Fetch `Headers`) or raw UTF-8 decoded by the runtime
 * is a header mismatch even when it spells the body's value (spec: streamable-http.mdx "Value encoding").
 */
export function isVisibleAscii(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c !== 0x09 && (c < 0x20 || c > 0x7e)) return false
  }
  return true
}

/**
 * A value quoted for an error message so that two different values never look alike: in single quotes
 * (as the spec's examples show them), with `\` and `'` backslash-escaped and every char outside
 * 0x20–0x7E written `\uXXXX` (lone surrogates included). Visible ASCII shows as it is.
 * @example quoteValue('caf\u00e9') // "'caf\\u00e9'"
 */
export function quoteValue(value: string): string {
  let out = "'"
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!
    const c = value.charCodeAt(i)
    if (ch === '\\' || ch === "'") out += `\\${ch}`
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`
    else out += ch
  }
  return `${out}'`
}

/**
 * Decode a header value written by {@link encodeHeaderValue}.
 * @returns the decoded string, or undefined when the sentinel form carries non-canonical base64 or invalid UTF-8.
 */
export function decodeHeaderValue(value: string): string | undefined {
  const match = SENTINEL.exec(value)
  if (!match) return value
  try {
    const binary = atob(match[1]!)
    if (btoa(binary) !== match[1]) return undefined // only canonical, padded base64 (no stray bits)
    const bytes = Uint8Array.from(binary, (ch) => ch.charCodeAt(0))
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return undefined
  }
}
