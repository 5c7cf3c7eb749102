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
