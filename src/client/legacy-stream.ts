/**
 * A 2025-era session's standalone SSE stream (spec 2025-11-25: basic/transports.mdx "Listening for Messages
 * from the Server"): the `GET` that lets the server send requests and notifications not tied to a request of
 * ours (the official v1 SDK's `elicitInput` without `relatedRequestId`, `notifications/elicitation/complete`,
 * list changes). Opened after `notifications/initialized`; a 405 means the server offers none.
 * @module
 */
import type { JSONRPCNotification, JSONRPCRequest } from '../protocol/schemas/index.ts'
import type { ClientTransport } from '../transport/http-client.ts'

/** How long `open` waits for the stream's answer before the session goes on without waiting, in milliseconds. */
export const STREAM_OPEN_WAIT_MS = 1_000

/** What the stream needs of its session. */
export interface StandaloneStreamDeps {
  transport: ClientTransport
  /** The session's headers (`Mcp-Session-Id`, `MCP-Protocol-Version`). */
  headers: Record<string, string>
  /** A server-to-client request; `signal` aborts when the stream is closed. */
  onRequest(request: JSONRPCRequest, signal: AbortSignal): void
  onNotification(notification: JSONRPCNotification): void
  warn(message: string): void
}

/**
 * One session's standalone stream: `state` is `'opening'`, `'open'` (messages can arrive) or `'none'` (405,
 * failed, ended, or closed). Closing aborts the `GET` and any reconnection wait, so nothing keeps a process alive.
 */
export class StandaloneStream {
  #state: 'opening' | 'open' | 'none' = 'opening'
  readonly #abort = new AbortController()
  /** Settles once the server answered the `GET` (or it failed). */
  readonly opened: Promise<void>

  constructor(deps: StandaloneStreamDeps) {
    const signal = this.#abort.signal
    if (!deps.transport.openStream) {
      this.#state = 'none'
      this.opened = Promise.resolve()
      return
    }
    this.opened = deps.transport
      .openStream({
        headers: deps.headers,
        signal,
        onRequest: (request) => deps.onRequest(request, signal),
        onNotification: (notification) => deps.onNotification(notification),
      })
      .then(
        (stream) => {
          if (!stream || signal.aborted) {
            this.#state = 'none' // 405: the server offers no stream
            return
          }
          this.#state = 'open'
          stream.closed
            .catch((error: unknown) => deps.warn(`the session's GET stream failed: ${String(error)}`))
            .finally(() => (this.#state = 'none'))
        },
        (error: unknown) => {
          this.#state = 'none'
          if (!signal.aborted) deps.warn(`the session's GET stream could not be opened: ${String(error)}`)
        },
      )
  }

  get state(): 'opening' | 'open' | 'none' {
    return this.#state
  }

  /** Wait until the server answered the `GET`, at most `ms` milliseconds. */
  async waitOpened(ms: number = STREAM_OPEN_WAIT_MS): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([this.opened, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))])
    clearTimeout(timer)
  }

  /** Close the stream (abort the `GET`, stop reconnecting). */
  close(): void {
    this.#state = 'none'
    this.#abort.abort()
  }
}
