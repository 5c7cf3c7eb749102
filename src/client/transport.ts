/**
 * The contract between the `Client` and a transport: one JSON-RPC message out, its answer back, and the
 * 2025-era extras (a session's end, its standalone stream). Implemented by `StreamableHttpClientTransport`
 * (`http/transport.ts`) and `StdioClientTransport` (`stdio.ts`).
 * @module
 */
import type { JSONRPCNotification, JSONRPCRequest, JSONRPCResponse } from '../protocol/schemas/index.ts'

/**
 * The 2025-era session a message belongs to (spec 2025-11-25: basic/lifecycle.mdx). A transport whose
 * connection is the session (stdio) needs nothing of it; the HTTP transport sends its version and id as
 * `MCP-Protocol-Version` and `Mcp-Session-Id`, and only the headers a 2025 server knows.
 */
export interface SessionBinding {
  /** The version the session's `initialize` negotiated; undefined while `initialize` itself is sent. */
  protocolVersion?: string
  /** The session's id, as the server gave it; undefined before `initialize` was answered, or when it gave none. */
  id?: string
  /** Called with the id the server gives the session in its answer (HTTP: the `Mcp-Session-Id` header). */
  onId?: (id: string | undefined) => void
}

/** Options for one message sent by a {@link ClientTransport}. */
export interface SendOptions {
  /** Aborts the message's exchange (closing the stream is the cancel in 2026-07-28). */
  signal?: AbortSignal
  /** Called for each notification about the request received before its response. */
  onNotification?: (notification: JSONRPCNotification) => void
  /**
   * Runs a step that waits for the user (the OAuth login in the browser) with the request timeout
   * paused: the `Client` passes one, so a slow login is not a `RequestTimeoutError`. The caller's own
   * abort still applies.
   */
  interactive?: <T>(step: () => Promise<T>) => Promise<T>
  /**
   * Called for each server-to-client request (a 2025-era server's `elicitation/create`,
   * `sampling/createMessage`, `roots/list`, `ping`) about the request, before its response; reading goes
   * on meanwhile. The answer is the caller's to send (a response message, through `send`).
   */
  onRequest?: (request: JSONRPCRequest) => void
  /**
   * The 2025-era session of the message; undefined for a 2026-07-28 message, which belongs to none. A
   * transport may pick up a request of a session whose answer broke off (HTTP: resumption with
   * `Last-Event-ID`, see `StreamableHttpClientTransport`); 2026-07-28 answers are not resumed.
   */
  session?: SessionBinding
  /**
   * The request's arguments that its tool declares for routing (spec: `x-mcp-header`), by the declared name
   * (`{ Region: 'eu' }`); 2026-07-28 requests only. The HTTP transport sends each as an `Mcp-Param-{name}`
   * header (a string not safe ASCII encoded, spec: streamable-http.mdx "Custom headers"); a transport
   * without headers has nothing to route with.
   */
  routing?: Record<string, string | number | boolean>
  /**
   * Called once the server has taken the message (HTTP: a 2xx status), before its answer is read; a
   * transport that cannot tell (stdio: nothing acknowledges a line) never calls it.
   */
  onAccepted?: () => void
}

/** Options of {@link ClientTransport.openStream}. */
export interface StreamOptions {
  /** The session whose stream it is. */
  session: SessionBinding
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
   * End a 2025-era session (HTTP: `DELETE` with its `Mcp-Session-Id`; a 405, the server does not let
   * clients end sessions, is no failure). Optional: a transport whose connection is the session leaves it out.
   */
  endSession?(session: SessionBinding): Promise<void>
  /**
   * Open a 2025-era session's standalone SSE stream (spec 2025-11-25: transports.mdx "Listening for
   * Messages from the Server"): `GET` with `Accept: text/event-stream`. Optional, like {@link endSession}.
   * @returns undefined when the server answers 405 (it offers no stream); else, once the stream is open,
   *   `{ closed }`: settles when the stream ended for good — resolved when the server closed it without a
   *   way to resume or `signal` aborted; rejected when reconnecting failed or was given up (HTTP: see
   *   `StreamableHttpClientTransport`), the connection broke off with no way to resume (NetworkError), or an
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
  /**
   * The server's address, when the transport has one (HTTP: its URL): the key under which the `Client`'s
   * `eraStore` and response cache keep what they learn of the server. Unset (stdio): the era is not stored,
   * and cached answers stay with the one `Client`.
   */
  readonly url?: string
}
