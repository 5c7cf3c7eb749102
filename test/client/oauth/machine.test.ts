import { describe, expect, it } from 'vitest'
import { decodeProtectedHeader, exportJWK, exportPKCS8, generateKeyPair } from 'jose'
import {
  Client,
  ClientCredentialsProvider,
  EnterpriseManagedAuthProvider,
  HttpError,
  InMemoryOAuthStore,
  JwtBearerProvider,
  OAuthError,
  StreamableHttpClientTransport,
  type ClientAuthProvider,
} from '../../../src/client/index.ts'
import {
  ID_JAG,
  IDP_TOKEN_ENDPOINT,
  ISSUER,
  JWT_BEARER,
  MCP,
  TOKEN_EXCHANGE,
  m2mWorld,
  type M2mWorld,
} from './m2m-world.ts'

function connect(w: M2mWorld, auth: ClientAuthProvider) {
  return new Client({ transport: new StreamableHttpClientTransport(MCP, { fetch: w.fetch, auth }) })
}

const ok = [{ type: 'text', text: 'ok' }]

describe('ClientCredentialsProvider', () => {
  it('on 401 discovers the AS (token endpoint only), asks for a token with client_secret_basic, scope and resource, and retries', async () => {
    const w = await m2mWorld({ clients: { 'job 1': { secret: 's3cr:t é' } }, challengeScope: 'mcp:tools' })
    const store = new InMemoryOAuthStore()
    const auth = new ClientCredentialsProvider({
      authorizationServer: ISSUER,
      clientId: 'job 1',
      clientSecret: 's3cr:t é',
      store,
      fetch: w.fetch,
    })
    const client = connect(w, auth)
    expect((await client.callTool('echo')).content).toEqual(ok)
    expect(w.gets).toEqual([
      'https://mcp.test/.well-known/oauth-protected-resource/mcp',
      'https://as.test/.well-known/oauth-authorization-server',
    ])
    const [request] = w.asRequests()
    expect(Object.fromEntries(request.form)).toEqual({
      grant_type: 'client_credentials',
      resource: MCP,
      scope: 'mcp:tools',
    })
    expect(request.headers.get('authorization')).toBe(`Basic ${btoa('job+1:s3cr%3At+%C3%A9')}`)
    expect(store.loadTokens(MCP)).toMatchObject({ issuer: ISSUER, access_token: 'at-1', scope: 'mcp:tools' })
    // the token is kept: more calls need no new token request
    await client.listTools()
    expect(w.asRequests()).toHaveLength(1)
  })

  it('uses client_secret_post when the AS lists only that, or when told; the scope from the resource metadata', async () => {
    const w = await m2mWorld({
      clients: { job: { secret: 'pw' } },
      authMethods: ['client_secret_post'],
      prmScopes: ['a', 'b'],
    })
    await connect(
      w,
      new ClientCredentialsProvider({
        authorizationServer: ISSUER,
        clientId: 'job',
        clientSecret: 'pw',
        fetch: w.fetch,
      }),
    ).listTools()
    const told = await m2mWorld({ clients: { job: { secret: 'pw' } } })
    const auth = new ClientCredentialsProvider({
      authorizationServer: ISSUER,
      clientId: 'job',
      clientSecret: 'pw',
      tokenEndpointAuthMethod: 'client_secret_post',
      fetch: told.fetch,
    })
    await connect(told, auth).listTools()
    for (const request of [w.asRequests()[0], told.asRequests()[0]]) {
      expect(request.headers.has('authorization')).toBe(false)
      expect(request.form.get('client_id')).toBe('job')
      expect(request.form.get('client_secret')).toBe('pw')
    }
    expect(w.asRequests()[0].form.get('scope')).toBe('a b')
  })

  it('signs private_key_jwt assertions (RFC 7523 §2.2) with an ES256 PKCS#8 PEM, verified with jose: iss = sub = client, aud = issuer, fresh jti', async () => {
    const keys = await generateKeyPair('ES256', { extractable: true })
    const w = await m2mWorld({ clients: { signer: { publicKey: keys.publicKey } } })
    const auth = new ClientCredentialsProvider({
      authorizationServer: ISSUER,
      clientId: 'signer',
      privateKey: await exportPKCS8(keys.privateKey),
      keyId: 'k1',
      fetch: w.fetch,
    })
    const client = connect(w, auth)
    await client.listTools()
    w.expireAll()
    await client.listTools()
    const [first, second] = w.asRequests()
    expect(first.form.get('client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer')
    expect(first.assertion).toMatchObject({ iss: 'signer', sub: 'signer', aud: ISSUER })
    expect(first.assertion!.exp! - first.assertion!.iat!).toBe(60)
    expect(second.assertion!.jti).not.toBe(first.assertion!.jti)
    const header = decodeProtectedHeader(first.form.get('client_assertion')!)
    expect(header).toEqual({ alg: 'ES256', typ: 'JWT', kid: 'k1' })
  })

  it("assertionAudience 'token_endpoint' puts the token endpoint URL in aud (for servers that want it)", async () => {
    const keys = await generateKeyPair('ES256', { extractable: true })
    const w = await m2mWorld({ clients: { signer: { publicKey: keys.publicKey } } })
    const auth = new ClientCredentialsProvider({
      authorizationServer: ISSUER,
      clientId: 'signer',
      privateKey: keys.privateKey,
      assertionAudience: 'token_endpoint',
      fetch: w.fetch,
    })
    await connect(w, auth).listTools()
    expect(w.asRequests()[0].assertion).toMatchObject({ aud: 'https://as.test/oauth/token' })
  })

  it.each([
    ['an RS256 JWK', 'RS256' as const, async (k: CryptoKey) => await exportJWK(k)],
    ['an ES256 CryptoKey', 'ES256' as const, (k: CryptoKey) => Promise.resolve(k)],
  ])('signs with %s', async (_label, alg, keyOf) => {
    const keys = await generateKeyPair(alg, { extractable: true })
    const w = await m2mWorld({ clients: { signer: { publicKey: keys.publicKey } } })
    const privateKey = await keyOf(keys.privateKey)
    await connect(
      w,
      new ClientCredentialsProvider({ authorizationServer: ISSUER, clientId: 'signer', privateKey, fetch: w.fetch }),
    ).listTools()
    expect(w.asRequests()[0].assertion).toMatchObject({ iss: 'signer' })
  })

  it('a refused client surfaces as OAuthError invalid_client, with no second token request', async () => {
    const w = await m2mWorld({ clients: { job: { secret: 'right' } } })
    const auth = new ClientCredentialsProvider({
      authorizationServer: ISSUER,
      clientId: 'job',
      clientSecret: 'wrong',
      fetch: w.fetch,
    })
    const failure = connect(w, auth).listTools()
    await expect(failure).rejects.toBeInstanceOf(OAuthError)
    await expect(failure).rejects.toMatchObject({ error: 'invalid_client' })
    await expect(failure).rejects.toThrow(/invalid_client: who are you/)
    expect(w.asRequests()).toHaveLength(1)
  })

  it('after the token expired, the 401 gets a new token once; a server that still refuses fails with HttpError 401', async () => {
    const w = await m2mWorld({ clients: { job: { secret: 'pw' } } })
    const client = connect(
      w,
      new ClientCredentialsProvider({
        authorizationServer: ISSUER,
        clientId: 'job',
        clientSecret: 'pw',
        fetch: w.fetch,
      }),
    )
    await client.listTools()
    w.expireAll()
    expect((await client.callTool('echo')).content).toEqual(ok)
    expect(w.asRequests()).toHaveLength(2)

    // a server that refuses every token: one new token for the request, then its 401 is the caller's
    const refusing = (request: Request) => {
      if (request.url === MCP) w.expireAll()
      return w.fetch(request)
    }
    const auth = new ClientCredentialsProvider({
      authorizationServer: ISSUER,
      clientId: 'job',
      clientSecret: 'pw',
      fetch: w.fetch,
    })
    const transport = new StreamableHttpClientTransport(MCP, { fetch: refusing, auth })
    const error = await transport
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HttpError)
    expect(error).toMatchObject({ status: 401 })
    expect(w.asRequests()).toHaveLength(3)
  })

  it('a provider with the same store reuses the stored token; concurrent 401s share one token request', async () => {
    const w = await m2mWorld({ clients: { job: { secret: 'pw' } } })
    const store = new InMemoryOAuthStore()
    const options = { authorizationServer: ISSUER, clientId: 'job', clientSecret: 'pw', fetch: w.fetch, store }
    await connect(w, new ClientCredentialsProvider(options)).listTools()
    await connect(w, new ClientCredentialsProvider(options)).listTools()
    expect(w.asRequests()).toHaveLength(1)

    const auth = new ClientCredentialsProvider({
      authorizationServer: ISSUER,
      clientId: 'job',
      clientSecret: 'pw',
      fetch: w.fetch,
    })
    const challenge = `Bearer resource_metadata="https://mcp.test/.well-known/oauth-protected-resource/mcp"`
    await Promise.all([auth.authorize(MCP, challenge), auth.authorize(MCP, challenge)])
    expect(w.asRequests()).toHaveLength(2)
  })

  it("a request that shares another's authorization is not failed by that one's abort", async () => {
    const w = await m2mWorld({ clients: { job: { secret: 'pw' } } })
    // a fetch that honours the request's signal, a tick later (as a network would)
    const fetch = async (request: Request) => {
      await new Promise((r) => setTimeout(r, 1))
      request.signal.throwIfAborted()
      return w.fetch(request)
    }
    const store = new InMemoryOAuthStore()
    const auth = new ClientCredentialsProvider({
      authorizationServer: ISSUER,
      clientId: 'job',
      clientSecret: 'pw',
      fetch,
      store,
    })
    const challenge = `Bearer resource_metadata="https://mcp.test/.well-known/oauth-protected-resource/mcp"`
    const abandoned = new AbortController()
    const first = auth.authorize(MCP, challenge, abandoned.signal)
    const second = auth.authorize(MCP, challenge, new AbortController().signal)
    abandoned.abort()
    await expect(first).rejects.toMatchObject({ name: 'AbortError' })
    await expect(second).resolves.toBeUndefined()
    expect(store.loadTokens(MCP)).toMatchObject({ access_token: 'at-1' })
  })

  it('403 insufficient_scope: a new token for the union of the scopes (step-up)', async () => {
    const w = await m2mWorld({ clients: { job: { secret: 'pw' } }, challengeScope: 'read', callScopes: ['write'] })
    const client = connect(
      w,
      new ClientCredentialsProvider({
        authorizationServer: ISSUER,
        clientId: 'job',
        clientSecret: 'pw',
        fetch: w.fetch,
      }),
    )
    expect((await client.callTool('echo')).content).toEqual(ok)
    expect(w.asRequests().map((r) => r.form.get('scope'))).toEqual(['read', 'read write'])
  })

  it.each([
    [{ clientId: '' }, /clientId must be a non-empty string/],
    [
      { clientId: 'a', clientSecret: 's', privateKey: '-----BEGIN PRIVATE KEY-----' },
      /both clientSecret and privateKey/,
    ],
    [{ clientId: 'a', privateKey: '-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----' }, /PKCS#8 PEM/],
    [{ clientId: 'a', privateKey: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' } }, /JWK without "d"/],
    [{ clientId: 'a', tokenEndpointAuthMethod: 'private_key_jwt' as const }, /privateKey is missing/],
    [{ clientId: 'a', tokenEndpointAuthMethod: 'client_secret_basic' as const }, /clientSecret is missing/],
    [{ clientId: 'a', assertionAudience: 'aud' as 'issuer' }, /assertionAudience must be 'issuer' or 'token_endpoint'/],
    // an unknown method was taken as `none`: the secret silently not sent
    [
      { clientId: 'a', clientSecret: 's', tokenEndpointAuthMethod: 'client_secret_jwt' as 'none' },
      /tokenEndpointAuthMethod must be one of client_secret_basic, client_secret_post, private_key_jwt, none, got "client_secret_jwt"/,
    ],
    [
      { clientId: 'a', privateKey: null as unknown as string },
      /privateKey must be a PKCS#8 PEM string, a private JWK or a CryptoKey/,
    ],
    [
      { clientId: 'a', privateKey: { kty: 'EC', d: 'd' }, signingAlgorithm: 'ES384' as 'ES256' },
      /signingAlgorithm must be 'ES256' or 'RS256', got "ES384"/,
    ],
    [{ clientId: 'a', privateKey: { kty: 'EC', d: 'd' }, keyId: 7 as unknown as string }, /keyId must be a string/],
  ])('refuses bad options at construction, naming the field: %j', (options, message) => {
    expect(() => new ClientCredentialsProvider({ authorizationServer: ISSUER, ...options })).toThrow(message)
  })

  it('sends no credentials to a token endpoint over plain http (not loopback) or one that is no URL', async () => {
    const w = await m2mWorld({ clients: { job: { secret: 'pw' } } })
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      [
        'http',
        { token_endpoint: 'http://as.test/oauth/token' },
        /^The token_endpoint of https:\/\/as\.test is not an https URL/,
      ],
      ['relative', { token_endpoint: '/oauth/token' }, /^The token_endpoint of https:\/\/as\.test is not an https URL/],
    ]
    for (const [what, override, message] of cases) {
      const fetch = async (request: Request) => {
        if (request.url !== `${ISSUER}/.well-known/oauth-authorization-server`) return w.fetch(request)
        const metadata = (await (await w.fetch(request)).json()) as Record<string, unknown>
        return Response.json({ ...metadata, ...override })
      }
      const auth = new ClientCredentialsProvider({
        authorizationServer: ISSUER,
        clientId: 'job',
        clientSecret: 'pw',
        fetch,
      })
      const error = await connect({ ...w, fetch }, auth)
        .listTools()
        .catch((e: unknown) => e)
      expect([what, error]).toEqual([what, expect.objectContaining({ name: 'OAuthError', error: 'invalid_metadata' })])
      expect((error as Error).message).toMatch(message)
    }
    // nor to an authorization server whose own identifier is plain http
    const fetch = async (request: Request) =>
      request.url.includes('oauth-protected-resource')
        ? Response.json({ resource: MCP, authorization_servers: ['http://as.test'] })
        : w.fetch(request)
    const auth = new ClientCredentialsProvider({
      authorizationServer: ISSUER,
      clientId: 'job',
      clientSecret: 'pw',
      fetch,
    })
    await expect(connect({ ...w, fetch }, auth).listTools()).rejects.toMatchObject({ error: 'invalid_issuer' })
    expect(w.tokenRequests).toHaveLength(0)
  })

  it('renews a token about to expire before sending it: no 401, the scopes it had (step-up included) asked again', async () => {
    const w = await m2mWorld({
      clients: { job: { secret: 'pw' } },
      challengeScope: 'read',
      callScopes: ['read', 'write'],
    })
    let refused = 0
    const counting = async (request: Request) => {
      const response = await w.fetch(request)
      if (request.url === MCP && response.status === 401) refused++
      return response
    }
    const store = new InMemoryOAuthStore()
    const auth = new ClientCredentialsProvider({
      authorizationServer: ISSUER,
      clientId: 'job',
      clientSecret: 'pw',
      fetch: counting,
      store,
    })
    const client = connect({ ...w, fetch: counting }, auth)
    expect((await client.callTool('echo')).content).toEqual(ok) // 401, token (read), 403, step-up (read write)
    expect(refused).toBe(1)
    const stored = store.loadTokens(MCP)!
    store.saveTokens(MCP, { ...stored, expires_at: Date.now() + 10_000 }) // within 30 s of its expiry
    w.expireAll() // as the server would refuse it once expired
    expect((await client.callTool('echo')).content).toEqual(ok)
    expect(refused).toBe(1) // renewed before it was sent
    expect(w.asRequests().map((r) => r.form.get('scope'))).toEqual(['read', 'read write', 'read write'])
    expect(store.loadTokens(MCP)!.expires_at).toBeGreaterThan(Date.now() + 200_000) // expires_in 300 s
  })

  it('authorizationServer is required by every provider: without it, a TypeError saying what to set', () => {
    const missing =
      /authorizationServer is required: the issuer of the authorization server these credentials belong to/
    expect(() => new ClientCredentialsProvider({ clientId: 'job', clientSecret: 'pw' } as never)).toThrow(missing)
    expect(() => new JwtBearerProvider({ assertion: () => 'jwt' } as never)).toThrow(missing)
    const idp = { tokenEndpoint: IDP_TOKEN_ENDPOINT, clientId: 'x' }
    expect(
      () => new EnterpriseManagedAuthProvider({ clientId: 'c', clientSecret: 's', idToken: () => 't', idp } as never),
    ).toThrow(missing)
  })

  it('sends its credentials to no authorization server but authorizationServer, whatever the resource names', async () => {
    const w = await m2mWorld({ clients: { job: { secret: 'pw' } } })
    const naming = (servers: string[]) => async (request: Request) =>
      request.url.includes('oauth-protected-resource')
        ? Response.json({ resource: MCP, authorization_servers: servers })
        : w.fetch(request)
    // the MCP server points at a server of its choosing: nothing is sent there, the request fails
    const evil = naming(['https://as.evil'])
    const options = { clientId: 'job', clientSecret: 'pw', authorizationServer: ISSUER }
    const pinned = new ClientCredentialsProvider({ ...options, fetch: evil })
    await expect(connect({ ...w, fetch: evil }, pinned).listTools()).rejects.toMatchObject({
      name: 'OAuthError',
      error: 'invalid_issuer',
      message: `${MCP} names the authorization server https://as.evil, not ${ISSUER} (authorizationServer): no credentials were sent`,
    })
    expect(w.tokenRequests).toHaveLength(0)
    // listed, even second: that one is used
    const both = naming(['https://as.other', ISSUER])
    const auth = new ClientCredentialsProvider({ ...options, fetch: both })
    expect((await connect({ ...w, fetch: both }, auth).callTool('echo')).content).toEqual(ok)
    expect(w.asRequests()).toHaveLength(1)
    expect(() => new ClientCredentialsProvider({ ...options, authorizationServer: 'as.test' })).toThrow(
      /authorizationServer must be an issuer URL, got "as\.test"/,
    )
  })

  it('a key that is not the algorithm asked for fails the request with a TypeError naming privateKey', async () => {
    const keys = await generateKeyPair('RS256', { extractable: true })
    const w = await m2mWorld({ clients: { signer: { publicKey: keys.publicKey } } })
    const auth = new ClientCredentialsProvider({
      authorizationServer: ISSUER,
      clientId: 'signer',
      privateKey: await exportPKCS8(keys.privateKey),
      signingAlgorithm: 'ES256',
      fetch: w.fetch,
    })
    await expect(connect(w, auth).listTools()).rejects.toThrow(
      /options\.privateKey is not an ES256 private key \(it is RS256\)/,
    )
    expect(w.asRequests()).toHaveLength(0)
  })
})

describe('JwtBearerProvider (workload identity)', () => {
  it('presents the assertion from the function, called anew for each token request (a rotating token)', async () => {
    const seen: unknown[] = []
    let rotation = 0
    const w = await m2mWorld()
    const auth = new JwtBearerProvider({
      authorizationServer: ISSUER,
      assertion: (context) => {
        seen.push({ issuer: context.issuer, resource: context.resource })
        return `workload-jwt-${++rotation}\n` // as read from a file
      },
      client: { clientId: 'workload' },
      fetch: w.fetch,
    })
    const client = connect(w, auth)
    await client.listTools()
    w.expireAll()
    expect((await client.callTool('echo')).content).toEqual(ok)
    expect(seen).toEqual([
      { issuer: ISSUER, resource: MCP },
      { issuer: ISSUER, resource: MCP },
    ])
    expect(w.asRequests().map((r) => Object.fromEntries(r.form))).toEqual([
      { grant_type: JWT_BEARER, assertion: 'workload-jwt-1', resource: MCP, client_id: 'workload' },
      { grant_type: JWT_BEARER, assertion: 'workload-jwt-2', resource: MCP, client_id: 'workload' },
    ])
  })

  it.each(['invalid_grant', 'invalid_scope', 'unauthorized_client'])(
    'surfaces %s as OAuthError with that code, without retrying or trying another grant',
    async (code) => {
      let calls = 0
      const w = await m2mWorld({ judgeAssertion: () => code })
      const auth = new JwtBearerProvider({
        authorizationServer: ISSUER,
        assertion: () => (calls++, 'jwt'),
        fetch: w.fetch,
      })
      await expect(connect(w, auth).listTools()).rejects.toMatchObject({ name: 'OAuthError', error: code })
      expect(w.asRequests()).toHaveLength(1)
      expect(calls).toBe(1)
    },
  )

  it('uses a refresh token when the AS issued one, and the grant again when the refresh is refused', async () => {
    const w = await m2mWorld({ refreshTokens: true })
    const client = connect(
      w,
      new JwtBearerProvider({ authorizationServer: ISSUER, assertion: () => 'jwt', fetch: w.fetch }),
    )
    await client.listTools()
    w.expireAll()
    await client.listTools()
    w.expireAll()
    w.revokeRefreshTokens()
    await client.listTools()
    expect(w.asRequests().map((r) => r.form.get('grant_type'))).toEqual([
      JWT_BEARER,
      'refresh_token',
      'refresh_token',
      JWT_BEARER,
    ])
  })

  it('an assertion function that gives no string fails with a TypeError naming it; a bad option is refused', async () => {
    const w = await m2mWorld()
    const auth = new JwtBearerProvider({ authorizationServer: ISSUER, assertion: () => '', fetch: w.fetch })
    await expect(connect(w, auth).listTools()).rejects.toThrow(
      /options\.assertion must give the JWT as a non-empty string, got a blank string/,
    )
    expect(w.asRequests()).toHaveLength(0)
    // an assertion of the wrong shape is not echoed: it may hold the credential
    const leaky = new JwtBearerProvider({
      authorizationServer: ISSUER,
      assertion: () => ({ token: 'eyJ.secret.jwt' }) as never,
      fetch: w.fetch,
    })
    await expect(connect(w, leaky).listTools()).rejects.toThrow(
      /^options\.assertion must give the JWT as a non-empty string, got an object$/,
    )
    expect(() => new JwtBearerProvider({ authorizationServer: ISSUER } as never)).toThrow(
      /options\.assertion must be a function/,
    )
    expect(
      () => new JwtBearerProvider({ authorizationServer: ISSUER, assertion: () => 'x', client: { clientId: '' } }),
    ).toThrow(/options\.client\.clientId/)
  })
})

describe('EnterpriseManagedAuthProvider (SEP-990)', () => {
  const options = (w: M2mWorld) => ({
    authorizationServer: ISSUER,
    clientId: 'mcp-client',
    clientSecret: 'mcp-secret',
    idToken: () => 'id-token-of-alice',
    idp: { tokenEndpoint: IDP_TOKEN_ENDPOINT, clientId: 'client-at-idp' },
    fetch: w.fetch,
  })

  it('exchanges the ID token for an ID-JAG at the IdP, then presents it with the jwt-bearer grant and client auth', async () => {
    const w = await m2mWorld({ clients: { 'mcp-client': { secret: 'mcp-secret' } }, challengeScope: 'tools' })
    expect((await connect(w, new EnterpriseManagedAuthProvider(options(w))).callTool('echo')).content).toEqual(ok)
    const [exchange, grant] = w.tokenRequests
    expect(exchange.url).toBe(IDP_TOKEN_ENDPOINT)
    expect(Object.fromEntries(exchange.form)).toEqual({
      grant_type: TOKEN_EXCHANGE,
      requested_token_type: ID_JAG,
      subject_token: 'id-token-of-alice',
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      audience: ISSUER,
      resource: MCP,
      scope: 'tools',
      client_id: 'client-at-idp',
    })
    expect(grant.url).toBe('https://as.test/oauth/token')
    expect(grant.form.get('grant_type')).toBe(JWT_BEARER)
    expect(grant.headers.get('authorization')).toBe(`Basic ${btoa('mcp-client:mcp-secret')}`)
    expect(w.tokenRequests).toHaveLength(2) // the AS verified the ID-JAG's signature, aud, client_id, resource
  })

  it("surfaces the IdP's refusal with its code, and never reaches the AS", async () => {
    const w = await m2mWorld({ clients: { 'mcp-client': { secret: 'mcp-secret' } }, idToken: 'another' })
    const failure = connect(w, new EnterpriseManagedAuthProvider(options(w))).listTools()
    await expect(failure).rejects.toMatchObject({ name: 'OAuthError', error: 'invalid_grant' })
    await expect(failure).rejects.toThrow(/idp\.test\/token failed \(HTTP 400\): invalid_grant: unknown ID token/)
    expect(w.asRequests()).toHaveLength(0)
  })

  it('refuses an exchange that issued something other than an ID-JAG', async () => {
    const w = await m2mWorld({
      clients: { 'mcp-client': { secret: 'mcp-secret' } },
      idpAnswer: (jag) => ({
        access_token: jag,
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        token_type: 'Bearer',
      }),
    })
    const failure = connect(w, new EnterpriseManagedAuthProvider(options(w))).listTools()
    await expect(failure).rejects.toMatchObject({ name: 'OAuthError', error: 'invalid_response' })
    await expect(failure).rejects.toThrow(/not an ID-JAG/)
    expect(w.asRequests()).toHaveLength(0)
  })

  it('an ID-JAG the AS refuses (minted for another client) surfaces as invalid_grant', async () => {
    const w = await m2mWorld({ clients: { 'mcp-client': { secret: 'mcp-secret' } }, idJagClientId: 'someone-else' })
    await expect(connect(w, new EnterpriseManagedAuthProvider(options(w))).listTools()).rejects.toMatchObject({
      error: 'invalid_grant',
    })
    expect(w.asRequests()).toHaveLength(1)
  })

  it('refuses a bad idp option at construction, naming it', () => {
    const base = { authorizationServer: ISSUER, clientId: 'c', clientSecret: 's', idToken: () => 't' }
    expect(() => new EnterpriseManagedAuthProvider({ ...base, idp: { tokenEndpoint: 'nope', clientId: 'x' } })).toThrow(
      /options\.idp\.tokenEndpoint must be an https URL \(http only on a loopback host\), got "nope"/,
    )
    // the ID token goes there
    const plain = { tokenEndpoint: 'http://idp.example/token', clientId: 'x' }
    expect(() => new EnterpriseManagedAuthProvider({ ...base, idp: plain })).toThrow(/must be an https URL/)
    expect(
      () => new EnterpriseManagedAuthProvider({ ...base, idp: { tokenEndpoint: IDP_TOKEN_ENDPOINT, clientId: '' } }),
    ).toThrow(/options\.idp\.clientId/)
  })
})
