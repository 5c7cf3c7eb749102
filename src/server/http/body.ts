/**
 * Reading a POST's body under a byte cap, for the Streamable HTTP server (`http-server.ts`).
 * @module
 */
import { concatBytes } from '../../encoding/bytes.ts'

/**
 * The body, counted while it streams in; `'too-large'` once it (or its `Content-Length`) exceeds `max` bytes;
 * `'broken'` when the stream fails before its end (the client's connection broke off).
 * @throws Error naming the cause when something before the handler already read the body (a 500: the
 *   server's own set-up, not the client's mistake).
 */
export async function readBody(request: Request, max: number): Promise<Uint8Array | 'too-large' | 'broken'> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > max) return 'too-large'
  if (!request.body) return new Uint8Array(0)
  if (request.bodyUsed || request.body.locked)
    throw new Error(
      'The request body was already read before the MCP handler (e.g. a middleware calling request.json() on ' +
        'the raw Request); with Hono read it through c.req.json() / c.req.text(), which keep a copy, or pass request.clone()',
    )
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>
    try {
      chunk = await reader.read()
    } catch {
      return 'broken' // the client went away mid-body (a reset, a short Content-Length): nothing to log
    }
    const { done, value } = chunk
    if (done) break
    total += value.byteLength
    if (total > max) {
      await reader.cancel().catch(() => {})
      return 'too-large'
    }
    chunks.push(value)
  }
  return concatBytes(chunks, total) // the usual case, one chunk: no copy
}
