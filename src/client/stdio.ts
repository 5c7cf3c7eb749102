/**
 * stdio, client side (spec 2026-07-28: basic/transports/stdio.mdx; 2025-11-25 frames messages the same
 * way): a {@link ClientTransport} over a server process's standard streams, given as Web Streams (the
 * child's stdout to read, its stdin to write), so that the same code runs on Node
 * (`Readable.toWeb` / `Writable.toWeb` of `child_process.spawn`'s pipes), Deno (`Deno.Command`) and Bun
 * (`Bun.spawn`). One reader loop matches the server's responses to requests by id; everything else it
 * routes (see {@link StdioClientTransport}). No `node:` import: spawning is the app's.
 * @module
 */
import { META } from '../protocol/constants.ts'
import { isPlainObject, isRequestId, requestIdKey } from '../protocol/jsonrpc.ts'
import type { JSONRPCNotification, JSONRPCRequest } from '../protocol/schemas/index.ts'
import { ConnectionClosedError } from './errors.ts'
import type { ClientTransport, OutboundMessage, SendOptions, StreamOptions } from './transport.ts'
import { CLOSE_GRACE_MS, DEFAULT_MAX_LINE_BYTES, LineWriter, readLines } from '../protocol/stdio-lines.ts'

/**
 * The default of {@link StdioClientTransportOptions.probeTimeoutMs}: 5 seconds, in milliseconds.
 * @internal not in the public API: the `probeTimeoutMs` default
 */
export const DEFAULT_PROBE_TIMEOUT_MS = 5_000

/** Options of {@link StdioClientTransport}. */
export interface StdioClientTransportOptions {
  /** What the server writes: its stdout (e.g. `Readable.toWeb(child.stdout)`, `Deno.ChildProcess#stdout`). */
  input: ReadableStream<Uint8Array>
  /** Where the client writes: the server's stdin (e.g. `Writable.toWeb(child.stdin)`). Closed by `close()`. */
  output: WritableStream<Uint8Array>
  /**
   * Largest line accepted from the server, in **bytes** (newline excluded); a longer one is skipped as it
   * streams (never buffered whole) and reported through `onWarning`. Default 4 MiB.
   */
  maxLineBytes?: number
  /**
   * How long the `Client`'s era probe (`versionNegotiation: 'auto'`) waits for the answer to its
   * `server/discover`, in **milliseconds**: a server silent that long is taken for a 2025-era one (spec:
   * stdio.mdx "Backward Compatibility": some ignore a request before `initialize`) and `initialize` follows.
   * Raise it for a server slow to start (e.g. one that `npx` first downloads). Default 5,000.
   */
  probeTimeoutMs?: number
  /**
   * Receives what the server sent that is no message (a line that is not JSON or not JSON-RPC, too long,
   * not UTF-8, cut off at the end), an answer to no request, a callback that threw: none of these ends the
   * transport. At most 20 lines are reported, then one notice that the rest are not. Default:
   * `console.warn` with an `[edge-mcp] stdio:` prefix (stderr on Node, Deno and Bun).
   */
  onWarning?: (message: string) => void
}

/** A request waiting for its response. */
interface Pending {
  method: string
  options: StdioSendOptions
  /** The `progressToken` of the request's `_meta`: its progress (and a 2025 server's questions) find it by that. */
  progressToken: unknown
  resolve(response: unknown): void
  reject(error: unknown): void
}

/** What a message sent over stdio may come with: its abort, and where its notifications and requests go. */
export type StdioSendOptions = Pick<SendOptions, 'signal' | 'onNotification' | 'onRequest'>

/** A stream opened by `openStream`: the server's messages that belong to no request go to it. */
interface Stream {
  onRequest: ((request: JSONRPCRequest) => void) | undefined
  onNotification: ((notification: JSONRPCNotification) => void) | undefined
  end(): void
}

/** Bad lines reported before the rest are only counted. */
const MAX_WARNINGS = 20
/** Ids of requests given up (aborted, timed out) remembered, so that their late answers are dropped quietly. */
const MAX_ABANDONED = 1_000

/**
 * The client end of a stdio connection: one JSON-RPC message per line each way (UTF-8, `\n`-delimited,
 * written in order with the output's back-pressure respected).
 *
 * - `send` of a request resolves with its response (matched by id; an error response with no id or a
 *   null one — the server could not read a request — answers the only request in flight, if only one
 *   is); of a notification or response, once written. Aborting a request's `signal` (the caller's abort, or the `Client`'s timeout) sends
 *   `notifications/cancelled` naming it (stdio has no stream to close; not for `initialize`) and rejects
 *   with the signal's reason; a late answer to it is dropped.
 * - A notification goes to the request it belongs to (`notifications/progress` by the request's `_meta`
 *   `progressToken`; a subscription's by its `_meta` subscriptionId), else to every stream opened by
 *   {@link StdioClientTransport.openStream}, else to the only request in flight, else nowhere.
 *   `notifications/cancelled` naming a `subscriptions/listen` in flight ends that request (the server
 *   tore the subscription down).
 * - A server-to-client request (2025 era: `elicitation/create`, `sampling/createMessage`, `roots/list`,
 *   `ping`) goes to the `onRequest` of the request in flight with the same `progressToken`, else of the
 *   only request in flight that has one, else of an open stream, else of the oldest request in flight
 *   with one; with none, `ping` is answered `{}` and anything else -32601. The answer comes back through
 *   `send`, as a response.
 * - When the server's output ends (it exited) every pending request fails with a
 *   {@link ConnectionClosedError}, open streams settle, and the output is closed.
 *
 * There are no sessions on stdio: no `endSession`. Close with {@link StdioClientTransport.close} (the
 * server's stdin ends: its cue to exit), then wait for the process, and kill it after a grace period.
 *
 * @example
 * const child = spawn('node', ['server.js'], { stdio: ['pipe', 'pipe', 'inherit'] })
 * const transport = new StdioClientTransport({
 *   input: Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
 *   output: Writable.toWeb(child.stdin),
 * })
 * const client = new Client({ transport })
 * @throws RangeError (constructor) for a `maxLineBytes` or `probeTimeoutMs` that is not a positive integer.
 */
export class StdioClientTransport implements ClientTransport {
  /** See {@link StdioClientTransportOptions.probeTimeoutMs}: the `Client` reads it. */
  readonly probeTimeoutMs: number
  readonly #writer: LineWriter
  readonly #pending = new Map<string, Pending>()
  readonly #abandoned = new Set<string>()
  readonly #streams = new Set<Stream>()
  readonly #onWarning: (message: string) => void
  #warnings = 0
  /** Why the connection is over, once it is: what later sends throw. */
  #over: string | undefined

  constructor(options: StdioClientTransportOptions) {
    const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES
    this.probeTimeoutMs = options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS
    for (const [name, value] of [
      ['maxLineBytes', maxLineBytes],
      ['probeTimeoutMs', this.probeTimeoutMs],
    ] as const) {
      if (!(Number.isInteger(value) && value > 0))
        throw new RangeError(`${name} must be a positive integer, got ${String(value)}`)
    }
    this.#onWarning = options.onWarning ?? ((m: string) => console.warn(`[edge-mcp] stdio: ${m}`))
    this.#writer = new LineWriter(options.output)
    void this.#read(options.input, maxLineBytes)
  }

  /**
   * Write one message: a request resolves with its response (a JSON-RPC response object), anything else
   * with undefined once written. The connection is the 2025-era session, so a message needs no
   * `session`; there are no headers to route with, and nothing waits for the user in the transport.
   * @throws ConnectionClosedError when the connection is over (before or while waiting), or the server's
   *   stdin cannot be written (a broken pipe); the signal's reason when it aborts; TypeError for a message
   *   JSON cannot hold; Error for a request id already in flight.
   */
  async send(message: OutboundMessage, options: StdioSendOptions = {}): Promise<unknown> {
    if (this.#over !== undefined) throw new ConnectionClosedError(this.#over)
    if ('method' in message && 'id' in message) return this.#writeRequest(message, options)
    await this.#write(message)
    return undefined
  }

  /**
   * Receive the server's messages that belong to no request (the 2025 era's standalone stream: a `Client`
   * in a 2025-era session opens one), until `signal` aborts or the connection is over.
   * @returns `{ closed }`, resolved when the stream ends (the server's output ended, `close()`, `signal`).
   * @throws ConnectionClosedError when the connection is already over.
   */
  openStream(options: Omit<StreamOptions, 'session'>): Promise<{ closed: Promise<void> }> {
    if (this.#over !== undefined) return Promise.reject(new ConnectionClosedError(this.#over))
    const { signal } = options
    const closed = new Promise<void>((resolve) => {
      const end = () => {
        this.#streams.delete(stream)
        signal.removeEventListener('abort', end)
        resolve()
      }
      const stream: Stream = { onRequest: options.onRequest, onNotification: options.onNotification, end }
      if (signal.aborted) return resolve()
      this.#streams.add(stream)
      signal.addEventListener('abort', end, { once: true })
    })
    return Promise.resolve({ closed })
  }

  /**
   * Close the connection: pending requests fail with a {@link ConnectionClosedError}, open streams end,
   * and the server's stdin is closed once what is queued was written (its cue to exit). A server that
   * does not read its stdin gets 1 s to take what is queued; then the stream is aborted and `close()`
   * resolves (end that server's process). Later sends throw. What the server still writes is read and
   * dropped until its output ends. Never throws.
   */
  async close(): Promise<void> {
    const why = 'The stdio transport was closed'
    this.#end(why)
    const timer = setTimeout(() => this.#writer.abort(new ConnectionClosedError(why)), CLOSE_GRACE_MS)
    try {
      await this.#writer.close()
    } finally {
      clearTimeout(timer)
    }
  }

  /** Write a request and wait for its response (a `notifications/cancelled` sent when `signal` aborts, but for `initialize`). */
  #writeRequest(message: JSONRPCRequest, options: StdioSendOptions): Promise<unknown> {
    const { id, method } = message
    const key = requestIdKey(id)
    const { signal } = options
    if (signal?.aborted) return Promise.reject(signal.reason as unknown) // eslint-disable-line @typescript-eslint/prefer-promise-reject-errors -- the caller's reason, unchanged
    if (this.#pending.has(key))
      return Promise.reject(new Error(`A request with id ${JSON.stringify(id)} is already in flight`))
    const meta = isPlainObject(message.params?._meta) ? message.params._meta : {}
    return new Promise<unknown>((resolve, reject) => {
      const onAbort = () => {
        if (this.#pending.get(key) !== pending) return
        this.#forget(key)
        this.#abandon(key)
        if (method !== 'initialize') {
          const reason = signal!.reason instanceof Error ? signal!.reason.message : 'cancelled by the client'
          const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } }
          this.#writer.write(cancel).catch(() => {}) // the connection may be over: nothing to cancel then
        }
        reject(signal!.reason) // eslint-disable-line @typescript-eslint/prefer-promise-reject-errors -- the caller's reason, unchanged
      }
      const pending: Pending = {
        method,
        options,
        progressToken: meta.progressToken,
        resolve: (response) => (signal?.removeEventListener('abort', onAbort), resolve(response)),
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a ConnectionClosedError or the write's own error
        reject: (error) => (signal?.removeEventListener('abort', onAbort), reject(error)),
      }
      this.#pending.set(key, pending)
      signal?.addEventListener('abort', onAbort, { once: true })
      this.#writer.write(message).catch((error: unknown) => {
        if (this.#pending.get(key) !== pending) return
        this.#forget(key)
        pending.reject(this.#writeError(error))
      })
    })
  }

  /** Write a notification or response. @throws ConnectionClosedError for a broken pipe; TypeError from JSON. */
  async #write(message: unknown): Promise<void> {
    try {
      await this.#writer.write(message)
    } catch (error) {
      throw this.#writeError(error)
    }
  }

  /**
   * What a failed write throws: the stream's failure (the writer closed itself before this runs) as a
   * {@link ConnectionClosedError}; a value JSON cannot hold (nothing written, the writer still open) as is.
   */
  #writeError(error: unknown): unknown {
    if (!this.#writer.closed) return error
    const said = error instanceof Error ? error.message : String(error)
    return new ConnectionClosedError(`Could not write to the stdio server's input (${said})`, { cause: error })
  }

  /** Read the server's output until it ends, then fail what is pending. Never rejects. */
  async #read(input: ReadableStream<Uint8Array>, maxLineBytes: number): Promise<void> {
    let failure: unknown
    try {
      for await (const line of readLines(input, { maxLineBytes })) {
        if (this.#over !== undefined) continue // closed by the client: read on (the server may still write) and drop
        if (line.kind === 'line') this.#receive(line.text)
        else if (line.kind === 'too-long')
          this.#warnLine(
            `a line of ${line.bytes} bytes from the server, over maxLineBytes (${maxLineBytes}), was skipped`,
          )
        else if (line.kind === 'not-utf8') this.#warnLine(`a line of ${line.bytes} bytes that is not UTF-8 was skipped`)
        else this.#warnLine(`the server's output ended in the middle of a line (${line.bytes} bytes dropped)`)
      }
    } catch (error) {
      failure = error
    }
    const why =
      failure === undefined
        ? 'The stdio server closed its output (it exited?)'
        : `Reading the stdio server's output failed (${failure instanceof Error ? failure.message : JSON.stringify(failure)})`
    if (this.#end(why, failure)) void this.#writer.close() // the server is gone: its stdin too
  }

  /**
   * The connection is over for `why` (the first reason wins): pending requests fail, streams end.
   * @returns whether this call ended it.
   */
  #end(why: string, cause?: unknown): boolean {
    if (this.#over !== undefined) return false
    this.#over = why
    const pending = [...this.#pending.values()]
    this.#pending.clear()
    for (const p of pending) {
      const options = cause === undefined ? undefined : { cause }
      p.reject(new ConnectionClosedError(`${why} before the answer to ${p.method}`, options))
    }
    for (const stream of [...this.#streams]) stream.end()
    return true
  }

  /** One line of text from the server. Never throws. */
  #receive(text: string): void {
    let message: unknown
    try {
      message = JSON.parse(text)
    } catch {
      return this.#warnLine(`a line that is not JSON was skipped: ${preview(text)}`)
    }
    if (isPlainObject(message) && message.jsonrpc === '2.0') {
      if (typeof message.method === 'string') {
        if (!('id' in message)) return this.#notification(message as unknown as JSONRPCNotification)
        if (isRequestId(message.id)) return this.#serverRequest(message as unknown as JSONRPCRequest)
      } else if ('result' in message || 'error' in message) return this.#response(message)
    }
    this.#warnLine(`a line that is no JSON-RPC message was skipped: ${preview(text)}`)
  }

  #response(response: Record<string, unknown>): void {
    const { id } = response
    if (isRequestId(id)) {
      const key = requestIdKey(id)
      const pending = this.#pending.get(key)
      if (pending) {
        this.#forget(key)
        return pending.resolve(response)
      }
      if (this.#abandoned.delete(key)) return // a late answer to a request given up (a timed-out probe): dropped
      return this.#warnLine(`an answer to no request in flight was dropped (id ${JSON.stringify(id)})`)
    }
    // an error with a null id, or none (MCP's schema has no null id: serveStdio omits it): the server could
    // not read a request (not JSON, over its line cap); it is the one in flight, if only one is
    const [only, ...others] = this.#pending.entries()
    if (id == null && 'error' in response && only && others.length === 0) {
      this.#forget(only[0])
      return only[1].resolve(response)
    }
    this.#warnLine(`an error answering no known request was dropped: ${preview(JSON.stringify(response))}`)
  }

  #notification(notification: JSONRPCNotification): void {
    const params = isPlainObject(notification.params) ? notification.params : {}
    if (notification.method === 'notifications/progress' && 'progressToken' in params) {
      const token = params.progressToken
      const owner = [...this.#pending.values()].find((p) => p.progressToken !== undefined && p.progressToken === token)
      if (owner) this.#call('a progress listener', owner.options.onNotification, notification)
      return
    }
    const subscription = isPlainObject(params._meta) ? params._meta[META.subscriptionId] : undefined
    if (isRequestId(subscription)) {
      const owner = this.#pending.get(requestIdKey(subscription))
      if (owner) this.#call('a subscription listener', owner.options.onNotification, notification)
      return
    }
    if (notification.method === 'notifications/cancelled' && isRequestId(params.requestId)) {
      const key = requestIdKey(params.requestId)
      const listen = this.#pending.get(key)
      if (listen?.method === 'subscriptions/listen') {
        this.#forget(key)
        const reason = typeof params.reason === 'string' ? `: ${preview(params.reason)}` : ''
        return listen.reject(new ConnectionClosedError(`The server ended the subscription${reason}`))
      }
    }
    if (this.#streams.size > 0) {
      for (const stream of [...this.#streams]) this.#call('a stream listener', stream.onNotification, notification)
      return
    }
    const [only, ...others] = this.#pending.values()
    if (only && others.length === 0) this.#call('a notification listener', only.options.onNotification, notification)
  }

  #serverRequest(request: JSONRPCRequest): void {
    const token = isPlainObject(request.params?._meta) ? request.params._meta.progressToken : undefined
    const asking = [...this.#pending.values()].filter((p) => p.options.onRequest)
    const handler =
      (token !== undefined ? asking.find((p) => p.progressToken === token) : undefined)?.options.onRequest ??
      (asking.length === 1 ? asking[0]!.options.onRequest : undefined) ??
      [...this.#streams].find((s) => s.onRequest)?.onRequest ??
      asking[0]?.options.onRequest
    if (handler) return this.#call(`the handler of ${request.method}`, handler, request)
    const answer =
      request.method === 'ping'
        ? { jsonrpc: '2.0', id: request.id, result: {} }
        : { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: `Method not found: ${request.method}` } }
    this.#writer.write(answer).catch(() => {})
  }

  /** Call a listener, reporting (not throwing) what it throws. */
  #call<T>(what: string, listener: ((value: T) => void) | undefined, value: T): void {
    try {
      listener?.(value)
    } catch (error) {
      this.#onWarning(`${what} threw: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  #forget(key: string): void {
    this.#pending.delete(key)
  }

  #abandon(key: string): void {
    this.#abandoned.add(key)
    if (this.#abandoned.size > MAX_ABANDONED) this.#abandoned.delete(this.#abandoned.values().next().value!)
  }

  /** Report something wrong the server sent, at most {@link MAX_WARNINGS} times. */
  #warnLine(message: string): void {
    const count = ++this.#warnings
    if (count <= MAX_WARNINGS) this.#onWarning(message)
    if (count === MAX_WARNINGS) this.#onWarning(`more of the server's output may be wrong: no more is reported`)
  }
}

/** At most 80 characters of server text, quoted (control characters escaped). */
function preview(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)
}
