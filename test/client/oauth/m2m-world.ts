/**
 * A fetch-level, in-process world for the machine-to-machine OAuth flows: an MCP server (a real McpServer
 * behind a Bearer check), its authorization server (metadata with a token endpoint only — no authorization
 * endpoint, no PKCE — and a token endpoint for client_credentials, jwt-bearer and refresh_token that checks
 * client_secret_basic, client_secret_post and private_key_jwt, the assertions verified with jose), and an
 * enterprise identity provider's token endpoint (RFC 8693 token exchange to an ID-JAG).
 */
import { SignJWT, decodeJwt, generateKeyPair, jwtVerify, type CryptoKey, type JWTPayload } from 'jose'
import { McpServer, createFetchHandler } from '../../../src/server/index.ts'
import type { WireRequest } from '../../helpers.ts'

export const MCP = 'https://mcp.test/mcp'
export const PRM = 'https://mcp.test/.well-known/oauth-protected-resource/mcp'
export const ISSUER = 'https://as.test'
export const TOKEN_ENDPOINT = 'https://as.test/oauth/token'
export const IDP_TOKEN_ENDPOINT = 'https://idp.test/token'
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange'
export const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag'

/** A client the authorization server knows: a secret, or the public key its assertions are verified with. */
export interface KnownClient {
  secret?: string
  publicKey?: CryptoKey
}

export interface M2mWorldOptions {
  clients?: Record<string, KnownClient>
  /** `token_endpoint_auth_methods_supported`. Default `['client_secret_basic', 'client_secret_post', 'private_key_jwt']`. */
  authMethods?: string[]
  /** The scope the 401 challenge names. */
  challengeScope?: string
  /** The protected resource's `scopes_supported`. */
  prmScopes?: string[]
  /** Scopes `tools/call` needs (403 insufficient_scope without them). */
  callScopes?: string[]
  /** Issue a refresh token with each access token. */
  refreshTokens?: boolean
  /** Decides a jwt-bearer assertion: undefined accepts it, a string is the OAuth error to answer. */
  judgeAssertion?: (assertion: string, form: URLSearchParams) => string | undefined
  /** The IdP's answer to a valid token exchange, replaced (e.g. another issued_token_type). */
  idpAnswer?: (idJag: string) => Record<string, unknown>
  /** The ID token the IdP accepts. Default `id-token-of-alice`. */
  idToken?: string
  /** The client_id the IdP's ID-JAG names (the client at the MCP server's AS). Default `mcp-client`. */
  idJagClientId?: string
}

export interface TokenRequestRecord {
  url: string
  headers: Headers
  form: URLSearchParams
  /** The verified client assertion's claims, for private_key_jwt. */
  assertion?: JWTPayload
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  })

/** The client id of a Basic header, form-decoded (RFC 6749 §2.3.1), and its secret. */
function basicCredentials(header: string | null): [string, string] | undefined {
  if (!header?.startsWith('Basic ')) return undefined
  const decoded = atob(header.slice(6))
  const colon = decoded.indexOf(':')
  const part = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '))
  return [part(decoded.slice(0, colon)), part(decoded.slice(colon + 1))]
}

export async function m2mWorld(o: M2mWorldOptions = {}) {
  const idpKeys = await generateKeyPair('ES256')
  const tokenRequests: TokenRequestRecord[] = []
  const gets: string[] = []
  /** Live access tokens and their scopes; `expireAll` empties it, as the tokens' expiry would. */
  const tokens = new Map<string, string[]>()
  const refreshTokens = new Set<string>()
  let n = 0

  const mcp = new McpServer({ name: 'protected', version: '1' })
  mcp.tool('echo', { description: 'echo' }, () => 'ok')
  const handler = createFetchHandler(mcp)
  const challenge = () =>
    `Bearer error="invalid_token", resource_metadata="${PRM}"${o.challengeScope ? `, scope="${o.challengeScope}"` : ''}`

  const issue = (scope: string[]) => {
    const access_token = `at-${++n}`
    tokens.set(access_token, scope)
    const body: Record<string, unknown> = { access_token, token_type: 'Bearer', expires_in: 300 }
    if (o.refreshTokens) refreshTokens.add((body.refresh_token = `rt-${n}`))
    return json(body)
  }

  /** RFC 6749 §2.3: who the client is, or the invalid_client answer. */
  async function authenticate(request: Request, form: URLSearchParams, record: TokenRequestRecord) {
    const clients = o.clients ?? {}
    const basic = basicCredentials(request.headers.get('authorization'))
    if (basic) return clients[basic[0]]?.secret === basic[1] ? basic[0] : undefined
    const id = form.get('client_id') ?? ''
    if (form.has('client_secret')) return clients[id]?.secret === form.get('client_secret') ? id : undefined
    if (form.has('client_assertion')) {
      if (form.get('client_assertion_type') !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer') return
      const key = clients[id]?.publicKey
      if (!key) return undefined
      try {
        const { payload } = await jwtVerify(form.get('client_assertion')!, key, {
          audience: [ISSUER, TOKEN_ENDPOINT], // RFC 7523 §3: either identifies the AS
          issuer: id,
          subject: id,
          requiredClaims: ['exp', 'iat', 'jti'],
        })
        record.assertion = payload
        return id
      } catch {
        return undefined
      }
    }
    return id === '' || clients[id] === undefined || Object.keys(clients[id]).length === 0 ? id : undefined
  }

  async function token(request: Request): Promise<Response> {
    const form = new URLSearchParams(await request.text())
    const record: TokenRequestRecord = { url: request.url, headers: request.headers, form }
    tokenRequests.push(record)
    const client = await authenticate(request, form, record)
    if (client === undefined) return json({ error: 'invalid_client', error_description: 'who are you' }, 401)
    const scope = (form.get('scope') ?? '').split(' ').filter(Boolean)
    if (form.get('resource') !== MCP) return json({ error: 'invalid_target' }, 400)
    switch (form.get('grant_type')) {
      case 'client_credentials':
        return issue(scope)
      case 'refresh_token':
        if (!refreshTokens.delete(form.get('refresh_token')!)) return json({ error: 'invalid_grant' }, 400)
        return issue(scope.length ? scope : ['refreshed'])
      case JWT_BEARER: {
        const assertion = form.get('assertion') ?? ''
        if (decodeJwtSafe(assertion)?.iss === 'https://idp.test') {
          // an ID-JAG: signed by the IdP, for this AS, this resource and the authenticated client (SEP-990 §5.1)
          try {
            const { payload } = await jwtVerify(assertion, idpKeys.publicKey, {
              audience: ISSUER,
              typ: 'oauth-id-jag+jwt',
            })
            if (payload.client_id !== client || payload.resource !== MCP) return json({ error: 'invalid_grant' }, 400)
          } catch {
            return json({ error: 'invalid_grant' }, 400)
          }
          return issue(scope)
        }
        const refusal = o.judgeAssertion?.(assertion, form)
        return refusal ? json({ error: refusal, error_description: `refused: ${refusal}` }, 400) : issue(scope)
      }
      default:
        return json({ error: 'unsupported_grant_type' }, 400)
    }
  }

  async function idpToken(request: Request): Promise<Response> {
    const form = new URLSearchParams(await request.text())
    tokenRequests.push({ url: request.url, headers: request.headers, form })
    if (form.get('grant_type') !== TOKEN_EXCHANGE) return json({ error: 'unsupported_grant_type' }, 400)
    if (form.get('subject_token') !== (o.idToken ?? 'id-token-of-alice'))
      return json({ error: 'invalid_grant', error_description: 'unknown ID token' }, 400)
    if (
      form.get('subject_token_type') !== 'urn:ietf:params:oauth:token-type:id_token' ||
      form.get('requested_token_type') !== ID_JAG ||
      !form.get('audience') ||
      !form.get('resource')
    )
      return json({ error: 'invalid_request' }, 400)
    const idJag = await new SignJWT({ client_id: o.idJagClientId ?? 'mcp-client', resource: form.get('resource') })
      .setProtectedHeader({ alg: 'ES256', typ: 'oauth-id-jag+jwt' })
      .setIssuer('https://idp.test')
      .setSubject('alice')
      .setAudience(form.get('audience')!)
      .setIssuedAt()
      .setExpirationTime('5m')
      .setJti(crypto.randomUUID())
      .sign(idpKeys.privateKey)
    return json(o.idpAnswer?.(idJag) ?? { access_token: idJag, issued_token_type: ID_JAG, token_type: 'N_A' })
  }

  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url)
    if (request.method === 'GET') gets.push(url.href)
    if (url.href === MCP) {
      const granted = tokens.get(request.headers.get('authorization')?.replace(/^Bearer /, '') ?? '')
      if (!granted) return new Response('', { status: 401, headers: { 'www-authenticate': challenge() } })
      const body = (await request.clone().json()) as WireRequest
      const needed = body.method === 'tools/call' ? (o.callScopes ?? []) : []
      if (!needed.every((s) => granted.includes(s))) {
        const header = `Bearer error="insufficient_scope", scope="${needed.join(' ')}", resource_metadata="${PRM}"`
        return new Response('', { status: 403, headers: { 'www-authenticate': header } })
      }
      return handler(request)
    }
    if (url.href === PRM) {
      return json({
        resource: MCP,
        authorization_servers: [ISSUER],
        ...(o.prmScopes ? { scopes_supported: o.prmScopes } : {}),
      })
    }
    if (url.href === `${ISSUER}/.well-known/oauth-authorization-server`) {
      return json({
        issuer: ISSUER,
        token_endpoint: TOKEN_ENDPOINT,
        grant_types_supported: ['client_credentials', JWT_BEARER, 'refresh_token'],
        token_endpoint_auth_methods_supported: o.authMethods ?? [
          'client_secret_basic',
          'client_secret_post',
          'private_key_jwt',
        ],
        token_endpoint_auth_signing_alg_values_supported: ['ES256', 'RS256'],
      })
    }
    if (url.href === TOKEN_ENDPOINT && request.method === 'POST') return token(request)
    if (url.href === IDP_TOKEN_ENDPOINT && request.method === 'POST') return idpToken(request)
    return new Response('not found', { status: 404 })
  }

  return {
    fetch,
    gets,
    tokenRequests,
    /** The token requests made to the MCP server's authorization server. */
    asRequests: () => tokenRequests.filter((r) => r.url === TOKEN_ENDPOINT),
    /** Every refresh token issued so far is refused from now on. */
    revokeRefreshTokens: () => refreshTokens.clear(),
    /** Every access token issued so far stops working, as when they expire. */
    expireAll: () => tokens.clear(),
  }
}

export type M2mWorld = Awaited<ReturnType<typeof m2mWorld>>

function decodeJwtSafe(token: string): JWTPayload | undefined {
  try {
    return decodeJwt(token)
  } catch {
    return undefined
  }
}
