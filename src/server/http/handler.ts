/**
 * Streamable HTTP, server side, as a Web-standard fetch handler `(Request) => Promise<Response>`
 * (spec: basic/transports/streamable-http.mdx, 2026-07-28: POST only, one JSON-RPC message per body).
 * Who may call is policy.ts; whether the standard headers match the body, headers.ts; how the answer is
 * written, sse.ts.
 * @module
 */
import { hasEnvelope } from '../../protocol/envelope.ts'
import { ErrorCode, McpError } from '../../protocol/errors.ts'
import { classifyMessage, errorResponse, requestIdOf, type InboundMessage } from '../../protocol/jsonrpc.ts'
import type { RequestId } from '../../protocol/schemas/index.ts'
import type { Channel, RequestInfo } from '../context.ts'
import type { McpServer } from '../mcp-server.ts'
import type { Server } from '../server.ts'
import type { AuthInfo } from '../../protocol/auth.ts'
import { hostPolicy, originPolicy, preflightResponse, withCors, type AllowedOrigins } from './policy.ts'
import { CUT_MESSAGE, cutRequest, reply, streamIfNotified, type Cut, type Representation } from './sse.ts'
import { checkHeaders } from './headers.ts'
import { readBody } from './body.ts'
import { MAX_TIMER_MS } from '../runtime.ts'
import { bearerChallenge, type ProtectedResource } from './bearer.ts'
import type { Handled } from '../handled.ts'
import { sessionNotFound } from '../legacy.ts'
import { logError } from '../log.ts'

/** The channel of a request answered as one JSON response: no stream to notify on. */
const HTTP_CHANNEL: Channel = Object.freeze({ transport: 'http' })

/** Options of {@link createFetchHandler}. */
export interface FetchHandlerOptions {
  /** Largest accepted request body in **bytes**, counted while streaming. Default 4 MiB (4,194,304). */
  maxBodyBytes?: number
  /**
   * Verify the caller and return its auth info (binds sealed state to the principal), or undefined for
   * an anonymous request. Throw to refuse (401); the error's message is not sent to the client. Gets the
   * fetch handler's `env` and `executionCtx` (e.g. `ctx.props` set by `@cloudflare/workers-oauth-provider`).
   */
  authenticate?: (
    request: Request,
    env: unknown,
    executionCtx: unknown,
  ) => AuthInfo | undefined | Promise<AuthInfo | undefined>
  /**
   * Make this endpoint an OAuth 2.1 protected resource (spec: basic/authorization), with
   * `protectedResource({ authorizationServers, verifyToken, … })` (its code is bundled only when you call it):
   * the Protected Resource Metadata (RFC 9728) is served at `/.well-known/oauth-protected-resource{path}`
   * (GET, any origin), and every MCP request needs `Authorization: Bearer <token>` that `verifyToken`
   * accepts for this resource (`jwtVerifier` / `introspectionVerifier` of `edge-mcp/oauth`). Without one (or
   * with a token in the query string): 401 with `WWW-Authenticate: Bearer resource_metadata="…"` (plus
   * `error="invalid_token"` and `error_description` when a token was sent and refused); without
   * `requiredScopes` or a tool's, prompt's or resource's registration `scopes`: 403
   * `error="insufficient_scope"` with the `scope` needed; a verifier that cannot run (its JWKS unreachable):
   * 503. The verified identity is `ctx.authInfo`, and sealed `requestState` and legacy session ids are bound
   * to it. Not together with `authenticate`.
   * Needs `oauth.resource` or `allowedHosts`: the resource derived from the request is only as good as its
   * Host header, which a client chooses (on Node, Deno, Bun, or behind a proxy that forwards it).
   */
  oauth?: ProtectedResource
  /**
   * Browser origins allowed to call this endpoint (spec: servers MUST validate `Origin`, against DNS
   * rebinding): exact origins like `"https://app.example"`, `"*"` for any, or a predicate. Requests
   * without an `Origin` header (non-browser clients) are always allowed. Default: only the endpoint's
   * own origin. A disallowed origin gets 403; an allowed cross-origin caller gets CORS headers on every
   * response, errors included, and preflights (`OPTIONS`) are answered with 204.
   */
  allowedOrigins?: AllowedOrigins
  /**
   * Host names this endpoint is served under, checked against the request URL's host (the `Host`
   * header) before anything else: a request for any other host gets 403. An entry with a port
   * (`"localhost:8787"`, `"example.com:443"`) must match host and port, the scheme's default port
   * included; one without (`"localhost"`, `"[::1]"`) matches any port. Case-insensitive. Set it for a
   * server on loopback or a private network: under DNS rebinding the attacker's page is same-origin with
   * its own host name, so only the host check stops it (spec: basic/transports/streamable-http.mdx
   * "Security Warning"). Default: any host.
   * @example createFetchHandler(mcp, { allowedHosts: ['localhost', '127.0.0.1', '[::1]'] })
   */
  allowedHosts?: readonly string[]
  /**
   * Interval of `:` keep-alive comments on a streamed (SSE) response, in **milliseconds**: positive, at
   * most 2,147,483,647 (what a timer holds; a timer past it, or of 0, fires every millisecond). Default 15,000.
   * Also how long a request that sends nothing may run before its answer becomes an SSE stream opening
   * with a keep-alive (when `Accept` admits `text/event-stream`; not `initialize`); one that ends sooner
   * gets plain JSON. workerd notices a closed connection only when it next writes, so on Workers (with
   * `enable_request_signal`) the handler's `signal` aborts about 2 × `keepAliveMs` after the client goes
   * away, and not at all for a client that accepts only `application/json`.
   */
  keepAliveMs?: number
}

const DEFAULT_KEEP_ALIVE_MS = 15_000

/** A Web-standard fetch handler; `env` and `executionCtx` are passed to handlers (Workers signature). */
export type FetchHandler = (request: Request, env?: unknown, executionCtx?: unknown) => Promise<Response>

const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
/** Shared: `decode` without `{ stream: true }` keeps no state between calls. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/** What one endpoint serves, with its resolved options. */
interface Endpoint {
  server: Server
  maxBodyBytes: number
  keepAliveMs: number
  /** The caller's options, read per request: `authenticate` is called as a method of them (its `this`). */
  options: FetchHandlerOptions
  /** The OAuth protected resource, when `oauth` is set. */
  protectedResource: ProtectedResource | undefined
}

/**
 * Serve an MCP server over Streamable HTTP.
 *
 * Answers: 200 with JSON (or a one-event SSE stream when the client accepts only `text/event-stream`), or
 * with an SSE stream once the handler notifies or is still running after `keepAliveMs` (SSE accepted);
 * 202 for notifications; 400 for framing, envelope, version (-32022), header (-32020) and capability
 * (-32021) errors; 404 with -32601 for unknown methods; 405 for other HTTP methods; 406 / 415 for
 * unacceptable `Accept` / `Content-Type`; 413 over the body cap; 403 for a host outside `allowedHosts` or
 * a disallowed `Origin`. Never a 500 for a client mistake. A 2025-era request (no `_meta` envelope) is
 * the server's legacy lane (`ServerOptions.legacy`): its in-band errors are 200, an unsupported
 * `MCP-Protocol-Version` header 400; the header cross-checks (-32020) apply to enveloped requests only.
 * A 2025-era client's answer to a server-to-client request gets 202, or 400 when it is not one.
 *
 * @throws RangeError for a `maxBodyBytes` that is not a positive integer, or a `keepAliveMs` out of range.
 * @throws TypeError for both `oauth` and `authenticate`, an `oauth` not made by `protectedResource`, or
 *   `oauth` with neither `resource` nor `allowedHosts`.
 * @example
 * export default { fetch: createFetchHandler(mcp) }
 */
export function createFetchHandler(target: Server | McpServer, options: FetchHandlerOptions = {}): FetchHandler {
  const server: Server = 'server' in target ? target.server : target
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS
  if (!(Number.isInteger(maxBodyBytes) && maxBodyBytes > 0))
    throw new RangeError(`maxBodyBytes must be a positive integer, got ${String(maxBodyBytes)}`)
  if (!(keepAliveMs > 0 && keepAliveMs <= MAX_TIMER_MS))
    throw new RangeError(`keepAliveMs must be a number of ms in (0, ${MAX_TIMER_MS}], got ${String(keepAliveMs)}`)
  const isAllowed = originPolicy(options.allowedOrigins)
  const isAllowedHost = hostPolicy(options.allowedHosts)
  if (options.oauth && options.authenticate) throw new TypeError('Pass either oauth or authenticate, not both')
  const protectedResource = options.oauth
  if (protectedResource !== undefined) {
    if (typeof (protectedResource as Partial<ProtectedResource>).authenticate !== 'function')
      throw new TypeError('oauth must be made with protectedResource({ authorizationServers, verifyToken, … })')
    // a resource derived from the Host header needs a Host allow-list: else a client sends `Host: other.example`
    // with a token the same issuer minted for https://other.example/mcp, and the audience check passes
    if (protectedResource.options.resource === undefined && options.allowedHosts === undefined)
      throw new TypeError(
        "oauth needs resource (this server's URL) or allowedHosts: a resource derived from any Host header would accept tokens minted for other resources",
      )
  }
  const endpoint: Endpoint = { server, maxBodyBytes, keepAliveMs, options, protectedResource }
  return async (request, env, executionCtx) => {
    // Some runtimes (Bun) hand over whatever the Host header said; an unparsable one is the client's mistake.
    let url: URL
    try {
      url = new URL(request.url)
    } catch {
      return jsonError(
        400,
        null,
        new McpError(ErrorCode.InvalidRequest, 'Bad request: the request URL (its Host header) is not a valid URL'),
      )
    }
    if (!isAllowedHost(url)) {
      // names the remedy, never the configured hosts (the caller need not learn the server's config)
      const why = `Forbidden: host ${url.host} is not in this server's allowedHosts (DNS-rebinding protection); add it there to serve it`
      return jsonError(403, null, new McpError(ErrorCode.InvalidRequest, why))
    }
    // public, and holds no credential: any origin may read it (browser clients run discovery from it)
    if (protectedResource?.isMetadataPath(url)) return protectedResource.metadataResponse(request, url)
    const origin = request.headers.get('origin')
    if (origin === null || origin === url.origin) return serve(endpoint, request, url, env, executionCtx)
    if (!isAllowed(origin)) {
      const why = `Forbidden: origin ${origin} is not in this server's allowedOrigins; add it there to let its pages call this endpoint`
      return jsonError(403, null, new McpError(ErrorCode.InvalidRequest, why))
    }
    if (request.method === 'OPTIONS') return preflightResponse(request, origin)
    return withCors(await serve(endpoint, request, url, env, executionCtx), origin)
  }
}

/**
 * Answer one request that passed the host and origin checks, stage by stage: its framing (method,
 * `Content-Type`, `Accept`), its bearer token (before the body: an unauthenticated caller costs no
 * parsing), its body, its standard headers against the body, its caller (`authenticate`), then the
 * server's answer, written as JSON or an SSE stream. A failure of the server itself is a 500.
 */
async function serve(
  endpoint: Endpoint,
  request: Request,
  url: URL,
  env: unknown,
  executionCtx: unknown,
): Promise<Response> {
  const { server } = endpoint
  try {
    const accept = checkFraming(request)
    if (accept instanceof Response) return accept
    // awaited only when there is something to wait for (a bearer token, `authenticate`): no promise per request
    const bearer = endpoint.protectedResource ? await checkBearer(endpoint, request, url, env) : NO_BEARER
    if (bearer instanceof Response) return bearer
    const message = 'id' in accept ? accept : await readMessage(request, endpoint.maxBodyBytes)
    if (message instanceof Response) return message
    if (message.kind === 'request' && hasEnvelope(message.message.params)) {
      const mismatch = checkHeaders(request.headers, message.message)
      if (mismatch) return jsonError(400, message.message.id, mismatch)
    }
    const info = endpoint.options.authenticate
      ? await requestInfo(endpoint, request, env, executionCtx, bearer.authInfo)
      : requestFacts(request, env, executionCtx, bearer.authInfo)
    if (info === 'unauthorized') {
      const id = message.kind === 'request' ? message.message.id : null
      return jsonError(401, id, new McpError(ErrorCode.InvalidRequest, 'Unauthorized'), {
        'WWW-Authenticate': 'Bearer',
      })
    }
    if (message.kind === 'cut') {
      // a 2025-era client resuming a stream cut before its response (spec 2025-11-25: basic/transports.mdx
      // "Resumability and Redelivery"): nothing is kept to replay, nothing runs again; in its session any
      // instance answers that the request's outcome is unknown, then ends the stream
      try {
        if (!(await server.legacySession(info))) throw sessionNotFound() // sealing off: no sessions
      } catch (error) {
        return jsonError((error as McpError).httpStatus ?? 400, null, error as McpError) // 404, 400
      }
      return reply(200, errorResponse(message.id, new McpError(ErrorCode.InternalError, CUT_MESSAGE)), 'sse')
    }
    const { as, sse } = accept as Acceptable // not a Cut: its message was
    const headersOf = (handled: Handled) => responseHeaders(endpoint, url, handled)
    if (message.kind !== 'request' || !sse) {
      info.signal = request.signal
      const handled = await server.handle(message, info, HTTP_CHANNEL)
      if (!handled.response) return new Response(null, { status: handled.status })
      return reply(handled.status, handled.response, as, headersOf(handled), server.logger)
    }
    // a streamed answer's signal is its own, made on first read (sse.ts)
    return streamIfNotified(server, message, info, request.signal, as, endpoint.keepAliveMs, headersOf)
  } catch (error) {
    logError(server.logger, 'http.failed', 'fetch handler failed', error)
    return jsonError(500, null, new McpError(ErrorCode.InternalError, 'Internal error'))
  }
}

/** What {@link checkBearer} finds without `oauth`: no auth info. */
const NO_BEARER: { authInfo?: AuthInfo } = Object.freeze({})

/**
 * The bearer token of a protected resource (`oauth`): its verified auth info, or the error response
 * (401 with a challenge, 403 insufficient scope, 503 with `Retry-After` when the verifier cannot run).
 * Without `oauth`: no auth info.
 */
async function checkBearer(
  endpoint: Endpoint,
  request: Request,
  url: URL,
  env: unknown,
): Promise<Response | { authInfo?: AuthInfo }> {
  const { server, protectedResource } = endpoint
  if (!protectedResource) return {}
  const log = (cause: unknown) =>
    logError(server.logger, 'auth.verifyFailed', 'the access token could not be verified', cause)
  const outcome = await protectedResource.authenticate(request, url, env, server.options.impliedScopes, log)
  if (outcome.ok) return { authInfo: outcome.authInfo }
  const headers = protectedResource.refusalHeaders(url, outcome)
  return jsonError(outcome.status, null, new McpError(ErrorCode.InvalidRequest, outcome.message), headers)
}

/**
 * The request's facts for the server (`ctx` of its handler): the request, `env`, `executionCtx`, and the
 * caller's auth info — the bearer token's, or what `authenticate` returned; `'unauthorized'` when
 * `authenticate` threw. The signal is added by the caller.
 */
async function requestInfo(
  endpoint: Endpoint,
  request: Request,
  env: unknown,
  executionCtx: unknown,
  authInfo: AuthInfo | undefined,
): Promise<RequestInfo | 'unauthorized'> {
  const info = requestFacts(request, env, executionCtx, authInfo)
  if (endpoint.options.authenticate) {
    try {
      const authenticated = await endpoint.options.authenticate(request, env, executionCtx)
      if (authenticated) info.authInfo = authenticated
    } catch {
      return 'unauthorized'
    }
  }
  return info
}

/** The request's facts without `authenticate`: the request, `env`, `executionCtx`, the bearer token's auth info. */
function requestFacts(
  request: Request,
  env: unknown,
  executionCtx: unknown,
  authInfo: AuthInfo | undefined,
): RequestInfo {
  const info: RequestInfo = { request, env, executionCtx }
  if (authInfo) info.authInfo = authInfo
  return info
}

/** The headers of a plain reply: the new 2025-era session's id, a bearer challenge from a handler; undefined for none. */
function responseHeaders(endpoint: Endpoint, url: URL, handled: Handled): Record<string, string> | undefined {
  if (handled.sessionId === undefined && !handled.challenge) return undefined
  const headers: Record<string, string> = {}
  if (handled.sessionId !== undefined) headers['Mcp-Session-Id'] = handled.sessionId
  if (handled.challenge) {
    const challenge = {
      ...handled.challenge,
      ...(handled.status === 403 ? { error: 'insufficient_scope' as const } : {}),
    }
    headers['WWW-Authenticate'] = endpoint.protectedResource
      ? endpoint.protectedResource.challengeHeader(url, challenge)
      : bearerChallenge(challenge)
  }
  return headers
}

/**
 * The HTTP method, `Content-Type` and `Accept` checks: an `OPTIONS` answer (204) or an error response
 * (405, 415, 406), else what `Accept` allows, or a `GET` resuming a cut stream ({@link cutRequest}).
 */
function checkFraming(request: Request): Response | Acceptable | Cut {
  if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: { Allow: 'POST, OPTIONS' } })
  if (request.method !== 'POST') {
    const cut = request.method === 'GET' && cutRequest(request)
    if (cut) return cut
    return jsonError(
      405,
      null,
      new McpError(ErrorCode.InvalidRequest, `Method not allowed: ${request.method}; this endpoint accepts POST`),
      {
        Allow: 'POST, OPTIONS',
      },
    )
  }
  const contentType = request.headers.get('content-type')
  if (contentType !== 'application/json' && !isJsonUtf8(contentType)) {
    return jsonError(
      415,
      null,
      new McpError(ErrorCode.InvalidRequest, 'Unsupported Media Type: Content-Type must be application/json (UTF-8)'),
    )
  }
  const accept = negotiate(request.headers.get('accept'))
  if (!accept) {
    return jsonError(
      406,
      null,
      new McpError(
        ErrorCode.InvalidRequest,
        'Not Acceptable: Accept must include application/json or text/event-stream',
      ),
    )
  }
  return accept
}

/** Read and classify the body: the JSON-RPC message, or an error response (413, 400 parse / framing error). */
async function readMessage(request: Request, maxBodyBytes: number): Promise<Response | InboundMessage> {
  const body = await readBody(request, maxBodyBytes)
  if (body === 'too-large') {
    return jsonError(
      413,
      null,
      new McpError(ErrorCode.InvalidRequest, `Payload Too Large: the body exceeds ${maxBodyBytes} bytes`),
    )
  }
  if (body === 'broken')
    return jsonError(400, null, new McpError(ErrorCode.InvalidRequest, 'The request body broke off before its end'))
  let value: unknown
  try {
    value = JSON.parse(strictUtf8.decode(body))
  } catch {
    return jsonError(400, null, new McpError(ErrorCode.ParseError, 'Parse error: the body is not valid UTF-8 JSON'))
  }
  try {
    return classifyMessage(value)
  } catch (error) {
    return jsonError(400, requestIdOf(value), error as McpError)
  }
}

/** True for `application/json`, with a `charset` parameter only when it is UTF-8 (case-insensitive). */
function isJsonUtf8(contentType: string | null): boolean {
  const [mediaType = '', ...mediaParams] = (contentType ?? '').toLowerCase().split(';')
  const charset = mediaParams
    .map((p) => p.trim())
    .find((p) => p.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '')
  return mediaType.trim() === 'application/json' && (charset === undefined || charset === 'utf-8' || charset === 'utf8')
}

const STANDARD_ACCEPT = 'application/json, text/event-stream'

/** What `Accept` allows: the representation to answer with, and whether `text/event-stream` is admitted at all (q > 0). */
interface Acceptable {
  as: Representation
  sse: boolean
}

/** Parse `Accept` once (q-values honoured; no header means JSON, without SSE); undefined when it admits neither. */
function negotiate(header: string | null): Acceptable | undefined {
  // fast path: the exact value MCP clients send (spec: streamable-http.mdx), without parsing
  if (header === STANDARD_ACCEPT) return { as: 'json', sse: true }
  if (header === null || header.trim() === '') return { as: 'json', sse: false }
  let json = 0
  let sse = 0
  for (const part of header.split(',')) {
    const [type, ...paramsList] = part.trim().toLowerCase().split(';')
    let q = 1
    for (const p of paramsList) {
      const [k, val] = p.trim().split('=')
      if (k === 'q' && val !== undefined) q = Number(val)
    }
    if (!(q > 0)) continue
    if (type === 'application/json' || type === 'application/*' || type === '*/*') json = Math.max(json, q)
    if (type === 'text/event-stream' || type === 'text/*' || type === '*/*') sse = Math.max(sse, q)
  }
  if (json > 0 && json >= sse) return { as: 'json', sse: sse > 0 }
  if (sse > 0) return { as: 'sse', sse: true }
  return undefined
}

/** An error answer as a JSON-RPC error response in a JSON body. */
function jsonError(status: number, id: RequestId | null, error: McpError, headers?: Record<string, string>): Response {
  return reply(status, errorResponse(id, error), 'json', headers)
}
