/**
 * The stdio transport, server side (spec 2026-07-28: basic/transports/stdio.mdx; 2025-11-25 the same
 * framing): one connection over a pair of Web Streams — the process's stdin and stdout, a child's pipes,
 * a socket — carrying one JSON-RPC message per line. Both eras on one pipe: a 2026-07-28 client's
 * enveloped requests, and a 2025-era client's `initialize` session (the connection is the session: its
 * questions go out on the same output and their answers come back on the input).
 * @module
 */
import type { AuthInfo } from '../protocol/auth.ts'
import { hasEnvelope } from '../protocol/envelope.ts'
import { ErrorCode, McpError } from '../protocol/errors.ts'
import {
  classifyMessage,
  errorResponse,
  isPlainObject,
  isRequestId,
  requestIdKey,
  requestIdOf,
} from '../protocol/jsonrpc.ts'
import type { InboundMessage } from '../protocol/jsonrpc.ts'
import type { JSONRPCNotification, JSONRPCRequest } from '../protocol/schemas/index.ts'
import type { Channel, RequestInfo } from './context.ts'
import type { McpServer } from './mcp-server.ts'
import type { Server } from './server.ts'
import { logError, logWarn } from './log.ts'
import {
  CLOSE_GRACE_MS,
  DEFAULT_MAX_LINE_BYTES,
  LineWriter,
  readLines,
  type StdioLine,
} from '../protocol/stdio-lines.ts'

/** Options of {@link serveStdio}. */
export interface StdioServerOptions {
  /** What the client writes (the process's stdin): one JSON-RPC message per line, UTF-8. */
  input: ReadableStream<Uint8Array>
  /**
   * Where the server's messages go (the process's stdout): nothing else may be written to it — a
   * `console.log` in your code corrupts the protocol (log with `console.error`, which goes to stderr).
   */
  output: WritableStream<Uint8Array>
  /**
   * Largest accepted line in **bytes**, newline excluded; a positive integer. A longer one is skipped
   * unparsed (never buffered whole) and answered with -32600. Default 4 MiB (4,194,304).
   */
  maxLineBytes?: number
  /** Who the client is, when the launcher knows (`ctx.authInfo`; sealed state and sessions bind to it). */
  authInfo?: AuthInfo
  /** Passed to handlers as `ctx.env`. */
  env?: unknown
}

/** A served stdio connection. */
export interface StdioConnection {
  /**
   * Resolves (never rejects) once the connection is over: the input ended (or broke, or {@link close} was
   * called, or the output broke), the requests in flight finished, and the output was closed.
   */
  closed: Promise<void>
  /**
   * Stop now: stop reading, abort the signal of every request in flight (their responses are still
   * written if they come), close the output. The output gets 1 s to take what is queued; then it is
   * aborted and the rest dropped, so that a client that stopped reading cannot hold this up. Resolves
   * with {@link closed}; never throws.
   */
  close(): Promise<void>
}

/** Past this many messages waiting to be written, reading pauses until the output drains. */
const MAX_PENDING_WRITES = 64

/** A request being handled on this connection. */
interface InFlight {
  controller: AbortController
  /** `notifications/cancelled` named it: nothing more is written for it. */
  cancelled: boolean
  /** A `subscriptions/listen` stream: it waits on the client, and ends with the input. */
  listen: boolean
  /** The ids (as keys) of its questions to the client not yet answered: while any is, it ends with the input. */
  asked: Set<string>
}

/**
 * Serve an MCP server over one stdio connection: read `input` line by line, answer each request as its
 * handler completes (requests run concurrently; responses are written in completion order), and write
 * its notifications — progress, log messages, a `subscriptions/listen` stream's events, and to a
 * 2025-era client the questions it is asked (`elicitation/create`, `sampling/createMessage`,
 * `roots/list`), whose answers come back on `input` — as they happen. Reading pauses while more than 64
 * messages wait for a slow `output`.
 *
 * Errors on the wire are answered, never fatal: a line that is not JSON or not UTF-8 gets -32700, a JSON
 * value that is not one JSON-RPC message -32600 (with its id when readable), a line over `maxLineBytes`
 * -32600 naming the cap, a request reusing the id of one in flight -32600 — each also logged with
 * the server's logger (a warning, or a `stdio.*` record). Error responses without a readable id carry
 * no `id` member (MCP's schema forbids `null`). `notifications/cancelled` aborts the named request's
 * `ctx.signal`, and nothing more is written for it (its response included).
 *
 * 2025 era: the connection is the session. The `Mcp-Session-Id` its `initialize` is given (when the
 * server seals sessions, as `McpServer` does by default) is handed to the server with every later
 * message (`Channel.sessionId`), so a tool may ask the client questions; with sealing off, requests
 * run statelessly and cannot ask. Reading pauses after a 2025 `initialize` (one without the `_meta`
 * envelope) until it has been answered, so that a client pipelining `notifications/initialized` and its
 * first requests behind it has them handled, in order, within the session.
 *
 * Shutdown (spec: stdio.mdx "Shutdown"): when `input` ends, reading stops; requests that wait on the
 * client (listen streams, requests with a question not yet answered, or asking one after) are aborted
 * (a listen stream still gets its closing result), the others finish and their responses are written;
 * then `output` is closed (as slowly as the client reads it) and {@link StdioConnection.closed} resolves
 * — on Node, Deno and Bun the process then exits by itself. A broken `output` (EPIPE: the client went
 * away) stops the connection the same way, aborting everything.
 * The server's own diagnostics go to `server.logger` (by default `console.warn` / `console.error`:
 * stderr on Node, Deno and Bun).
 *
 * @throws RangeError for a `maxLineBytes` that is not a positive integer.
 * @throws TypeError when `output` is locked (another writer holds it).
 * @example
 * const connection = serveStdio(mcp, { input: Deno.stdin.readable, output: Deno.stdout.writable })
 * await connection.closed
 */
export function serveStdio(target: Server | McpServer, options: StdioServerOptions): StdioConnection {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES
  if (!(Number.isInteger(maxLineBytes) && maxLineBytes > 0))
    throw new RangeError(`maxLineBytes must be a positive integer, got ${String(maxLineBytes)}`)
  const server: Server = 'server' in target ? target.server : target
  const connection = new Connection(server, options, maxLineBytes)
  return { closed: connection.closed, close: () => connection.close() }
}

class Connection {
  readonly closed: Promise<void>
  readonly #server: Server
  readonly #options: StdioServerOptions
  readonly #writer: LineWriter
  /** Stops reading the input. */
  readonly #stop = new AbortController()
  /** Resolves when {@link #stop} aborts. */
  readonly #stopped = new Promise<void>((resolve) =>
    this.#stop.signal.addEventListener('abort', () => resolve(), { once: true }),
  )
  readonly #inflight = new Map<string, InFlight>()
  /** The request that asked each question not yet answered, by the question's id (as a key). */
  readonly #questions = new Map<string, InFlight>()
  readonly #tasks = new Set<Promise<void>>()
  /** The legacy session the client's `initialize` was given. */
  #sessionId: string | undefined
  /** A 2025 `initialize` being handled: nothing more is read until it has been answered (session set). */
  #initializing: Promise<void> | undefined
  #inputEnded = false
  #pending = 0
  #lastWrite: Promise<void> = Promise.resolve()

  constructor(server: Server, options: StdioServerOptions, maxLineBytes: number) {
    this.#server = server
    this.#options = options
    this.#writer = new LineWriter(options.output)
    this.closed = this.#run(maxLineBytes)
  }

  async close(): Promise<void> {
    const reason = new Error('the stdio connection was closed')
    this.#abortAll(reason)
    const timer = setTimeout(() => this.#writer.abort(reason), CLOSE_GRACE_MS)
    try {
      await this.closed
    } finally {
      clearTimeout(timer)
    }
  }

  async #run(maxLineBytes: number): Promise<void> {
    try {
      for await (const line of readLines(this.#options.input, { maxLineBytes, signal: this.#stop.signal })) {
        if (this.#stop.signal.aborted) break // stopped: a cut-off tail is no client mistake
        if (line.kind === 'line') this.#receive(line.text)
        else this.#framingError(line, maxLineBytes)
        // a pipelined `notifications/initialized` and first requests wait, unread, for the session
        if (this.#initializing) await Promise.race([this.#initializing, this.#stopped])
        this.#initializing = undefined
        if (this.#pending > MAX_PENDING_WRITES) await Promise.race([this.#lastWrite, this.#stopped])
      }
    } catch (error) {
      if (!this.#stop.signal.aborted)
        logError(this.#server.logger, 'stdio.readFailed', 'reading the stdio input failed', error)
    }
    this.#inputEnded = true
    for (const entry of this.#inflight.values()) if (waitsOnClient(entry)) entry.controller.abort(inputEnded())
    while (this.#tasks.size > 0) await Promise.all(this.#tasks)
    await this.#writer.close()
  }

  /** Abort every request in flight and stop reading. */
  #abortAll(reason: Error): void {
    this.#stop.abort(reason)
    for (const entry of this.#inflight.values()) entry.controller.abort(reason)
  }

  #framingError(line: Exclude<StdioLine, { kind: 'line' }>, maxLineBytes: number): void {
    const { logger } = this.#server
    if (line.kind === 'truncated') {
      logWarn(
        logger,
        'stdio.truncated',
        `stdio: the input ended in the middle of a message (${line.bytes} bytes dropped)`,
      )
      return
    }
    const error =
      line.kind === 'too-long'
        ? new McpError(
            ErrorCode.InvalidRequest,
            `Invalid Request: the line is ${line.bytes} bytes, over the ${maxLineBytes}-byte cap (maxLineBytes)`,
          )
        : new McpError(ErrorCode.ParseError, 'Parse error: the line is not valid UTF-8')
    logWarn(logger, line.kind === 'too-long' ? 'stdio.tooLong' : 'stdio.invalidUtf8', `stdio: ${error.message}`)
    this.#send(errorResponse(null, error))
  }

  /** One line of text: parsed, classified, handed to the server. */
  #receive(text: string): void {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      const error = new McpError(ErrorCode.ParseError, 'Parse error: the line is not valid JSON')
      logWarn(this.#server.logger, 'stdio.parseError', `stdio: ${error.message} (${text.length} characters)`)
      this.#send(errorResponse(null, error))
      return
    }
    let message: InboundMessage
    try {
      message = classifyMessage(value)
    } catch (error) {
      const mcp = error as McpError // classifyMessage throws only McpErrors
      logWarn(this.#server.logger, 'stdio.invalidMessage', `stdio: ${mcp.message}`)
      this.#send(errorResponse(requestIdOf(value), mcp))
      return
    }
    if (message.kind === 'request') this.#request(message.message)
    else this.#track(this.#other(message))
  }

  /** A notification or a client's answer to a question: handed on; what it could not do is logged. */
  async #other(message: Exclude<InboundMessage, { kind: 'request' }>): Promise<void> {
    if (message.kind === 'response') this.#answered(message.message.id) // at once: the input may end next
    if (message.kind === 'notification' && message.message.method === 'notifications/cancelled') {
      const params = message.message.params ?? {}
      const entry = isRequestId(params.requestId) ? this.#inflight.get(requestIdKey(params.requestId)) : undefined
      if (entry && !entry.cancelled) {
        entry.cancelled = true
        const reason = typeof params.reason === 'string' ? params.reason : 'cancelled by the client'
        entry.controller.abort(new Error(reason))
      }
    }
    const handled = await this.#server.handle(message, this.#info(undefined), this.#channel(undefined))
    const error = handled.response && 'error' in handled.response ? handled.response.error : undefined
    if (error) {
      const why = `stdio: a ${message.kind} from the client was refused: ${error.message}`
      logWarn(this.#server.logger, 'stdio.refused', why, { code: error.code })
    }
  }

  #request(request: JSONRPCRequest): void {
    const key = requestIdKey(request.id)
    if (this.#inflight.has(key)) {
      const why = `Invalid Request: request id ${JSON.stringify(request.id)} is already in use by a request in flight`
      logWarn(this.#server.logger, 'stdio.duplicateId', `stdio: ${why}`, {
        method: request.method,
        requestId: request.id,
      })
      this.#send(errorResponse(request.id, new McpError(ErrorCode.InvalidRequest, why)))
      return
    }
    const entry: InFlight = {
      controller: new AbortController(),
      cancelled: false,
      listen: request.method === 'subscriptions/listen',
      asked: new Set(),
    }
    if (this.#stop.signal.aborted) entry.controller.abort(this.#stop.signal.reason)
    else if (entry.listen && this.#inputEnded) entry.controller.abort(inputEnded())
    this.#inflight.set(key, entry)
    const run = async () => {
      try {
        const handled = await this.#server.handle(
          { kind: 'request', message: request },
          this.#info(entry),
          this.#channel(entry),
        )
        if (handled.sessionId !== undefined) this.#sessionId = handled.sessionId // before its response goes out
        if (handled.response && !entry.cancelled) this.#send(handled.response)
      } finally {
        this.#inflight.delete(key)
        for (const question of entry.asked) this.#questions.delete(question)
      }
    }
    const task = run()
    this.#track(task)
    if (request.method === 'initialize' && !hasEnvelope(request.params)) this.#initializing = task.catch(() => {})
  }

  /** The facts of one message; `entry` for a request (its signal). */
  #info(entry: InFlight | undefined): RequestInfo {
    const info: RequestInfo = {}
    if (this.#options.env !== undefined) info.env = this.#options.env
    if (this.#options.authInfo !== undefined) info.authInfo = this.#options.authInfo
    if (entry) info.signal = entry.controller.signal
    return info
  }

  /** The connection's side of one message: its session; `entry` for a request (its notifications). */
  #channel(entry: InFlight | undefined): Channel {
    const channel: Channel = { transport: 'stdio' }
    if (this.#sessionId !== undefined) channel.sessionId = this.#sessionId
    if (entry) channel.notify = (message) => this.#notify(entry, message)
    return channel
  }

  /** A request's notification, or (2025 era) its question to the client. */
  #notify(entry: InFlight, message: JSONRPCNotification | JSONRPCRequest): void {
    // a cancelled request sends nothing more (spec: stdio.mdx "Cancellation"), except withdrawing its questions
    if (entry.cancelled && message.method !== 'notifications/cancelled') return
    if ('id' in message) {
      // nobody can answer once the input has ended: the question is not asked, the request ends
      if (this.#inputEnded) {
        entry.controller.abort(inputEnded())
        return
      }
      const question = requestIdKey(message.id)
      entry.asked.add(question)
      this.#questions.set(question, entry)
    } else if (message.method === 'notifications/cancelled' && isRequestId(message.params?.requestId)) {
      this.#answered(message.params.requestId) // a question withdrawn waits for nothing
    }
    this.#send(message)
  }

  /** Question `id` was answered (or withdrawn): its request no longer waits on the client for it. */
  #answered(id: unknown): void {
    if (!isRequestId(id)) return
    const key = requestIdKey(id)
    this.#questions.get(key)?.asked.delete(key)
    this.#questions.delete(key)
  }

  /** Queue one message on the output; a broken output stops the connection. */
  #send(message: unknown): void {
    if (this.#writer.closed) return
    this.#pending++
    this.#lastWrite = this.#writer.write(message).then(
      () => void this.#pending--,
      (error: unknown) => {
        this.#pending--
        if (this.#writer.closed) {
          if (this.#stop.signal.aborted) return
          logWarn(this.#server.logger, 'stdio.outputBroke', `stdio: the output broke (${String(error)}); stopping`)
          this.#abortAll(new Error('the stdio output broke'))
        } else this.#unwritable(message, error)
      },
    )
  }

  /** A message JSON cannot hold (a handler returned a BigInt, a cycle): a response becomes -32603. */
  #unwritable(message: unknown, error: unknown): void {
    logError(this.#server.logger, 'stdio.unserializable', 'a message could not be serialized as JSON', error)
    if (isPlainObject(message) && isRequestId(message.id) && !('method' in message))
      this.#send(errorResponse(message.id, new McpError(ErrorCode.InternalError, 'Internal error')))
  }

  #track(task: Promise<void>): void {
    const tracked = task.catch((error: unknown) =>
      logError(this.#server.logger, 'stdio.failed', 'stdio: handling a message failed', error),
    )
    this.#tasks.add(tracked)
    void tracked.finally(() => this.#tasks.delete(tracked))
  }
}

/** Whether `entry` ends with the input: a listen stream, or a request with a question unanswered. */
function waitsOnClient(entry: InFlight): boolean {
  return entry.listen || entry.asked.size > 0
}

function inputEnded(): Error {
  return new Error('the stdio input ended')
}
