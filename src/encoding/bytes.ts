/**
 * Byte arrays read in chunks (an HTTP body, a stdio line) joined into one.
 * @module
 */

/**
 * The chunks as one array: the only chunk itself when there is one (no copy), else a new array.
 * @param total - the sum of the chunks' lengths, in bytes (the callers count it as they read).
 */
export function concatBytes(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}
