/**
 * DPoP-bound access tokens (RFC 9449) at an MCP endpoint: `jwtVerifier` / `introspectionVerifier` with
 * `dpop: dpopProofChecker(…)` behind `protectedResource`, tokens from a loopback authorization server
 * (test/oauth-server.ts) with `cnf.jkt`, proofs built here with jose. Each refusal with its challenge, the
 * replay and `iat` windows, the nonce flow, the challenges and metadata, and Bearer presentation.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { exportJWK, SignJWT } from 'jose'
import {
  dpopProofChecker,
  introspectionVerifier,
  jwtVerifier,
  protectedResource,
  type DPoPReplayStore,
  type VerifyToken,
} from '../../src/oauth/index.ts'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'
import { startOAuthServer, type TestAuthorizationServer } from '../oauth-server.ts'
import { MCP, ath, call, now, proof, proofKey, type ProofOptions } from '../dpop-proofs.ts'

function handlerFor(verifyToken: VerifyToken) {
  const mcp = new McpServer({ name: 'dpop', version: '1' })
  mcp.tool('whoami', {}, (_a, ctx) => `hello ${ctx.authInfo?.subject}`)
  return createFetchHandler(mcp, {
    allowedHosts: ['mcp.test'],
    allowedOrigins: ['https://app.test'],
    oauth: protectedResource({ authorizationServers: [as.issuer], verifyToken }),
  })
}

async function text(res: Response): Promise<string> {
  const body = (await res.json()) as { result?: { content: Array<{ text: string }> } }
  return body.result?.content[0]?.text ?? JSON.stringify(body)
}

/** The parameters of the response's DPoP challenge; fails the test when there is none. */
function dpopChallenge(res: Response): Record<string, string> {
  const header = res.headers.get('www-authenticate') ?? ''
  expect(header).toMatch(/(^|, )DPoP /)
  const params: Record<string, string> = {}
  for (const [, k, v] of header.slice(header.search(/(^|, )DPoP /)).matchAll(/(\w+)="([^"]*)"/g)) params[k] ??= v
  return params
}

let as: TestAuthorizationServer
beforeAll(async () => {
  as = await startOAuthServer({ alg: 'ES256' })
})
afterAll(() => as.close())
afterEach(() => vi.useRealTimers())

describe('a DPoP-bound JWT with its proof', () => {
  it('is accepted with the DPoP scheme; the proof binds method, URL, token and key', async () => {
    const key = await proofKey()
    const handler = handlerFor(jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker() }))
    const token = await as.mint({ aud: MCP, sub: 'dora', cnf: { jkt: key.jkt } })
    const res = await handler(call(`DPoP ${token}`, [await proof(key, { token })]))
    expect(res.status).toBe(200)
    expect(await text(res)).toBe('hello dora')
    // the scheme is case-insensitive; htu is compared normalized: host case, default port, query ignored
    const htu = 'https://MCP.test:443/mcp?x=1#f'
    const again = await handler(call(`dpop ${token}`, [await proof(key, { token, htu })]))
    expect(again.status).toBe(200)
  })

  it('accepts RSA and EdDSA proofs from the default algorithms', async () => {
    const handler = handlerFor(jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker() }))
    for (const alg of ['PS256', 'EdDSA']) {
      const key = await proofKey(alg)
      const token = await as.mint({ aud: MCP, cnf: { jkt: key.jkt } })
      expect((await handler(call(`DPoP ${token}`, [await proof(key, { token })]))).status).toBe(200)
    }
  })

  it('refuses each bad proof with invalid_dpop_proof and its reason in a DPoP challenge', async () => {
    const key = await proofKey()
    const other = await proofKey()
    const privateJwk = await exportJWK(key.privateKey)
    const handler = handlerFor(jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker({ algorithms: ['ES256'] }) }))
    const token = await as.mint({ aud: MCP, cnf: { jkt: key.jkt } })
    const good = (o: ProofOptions = {}) => proof(key, { token, ...o })
    const cases: Array<[string, string[], string]> = [
      ['no DPoP header', [], 'the DPoP proof is missing (no DPoP header)'],
      ['two DPoP headers', [await good(), await good()], 'more than one DPoP proof (one DPoP header only)'],
      ['not a JWS', ['not-a-proof'], 'the DPoP proof is malformed'],
      ['typ JWT', [await good({ header: { typ: 'JWT' } })], 'the DPoP proof typ is not dpop+jwt'],
      [
        'alg not allowed',
        [await proof(await proofKey('ES384'), { token })],
        'the DPoP proof algorithm is not one of ES256',
      ],
      [
        'private jwk',
        [await good({ header: { jwk: privateJwk } })],
        'the DPoP proof jwk must be a public key (no private or symmetric members)',
      ],
      ['no jwk', [await good({ header: { jwk: undefined } })], 'the DPoP proof has no jwk header'],
      ['signed by another key', [await good({ signWith: other.privateKey })], 'the DPoP proof signature is invalid'],
      ['htm GET', [await good({ htm: 'GET' })], 'the DPoP proof htm is not POST'],
      [
        'htu of another path',
        [await good({ htu: 'https://mcp.test/mcp/' })],
        'the DPoP proof htu is not this request URL',
      ],
      [
        'htu of another host',
        [await good({ htu: 'https://evil.test/mcp' })],
        'the DPoP proof htu is not this request URL',
      ],
      ['no htu', [await good({ claims: { htu: undefined } })], 'the DPoP proof htu is not this request URL'],
      [
        'ath of another token',
        [await proof(key, { token: 'other' })],
        'the DPoP proof ath is not the hash of this access token',
      ],
      ['no ath', [await proof(key)], 'the DPoP proof ath is not the hash of this access token'],
      [
        'no jti',
        [await good({ claims: { jti: undefined } })],
        'the DPoP proof jti must be a string of 1 to 256 characters',
      ],
      [
        'iat an hour ago',
        [await good({ claims: { iat: now() - 3600 } })],
        'the DPoP proof iat is not within 300 seconds of now',
      ],
      [
        'iat an hour ahead',
        [await good({ claims: { iat: now() + 3600 } })],
        'the DPoP proof iat is not within 300 seconds of now',
      ],
    ]
    for (const [what, proofs, description] of cases) {
      const res = await handler(call(`DPoP ${token}`, proofs))
      expect([what, res.status]).toEqual([what, 401])
      expect([what, dpopChallenge(res)]).toEqual([
        what,
        {
          algs: 'ES256',
          resource_metadata: 'https://mcp.test/.well-known/oauth-protected-resource/mcp',
          error: 'invalid_dpop_proof',
          error_description: description,
        },
      ])
      expect(res.headers.get('www-authenticate')).not.toMatch(/Bearer/)
    }
  })

  it('refuses an HMAC-signed or unsigned proof', async () => {
    const key = await proofKey()
    const handler = handlerFor(jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker() }))
    const token = await as.mint({ aud: MCP, cnf: { jkt: key.jkt } })
    const claims = { jti: 'j', htm: 'POST', htu: MCP, iat: now(), ath: await ath(token) }
    const hs = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: key.jwk })
      .sign(new Uint8Array(32))
    const b64 = (v: unknown) => btoa(JSON.stringify(v)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
    const none = `${b64({ alg: 'none', typ: 'dpop+jwt', jwk: key.jwk })}.${b64(claims)}.`
    const descriptions = []
    for (const p of [hs, none])
      descriptions.push(dpopChallenge(await handler(call(`DPoP ${token}`, [p]))).error_description)
    expect(descriptions[0]).toMatch(/^the DPoP proof algorithm is not one of ES256 /)
    expect(descriptions[1]).toBe('the DPoP proof is malformed')
  })

  it('refuses a token bound to another key, and a DPoP token without cnf, as invalid_token', async () => {
    const key = await proofKey()
    const handler = handlerFor(jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker() }))
    const elsewhere = await as.mint({ aud: MCP, cnf: { jkt: (await proofKey()).jkt } })
    const unbound = await as.mint({ aud: MCP })
    const a = dpopChallenge(await handler(call(`DPoP ${elsewhere}`, [await proof(key, { token: elsewhere })])))
    expect(a).toMatchObject({
      error: 'invalid_token',
      error_description: 'the token is bound to another key than the DPoP proof',
    })
    const b = dpopChallenge(await handler(call(`DPoP ${unbound}`, [await proof(key, { token: unbound })])))
    expect(b).toMatchObject({
      error: 'invalid_token',
      error_description: 'the token is not bound to a DPoP key (no cnf.jkt)',
    })
  })

  it('refuses a replayed proof within the window, with a store of your own too', async () => {
    const key = await proofKey()
    const handler = handlerFor(jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker() }))
    const token = await as.mint({ aud: MCP, cnf: { jkt: key.jkt } })
    const once = await proof(key, { token })
    expect((await handler(call(`DPoP ${token}`, [once]))).status).toBe(200)
    const replay = await handler(call(`DPoP ${token}`, [once]))
    expect(dpopChallenge(replay)).toMatchObject({
      error: 'invalid_dpop_proof',
      error_description: 'the DPoP proof was already used (its jti was seen)',
    })

    const calls: Array<[string, number]> = []
    const keys = new Set<string>()
    const store: DPoPReplayStore = {
      seen(k, expiresAt) {
        calls.push([k, expiresAt])
        return keys.has(k) || (keys.add(k), false)
      },
    }
    const custom = handlerFor(
      jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker({ replayStore: store, iatWindowSeconds: 60 }) }),
    )
    const iat = now()
    const p = await proof(key, { token, claims: { jti: 'jti-1', iat } })
    expect((await custom(call(`DPoP ${token}`, [p]))).status).toBe(200)
    expect((await custom(call(`DPoP ${token}`, [p]))).status).toBe(401)
    expect(calls).toEqual([
      [`${key.jkt}:jti-1`, iat + 60],
      [`${key.jkt}:jti-1`, iat + 60],
    ])
    // a failing store fails the request (503), it never lets a proof through unchecked
    const broken = handlerFor(
      jwtVerifier({
        issuer: as.issuer,
        dpop: dpopProofChecker({ replayStore: { seen: () => Promise.reject(new Error('down')) } }),
      }),
    )
    expect((await broken(call(`DPoP ${token}`, [await proof(key, { token })]))).status).toBe(503)
  })

  it('takes iat within iatWindowSeconds either way, no further', async () => {
    const key = await proofKey()
    const handler = handlerFor(jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker({ iatWindowSeconds: 30 }) }))
    const token = await as.mint({ aud: MCP, cnf: { jkt: key.jkt } })
    const status = async (iat: number) =>
      (await handler(call(`DPoP ${token}`, [await proof(key, { token, claims: { iat } })]))).status
    expect(await status(now() - 25)).toBe(200)
    expect(await status(now() + 25)).toBe(200)
    expect(await status(now() - 40)).toBe(401)
    expect(await status(now() + 40)).toBe(401)
  })
})

describe('server nonces (RFC 9449 §9)', () => {
  it('asks for a nonce with use_dpop_nonce and DPoP-Nonce, then accepts the proof that carries it', async () => {
    const key = await proofKey()
    const handler = handlerFor(jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker({ nonce: true }) }))
    const token = await as.mint({ aud: MCP, sub: 'nina', cnf: { jkt: key.jkt } })
    const first = call(`DPoP ${token}`, [await proof(key, { token })])
    first.headers.set('origin', 'https://app.test')
    const asked = await handler(first)
    expect(asked.status).toBe(401)
    expect(dpopChallenge(asked)).toMatchObject({ error: 'use_dpop_nonce' })
    const nonce = asked.headers.get('dpop-nonce')
    expect(nonce).toMatch(/^\d+\.[A-Za-z0-9_-]{43}$/)
    // a browser client can read it
    expect(asked.headers.get('access-control-expose-headers')).toMatch(/DPoP-Nonce/)
    const wrong = await handler(call(`DPoP ${token}`, [await proof(key, { token, claims: { nonce: `${nonce}x` } })]))
    expect(dpopChallenge(wrong)).toMatchObject({ error: 'use_dpop_nonce' })
    const ok = await handler(call(`DPoP ${token}`, [await proof(key, { token, claims: { nonce } })]))
    expect(ok.status).toBe(200)
    expect(await text(ok)).toBe('hello nina')
  })

  it('shares nonces between instances with one secret; a nonce two lifetimes old is refused', async () => {
    const key = await proofKey()
    const secret = 'a-secret-of-at-least-thirty-two-characters'
    const nonce = { secret, lifetimeSeconds: 60 }
    const a = handlerFor(jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker({ nonce }) }))
    const b = handlerFor(jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker({ nonce }) }))
    const c = handlerFor(jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker({ nonce: true }) }))
    // the clock at the start of a nonce step, so that +70 s is the next step and +140 s the one after
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Math.ceil(Date.now() / 60_000) * 60_000)
    const token = await as.mint({ aud: MCP, cnf: { jkt: key.jkt }, exp: now() + 3600 })
    const given = (await a(call(`DPoP ${token}`, [await proof(key, { token })]))).headers.get('dpop-nonce')!
    const withNonce = async () => [await proof(key, { token, claims: { nonce: given } })]
    expect((await b(call(`DPoP ${token}`, await withNonce()))).status).toBe(200)
    // an instance with its own random secret does not know it
    expect((await c(call(`DPoP ${token}`, await withNonce()))).status).toBe(401)
    vi.setSystemTime(Date.now() + 70_000)
    expect((await b(call(`DPoP ${token}`, await withNonce()))).status).toBe(200)
    vi.setSystemTime(Date.now() + 70_000)
    const stale = await b(call(`DPoP ${token}`, await withNonce()))
    expect(dpopChallenge(stale)).toMatchObject({ error: 'use_dpop_nonce' })
    expect(stale.headers.get('dpop-nonce')).not.toBe(given)
  })
})

describe('challenges, metadata and Bearer presentation', () => {
  it('offers both schemes without a token, names algs, and publishes them in the metadata', async () => {
    const handler = handlerFor(
      jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker({ algorithms: ['ES256', 'EdDSA'] }) }),
    )
    const res = await handler(call(undefined))
    expect(res.status).toBe(401)
    const prm = 'https://mcp.test/.well-known/oauth-protected-resource/mcp'
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${prm}", DPoP algs="ES256 EdDSA", resource_metadata="${prm}"`,
    )
    const doc = (await (await handler(new Request(prm))).json()) as Record<string, unknown>
    expect(doc.dpop_signing_alg_values_supported).toEqual(['ES256', 'EdDSA'])
    expect(doc.dpop_bound_access_tokens_required).toBeUndefined()
  })

  it('refuses a bound token presented as Bearer, accepts an unbound one unless DPoP is required', async () => {
    const key = await proofKey()
    const token = await as.mint({ aud: MCP, cnf: { jkt: key.jkt } })
    const plain = await as.mint({ aud: MCP, sub: 'pat' })
    const handler = handlerFor(jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker() }))
    const bound = await handler(call(`Bearer ${token}`, [await proof(key, { token })]))
    expect(bound.status).toBe(401)
    expect(bound.headers.get('www-authenticate')).toMatch(
      /^Bearer resource_metadata="[^"]+", error="invalid_token", error_description="the token is bound to a key \(cnf\); this resource accepts bearer tokens only"$/,
    )
    expect(await text(await handler(call(`Bearer ${plain}`)))).toBe('hello pat')

    const strict = handlerFor(jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker({ required: true }) }))
    const refused = await strict(call(`Bearer ${plain}`))
    expect(dpopChallenge(refused)).toMatchObject({
      error: 'invalid_token',
      error_description: 'this resource accepts DPoP-bound tokens only',
    })
    expect((await strict(call(undefined))).headers.get('www-authenticate')).toMatch(/^DPoP algs="/)
    const prm = 'https://mcp.test/.well-known/oauth-protected-resource/mcp'
    const doc = (await (await strict(new Request(prm))).json()) as Record<string, unknown>
    expect(doc.dpop_bound_access_tokens_required).toBe(true)
  })

  it('without the dpop option, the DPoP scheme is no token at all and cnf stays refused', async () => {
    const key = await proofKey()
    const token = await as.mint({ aud: MCP, cnf: { jkt: key.jkt } })
    const handler = handlerFor(jwtVerifier({ issuer: as.issuer }))
    const res = await handler(call(`DPoP ${token}`, [await proof(key, { token })]))
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="https://mcp.test/.well-known/oauth-protected-resource/mcp"',
    )
  })

  it('refuses none, HMAC or no algorithms, a bad window and a short nonce secret at construction', () => {
    expect(() => dpopProofChecker({ algorithms: ['HS256'] })).toThrow(/HS256 is not allowed/)
    expect(() => dpopProofChecker({ algorithms: ['none'] })).toThrow(/none is not allowed/)
    expect(() => dpopProofChecker({ algorithms: [] })).toThrow(/must not be empty/)
    expect(() => dpopProofChecker({ iatWindowSeconds: -1 })).toThrow(/iatWindowSeconds must be a non-negative number/)
    expect(() => dpopProofChecker({ nonce: { secret: 'short' } })).toThrow(/at least 32 characters/)
  })
})

describe('introspectionVerifier with dpop', () => {
  it('checks the proof against the answer cnf.jkt (RFC 9449 §6.2)', async () => {
    const key = await proofKey()
    const { clientId, clientSecret } = as.introspectionClient
    const verifyToken = introspectionVerifier({
      endpoint: `${as.issuer}/introspect`,
      clientId,
      clientSecret,
      dpop: dpopProofChecker(),
    })
    const handler = handlerFor(verifyToken)
    const token = as.mintOpaque({ aud: MCP, sub: 'olga', cnf: { jkt: key.jkt } })
    const ok = await handler(call(`DPoP ${token}`, [await proof(key, { token })]))
    expect(await text(ok)).toBe('hello olga')
    const other = await proofKey()
    const bad = await handler(call(`DPoP ${token}`, [await proof(other, { token })]))
    expect(dpopChallenge(bad)).toMatchObject({ error: 'invalid_token' })
    const asBearer = await handler(call(`Bearer ${token}`))
    expect(asBearer.status).toBe(401)
  })
})

describe('behind a proxy', () => {
  it('takes a proof for the public URL (oauth.resource) on a request that arrives at the internal one', async () => {
    const key = await proofKey()
    const mcp = new McpServer({ name: 'dpop', version: '1' })
    mcp.tool('whoami', {}, (_a, ctx) => `hello ${ctx.authInfo?.subject}`)
    const verifyToken = jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker() })
    const handler = createFetchHandler(mcp, {
      oauth: protectedResource({ authorizationServers: [as.issuer], verifyToken, resource: MCP }),
    })
    const token = await as.mint({ aud: MCP, sub: 'pia', cnf: { jkt: key.jkt } })
    // the TLS-terminating proxy forwards https://mcp.test/mcp as http://internal:8080/mcp
    const internal = 'http://internal:8080/mcp'
    const res = await handler(call(`DPoP ${token}`, [await proof(key, { token })], internal))
    expect(await text(res)).toBe('hello pia')
    // another public origin is still refused
    const elsewhere = await handler(
      call(`DPoP ${token}`, [await proof(key, { token, htu: 'https://evil.test/mcp' })], internal),
    )
    expect(dpopChallenge(elsewhere)).toMatchObject({ error_description: 'the DPoP proof htu is not this request URL' })
  })
})
