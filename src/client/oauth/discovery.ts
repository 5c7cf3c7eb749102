/**
 * OAuth discovery for the client side of MCP authorization (spec: basic/authorization/*.mdx): the
 * `WWW-Authenticate` challenge (RFC 9110 §11.6.1), protected-resource metadata (RFC 9728) and
 * authorization-server metadata (RFC 8414 / OpenID Discovery), each fetched and checked.
 * @module
 */
import { OAuthError } from '../errors.ts'
import {
  authorizationServerMetadataUrls,
  fetchHeld,
  isSecureUrl,
  readJson,
  type Metadata,
  type OAuthFetch,
} from '../../protocol/oauth-metadata.ts'

export type { Metadata, OAuthFetch }

/** `value` when it is an array of strings, else undefined. */
export const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((s) => typeof s === 'string') ? value : undefined

/** A `WWW-Authenticate` challenge's auth-params (RFC 9110 §11.6.1), names lowercased. */
export interface Challenge {
  scheme: string
  params: Record<string, string>
}

/**
 * Parse a `WWW-Authenticate` value into its challenges (RFC 9110 §11.6.1: quoted-strings may hold
 * commas and escaped quotes). Token68 forms are ignored.
 * @internal exported for unit tests only; not part of the public API
 */
export function parseWwwAuthenticate(header: string): Challenge[] {
  const challenges: Challenge[] = []
  const re = /\s*(?:,\s*)*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*)))?/y
  let current: Challenge | undefined
  let m: RegExpExecArray | null
  while (re.lastIndex < header.length && (m = re.exec(header)) !== null) {
    const [, name, quoted, bare] = m
    if (quoted === undefined && bare === undefined) {
      current = { scheme: name!, params: {} }
      challenges.push(current)
    } else if (current) {
      current.params[name!.toLowerCase()] = quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : bare!
    }
  }
  return challenges
}

/** The Bearer challenge's params of a `WWW-Authenticate` header, else the DPoP one's (RFC 9449 §7.1); empty when neither. */
export function bearerParams(header: string | undefined): Record<string, string> {
  const challenges = parseWwwAuthenticate(header ?? '')
  const of = (scheme: string) => challenges.find((c) => c.scheme.toLowerCase() === scheme)?.params
  return of('bearer') ?? of('dpop') ?? {}
}

/**
 * The RFC 9728 §3.1 well-known URLs for a resource: path-based first (when it has a path), then the root.
 * @internal exported for unit tests only; not part of the public API
 */
export function protectedResourceMetadataUrls(serverUrl: string): URL[] {
  const url = new URL(serverUrl)
  const path = url.pathname.replace(/\/+$/, '')
  const root = new URL('/.well-known/oauth-protected-resource', url.origin)
  return path === '' ? [root] : [new URL(`/.well-known/oauth-protected-resource${path}`, url.origin), root]
}

/**
 * Whether protected-resource metadata published `resource` may be used for `serverUrl` (RFC 9728 §3.3,
 * §7.3): same origin, and the server's path is the resource's path or below it.
 * @internal exported for unit tests only; not part of the public API
 */
export function resourceMatches(resource: string, serverUrl: string): boolean {
  let r: URL
  let s: URL
  try {
    r = new URL(resource)
    s = new URL(serverUrl)
  } catch {
    return false
  }
  if (r.origin !== s.origin || r.hash !== '') return false
  const base = r.pathname.replace(/\/+$/, '')
  return s.pathname === r.pathname || s.pathname.replace(/\/+$/, '') === base || s.pathname.startsWith(`${base}/`)
}

/**
 * RFC 9728 §3: the protected-resource metadata from `resource_metadata` (the challenge's), else from the
 * well-known URLs in order; the `resource` it names must be `serverUrl` or above it.
 * @throws OAuthError `invalid_resource_metadata` when none is found or it names another resource.
 */
export async function fetchProtectedResourceMetadata(
  fetch: OAuthFetch,
  serverUrl: string,
  fromChallenge: string | undefined,
  signal: AbortSignal | undefined,
): Promise<Metadata> {
  const urls = fromChallenge ? [new URL(fromChallenge, serverUrl)] : protectedResourceMetadataUrls(serverUrl)
  for (const url of urls) {
    const prm = await getJson(fetch, url, signal)
    if (!prm) continue
    if (typeof prm.resource !== 'string' || !resourceMatches(prm.resource, serverUrl)) {
      throw new OAuthError(
        'invalid_resource_metadata',
        `Protected resource metadata at ${url.href} names resource ${JSON.stringify(prm.resource)}, not ${serverUrl}`,
      )
    }
    return prm
  }
  throw new OAuthError(
    'invalid_resource_metadata',
    `No protected resource metadata found for ${serverUrl} (tried ${urls.map((u) => u.href).join(', ')})`,
  )
}

/**
 * RFC 8414 §3 / OpenID Discovery §4: the first metadata document found for `issuer`; its `issuer` must
 * be identical, and it must have a `token_endpoint`; for the authorization code flow (`flow` `code`, the
 * default) also an `authorization_endpoint` and PKCE S256. The issuer and these endpoints must be https
 * URLs (http only on a loopback host: 127.0.0.0/8, [::1], localhost).
 * @throws OAuthError `invalid_issuer` (another issuer, or not https) or `invalid_metadata`.
 */
export async function fetchAuthorizationServerMetadata(
  fetch: OAuthFetch,
  issuer: string,
  signal: AbortSignal | undefined,
  flow: 'code' | 'token' = 'code',
): Promise<Metadata> {
  // the metadata names where credentials go: it must not come over plain http, nor send them there
  if (!secure(issuer))
    throw new OAuthError('invalid_issuer', `The authorization server ${JSON.stringify(issuer)} ${NOT_SECURE}`)
  for (const url of authorizationServerMetadataUrls(issuer)) {
    const as = await getJson(fetch, url, signal)
    if (!as) continue
    if (as.issuer !== issuer) {
      throw new OAuthError(
        'invalid_issuer',
        `Authorization server metadata at ${url.href} has issuer ${JSON.stringify(as.issuer)}, not ${issuer}`,
      )
    }
    if (typeof as.token_endpoint !== 'string')
      throw new OAuthError('invalid_metadata', `Authorization server metadata of ${issuer} lacks token_endpoint`)
    if (!secure(as.token_endpoint))
      throw new OAuthError('invalid_metadata', `The token_endpoint of ${issuer} ${NOT_SECURE}`)
    if (flow === 'token') return as
    if (typeof as.authorization_endpoint !== 'string') {
      throw new OAuthError(
        'invalid_metadata',
        `Authorization server metadata of ${issuer} lacks authorization_endpoint or token_endpoint`,
      )
    }
    if (!secure(as.authorization_endpoint))
      throw new OAuthError('invalid_metadata', `The authorization_endpoint of ${issuer} ${NOT_SECURE}`)
    if (!strings(as.code_challenge_methods_supported)?.includes('S256')) {
      throw new OAuthError(
        'invalid_metadata',
        `Authorization server ${issuer} does not advertise PKCE S256 (code_challenge_methods_supported)`,
      )
    }
    return as
  }
  throw new OAuthError('invalid_metadata', `No authorization server metadata found for ${issuer}`)
}

const NOT_SECURE = 'is not an https URL (http only on a loopback host)'

/** Whether `value` is an absolute https URL, or http on a loopback host (MCP: AS endpoints over HTTPS). */
const secure = (value: string) => URL.canParse(value) && isSecureUrl(new URL(value))

/** GET a JSON metadata document; undefined when it is not there (any non-2xx or non-JSON answer). */
async function getJson(fetch: OAuthFetch, url: URL, signal: AbortSignal | undefined): Promise<Metadata | undefined> {
  const request = new Request(url, { headers: { accept: 'application/json' }, ...(signal ? { signal } : {}) })
  return fetchHeld(fetch, request, async (response) => {
    if (response.ok) return readJson(response)
    await response.body?.cancel().catch(() => {})
    return undefined
  })
}
