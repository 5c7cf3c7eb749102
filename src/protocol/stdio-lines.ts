/**
 * The stdio framing (spec 2026-07-28: basic/transports/stdio.mdx; the same in 2025-11-25): one JSON-RPC
 * message per line, UTF-8, newline-delimited, no embedded newlines — over Web Streams, so that the same
 * code serves `Deno.stdin.readable`, `Bun.stdin.stream()`, `Readable.toWeb(process.stdin)`, a child
 * process's pipes or a socket. Both sides of the stdio transport (`stdio-server.ts`, `stdio-client.ts`) read
 * with {@link readLines} and write with {@link LineWriter}.
 * @module
 */
import { concatBytes } from '../encoding/bytes.ts'

/** Default cap on one line, in **bytes** (newline excluded): 4 MiB, as the HTTP transport's body cap. */
export const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024

/**
 * One line read from the stream: its text (without `\n` or a `\r` before it), or why it is not one —
 * `'too-long'` (more than `maxLineBytes` bytes: skipped up to its newline, never buffered whole),
 * `'not-utf8'` (invalid UTF-8), `'truncated'` (the stream ended in the middle of a line: its bytes are
 * dropped, not parsed).
 */
export type StdioLine =
  | { kind: 'line'; text: string }
  | { kind: 'too-long'; bytes: number }
  | { kind: 'not-utf8'; bytes: number }
  | { kind: 'truncated'; bytes: number }

/** Options of {@link readLines}. */
export interface ReadLinesOptions {
  /** Largest line in **bytes**, newline excluded; a positive integer. Default {@link DEFAULT_MAX_LINE_BYTES}. */
  maxLineBytes?: number
  /** Stops reading (the reader is released and the stream cancelled) when it aborts. */
  signal?: AbortSignal
}

const NEWLINE = 0x0a
const CR = 0x0d
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Read `stream` line by line. Chunks are split and joined as they come: a line may span many chunks (a
 * multi-byte character across two included: lines are decoded whole), and one chunk may hold many lines.
 * Empty lines are skipped. A line longer than `maxLineBytes` (the `\r` of a CRLF not counted) is reported
 * once as `too-long` and its bytes are discarded as they arrive (memory stays bounded by the cap). A UTF-8
 * byte order mark at the start of a line is dropped (a Windows tool may put one before the first message).
 * Ends when the stream ends (a last line without newline is reported as `truncated`) or `signal` aborts;
 * the reader is released either way.
 * @throws RangeError for a `maxLineBytes` that is not a positive integer; what the stream's reader throws
 *   (a broken pipe), except after `signal` aborted.
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  options: ReadLinesOptions = {},
): AsyncGenerator<StdioLine, void, undefined> {
  const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES
  if (!(Number.isInteger(max) && max > 0))
    throw new RangeError(`maxLineBytes must be a positive integer, got ${String(max)}`)
  const { signal } = options
  const reader = stream.getReader()
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {})
  if (signal?.aborted) onAbort()
  else signal?.addEventListener('abort', onAbort, { once: true })
  /** The pending line's parts, and their total length; `skipping` counts the bytes of an over-long line. */
  let parts: Uint8Array[] = []
  let length = 0
  let skipping = -1
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>
      try {
        chunk = await reader.read()
      } catch (error) {
        if (signal?.aborted) return
        throw error
      }
      if (chunk.done) break
      const bytes = chunk.value
      let start = 0
      while (start < bytes.length) {
        const end = bytes.indexOf(NEWLINE, start)
        const stop = end === -1 ? bytes.length : end
        if (skipping >= 0) {
          skipping += stop - start
        } else if (length + stop - start > max + 1) {
          // one byte over the cap is kept: it may be the `\r` of a CRLF (checked at the newline)
          skipping = length + stop - start
          parts = []
          length = 0
        } else if (stop > start) {
          parts.push(bytes.subarray(start, stop))
          length += stop - start
        }
        if (end === -1) break
        start = end + 1
        if (skipping < 0 && length > max && lastByte(parts) !== CR) {
          skipping = length
          parts = []
          length = 0
        }
        if (skipping >= 0) {
          yield { kind: 'too-long', bytes: skipping }
          skipping = -1
          continue
        }
        const line = concatBytes(parts, length)
        parts = []
        length = 0
        const decoded = decode(line)
        if (decoded !== '') yield decoded
      }
      // a long line in many small chunks: one buffer, not thousands of views of old chunks
      if (parts.length > 64) parts = [concatBytes(parts, length)]
    }
    if (skipping < 0 && length > max && lastByte(parts) !== CR) skipping = length
    if (skipping >= 0) yield { kind: 'too-long', bytes: skipping }
    else if (length > 0) yield { kind: 'truncated', bytes: length }
  } finally {
    signal?.removeEventListener('abort', onAbort)
    reader.releaseLock()
  }
}

function lastByte(parts: Uint8Array[]): number | undefined {
  const last = parts[parts.length - 1]
  return last?.[last.length - 1]
}

/** A line's text (a final `\r` dropped, a leading BOM too: the decoder drops it), '' for a blank line, or `not-utf8`. */
function decode(line: Uint8Array): StdioLine | '' {
  const bytes = line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, line.length - 1) : line
  if (bytes.length === 0) return ''
  try {
    const text = strictUtf8.decode(bytes)
    return text.trim() === '' ? '' : { kind: 'line', text }
  } catch {
    return { kind: 'not-utf8', bytes: bytes.length }
  }
}

const encoder = new TextEncoder()

/**
 * How long the `close()` of either side of the stdio transport lets the output take what is queued, in
 * **milliseconds** (1 s): then it is given up ({@link LineWriter.abort}), so that a peer that stopped
 * reading cannot keep `close()` waiting.
 */
export const CLOSE_GRACE_MS = 1_000

/**
 * Writes one JSON-RPC message per line to a stream, in order, waiting for the stream's back-pressure
 * (`writer.ready`) before each write. `JSON.stringify` escapes every newline inside strings, so a message
 * is always one line.
 */
export class LineWriter {
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>
  #queue: Promise<void> = Promise.resolve()
  #closed = false
  #closing: Promise<void> | undefined
  /** The reason given to {@link abort}, once it was called. */
  #aborted: Error | undefined
  /** Ends the wait on the stream in progress: one at a time (writes go in turn, closing comes after them). */
  #stopWaiting: ((reason: Error) => void) | undefined

  constructor(stream: WritableStream<Uint8Array>) {
    this.#writer = stream.getWriter()
  }

  /** Whether {@link close} or {@link abort} was called, or a write failed (the stream broke). */
  get closed(): boolean {
    return this.#closed
  }

  /**
   * Queue `message` as one line.
   * @returns when the line was handed to the stream.
   * @throws Error when the writer is closed; TypeError for a value JSON cannot hold (nothing written); what
   *   the stream throws (a broken pipe: the writer closes); the reason given to {@link abort}.
   */
  write(message: unknown): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the stdio output is closed'))
    let line: Uint8Array
    try {
      line = encoder.encode(JSON.stringify(message) + '\n')
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new TypeError(String(error))) // a value JSON cannot hold (a BigInt, a cycle): nothing is written
    }
    const next = this.#queue.then(async () => {
      await this.#race(this.#writer.ready)
      await this.#race(this.#writer.write(line))
    })
    this.#queue = next.catch(() => {
      this.#closed = true
    })
    return next
  }

  /**
   * Flush what is queued, then close the stream (its end is the peer's end of input). Waits as long as the
   * peer takes to read, unless {@link abort} is called meanwhile. Calls after the first share its promise.
   * Never throws.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true
      await this.#queue
      await this.#race(this.#writer.close()).catch(() => {})
    })()
    return this.#closing
  }

  /**
   * Stop writing now: the lines queued and not yet taken are dropped (their `write` rejects with `reason`),
   * a pending {@link close} resolves, and the stream is aborted with `reason` — without waiting for a write
   * the stream has not finished (the peer may never read it). Never throws.
   */
  abort(reason: Error): void {
    this.#closed = true
    this.#aborted ??= reason
    this.#stopWaiting?.(reason)
    this.#writer.abort(reason).catch(() => {})
  }

  /** `promise`, or the abort's reason if that comes first (no listener is left on a promise that never settles). */
  #race<T>(promise: Promise<T>): Promise<T> {
    if (this.#aborted) {
      promise.catch(() => {}) // the stream's own failure after the abort: nobody waits for it
      return Promise.reject(this.#aborted)
    }
    return new Promise<T>((resolve, reject) => {
      this.#stopWaiting = reject
      promise.then(
        (value) => ((this.#stopWaiting = undefined), resolve(value)),
        (error: unknown) => ((this.#stopWaiting = undefined), reject(error)), // eslint-disable-line @typescript-eslint/prefer-promise-reject-errors -- the stream's own error, unchanged
      )
    })
  }
}
