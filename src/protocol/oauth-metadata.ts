/**
 * What both sides of OAuth fetch the same way: authorization-server metadata URLs (RFC 8414 §3.1, OpenID
 * Discovery §4), a JSON object from a response, and a fetch that keeps its request's signal alive. Used by
 * the client's discovery (`client/oauth/`) and by the resource server's token verifiers (`oauth/`).
 * @module
 */

/** A metadata document (or any JSON object an OAuth endpoint answered with). */
export type Metadata = Record<string, unknown>

/** The fetch the OAuth client uses for metadata, registration and token requests. */
export type OAuthFetch = (input: Request) => Promise<Response>

/** Hosts that may be reached over plain http: the loopback interface (127.0.0.0/8, [::1], localhost). */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(hostname)
}

/** Whether `url` is https, or http on a loopback host (OAuth 2.1 §1.5; MCP: authorization server endpoints). */
export function isSecureUrl(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname))
}

/**
 * `fetch(request)` then `read(response)`, keeping `request` reachable until `read` settles: Node 20's
 * `fetch` stops following the signal of a `Request` once that object is garbage-collected, so a timeout
 * signal (`AbortSignal.timeout`) would never abort a request to a server that does not answer.
 * @throws whatever `fetch` or `read` throws (a `TimeoutError` DOMException once the signal fires).
 */
export async function fetchHeld<T>(
  fetch: OAuthFetch,
  request: Request,
  read: (response: Response) => Promise<T>,
): Promise<T> {
  try {
    return await read(await fetch(request))
  } finally {
    void request.signal.aborted // held until here (see above)
  }
}

/**
 * The well-known URLs of an issuer's metadata, in the order the spec requires
 * (authorization-server-discovery.mdx; RFC 8414 §3.1 and §5, OpenID Discovery §4).
 */
export function authorizationServerMetadataUrls(issuer: string): URL[] {
  const url = new URL(issuer)
  const path = url.pathname.replace(/\/+$/, '')
  const at = (p: string) => new URL(p, url.origin)
  if (path === '') return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')]
  return [
    at(`/.well-known/oauth-authorization-server${path}`),
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
  ]
}

/** The JSON object a response carries; undefined when its body is not one. */
export async function readJson(response: Response): Promise<Metadata | undefined> {
  try {
    const value: unknown = await response.json()
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Metadata) : undefined
  } catch {
    return undefined
  }
}
