/**
 * A real loopback OAuth 2.1 authorization server for tests (Node `node:http` on 127.0.0.1, random port),
 * CORS-open so a Worker under `wrangler dev`, a Node client and a Chromium page can all use it:
 * RFC 8414 metadata (or only OpenID Discovery), JWKS with rotation and outages, RFC 7591 registration,
 * an auto-approving `/authorize` (PKCE S256 and RFC 8707 `resource` required), `/token` (authorization
 * code and refresh token; JWT access tokens, RFC 9068 `at+jwt`, DPoP-bound — `cnf.jkt`, RFC 9449 — when the
 * token request carries a proof) and RFC 7662 introspection; `mint` signs
 * any token a test needs, good or bad.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  EmbeddedJWK,
  SignJWT,
  calculateJwkThumbprint,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  jwtVerify,
  type CryptoKey,
  type JWK,
} from 'jose'

export type KeyAlg = 'RS256' | 'ES256'

/** The DPoP proof algorithms `/token` accepts (and its metadata lists). */
const DPOP_ALGORITHMS = ['ES256', 'RS256', 'PS256', 'EdDSA']

/** A signing key of the server (or a foreign one from {@link foreignKey}). */
export interface SigningKey {
  kid: string
  alg: KeyAlg
  privateKey: CryptoKey
  publicKey: CryptoKey
  /** The public JWK as published (`kid`, `alg`, `use: 'sig'`). */
  jwk: JWK
}

export interface OAuthServerOptions {
  /** Algorithm of the signing keys. Default RS256. */
  alg?: KeyAlg
  /** Serve the metadata only at `/.well-known/openid-configuration` (OpenID Discovery fallback tests). */
  openidOnly?: boolean
  /** RFC 8414 `scopes_supported`, when given. */
  scopesSupported?: string[]
  /** Access token lifetime in seconds. Default 300. */
  accessTokenTtl?: number
  /** Require this nonce in DPoP proofs at `/token` (RFC 9449 §8: `400 use_dpop_nonce` + `DPoP-Nonce` otherwise). */
  dpopNonce?: string
}

/** Options of {@link TestAuthorizationServer.mint}. */
export interface MintOptions {
  /** Header `alg`. Default: the key's. `HS256` needs `secret`. */
  alg?: string
  /** Header `kid`. Default: the key's; `null` leaves it out. */
  kid?: string | null
  /** Sign with this key instead of the server's current one (e.g. {@link foreignKey}). */
  key?: SigningKey
  /** HMAC secret for `alg: 'HS256'` (e.g. the public key's PEM bytes, for algorithm confusion). */
  secret?: Uint8Array
  /** Seconds from now until `exp`. Default: the server's `accessTokenTtl`. */
  expiresIn?: number
  /** Header `typ`. Default `at+jwt`; `null` leaves it out. */
  typ?: string | null
}

/** An authorization request as `/authorize` received it. */
export type AuthorizationRecord = Record<string, string>

/** Decides the scopes granted for a request (space-separated scope string in, list out). */
export type GrantPolicy = (requested: string[], params: AuthorizationRecord) => string[]

interface Client {
  client_id: string
  client_secret?: string
  redirect_uris: string[]
  token_endpoint_auth_method: string
}

interface Code {
  clientId: string
  redirectUri: string
  challenge: string
  resource: string
  scope: string
  sub: string
}

interface Refresh {
  clientId: string
  resource: string
  scope: string
  sub: string
  /** The DPoP key the tokens are bound to (RFC 9449 §5: a public client's refresh token too). */
  jkt?: string
}

export interface TestAuthorizationServer {
  /** `http://127.0.0.1:PORT` (no trailing slash): the `iss` of every token. */
  readonly issuer: string
  /** Same as `issuer`, for building endpoint URLs. */
  readonly url: string
  readonly port: number
  /** The current signing key (the last one `rotate` made). */
  readonly currentKey: SigningKey
  /** How many times `/jwks` was fetched. */
  readonly jwksFetches: number
  /** How many introspection requests arrived. */
  readonly introspections: number
  /** Every `/authorize` request's query parameters, in order. */
  readonly authorizations: AuthorizationRecord[]
  /** Every `/token` request's form parameters, in order. */
  readonly tokenRequests: AuthorizationRecord[]
  /** A confidential client for introspection (client_secret_basic). */
  readonly introspectionClient: { clientId: string; clientSecret: string }
  /** A new current key with a new kid; `keepOld` keeps publishing the previous keys. */
  rotate(options?: { keepOld?: boolean }): Promise<SigningKey>
  /** While true, `/jwks` answers 500. */
  failJwks(fail: boolean): void
  /** While true, `/introspect` answers 500. */
  failIntrospection(fail: boolean): void
  /** The subject of later authorizations. Default `alice`. */
  setUser(sub: string): void
  /** The scope policy of later authorizations. Default: exactly what was requested. */
  setGrant(policy: GrantPolicy): void
  /** Register a client directly (e.g. a confidential one with a secret). */
  registerClient(client: { redirectUris?: string[]; clientSecret?: string }): { clientId: string }
  /**
   * Sign a JWT: defaults `iss` (this issuer), `sub` alice, `client_id` test-client, `iat`, `exp`, `jti`;
   * `claims` override them (a claim set to `undefined` is left out). Introspection knows the result.
   */
  mint(claims?: Record<string, unknown>, options?: MintOptions): Promise<string>
  /** An opaque token introspection answers for with `claims` (same defaults as `mint`). */
  mintOpaque(claims?: Record<string, unknown>): string
  /** The current public key as SPKI PEM (for HS256 algorithm-confusion tokens). */
  publicKeyPem(): Promise<string>
  close(): Promise<void>
}

/** A signing key the server does not publish. */
export async function foreignKey(alg: KeyAlg = 'RS256', kid = `foreign-${randomUUID()}`): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  return { kid, alg, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } }
}

/** An unsigned JWT (`alg: none`), built by hand: `header.payload.` */
export function unsignedToken(claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url')
  return `${b64({ alg: 'none', typ: 'at+jwt', ...header })}.${b64(claims)}.`
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url')
const now = () => Math.floor(Date.now() / 1000)

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'authorization, content-type',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Max-Age': '600',
}

/** Start the server on 127.0.0.1 with a random port. */
export async function startOAuthServer(options: OAuthServerOptions = {}): Promise<TestAuthorizationServer> {
  const alg = options.alg ?? 'RS256'
  const ttl = options.accessTokenTtl ?? 300
  let keys: SigningKey[] = [await foreignKey(alg, `key-${randomUUID().slice(0, 8)}`)]
  let jwksFetches = 0
  let introspections = 0
  let jwksDown = false
  let introspectionDown = false
  let user = 'alice'
  let grant: GrantPolicy = (requested) => requested
  const authorizations: AuthorizationRecord[] = []
  const tokenRequests: AuthorizationRecord[] = []
  const clients = new Map<string, Client>()
  const codes = new Map<string, Code>()
  const refreshTokens = new Map<string, Refresh>()
  /** Every token minted here (JWT or opaque) → its claims, for introspection. */
  const issued = new Map<string, Record<string, unknown>>()
  const introspectionClient = { clientId: 'resource-server', clientSecret: randomBytes(16).toString('hex') }
  clients.set(introspectionClient.clientId, {
    client_id: introspectionClient.clientId,
    client_secret: introspectionClient.clientSecret,
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  })
  let issuer = ''

  const defaults = (claims: Record<string, unknown>, expiresIn = ttl) => {
    const all: Record<string, unknown> = {
      iss: issuer,
      sub: 'alice',
      client_id: 'test-client',
      iat: now(),
      exp: now() + expiresIn,
      jti: randomUUID(),
      ...claims,
    }
    for (const [k, v] of Object.entries(all)) if (v === undefined) delete all[k]
    return all
  }

  const mint = async (claims: Record<string, unknown> = {}, o: MintOptions = {}): Promise<string> => {
    const key = o.key ?? keys[keys.length - 1]
    const payload = defaults(claims, o.expiresIn)
    const header: Record<string, unknown> = { alg: o.alg ?? key.alg }
    const kid = o.kid === undefined ? key.kid : o.kid
    if (kid !== null) header.kid = kid
    const typ = o.typ === undefined ? 'at+jwt' : o.typ
    if (typ !== null) header.typ = typ
    const jwt = await new SignJWT(payload)
      .setProtectedHeader(header as { alg: string })
      .sign(header.alg === 'HS256' ? (o.secret ?? new Uint8Array(32)) : key.privateKey)
    issued.set(jwt, payload)
    return jwt
  }

  const mintOpaque = (claims: Record<string, unknown> = {}): string => {
    const token = randomBytes(24).toString('base64url')
    issued.set(token, defaults(claims))
    return token
  }

  const metadata = () => ({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    jwks_uri: `${issuer}/jwks`,
    introspection_endpoint: `${issuer}/introspect`,
    ...(options.scopesSupported ? { scopes_supported: options.scopesSupported } : {}),
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic'],
    authorization_response_iss_parameter_supported: true,
    dpop_signing_alg_values_supported: DPOP_ALGORITHMS,
  })

  /**
   * The key thumbprint of a token request's DPoP proof (RFC 9449 §4.3, checked with jose), undefined without
   * one; a `[status, body, headers]` refusal for a bad proof or one without `dpopNonce`.
   */
  const dpopKey = async (
    req: IncomingMessage,
  ): Promise<string | undefined | [number, unknown, Record<string, string>?]> => {
    const proof = req.headers.dpop
    if (proof === undefined) return undefined
    try {
      if (typeof proof !== 'string') throw new Error('several DPoP headers')
      const { payload, protectedHeader } = await jwtVerify(proof, EmbeddedJWK, {
        typ: 'dpop+jwt',
        algorithms: DPOP_ALGORITHMS,
      })
      if (payload.htm !== 'POST' || payload.htu !== `${issuer}/token`) throw new Error('htm or htu')
      if (typeof payload.jti !== 'string' || Math.abs(now() - (payload.iat ?? 0)) > 60) throw new Error('jti or iat')
      if (options.dpopNonce !== undefined && payload.nonce !== options.dpopNonce)
        return [400, { error: 'use_dpop_nonce' }, { 'DPoP-Nonce': options.dpopNonce }]
      return await calculateJwkThumbprint(protectedHeader.jwk!)
    } catch (error) {
      return [400, { error: 'invalid_dpop_proof', error_description: String(error) }]
    }
  }

  /** The client a token/introspection request authenticates as (basic, post, or public with client_id). */
  const authenticate = (req: IncomingMessage, form: URLSearchParams): Client | undefined => {
    const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '')
    if (basic) {
      const [id, secret] = Buffer.from(basic[1], 'base64').toString().split(':').map(decodeURIComponent)
      const client = clients.get(id ?? '')
      return client?.client_secret !== undefined && client.client_secret === secret ? client : undefined
    }
    const client = clients.get(form.get('client_id') ?? '')
    if (!client) return undefined
    if (client.client_secret === undefined) return client
    return form.get('client_secret') === client.client_secret ? client : undefined
  }

  const issueTokens = async (grantInfo: Refresh) => {
    const { jkt } = grantInfo
    const access = await mint(
      {
        sub: grantInfo.sub,
        aud: grantInfo.resource,
        client_id: grantInfo.clientId,
        scope: grantInfo.scope,
        ...(jkt === undefined ? {} : { cnf: { jkt } }),
      },
      {},
    )
    const refresh = randomBytes(24).toString('base64url')
    refreshTokens.set(refresh, grantInfo)
    return {
      access_token: access,
      token_type: jkt === undefined ? 'Bearer' : 'DPoP',
      expires_in: ttl,
      scope: grantInfo.scope,
      refresh_token: refresh,
    }
  }

  const token = async (
    req: IncomingMessage,
    form: URLSearchParams,
  ): Promise<[number, unknown, Record<string, string>?]> => {
    tokenRequests.push(Object.fromEntries(form))
    const client = authenticate(req, form)
    if (!client) return [401, { error: 'invalid_client' }]
    const jkt = await dpopKey(req)
    if (Array.isArray(jkt)) return jkt
    const resource = form.get('resource')
    if (!resource) return [400, { error: 'invalid_target', error_description: 'resource is required (RFC 8707)' }]
    const type = form.get('grant_type')
    if (type === 'authorization_code') {
      const code = codes.get(form.get('code') ?? '')
      codes.delete(form.get('code') ?? '')
      if (!code || code.clientId !== client.client_id) return [400, { error: 'invalid_grant' }]
      if (code.redirectUri !== form.get('redirect_uri'))
        return [400, { error: 'invalid_grant', error_description: 'redirect_uri mismatch' }]
      if (s256(form.get('code_verifier') ?? '') !== code.challenge)
        return [400, { error: 'invalid_grant', error_description: 'PKCE verification failed' }]
      if (resource !== code.resource) return [400, { error: 'invalid_target' }]
      const bound = jkt === undefined ? {} : { jkt }
      return [
        200,
        await issueTokens({ clientId: client.client_id, resource, scope: code.scope, sub: code.sub, ...bound }),
      ]
    }
    if (type === 'refresh_token') {
      const old = refreshTokens.get(form.get('refresh_token') ?? '')
      if (!old || old.clientId !== client.client_id) return [400, { error: 'invalid_grant' }]
      if (resource !== old.resource) return [400, { error: 'invalid_target' }]
      if (old.jkt !== jkt) return [400, { error: 'invalid_grant', error_description: 'not the bound DPoP key' }]
      refreshTokens.delete(form.get('refresh_token')!)
      const asked = form.get('scope')
      const scope = asked
        ? asked
            .split(' ')
            .filter((s) => old.scope.split(' ').includes(s))
            .join(' ')
        : old.scope
      return [200, await issueTokens({ ...old, scope })]
    }
    return [400, { error: 'unsupported_grant_type' }]
  }

  const authorize = (url: URL): [number, unknown, Record<string, string>?] => {
    const p = Object.fromEntries(url.searchParams)
    authorizations.push(p)
    const client = clients.get(p.client_id ?? '')
    if (!client) return [400, { error: 'invalid_client' }]
    if (!p.redirect_uri || !client.redirect_uris.includes(p.redirect_uri)) return [400, { error: 'invalid_request' }]
    const back = (params: Record<string, string>): [number, unknown, Record<string, string>] => {
      const to = new URL(p.redirect_uri)
      for (const [k, v] of Object.entries({ ...params, ...(p.state ? { state: p.state } : {}), iss: issuer }))
        to.searchParams.set(k, v)
      return [302, null, { Location: to.href }]
    }
    if (p.response_type !== 'code') return back({ error: 'unsupported_response_type' })
    if (!p.code_challenge || p.code_challenge_method !== 'S256')
      return back({ error: 'invalid_request', error_description: 'PKCE S256 required' })
    if (!p.resource) return back({ error: 'invalid_target', error_description: 'resource is required' })
    const requested = (p.scope ?? '').split(' ').filter(Boolean)
    const code = randomBytes(16).toString('base64url')
    codes.set(code, {
      clientId: client.client_id,
      redirectUri: p.redirect_uri,
      challenge: p.code_challenge,
      resource: p.resource,
      scope: grant(requested, p).join(' '),
      sub: user,
    })
    return back({ code })
  }

  const introspect = (req: IncomingMessage, form: URLSearchParams): [number, unknown] => {
    introspections++
    if (introspectionDown) return [500, { error: 'server_error' }]
    const client = authenticate(req, form)
    if (!client || client.client_secret === undefined) return [401, { error: 'invalid_client' }]
    const claims = issued.get(form.get('token') ?? '')
    if (!claims || typeof claims.exp !== 'number' || claims.exp <= now()) return [200, { active: false }]
    const { scope, client_id, sub, aud, iss, exp, iat, cnf } = claims
    const token_type = cnf === undefined ? 'Bearer' : 'DPoP'
    return [200, { active: true, token_type, scope, client_id, sub, aud, iss, exp, iat, cnf }]
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', issuer)
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const json = body === null ? '' : JSON.stringify(body)
      res.writeHead(status, {
        ...CORS,
        ...(json ? { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } : {}),
        ...headers,
      })
      res.end(json)
    }
    if (req.method === 'OPTIONS') return send(204, null)
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString()
    const route = `${req.method} ${url.pathname}`
    const wellKnown = options.openidOnly ? 'openid-configuration' : 'oauth-authorization-server'
    if (route === `GET /.well-known/${wellKnown}`) return send(200, metadata())
    if (route === 'GET /jwks') {
      jwksFetches++
      if (jwksDown) return send(500, { error: 'server_error' })
      return send(200, { keys: keys.map((k) => k.jwk) })
    }
    if (route === 'POST /register') {
      let meta: Record<string, unknown>
      try {
        meta = JSON.parse(body) as Record<string, unknown>
      } catch {
        return send(400, { error: 'invalid_client_metadata' })
      }
      const uris = meta.redirect_uris
      if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === 'string' && URL.canParse(u)))
        return send(400, { error: 'invalid_redirect_uri' })
      const client: Client = {
        client_id: `client-${randomUUID()}`,
        redirect_uris: uris as string[],
        token_endpoint_auth_method: 'none',
      }
      clients.set(client.client_id, client)
      return send(201, { ...meta, ...client, client_id_issued_at: now() })
    }
    if (route === 'GET /authorize') {
      const [status, json, headers] = authorize(url)
      return send(status, json, headers)
    }
    if (route === 'POST /token') return send(...(await token(req, new URLSearchParams(body))))
    if (route === 'POST /introspect') return send(...introspect(req, new URLSearchParams(body)))
    return send(404, { error: 'not_found' })
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, CORS)
      res.end(String(error))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  issuer = `http://127.0.0.1:${port}`

  return {
    issuer,
    url: issuer,
    port,
    get currentKey() {
      return keys[keys.length - 1]
    },
    get jwksFetches() {
      return jwksFetches
    },
    get introspections() {
      return introspections
    },
    authorizations,
    tokenRequests,
    introspectionClient,
    async rotate({ keepOld = false } = {}) {
      const key = await foreignKey(alg, `key-${randomUUID().slice(0, 8)}`)
      keys = keepOld ? [...keys, key] : [key]
      return key
    },
    failJwks(fail) {
      jwksDown = fail
    },
    failIntrospection(fail) {
      introspectionDown = fail
    },
    setUser(sub) {
      user = sub
    },
    setGrant(policy) {
      grant = policy
    },
    registerClient({ redirectUris = [], clientSecret }) {
      const clientId = `client-${randomUUID()}`
      clients.set(clientId, {
        client_id: clientId,
        redirect_uris: redirectUris,
        token_endpoint_auth_method: clientSecret === undefined ? 'none' : 'client_secret_basic',
        ...(clientSecret === undefined ? {} : { client_secret: clientSecret }),
      })
      return { clientId }
    },
    mint,
    mintOpaque,
    publicKeyPem: () => exportSPKI(keys[keys.length - 1].publicKey),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((e) => (e ? reject(e) : resolve()))
      }),
  }
}

/** Alias of {@link startOAuthServer}. */
export const start = startOAuthServer
