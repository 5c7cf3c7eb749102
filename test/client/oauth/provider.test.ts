import { describe, expect, it } from 'vitest'
import {
  Client,
  HttpError,
  OAuthClientProvider,
  OAuthError,
  StreamableHttpClientTransport,
} from '../../../src/client/index.ts'
import { McpError } from '../../../src/index.ts'
import { authorizationServerMetadataUrls } from '../../../src/protocol/oauth-metadata.ts'
import {
  parseWwwAuthenticate,
  protectedResourceMetadataUrls,
  resourceMatches,
} from '../../../src/client/oauth/discovery.ts'
import {
  createPkce,
  selectTokenAuthMethod,
  type OAuthClientProviderOptions,
} from '../../../src/client/oauth/provider.ts'
import { McpServer, createFetchHandler } from '../../../src/server/index.ts'
import { encodeBase64Url } from '../../../src/encoding/base64url.ts'
import type { WireRequest } from '../../helpers.ts'

const MCP = 'https://mcp.test/mcp'
const PRM_PATH = 'https://mcp.test/.well-known/oauth-protected-resource/mcp'
const REDIRECT = 'http://127.0.0.1:3000/callback'

interface WorldOptions {
  /** Path of the issuer under https://as.test ('' or e.g. '/tenant1'). */
  issuerPath?: string
  /** Which well-known URL serves the AS metadata. */
  asMetadataAt?: 'oauth' | 'openid-insert' | 'openid-append' | 'openid-root'
  prmAt?: 'path' | 'root'
  prmInHeader?: boolean
  prmResource?: string
  prmScopes?: string[]
  metadataIssuer?: string
  authMethods?: string[]
  iss?: 'correct' | 'wrong' | 'omit' | 'slash'
  issSupported?: boolean
  cimd?: boolean
  registration?: boolean
  asScopes?: string[]
  challengeScope?: string
  /** Scopes tools/call needs; a token without them gets 403 insufficient_scope. */
  callScopes?: string[]
  refreshTokens?: boolean
  /** The scopes the AS grants for the ones requested (default: all of them). */
  grant?: (requested: string[]) => string[]
  /** The MCP server accepts no token at all. */
  rejectAllTokens?: boolean
  tokenType?: string
}

/** A fetch-level fake of an MCP server (a real McpServer behind a Bearer check) and its authorization server. */
function world(o: WorldOptions = {}) {
  const issuer = `https://as.test${o.issuerPath ?? ''}`
  const gets: string[] = []
  const authorizations: URLSearchParams[] = []
  const tokenRequests: { headers: Headers; form: URLSearchParams }[] = []
  const registrations: Record<string, unknown>[] = []
  const tokens = new Map<string, string[]>()
  const refreshTokens = new Set<string>()
  const codes = new Map<string, { challenge: string; scope: string[] }>()
  let n = 0

  const mcp = new McpServer({ name: 'protected', version: '1' })
  mcp.tool('echo', { description: 'echo' }, () => 'ok')
  const handler = createFetchHandler(mcp)

  const metadataUrl = {
    oauth: authorizationServerMetadataUrls(issuer)[0].href,
    'openid-insert': authorizationServerMetadataUrls(issuer)[1].href,
    'openid-append': `${issuer}/.well-known/openid-configuration`,
    'openid-root': 'https://as.test/.well-known/openid-configuration',
  }[o.asMetadataAt ?? 'oauth']
  const prmUrl = o.prmAt === 'root' ? 'https://mcp.test/.well-known/oauth-protected-resource' : PRM_PATH
  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    })
  const challenge = (extra = '') =>
    `Bearer error="invalid_token", error_description="No token, or not one of ours"${o.prmInHeader === false ? '' : `, resource_metadata="${prmUrl}"`}${o.challengeScope ? `, scope="${o.challengeScope}"` : ''}${extra}`
  const issue = (scope: string[]) => {
    const access_token = `tok-${++n}`
    tokens.set(access_token, o.grant ? o.grant(scope) : scope)
    const body: Record<string, unknown> = { access_token, token_type: o.tokenType ?? 'Bearer', expires_in: 3600 }
    if (o.refreshTokens) {
      body.refresh_token = `refresh-${n}`
      refreshTokens.add(body.refresh_token as string)
    }
    return json(body)
  }

  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url)
    if (request.method === 'GET') gets.push(url.href)
    if (url.href === MCP) {
      const token = request.headers.get('authorization')?.replace(/^Bearer /, '')
      const granted = token && !o.rejectAllTokens ? tokens.get(token) : undefined
      if (!granted)
        return new Response('{"error":"invalid_token"}', { status: 401, headers: { 'www-authenticate': challenge() } })
      const body = (await request.clone().json()) as WireRequest
      const needed = body.method === 'tools/call' ? (o.callScopes ?? []) : []
      if (!needed.every((s) => granted.includes(s))) {
        return new Response('{"error":"insufficient_scope"}', {
          status: 403,
          headers: {
            'www-authenticate': `Bearer error="insufficient_scope", scope="${needed.join(' ')}", resource_metadata="${prmUrl}"`,
          },
        })
      }
      return handler(request)
    }
    if (url.href === prmUrl) {
      const prm: Record<string, unknown> = {
        resource: o.prmResource ?? (o.prmAt === 'root' ? 'https://mcp.test' : MCP),
        authorization_servers: [issuer],
      }
      if (o.prmScopes) prm.scopes_supported = o.prmScopes
      return json(prm)
    }
    if (url.href === metadataUrl) {
      const as: Record<string, unknown> = {
        issuer: o.metadataIssuer ?? issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: o.authMethods ?? ['none'],
      }
      if (o.registration !== false) as.registration_endpoint = `${issuer}/register`
      if (o.issSupported) as.authorization_response_iss_parameter_supported = true
      if (o.cimd) as.client_id_metadata_document_supported = true
      if (o.asScopes) as.scopes_supported = o.asScopes
      return json(as)
    }
    if (url.href === `${issuer}/register` && request.method === 'POST') {
      const body = (await request.json()) as Record<string, unknown>
      registrations.push(body)
      return json({ client_id: `client-${registrations.length}`, ...body }, 201)
    }
    if (url.origin + url.pathname === `${issuer}/authorize`) {
      const q = url.searchParams
      authorizations.push(q)
      const code = `code-${++n}`
      codes.set(code, { challenge: q.get('code_challenge')!, scope: (q.get('scope') ?? '').split(' ').filter(Boolean) })
      const back = new URL(q.get('redirect_uri')!)
      back.searchParams.set('code', code)
      back.searchParams.set('state', q.get('state')!)
      const iss = { correct: issuer, wrong: 'https://evil.test', slash: `${issuer}/`, omit: undefined }[
        o.iss ?? 'correct'
      ]
      if (iss !== undefined) back.searchParams.set('iss', iss)
      return new Response(null, { status: 302, headers: { location: back.href } })
    }
    if (url.href === `${issuer}/token` && request.method === 'POST') {
      const form = new URLSearchParams(await request.text())
      tokenRequests.push({ headers: request.headers, form })
      if (form.get('grant_type') === 'refresh_token') {
        if (!refreshTokens.delete(form.get('refresh_token')!)) return json({ error: 'invalid_grant' }, 400)
        return issue(['refreshed'])
      }
      const grant = codes.get(form.get('code')!)
      codes.delete(form.get('code')!)
      const digest = new Uint8Array(
        await crypto.subtle.digest('SHA-256', new TextEncoder().encode(form.get('code_verifier') ?? '')),
      )
      if (!grant || encodeBase64Url(digest) !== grant.challenge) return json({ error: 'invalid_grant' }, 400)
      return issue(grant.scope)
    }
    return new Response('not found', { status: 404 })
  }
  return { fetch, gets, authorizations, tokenRequests, registrations, issuer, tokens }
}

type World = ReturnType<typeof world>

function provider(w: World, extra: Partial<OAuthClientProviderOptions> = {}) {
  return new OAuthClientProvider({
    redirectUrl: REDIRECT,
    fetch: w.fetch,
    redirectToAuthorization: async (url) => (await w.fetch(new Request(url))).headers.get('location')!,
    ...extra,
  })
}

function connect(w: World, extra: Partial<OAuthClientProviderOptions> = {}) {
  const auth = provider(w, extra)
  return { auth, client: new Client({ transport: new StreamableHttpClientTransport(MCP, { fetch: w.fetch, auth }) }) }
}

describe('OAuth helpers', () => {
  it('parses WWW-Authenticate challenges with quoted commas, escapes and several schemes', () => {
    expect(
      parseWwwAuthenticate(
        'Bearer error="invalid_request", error_description="expected \'Bearer TOKEN\', got \\"x\\"", scope=files:read, Basic realm="r"',
      ),
    ).toEqual([
      {
        scheme: 'Bearer',
        params: {
          error: 'invalid_request',
          error_description: 'expected \'Bearer TOKEN\', got "x"',
          scope: 'files:read',
        },
      },
      { scheme: 'Basic', params: { realm: 'r' } },
    ])
    expect(parseWwwAuthenticate('')).toEqual([])
  })

  it('lists metadata URLs in the order the spec requires', () => {
    expect(authorizationServerMetadataUrls('https://as.test/tenant1').map(String)).toEqual([
      'https://as.test/.well-known/oauth-authorization-server/tenant1',
      'https://as.test/.well-known/openid-configuration/tenant1',
      'https://as.test/tenant1/.well-known/openid-configuration',
    ])
    expect(authorizationServerMetadataUrls('https://as.test').map(String)).toEqual([
      'https://as.test/.well-known/oauth-authorization-server',
      'https://as.test/.well-known/openid-configuration',
    ])
    expect(protectedResourceMetadataUrls('https://mcp.test/public/mcp').map(String)).toEqual([
      'https://mcp.test/.well-known/oauth-protected-resource/public/mcp',
      'https://mcp.test/.well-known/oauth-protected-resource',
    ])
    expect(protectedResourceMetadataUrls('https://mcp.test').map(String)).toEqual([
      'https://mcp.test/.well-known/oauth-protected-resource',
    ])
  })

  it('accepts a resource that is the server or a parent path on the same origin, nothing else', () => {
    expect(resourceMatches('https://mcp.test/mcp', MCP)).toBe(true)
    expect(resourceMatches('https://mcp.test', MCP)).toBe(true)
    expect(resourceMatches('https://evil.test/mcp', MCP)).toBe(false)
    expect(resourceMatches('https://mcp.test/mc', MCP)).toBe(false)
    expect(resourceMatches('https://mcp.test/mcp/other', MCP)).toBe(false)
    expect(resourceMatches('not a url', MCP)).toBe(false)
  })

  it('selects the token endpoint auth method: registered, else none without a secret, else basic > post > none', () => {
    expect(
      selectTokenAuthMethod({ client_id: 'a', client_secret: 's', token_endpoint_auth_method: 'client_secret_post' }, [
        'client_secret_basic',
      ]),
    ).toBe('client_secret_post')
    expect(selectTokenAuthMethod({ client_id: 'a' }, ['client_secret_basic'])).toBe('none')
    expect(selectTokenAuthMethod({ client_id: 'a', client_secret: 's' }, undefined)).toBe('client_secret_basic')
    expect(selectTokenAuthMethod({ client_id: 'a', client_secret: 's' }, ['client_secret_post', 'none'])).toBe(
      'client_secret_post',
    )
    expect(selectTokenAuthMethod({ client_id: 'a', client_secret: 's' }, ['none'])).toBe('none')
  })

  it('makes a 43-character PKCE verifier and its S256 challenge', async () => {
    const { verifier, challenge } = await createPkce()
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)))
    expect(challenge).toBe(encodeBase64Url(digest))
  })
})

describe('OAuthClientProvider against a fake authorization server', () => {
  it('on 401 discovers, registers, authorizes with PKCE S256 + resource + state, exchanges the code and retries', async () => {
    const w = world({ prmScopes: ['mcp:basic'] })
    const { client } = connect(w)
    expect((await client.callTool('echo')).content).toEqual([{ type: 'text', text: 'ok' }])
    expect(w.gets.filter((g) => !g.includes('/authorize'))).toEqual([
      PRM_PATH,
      'https://as.test/.well-known/oauth-authorization-server',
    ])
    expect(w.registrations).toEqual([
      expect.objectContaining({
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        application_type: 'native',
        token_endpoint_auth_method: 'none',
      }),
    ])
    const q = w.authorizations[0]
    expect(Object.fromEntries(q)).toMatchObject({
      response_type: 'code',
      client_id: 'client-1',
      redirect_uri: REDIRECT,
      code_challenge_method: 'S256',
      resource: MCP,
      scope: 'mcp:basic',
    })
    expect(q.get('state')).toMatch(/^[A-Za-z0-9_-]{22}$/)
    const form = w.tokenRequests[0].form
    expect(Object.fromEntries(form)).toMatchObject({
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT,
      resource: MCP,
      client_id: 'client-1',
    })
    expect(form.get('code_verifier')).toMatch(/^[A-Za-z0-9_-]{43}$/) // the fake AS checked it against the challenge
    // the token is reused: a second call needs no new authorization
    await client.listTools()
    expect(w.authorizations).toHaveLength(1)
  })

  it("the user's login does not count against the request timeout; the rest of the request still does", async () => {
    const w = world({ prmScopes: ['mcp:basic'] })
    const auth = provider(w, {
      // the user takes 400 ms to log in, longer than the whole request may take
      redirectToAuthorization: async (url) => {
        await new Promise((r) => setTimeout(r, 400))
        return (await w.fetch(new Request(url))).headers.get('location')!
      },
    })
    const client = new Client({
      transport: new StreamableHttpClientTransport(MCP, { fetch: w.fetch, auth }),
      requestTimeoutMs: 150,
    })
    expect((await client.callTool('echo')).content).toEqual([{ type: 'text', text: 'ok' }])
    // time that is not the user's still counts: a server that never answers times out as before
    const { RequestTimeoutError } = await import('../../../src/client/index.ts')
    const slow = new Client({
      transport: new StreamableHttpClientTransport(MCP, { fetch: () => new Promise<Response>(() => {}) }),
      requestTimeoutMs: 150,
    })
    await expect(slow.callTool('echo')).rejects.toBeInstanceOf(RequestTimeoutError)
  })

  it('falls back through the well-known URLs in order (path PRM → root PRM; OAuth insert → OIDC insert → OIDC append)', async () => {
    const w = world({ prmInHeader: false, prmAt: 'root', issuerPath: '/tenant1', asMetadataAt: 'openid-append' })
    const { client } = connect(w)
    await client.listTools()
    expect(w.gets.filter((g) => !g.includes('/authorize'))).toEqual([
      PRM_PATH,
      'https://mcp.test/.well-known/oauth-protected-resource',
      'https://as.test/.well-known/oauth-authorization-server/tenant1',
      'https://as.test/.well-known/openid-configuration/tenant1',
      'https://as.test/tenant1/.well-known/openid-configuration',
    ])
    expect(w.authorizations[0].get('resource')).toBe('https://mcp.test') // exactly as the PRM published it
  })

  it('refuses AS metadata whose issuer differs, before registering or redirecting', async () => {
    const w = world({ metadataIssuer: 'https://attacker.test' })
    const { client } = connect(w)
    await expect(client.listTools()).rejects.toMatchObject({
      name: 'OAuthError',
      code: 'ERR_OAUTH',
      error: 'invalid_issuer',
    })
    expect(w.registrations).toHaveLength(0)
    expect(w.authorizations).toHaveLength(0)
  })

  it('refuses an authorization endpoint over plain http (not loopback), before registering or redirecting', async () => {
    const w = world()
    const fetch = async (request: Request) => {
      const response = await w.fetch(request)
      if (!request.url.includes('/.well-known/oauth-authorization-server')) return response
      const metadata = (await response.json()) as Record<string, unknown>
      return Response.json({ ...metadata, authorization_endpoint: 'http://as.test/authorize' })
    }
    const { client } = connect({ ...w, fetch })
    await expect(client.listTools()).rejects.toMatchObject({
      error: 'invalid_metadata',
      message: 'The authorization_endpoint of https://as.test is not an https URL (http only on a loopback host)',
    })
    expect(w.registrations).toHaveLength(0)
    expect(w.authorizations).toHaveLength(0)
  })

  it('refuses protected-resource metadata for another resource', async () => {
    const w = world({ prmResource: 'https://evil.test/mcp' })
    const { client } = connect(w)
    await expect(client.listTools()).rejects.toThrow(OAuthError)
    expect(w.gets).toEqual([PRM_PATH])
  })

  it.each([
    ['advertised, iss missing', { issSupported: true, iss: 'omit' as const }],
    ['advertised, wrong iss', { issSupported: true, iss: 'wrong' as const }],
    ['not advertised, wrong iss', { iss: 'wrong' as const }],
    ['trailing-slash iss (no normalization)', { issSupported: true, iss: 'slash' as const }],
  ])('rejects the authorization response (RFC 9207): %s — no token request', async (_label, options) => {
    const w = world(options)
    const { client } = connect(w)
    await expect(client.listTools()).rejects.toMatchObject({
      name: 'OAuthError',
      code: 'ERR_OAUTH',
      error: 'invalid_issuer',
    })
    expect(w.authorizations).toHaveLength(1)
    expect(w.tokenRequests).toHaveLength(0)
  })

  it.each([
    ['advertised and correct', { issSupported: true, iss: 'correct' as const }],
    ['neither advertised nor sent', { iss: 'omit' as const }],
  ])('accepts the authorization response: %s', async (_label, options) => {
    const w = world(options)
    await connect(w).client.listTools()
    expect(w.tokenRequests).toHaveLength(1)
  })

  it('authenticates at the token endpoint with client_secret_basic (form-encoded), client_secret_post or none', async () => {
    const secret = 'a b:c/é'
    const basic = world({ authMethods: ['client_secret_basic'], registration: false })
    await connect(basic, {
      preRegistered: [{ issuer: basic.issuer, client_id: 'id:1', client_secret: secret }],
    }).client.listTools()
    const header = basic.tokenRequests[0].headers.get('authorization')!
    expect(header).toBe(`Basic ${btoa(`id%3A1:a+b%3Ac%2F%C3%A9`)}`)
    expect(basic.tokenRequests[0].form.has('client_secret')).toBe(false)

    const post = world({ authMethods: ['client_secret_post'], registration: false })
    await connect(post, {
      preRegistered: [{ issuer: post.issuer, client_id: 'id', client_secret: secret }],
    }).client.listTools()
    expect(post.tokenRequests[0].headers.has('authorization')).toBe(false)
    expect(Object.fromEntries(post.tokenRequests[0].form)).toMatchObject({ client_id: 'id', client_secret: secret })

    const none = world({ authMethods: ['none'] })
    await connect(none).client.listTools()
    expect(none.tokenRequests[0].headers.has('authorization')).toBe(false)
    expect(none.tokenRequests[0].form.get('client_id')).toBe('client-1')
    expect(none.tokenRequests[0].form.has('client_secret')).toBe(false)
  })

  it('uses pre-registered credentials only with their issuer, and a Client ID Metadata Document URL where supported', async () => {
    const cimd = world({ cimd: true })
    await connect(cimd, {
      clientMetadataUrl: 'https://app.test/client.json',
      preRegistered: [{ issuer: 'https://other.test', client_id: 'elsewhere' }],
    }).client.listTools()
    expect(cimd.registrations).toHaveLength(0)
    expect(cimd.authorizations[0].get('client_id')).toBe('https://app.test/client.json')

    const none = world({ registration: false })
    await expect(connect(none).client.listTools()).rejects.toMatchObject({ code: 'ERR_OAUTH', error: 'no_client' })
  })

  it('asks for offline_access only when the AS lists it', async () => {
    const listed = world({ prmScopes: ['mcp:basic'], asScopes: ['mcp:basic', 'offline_access'] })
    await connect(listed).client.listTools()
    expect(listed.authorizations[0].get('scope')).toBe('mcp:basic offline_access')
    const unlisted = world({ asScopes: ['mcp:basic'] })
    await connect(unlisted).client.listTools()
    expect(unlisted.authorizations[0].has('scope')).toBe(false) // no challenge scope, no scopes_supported: omitted
  })

  it('steps up on 403 insufficient_scope with the union of the scopes, then succeeds', async () => {
    const w = world({ challengeScope: 'mcp:basic', callScopes: ['mcp:write'] })
    const { client } = connect(w)
    await client.listTools()
    expect((await client.callTool('echo')).content).toEqual([{ type: 'text', text: 'ok' }])
    expect(w.authorizations.map((q) => q.get('scope'))).toEqual(['mcp:basic', 'mcp:basic mcp:write'])
  })

  it('stops stepping up after maxStepUps and surfaces the 403', async () => {
    const w = world({ callScopes: ['mcp:never'], grant: () => [] })
    const { client } = connect(w, { maxStepUps: 2 })
    const error = await client.callTool('echo').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HttpError)
    expect((error as HttpError).status).toBe(403)
    expect(w.authorizations).toHaveLength(3) // the 401 authorization, then 2 step-ups
    expect(w.authorizations.map((q) => q.get('scope'))).toEqual([null, 'mcp:never', 'mcp:never'])
  })

  it('refreshes with the stored refresh token on a later 401, and re-authorizes when the refresh is refused', async () => {
    const w = world({ refreshTokens: true })
    const { auth, client } = connect(w)
    await client.listTools()
    w.tokens.clear() // the server forgets every access token
    await client.listTools()
    expect(w.authorizations).toHaveLength(1)
    expect(w.tokenRequests.map((t) => t.form.get('grant_type'))).toEqual(['authorization_code', 'refresh_token'])
    expect(w.tokenRequests[1].form.get('resource')).toBe(MCP)
    expect((await auth.store.loadTokens(MCP))?.refresh_token).toBe('refresh-3') // rotated: the first grant issued refresh-2

    w.tokens.clear()
    await auth.store.saveTokens(MCP, { ...(await auth.store.loadTokens(MCP))!, refresh_token: 'revoked' })
    await client.listTools()
    expect(w.authorizations).toHaveLength(2)
  })

  it('sends no token it holds from another issuer, and registers anew with the new authorization server', async () => {
    const w = world()
    const { auth, client } = connect(w)
    await auth.store.saveTokens(MCP, {
      issuer: 'https://old-as.test',
      access_token: 'old',
      token_type: 'Bearer',
      refresh_token: 'old-refresh',
    })
    await auth.store.saveClient('https://old-as.test', { client_id: 'old-client' })
    await client.listTools()
    expect(w.tokenRequests.map((t) => t.form.get('grant_type'))).toEqual(['authorization_code'])
    expect(w.authorizations[0].get('client_id')).toBe('client-1')
    expect((await auth.store.loadTokens(MCP))?.issuer).toBe(w.issuer)
  })

  it('refuses a token that is not a Bearer token (and stores nothing)', async () => {
    const w = world({ tokenType: 'DPoP' })
    const { auth, client } = connect(w)
    await expect(client.listTools()).rejects.toMatchObject({
      name: 'OAuthError',
      code: 'ERR_OAUTH',
      error: 'unsupported_token_type',
    })
    expect(await auth.store.loadTokens(MCP)).toBeUndefined()
  })

  it('authorizes once per request after a 401: a second 401 is an HttpError', async () => {
    const w = world({ rejectAllTokens: true })
    const { client } = connect(w)
    const error = await client.listTools().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HttpError)
    expect((error as HttpError).status).toBe(401)
    expect(w.authorizations).toHaveLength(1)
  })
})

describe('Client: -32022 UnsupportedProtocolVersion', () => {
  function server(answers: Array<(body: WireRequest) => Response>) {
    const seen: { header: string | null; meta: string }[] = []
    const fetch = async (request: Request) => {
      const body = (await request.json()) as WireRequest
      seen.push({
        header: request.headers.get('mcp-protocol-version'),
        meta: body.params._meta['io.modelcontextprotocol/protocolVersion'] as string,
      })
      return answers.shift()!(body)
    }
    return {
      seen,
      client: (version?: string) =>
        new Client({
          transport: new StreamableHttpClientTransport(MCP, { fetch }),
          versionNegotiation: 'modern', // the 2026-07-28 version retry, without the era probe
          ...(version ? { protocolVersion: version } : {}),
        }),
    }
  }
  const reject = (supported: unknown) => (body: WireRequest) =>
    Response.json(
      {
        jsonrpc: '2.0',
        id: body.id,
        error: { code: -32022, message: 'Unsupported protocol version', data: { supported, requested: 'x' } },
      },
      { status: 400 },
    )
  const ok = (body: WireRequest) =>
    Response.json({
      jsonrpc: '2.0',
      id: body.id,
      result: { resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'private' },
    })

  it('retries once with a version from data.supported that it speaks, and keeps it', async () => {
    const s = server([reject(['2099-01-01', '2026-07-28']), ok, ok])
    const client = s.client('2025-99-99')
    await client.listTools()
    await client.listTools()
    expect(s.seen).toEqual([
      { header: '2025-99-99', meta: '2025-99-99' },
      { header: '2026-07-28', meta: '2026-07-28' },
      { header: '2026-07-28', meta: '2026-07-28' },
    ])
  })

  it('throws the McpError when nothing in data.supported is spoken here, or when the retry is rejected too', async () => {
    const none = server([reject(['2099-01-01'])])
    await expect(none.client().listTools()).rejects.toMatchObject({ code: -32022 })
    expect(none.seen).toHaveLength(1)
    const twice = server([reject(['2026-07-28']), reject(['2026-07-28'])])
    const error = await twice
      .client()
      .listTools()
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(McpError)
    expect(twice.seen).toHaveLength(2)
  })
})

describe('OAuthClientProvider: a server that moved to another authorization server', () => {
  it('never sends the token from the old issuer again, even when the new authorization is abandoned', async () => {
    const sent: (string | null)[] = []
    const json = (body: unknown) =>
      new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } })
    const answer = (request: Request): Response => {
      const url = request.url
      if (url === MCP) {
        sent.push(request.headers.get('authorization'))
        return new Response('{}', {
          status: 401,
          headers: {
            'www-authenticate': 'Bearer resource_metadata="https://mcp.test/.well-known/oauth-protected-resource/mcp"',
          },
        })
      }
      if (url === 'https://mcp.test/.well-known/oauth-protected-resource/mcp')
        return json({ resource: MCP, authorization_servers: ['https://new-as.test'] })
      if (url === 'https://new-as.test/.well-known/oauth-authorization-server') {
        return json({
          issuer: 'https://new-as.test',
          authorization_endpoint: 'https://new-as.test/authorize',
          token_endpoint: 'https://new-as.test/token',
          code_challenge_methods_supported: ['S256'],
        })
      }
      return new Response('not found', { status: 404 })
    }
    const fetch = (request: Request) => Promise.resolve(answer(request))
    const auth = new OAuthClientProvider({
      redirectUrl: 'http://127.0.0.1:3000/callback',
      fetch,
      preRegistered: [{ issuer: 'https://new-as.test', client_id: 'c' }],
      redirectToAuthorization: () => Promise.reject(new Error('the user closed the login window')),
    })
    await auth.store.saveTokens(MCP, { issuer: 'https://old-as.test', access_token: 'old', token_type: 'Bearer' })
    const client = new Client({ transport: new StreamableHttpClientTransport(MCP, { fetch, auth }) })
    await expect(client.listTools()).rejects.toThrow('the user closed the login window')
    expect(sent).toEqual(['Bearer old']) // unavoidable: nothing said the issuer changed until this 401
    expect(await auth.store.loadTokens(MCP)).toBeUndefined()
    const again = await client.listTools().catch((e: unknown) => e)
    expect(again).toBeInstanceOf(Error)
    expect(again).not.toBeInstanceOf(HttpError)
    expect(sent).toEqual(['Bearer old', null])
  })
})
