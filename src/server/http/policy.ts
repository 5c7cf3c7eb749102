/**
 * Who may call a Streamable HTTP endpoint from where: the `Host` allow-list (against DNS rebinding), the
 * `Origin` allow-list, and the CORS headers an allowed cross-origin caller gets (spec:
 * basic/transports/streamable-http.mdx "Security Warning").
 * @module
 */

/** Browser origins allowed to call: exact origins, `"*"` for any, or a predicate (see `FetchHandlerOptions`). */
export type AllowedOrigins = readonly string[] | '*' | ((origin: string) => boolean)

/** Request headers a browser client may send (preflight `Access-Control-Allow-Headers`). */
const ALLOWED_REQUEST_HEADERS = [
  'content-type',
  'accept',
  'authorization',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'last-event-id',
  'mcp-session-id',
]
/**
 * Response headers a browser client must be able to read (`Mcp-Session-Id`: a legacy session's id; `DPoP-Nonce`:
 * the nonce a DPoP proof must carry, RFC 9449 §9).
 */
const EXPOSED_HEADERS = 'WWW-Authenticate, Mcp-Session-Id, DPoP-Nonce'
const PREFLIGHT_MAX_AGE_SECONDS = '86400'

/** Whether a cross-origin `Origin` may call; with no list, none may (the endpoint's own origin always may). */
export function originPolicy(allowed: AllowedOrigins | undefined): (origin: string) => boolean {
  if (allowed === undefined) return () => false
  if (allowed === '*') return () => true
  if (typeof allowed === 'function') return allowed
  const set = new Set(allowed.map((o) => o.replace(/\/+$/, '')))
  return (origin) => set.has(origin)
}

/** Whether the request URL's host is allowed: an entry with a port matches host and port, one without any port. */
export function hostPolicy(allowed: readonly string[] | undefined): (url: URL) => boolean {
  if (allowed === undefined) return () => true
  const hosts = new Set(allowed.map((h) => h.trim().toLowerCase())) // 'a.com, b.com' split on ',' works
  // URL lowercases both, and drops a default port: `example.com:443` must still match https://example.com
  const port = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '')
  return (url) => hosts.has(url.hostname) || hosts.has(`${url.hostname}:${port(url)}`)
}

/** The CORS headers every response to an allowed cross-origin caller carries. */
function corsHeaders(origin: string): Record<string, string> {
  return { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' }
}

/**
 * 204 to an allowed origin's preflight (`OPTIONS`): POST, and GET and DELETE (a 2025-era session's stream and
 * its end), the standard headers plus any well-formed header names it asked for, cached for a day.
 */
export function preflightResponse(request: Request, origin: string): Response {
  const requested = (request.headers.get('access-control-request-headers') ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean)
  const allowHeaders = [...new Set([...ALLOWED_REQUEST_HEADERS, ...requested.filter((h) => /^[a-z0-9-]+$/.test(h))])]
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders(origin),
      'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
      'Access-Control-Allow-Headers': allowHeaders.join(', '),
      'Access-Control-Max-Age': PREFLIGHT_MAX_AGE_SECONDS,
      Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    },
  })
}

/** `response` with the CORS headers of an allowed cross-origin caller (errors included). */
export function withCors(response: Response, origin: string): Response {
  const headers = new Headers(response.headers)
  for (const [k, val] of Object.entries(corsHeaders(origin))) headers.set(k, val)
  // appended: a response may expose its own too (a DPoP challenge's `DPoP-Nonce`, server/http/bearer.ts)
  headers.append('Access-Control-Expose-Headers', EXPOSED_HEADERS)
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}
