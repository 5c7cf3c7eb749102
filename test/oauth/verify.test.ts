/**
 * edge-mcp/oauth against a real loopback authorization server (test/oauth-server.ts): JWT access tokens
 * (RFC 9068) through discovery and the JWKS, every bad token refused as InvalidTokenError with its safe
 * message, key rotation with one rate-limited refetch, outages as plain errors (503), and RFC 7662
 * introspection.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { introspectionVerifier, jwtVerifier, InvalidTokenError, type VerifyToken } from '../../src/oauth/index.ts'
import { foreignKey, startOAuthServer, unsignedToken, type TestAuthorizationServer } from '../oauth-server.ts'

const RESOURCE = 'https://mcp.example.com/mcp'
const context = (resource = RESOURCE) => ({ resource, request: new Request(resource), env: {} })
const now = () => Math.floor(Date.now() / 1000)

/** The error a verification throws (fails the test when it resolves). */
async function failure(verify: VerifyToken, token: string, resource = RESOURCE): Promise<Error> {
  try {
    await verify(token, context(resource))
  } catch (error) {
    return error as Error
  }
  throw new Error('the token was accepted')
}

async function refused(verify: VerifyToken, token: string, message: string): Promise<void> {
  const error = await failure(verify, token)
  expect(error).toBeInstanceOf(InvalidTokenError)
  expect(error.message).toBe(message)
}

/** A fetch that counts its requests by path. */
function countingFetch() {
  const paths: string[] = []
  const f = (request: Request) => (paths.push(new URL(request.url).pathname), fetch(request))
  return { paths, fetch: f }
}

let as: TestAuthorizationServer
beforeAll(async () => {
  as = await startOAuthServer()
})
afterAll(() => as.close())
afterEach(() => {
  vi.useRealTimers()
  as.failJwks(false)
  as.failIntrospection(false)
})

describe('jwtVerifier', () => {
  it('verifies a token from the /token flow-like mint: every AuthInfo field', async () => {
    const verify = jwtVerifier({ issuer: as.issuer })
    const token = await as.mint({ aud: RESOURCE, scope: 'tools:read tools:call', client_id: 'app-1', sub: 'bob' })
    const info = await verify(token, context())
    expect(info).toMatchObject({
      clientId: 'app-1',
      issuer: as.issuer,
      subject: 'bob',
      scopes: ['tools:read', 'tools:call'],
      resource: RESOURCE,
    })
    expect(info.expiresAt).toBeGreaterThan(now())
    expect(info.claims).toMatchObject({ aud: RESOURCE, jti: expect.any(String) as unknown })
  })

  it('discovers through RFC 8414 once, and the JWKS once, for many tokens', async () => {
    const counting = countingFetch()
    const verify = jwtVerifier({ issuer: as.issuer, fetch: counting.fetch })
    for (let i = 0; i < 3; i++) await verify(await as.mint({ aud: RESOURCE }), context())
    expect(counting.paths).toEqual(['/.well-known/oauth-authorization-server', '/jwks'])
  })

  it('falls back to OpenID Discovery when only /.well-known/openid-configuration exists', async () => {
    const oidc = await startOAuthServer({ openidOnly: true, alg: 'ES256' })
    try {
      const counting = countingFetch()
      const verify = jwtVerifier({ issuer: oidc.issuer, fetch: counting.fetch })
      const info = await verify(await oidc.mint({ aud: RESOURCE, azp: 'via-azp', client_id: undefined }), context())
      expect(info.clientId).toBe('via-azp')
      expect(counting.paths).toEqual([
        '/.well-known/oauth-authorization-server',
        '/.well-known/openid-configuration',
        '/jwks',
      ])
    } finally {
      await oidc.close()
    }
  })

  it('metadata naming another issuer is a plain error, and a failed discovery is retried', async () => {
    let lie = true
    const verify = jwtVerifier({
      issuer: as.issuer,
      fetch: async (request) => {
        const response = await fetch(request)
        if (!lie || !request.url.includes('/.well-known/')) return response
        return Response.json({ ...((await response.json()) as object), issuer: 'https://evil.example' })
      },
    })
    const token = await as.mint({ aud: RESOURCE })
    const error = await failure(verify, token)
    expect(error).not.toBeInstanceOf(InvalidTokenError)
    expect(error.message).toMatch(/issuer "https:\/\/evil.example"/)
    lie = false
    expect((await verify(token, context())).subject).toBe('alice')
  })

  it('uses jwksUri without discovery; scp arrays; audience compared by normal form', async () => {
    const counting = countingFetch()
    const verify = jwtVerifier({ issuer: as.issuer, jwksUri: `${as.issuer}/jwks`, fetch: counting.fetch })
    const token = await as.mint({
      aud: ['https://other.example', 'HTTPS://MCP.Example.com/mcp/'],
      scope: undefined,
      scp: ['a', 'b'],
    })
    const info = await verify(token, context())
    expect(info).toMatchObject({ scopes: ['a', 'b'], resource: RESOURCE })
    expect(counting.paths).toEqual(['/jwks'])
    const fixed = jwtVerifier({ issuer: as.issuer, audience: ['https://api.example/', RESOURCE] })
    expect((await fixed(await as.mint({ aud: 'https://api.example' }), context())).resource).toBe(
      'https://api.example/',
    )
  })

  it('refuses a token for another resource, without aud, or a path that differs', async () => {
    const verify = jwtVerifier({ issuer: as.issuer })
    const another = 'the token is for another resource'
    await refused(verify, await as.mint({ aud: 'https://other.example/mcp' }), another)
    await refused(verify, await as.mint({ aud: 'https://mcp.example.com/mcp2' }), another)
    await refused(verify, await as.mint({ aud: 'https://mcp.example.com/MCP' }), another)
    await refused(verify, await as.mint({}), another)
  })

  it('expired beyond the skew is refused; within the skew accepted; nbf in the future refused', async () => {
    const verify = jwtVerifier({ issuer: as.issuer })
    await refused(verify, await as.mint({ aud: RESOURCE, exp: now() - 120 }), 'the token has expired')
    expect(await verify(await as.mint({ aud: RESOURCE, exp: now() - 30 }), context())).toBeTruthy()
    const strict = jwtVerifier({ issuer: as.issuer, clockToleranceSeconds: 0 })
    await refused(strict, await as.mint({ aud: RESOURCE, exp: now() - 30 }), 'the token has expired')
    await refused(verify, await as.mint({ aud: RESOURCE, nbf: now() + 600 }), 'the token is not yet valid')
  })

  it('refuses a token without exp', async () => {
    const verify = jwtVerifier({ issuer: as.issuer })
    await refused(verify, await as.mint({ aud: RESOURCE, exp: undefined }), 'the token has no valid expiry')
  })

  it('refuses another issuer, even with a valid signature', async () => {
    const verify = jwtVerifier({ issuer: as.issuer })
    const msg = 'the token was issued by another issuer'
    await refused(verify, await as.mint({ aud: RESOURCE, iss: 'https://evil.example' }), msg)
    await refused(verify, await as.mint({ aud: RESOURCE, iss: `${as.issuer}/` }), msg)
    await refused(verify, await as.mint({ aud: RESOURCE, iss: undefined }), msg)
  })

  it('refuses a foreign key, also under the kid of a real key', async () => {
    const verify = jwtVerifier({ issuer: as.issuer })
    const key = await foreignKey()
    await refused(
      verify,
      await as.mint({ aud: RESOURCE }, { key, kid: as.currentKey.kid }),
      'the token signature is invalid',
    )
    const error = await failure(verify, await as.mint({ aud: RESOURCE }, { key }))
    expect(error).toBeInstanceOf(InvalidTokenError)
    expect(error.message).toBe('the token is signed with an unknown key')
  })

  it('refuses alg none and HS256 signed with the public key (algorithm confusion)', async () => {
    const verify = jwtVerifier({ issuer: as.issuer })
    const claims = { iss: as.issuer, aud: RESOURCE, sub: 'alice', exp: now() + 300 }
    const msg = 'the token algorithm is not allowed'
    await refused(verify, unsignedToken(claims, { kid: as.currentKey.kid }), msg)
    const withSig = `${unsignedToken(claims, { kid: as.currentKey.kid })}c2ln`
    await refused(verify, withSig, msg)
    const secret = new TextEncoder().encode(await as.publicKeyPem())
    await refused(verify, await as.mint({ aud: RESOURCE }, { alg: 'HS256', secret }), msg)
    const ec = jwtVerifier({ issuer: as.issuer, algorithms: ['ES256'] })
    await refused(ec, await as.mint({ aud: RESOURCE }), msg)
  })

  it('refuses malformed tokens: garbage, two segments, bad base64, bad JSON, huge', async () => {
    const verify = jwtVerifier({ issuer: as.issuer })
    const good = await as.mint({ aud: RESOURCE })
    const [h, p, s] = good.split('.') as [string, string, string]
    const msg = 'the token is malformed'
    for (const bad of [
      'garbage',
      `${h}.${p}`,
      `${h}.${p}.${s}.x`,
      `${h}!.${p}.${s}`,
      `${h}.${p}+/.${s}`,
      `${Buffer.from('{"alg":').toString('base64url')}.${p}.${s}`,
      `${h}.${p}.${s}${'A'.repeat(16_384)}`,
      '',
    ])
      await refused(verify, bad, msg)
    // A payload that is not JSON under a signature made for another payload: the signature fails first.
    await refused(
      verify,
      `${h}.${Buffer.from('not json').toString('base64url')}.${s}`,
      'the token signature is invalid',
    )
    const counting = countingFetch()
    const cheap = jwtVerifier({ issuer: as.issuer, fetch: counting.fetch, maxTokenLength: 100 })
    await refused(cheap, good, msg)
    expect(counting.paths).toEqual([])
  })

  it('a tampered payload fails the signature; requiredType checks typ', async () => {
    const verify = jwtVerifier({ issuer: as.issuer, requiredType: 'at+jwt' })
    const [h, , s] = (await as.mint({ aud: RESOURCE })).split('.')
    const forged = Buffer.from(
      JSON.stringify({ iss: as.issuer, aud: RESOURCE, exp: now() + 300, sub: 'root' }),
    ).toString('base64url')
    await refused(verify, `${h}.${forged}.${s}`, 'the token signature is invalid')
    await refused(verify, await as.mint({ aud: RESOURCE }, { typ: 'JWT' }), 'the token type is not accepted')
    expect(await verify(await as.mint({ aud: RESOURCE }, { typ: 'application/at+jwt' }), context())).toBeTruthy()
  })

  it('rotation: one refetch for a new kid; an unknown kid in the cooldown fetches nothing; after it, one fetch', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const server = await startOAuthServer()
    try {
      const verify = jwtVerifier({ issuer: server.issuer, cooldownMs: 5_000 })
      await verify(await server.mint({ aud: RESOURCE }), context())
      expect(server.jwksFetches).toBe(1)
      vi.setSystemTime(Date.now() + 6_000)
      await server.rotate()
      expect((await verify(await server.mint({ aud: RESOURCE }), context())).subject).toBe('alice')
      expect(server.jwksFetches).toBe(2)
      const stranger = await server.mint({ aud: RESOURCE }, { key: await foreignKey() })
      await refused(verify, stranger, 'the token is signed with an unknown key')
      expect(server.jwksFetches).toBe(2)
      vi.setSystemTime(Date.now() + 6_000)
      await refused(verify, stranger, 'the token is signed with an unknown key')
      expect(server.jwksFetches).toBe(3)
    } finally {
      await server.close()
    }
  })

  it('keeps old keys published with keepOld; a kid-less token is tried against each key', async () => {
    const server = await startOAuthServer()
    try {
      const verify = jwtVerifier({ issuer: server.issuer, cooldownMs: 0 })
      const old = await server.mint({ aud: RESOURCE })
      await server.rotate({ keepOld: true })
      expect(await verify(old, context())).toBeTruthy()
      expect(await verify(await server.mint({ aud: RESOURCE }), context())).toBeTruthy()
      expect(await verify(await server.mint({ aud: RESOURCE }, { kid: null }), context())).toBeTruthy()
      await refused(
        verify,
        await server.mint({ aud: RESOURCE }, { kid: null, key: await foreignKey() }),
        'the token signature is invalid',
      )
      await server.rotate()
      const fresh = jwtVerifier({ issuer: server.issuer })
      await refused(fresh, old, 'the token is signed with an unknown key')
    } finally {
      await server.close()
    }
  })

  it('a JWKS outage is a plain error (503), never InvalidTokenError; it recovers on the next request', async () => {
    const server = await startOAuthServer()
    try {
      const verify = jwtVerifier({ issuer: server.issuer, cooldownMs: 0 })
      const token = await server.mint({ aud: RESOURCE })
      server.failJwks(true)
      const error = await failure(verify, token)
      expect(error).not.toBeInstanceOf(InvalidTokenError)
      expect(error.message).toContain('/jwks')
      server.failJwks(false)
      await verify(token, context())
      await server.rotate()
      server.failJwks(true)
      const during = await failure(verify, await server.mint({ aud: RESOURCE }))
      expect(during).not.toBeInstanceOf(InvalidTokenError)
      const down = jwtVerifier({ issuer: 'http://127.0.0.1:1' })
      expect(await failure(down, token)).not.toBeInstanceOf(InvalidTokenError)
    } finally {
      await server.close()
    }
  })

  it('a JWKS that is not JSON or not a key set, or an insecure jwks_uri, is a plain error (503)', async () => {
    const token = await as.mint({ aud: RESOURCE })
    const answering = (body: BodyInit) => () => Promise.resolve(new Response(body, { status: 200 }))
    for (const body of ['not json', JSON.stringify({ nope: 1 }), JSON.stringify({ keys: 'none' })]) {
      const verify = jwtVerifier({ issuer: as.issuer, jwksUri: `${as.issuer}/jwks`, fetch: answering(body) })
      expect(await failure(verify, token), body).not.toBeInstanceOf(InvalidTokenError)
    }
    const insecure = jwtVerifier({
      issuer: as.issuer,
      fetch: () => Promise.resolve(Response.json({ issuer: as.issuer, jwks_uri: 'http://keys.example/jwks' })),
    })
    const error = await failure(insecure, token)
    expect(error).not.toBeInstanceOf(InvalidTokenError)
    expect(error.message).toMatch(/jwks_uri/)
  })

  it('constructor TypeErrors: http on a non-loopback host, none or HS* or no algorithms, bad durations', () => {
    expect(() => jwtVerifier({ issuer: 'http://auth.example.com' })).toThrow(TypeError)
    expect(() => jwtVerifier({ issuer: 'not a url' })).toThrow(TypeError)
    expect(() => jwtVerifier({ issuer: 'https://a.example', jwksUri: 'http://keys.example/jwks' })).toThrow(TypeError)
    expect(() => jwtVerifier({ issuer: 'https://a.example', algorithms: ['RS256', 'none'] })).toThrow(TypeError)
    expect(() => jwtVerifier({ issuer: 'https://a.example', algorithms: ['HS256'] })).toThrow(TypeError)
    expect(() => jwtVerifier({ issuer: 'https://a.example', algorithms: [] })).toThrow(TypeError)
    expect(() => jwtVerifier({ issuer: 'https://a.example', cooldownMs: -1 })).toThrow(TypeError)
    for (const issuer of ['http://localhost:9', 'http://127.0.0.2', 'http://[::1]:9', 'https://a.example/tenant'])
      expect(() => jwtVerifier({ issuer })).not.toThrow()
  })
})

describe('introspectionVerifier', () => {
  const make = (o: Partial<Parameters<typeof introspectionVerifier>[0]> = {}) =>
    introspectionVerifier({
      endpoint: `${as.issuer}/introspect`,
      clientId: as.introspectionClient.clientId,
      clientSecret: as.introspectionClient.clientSecret,
      issuer: as.issuer,
      ...o,
    })

  it('an active opaque token and a JWT: AuthInfo from the response', async () => {
    const before = as.introspections
    const info = await make()(as.mintOpaque({ aud: RESOURCE, scope: 'a b', client_id: 'app', sub: 'carol' }), context())
    expect(info).toMatchObject({
      clientId: 'app',
      subject: 'carol',
      scopes: ['a', 'b'],
      issuer: as.issuer,
      resource: RESOURCE,
    })
    expect(info.claims).toMatchObject({ active: true })
    expect((await make()(await as.mint({ aud: [RESOURCE] }), context())).subject).toBe('alice')
    expect(as.introspections - before).toBe(2)
  })

  it('inactive, unknown, expired, wrong audience, no audience, other issuer: InvalidTokenError', async () => {
    const v = make()
    await refused(v, 'never-issued', 'the token is not active')
    await refused(v, as.mintOpaque({ aud: RESOURCE, exp: now() - 10 }), 'the token is not active')
    await refused(v, as.mintOpaque({ aud: 'https://other.example' }), 'the token is for another resource')
    await refused(v, as.mintOpaque({}), 'the token is for another resource')
    expect((await make({ requireAudience: false })(as.mintOpaque({}), context())).resource).toBe(RESOURCE)
    await refused(
      make({ issuer: 'https://other-issuer.example' }),
      as.mintOpaque({ aud: RESOURCE }),
      'the token was issued by another issuer',
    )
    const lying = make({ fetch: () => Promise.resolve(Response.json({ active: true, aud: RESOURCE, exp: now() - 5 })) })
    await refused(lying, 'x', 'the token has expired')
  })

  it('endpoint down, 500, 401 (bad credentials), bad JSON: plain errors (503)', async () => {
    const token = as.mintOpaque({ aud: RESOURCE })
    as.failIntrospection(true)
    for (const v of [
      make(),
      make({ clientSecret: 'wrong' }),
      make({ endpoint: 'http://127.0.0.1:1/introspect' }),
      make({ fetch: () => Promise.resolve(new Response('<html>', { status: 200 })) }),
    ]) {
      const error = await failure(v, token)
      expect(error).not.toBeInstanceOf(InvalidTokenError)
      as.failIntrospection(false)
    }
  })

  it('constructor TypeErrors', () => {
    expect(() => introspectionVerifier({ endpoint: 'http://as.example/introspect', clientId: 'x' })).toThrow(TypeError)
    expect(() => introspectionVerifier({ endpoint: 'https://as.example/introspect', clientId: '' })).toThrow(TypeError)
  })
})

describe('an authorization server that never answers', () => {
  /** A loopback server that accepts requests and never responds (until closed). */
  async function silent(): Promise<{ url: string; close: () => Promise<void> }> {
    const { createServer } = await import('node:http')
    const pending = new Set<import('node:http').ServerResponse>()
    const server = createServer((_req, res) => void pending.add(res))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const { port } = server.address() as import('node:net').AddressInfo
    return {
      url: `http://127.0.0.1:${port}`,
      close: () => {
        for (const res of pending) res.destroy()
        server.closeAllConnections()
        return new Promise((r) => server.close(() => r()))
      },
    }
  }

  /** Collects garbage every 10 ms until stopped: Node 20's fetch forgets the signal of a collected Request. */
  async function collectingGarbage(): Promise<() => void> {
    const v8 = await import('node:v8')
    const vm = await import('node:vm')
    v8.setFlagsFromString('--expose-gc')
    const gc = vm.runInNewContext('gc') as () => void
    const timer = setInterval(gc, 10)
    return () => clearInterval(timer)
  }

  it('metadata, JWKS and introspection fetches give up after timeoutMs with a plain error (503), not a hang', async () => {
    const hang = await silent()
    const stopCollecting = await collectingGarbage()
    try {
      const token = await as.mint({ aud: RESOURCE })
      const started = Date.now()
      const viaDiscovery = await failure(jwtVerifier({ issuer: hang.url, timeoutMs: 100 }), token)
      const viaJwks = await failure(
        jwtVerifier({ issuer: as.issuer, jwksUri: `${hang.url}/jwks`, timeoutMs: 100 }),
        token,
      )
      const viaIntrospection = await failure(
        introspectionVerifier({ endpoint: `${hang.url}/introspect`, clientId: 'c', timeoutMs: 100 }),
        'opaque',
      )
      for (const error of [viaDiscovery, viaJwks, viaIntrospection]) {
        expect(error).toBeInstanceOf(Error)
        expect(error).not.toBeInstanceOf(InvalidTokenError)
      }
      expect(Date.now() - started).toBeLessThan(4_000) // three 100 ms timeouts, far from the 5 s default
    } finally {
      stopCollecting()
      await hang.close()
    }
  })

  it('timeoutMs must be a non-negative number', () => {
    expect(() => jwtVerifier({ issuer: as.issuer, timeoutMs: -1 })).toThrow(TypeError)
    expect(() => introspectionVerifier({ endpoint: `${as.issuer}/introspect`, clientId: 'c', timeoutMs: NaN })).toThrow(
      TypeError,
    )
  })
})
