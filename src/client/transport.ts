/**
 * The contract between the `Client` and a transport: one JSON-RPC message out, its answer back, and the
 * 2025-era extras (a session's end, its standalone stream). Implemented by `StreamableHttpClientTransport`
 * (`http/transport.ts`) and `StdioClientTransport` (`stdio.ts`).
 * @module
 */
import type { JSONRPCNotification, JSONRPCRequest, JSONRPCResponse } from '../protocol/schemas/index.ts'

/** Options for one message sent by a {@link ClientTransport}. */
export interface SendOptions {
  /** Aborts the HTTP request (closing the stream is the cancel in 2026-07-28). */
  signal?: AbortSignal
  /** Called for each notification received on the request's SSE stream before its response. */
  onNotification?: (notification: JSONRPCNotification) => void
  /** Extra request headers for this message only (e.g. `Mcp-Param-*`). */
  headers?: Record<string, string>
  /**
   * Runs a step that waits for the user (the OAuth login in the browser) with the request timeout
   * paused: the `Client` passes one, so a slow login is not a `RequestTimeoutError`. The caller's own
   * abort still applies.
   */
  interactive?: <T>(step: () => Promise<T>) => Promise<T>
  /**
   * Called for each server-to-client request (a 2025-era server's `elicitation/create`,
   * `sampling/createMessage`, `roots/list`, `ping`) on the request's SSE stream; the stream goes on
   * being read meanwhile. The answer is the caller's to send (a response message, through `send`).
   */
  onRequest?: (request: JSONRPCRequest) => void
  /** Called with the HTTP response before its body is read (a 2025-era client reads `Mcp-Session-Id`). */
  onResponse?: (response: Response) => void
  /**
   * 2025-era only (spec 2025-11-25: transports.mdx "Resumability and Redelivery", SEP-1699): when the
   * request's SSE stream closes, or its connection breaks off, before its response after the server gave
   * event ids, `GET` it again with `Last-Event-ID` (and `headers`) once the server's `retry` has passed (in
   * milliseconds, at least 100; doubled per reconnection without a message), and read on; at most 5
   * reconnections in a row that bring no message (a priming event is none) and 100 in all. Off by default:
   * 2026-07-28 streams are not resumable.
   */
  resume?: boolean
  /**
   * The era of the session the message belongs to (default `'modern'`). `'legacy'` (a 2025-era session):
   * the POST carries only the headers a 2025 server knows — `Content-Type`, `Accept`, the `headers` given
   * (`MCP-Protocol-Version`, `Mcp-Session-Id`) but any `Mcp-Method`, `Mcp-Name` or `Mcp-Param-*` among them
   * dropped, the transport's own headers and `Authorization` — and no `Mcp-Method` / `Mcp-Name` of its own:
   * a browser preflights every other header, and a 2025 server's CORS allow-list refuses it.
   */
  era?: 'modern' | 'legacy'
}

/** Options of {@link ClientTransport.openStream}. */
export interface StreamOptions {
  /**
   * The session's headers (`Mcp-Session-Id`, `MCP-Protocol-Version`); 2026-only ones (`Mcp-Method`,
   * `Mcp-Name`, `Mcp-Param-*`) are not sent, as with {@link SendOptions.era} `'legacy'`.
   */
  headers?: Record<string, string>
  /** Closes the stream, and stops reconnecting, when it aborts. */
  signal: AbortSignal
  /** Each server-to-client request on the stream (the answer is the caller's to send). */
  onRequest?: (request: JSONRPCRequest) => void
  /** Each notification on the stream. */
  onNotification?: (notification: JSONRPCNotification) => void
}

/** What a transport sends: a request, a notification, or (2025-era) the answer to a server's request. */
export type OutboundMessage = JSONRPCRequest | JSONRPCNotification | JSONRPCResponse

/** Moves one JSON-RPC message to the server and brings back its response (undefined for notifications). */
export interface ClientTransport {
  send(message: OutboundMessage, options?: SendOptions): Promise<unknown>
  /**
   * End a 2025-era session: `DELETE` with these headers (`Mcp-Session-Id`); a 405 (the server does not
   * let clients end sessions) is no failure. Optional: transports without sessions leave it out.
   */
  endSession?(headers: Record<string, string>): Promise<void>
  /**
   * Open a 2025-era session's standalone SSE stream (spec 2025-11-25: transports.mdx "Listening for
   * Messages from the Server"): `GET` with `Accept: text/event-stream`. Optional, like {@link endSession}.
   * @returns undefined when the server answers 405 (it offers no stream); else, once the stream is open,
   *   `{ closed }`: settles when the stream ended for good — resolved when the server closed it without a
   *   way to resume or `signal` aborted; rejected when reconnecting failed or was given up (as
   *   {@link SendOptions.resume}), the connection broke off with no way to resume (NetworkError), or an
   *   event was not JSON or too long (InvalidResultError).
   * @throws HttpError for another answer (a success that is no SSE stream included); NetworkError.
   */
  openStream?(options: StreamOptions): Promise<{ closed: Promise<void> } | undefined>
  /**
   * Set by a transport on which a server may leave an unknown request unanswered (stdio: a 2025-era server
   * before `initialize`): the `Client`'s era probe (`versionNegotiation: 'auto'`) then waits this long for the
   * answer to `server/discover`, in milliseconds, and no answer is taken for a 2025-era server. Unset (HTTP):
   * the probe waits `requestTimeoutMs`, and a timeout is no verdict (thrown to the request).
   */
  readonly probeTimeoutMs?: number
}
