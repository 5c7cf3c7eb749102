/**
 * The OAuth client with DPoP (RFC 9449): `dpopProofs()` on an OAuthClientProvider, against a fetch-level
 * authorization server and MCP server that check every proof with jose (signature by the embedded key,
 * typ, alg, htm, htu, ath, iat, a fresh jti) and the token's binding to the key; both may ask for nonces.
 * The MCP server behind the checks is the demo server, in both eras.
 */
import { describe, expect, it } from 'vitest'
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, EmbeddedJWK, jwtVerify, type JWK } from 'jose'
import {
  Client,
  OAuthClientProvider,
  OAuthError,
  StreamableHttpClientTransport,
  dpopProofs,
  type OAuthStore,
} from '../../../src/client/index.ts'
import { InMemoryOAuthStore } from '../../../src/client/index.ts'
import { createFetchHandler } from '../../../src/server/index.ts'
import { createDemoServer } from '../../../worker/server.ts'

const MCP = 'http://localhost/mcp'
const PRM = 'http://localhost/.well-known/oauth-protected-resource/mcp'
const ISSUER = 'https://as.test'
const TOKEN_ENDPOINT = `${ISSUER}/token`

interface Proof {
  htm: string
  htu: string
  jti: string
  ath?: string
  nonce?: string
  jkt: string
}

interface WorldOptions {
  /** The token endpoint requires this nonce (RFC 9449 §8). */
  asNonce?: string
  /** The MCP server requires this nonce (§9). */
  rsNonce?: string
  /** The token endpoint's token_type (default DPoP, bound to the proof's key). */
  tokenType?: string
  /** Issue refresh tokens. */
  refreshTokens?: boolean
}

const sha256 = async (text: string) => {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))
  return btoa(String.fromCharCode(...digest))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
}

/** A proof checked with jose, independently of the client's code; throws what is wrong. */
async function verifyProof(proof: string | null, method: string, url: string, token?: string): Promise<Proof> {
  if (!proof) throw new Error('no DPoP header')
  const header = decodeProtectedHeader(proof)
  if (header.typ !== 'dpop+jwt' || header.alg !== 'ES256') throw new Error(`header ${JSON.stringify(header)}`)
  const jwk = header.jwk as JWK
  if ('d' in jwk) throw new Error('a private jwk')
  const { payload } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: ['ES256'] })
  if (payload.htm !== method) throw new Error(`htm ${String(payload.htm)}`)
  if (payload.htu !== url) throw new Error(`htu ${String(payload.htu)}`)
  if (typeof payload.iat !== 'number' || Math.abs(payload.iat - Date.now() / 1000) > 60) throw new Error('iat')
  if (typeof payload.jti !== 'string' || payload.jti.length < 16) throw new Error('jti')
  if (token !== undefined && payload.ath !== (await sha256(token))) throw new Error('ath')
  if (token === undefined && payload.ath !== undefined) throw new Error('ath at the token endpoint')
  return { ...(payload as unknown as Proof), jkt: await calculateJwkThumbprint(jwk) }
}

function world(o: WorldOptions = {}) {
  const handler = createFetchHandler(createDemoServer({ requestStateKeys: ['c'.repeat(32)] }))
  const tokenProofs: Proof[] = []
  const grants: string[] = []
  const mcpProofs: Proof[] = []
  const refusals: string[] = []
  const bound = new Map<string, string>() // access token → jkt
  const refreshTokens = new Set<string>()
  let n = 0
  let rejectNext = false
  const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })

  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url)
    if (url.href === PRM) return json({ resource: MCP, authorization_servers: [ISSUER] })
    if (url.href === `${ISSUER}/.well-known/oauth-authorization-server`)
      return json({
        issuer: ISSUER,
        authorization_endpoint: `${ISSUER}/authorize`,
        token_endpoint: TOKEN_ENDPOINT,
        registration_endpoint: `${ISSUER}/register`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        dpop_signing_alg_values_supported: ['ES256'],
      })
    if (url.href === `${ISSUER}/register`) return json({ client_id: 'c1', ...(await request.json()) }, 201)
    if (url.pathname === '/authorize') {
      const back = new URL(url.searchParams.get('redirect_uri')!)
      back.searchParams.set('code', 'the-code')
      back.searchParams.set('state', url.searchParams.get('state')!)
      return new Response(null, { status: 302, headers: { location: back.href } })
    }
    if (url.href === TOKEN_ENDPOINT) {
      const form = new URLSearchParams(await request.text())
      let proof: Proof
      try {
        proof = await verifyProof(request.headers.get('dpop'), 'POST', TOKEN_ENDPOINT)
      } catch (error) {
        return json({ error: 'invalid_dpop_proof', error_description: String(error) }, 400)
      }
      tokenProofs.push(proof)
      if (o.asNonce !== undefined && proof.nonce !== o.asNonce)
        return json({ error: 'use_dpop_nonce' }, 400, { 'dpop-nonce': o.asNonce })
      const grant = form.get('grant_type')!
      grants.push(grant)
      if (grant === 'refresh_token' && !refreshTokens.delete(form.get('refresh_token')!))
        return json({ error: 'invalid_grant' }, 400)
      const access_token = `tok-${++n}`
      bound.set(access_token, proof.jkt)
      const body: Record<string, unknown> = { access_token, token_type: o.tokenType ?? 'DPoP', expires_in: 3600 }
      if (o.refreshTokens) refreshTokens.add((body.refresh_token = `refresh-${n}`))
      return json(body)
    }
    if (url.href === MCP) {
      const refuse = (error: string, extra: Record<string, string> = {}) => {
        refusals.push(error)
        return json({ error }, 401, {
          'www-authenticate': `DPoP algs="ES256", resource_metadata="${PRM}", error="${error}"`,
          ...extra,
        })
      }
      const authorization = request.headers.get('authorization')
      if (!authorization) return json({}, 401, { 'www-authenticate': `DPoP algs="ES256", resource_metadata="${PRM}"` })
      if (o.tokenType === 'Bearer') {
        if (!bound.has(authorization.replace(/^Bearer /, ''))) return refuse('invalid_token')
        return handler(request)
      }
      const [scheme, token] = authorization.split(' ')
      if (scheme !== 'DPoP' || !bound.has(token)) return refuse('invalid_token')
      let proof: Proof
      try {
        proof = await verifyProof(request.headers.get('dpop'), request.method, MCP, token)
      } catch (error) {
        return refuse('invalid_dpop_proof', { 'x-why': String(error) })
      }
      mcpProofs.push(proof)
      if (proof.jkt !== bound.get(token)) return refuse('invalid_token')
      if (o.rsNonce !== undefined && proof.nonce !== o.rsNonce)
        return refuse('use_dpop_nonce', { 'dpop-nonce': o.rsNonce })
      if (rejectNext) return ((rejectNext = false), refuse('invalid_token'))
      return handler(request)
    }
    return new Response('not found', { status: 404 })
  }
  return { fetch, tokenProofs, grants, mcpProofs, refusals, rejectNextToken: () => (rejectNext = true) }
}

function connect(w: ReturnType<typeof world>, store: OAuthStore = new InMemoryOAuthStore(), legacy = false) {
  const auth = new OAuthClientProvider({
    redirectUrl: 'http://127.0.0.1:3000/callback',
    fetch: w.fetch,
    redirectToAuthorization: async (url) => (await w.fetch(new Request(url))).headers.get('location')!,
    store,
    dpop: dpopProofs(),
  })
  const transport = new StreamableHttpClientTransport(MCP, { fetch: w.fetch, auth })
  return { auth, client: new Client({ transport, versionNegotiation: legacy ? 'legacy' : 'auto' }) }
}

describe('OAuthClientProvider with dpop: dpopProofs()', () => {
  it('asks for a DPoP-bound token with a proof, then presents it as DPoP with a fresh proof on every request', async () => {
    const w = world()
    const { client } = connect(w)
    await client.listTools()
    await client.callTool('reserve_book', { title: 'Dune' })
    expect(w.grants).toEqual(['authorization_code'])
    expect(w.tokenProofs).toHaveLength(1)
    expect(w.refusals).toEqual([])
    // one key for the token request and every MCP request: the token's binding
    const keys = new Set([...w.tokenProofs, ...w.mcpProofs].map((p) => p.jkt))
    expect(keys.size).toBe(1)
    expect(w.mcpProofs.length).toBeGreaterThanOrEqual(2)
    expect(new Set(w.mcpProofs.map((p) => p.jti)).size).toBe(w.mcpProofs.length)
    expect(w.mcpProofs.every((p) => p.htm === 'POST' && p.htu === MCP && p.nonce === undefined)).toBe(true)
  })

  it('keeps its key pair in the store (private key not extractable) and reuses the stored one', async () => {
    const saved: CryptoKeyPair[] = []
    const store = Object.assign(new InMemoryOAuthStore(), {
      loadDPoPKeyPair: () => saved[0],
      saveDPoPKeyPair: (keyPair: CryptoKeyPair) => void saved.push(keyPair),
    })
    const w = world()
    await connect(w, store).client.listTools()
    expect(saved).toHaveLength(1)
    expect(saved[0].privateKey.extractable).toBe(false)
    expect(saved[0].privateKey.algorithm).toMatchObject({ name: 'ECDSA', namedCurve: 'P-256' })
    // a new client (a restart) with the same store: the same key, the stored token still good
    const again = world()
    const second = connect(again, store)
    await second.client.listTools()
    expect(saved).toHaveLength(1)
    expect(again.tokenProofs[0].jkt).toBe(w.tokenProofs[0].jkt)
  })

  it('retries the token request once with the nonce of a 400 use_dpop_nonce, and keeps using it', async () => {
    const w = world({ asNonce: 'as-nonce-1', refreshTokens: true })
    const { client } = connect(w)
    await client.listTools()
    expect(w.tokenProofs.map((p) => p.nonce)).toEqual([undefined, 'as-nonce-1'])
    expect(w.tokenProofs[0].jti).not.toBe(w.tokenProofs[1].jti)
    // a refresh (after the server refused the token) carries a proof with the remembered nonce at once
    w.rejectNextToken()
    await client.listTools()
    expect(w.grants).toEqual(['authorization_code', 'refresh_token'])
    expect(w.tokenProofs.map((p) => p.nonce)).toEqual([undefined, 'as-nonce-1', 'as-nonce-1'])
  })

  it('fails with use_dpop_nonce when the retried token request is still refused', async () => {
    const w = world({ asNonce: 'as-nonce-1' })
    const store = new InMemoryOAuthStore()
    const auth = new OAuthClientProvider({
      redirectUrl: 'http://127.0.0.1:3000/callback',
      fetch: async (request) => {
        const response = await w.fetch(request)
        // an authorization server that hands out a nonce it then refuses
        if (response.headers.get('dpop-nonce')) {
          const headers = new Headers(response.headers)
          headers.set('dpop-nonce', crypto.randomUUID())
          return new Response(response.body, { status: response.status, headers })
        }
        return response
      },
      redirectToAuthorization: async (url) => (await w.fetch(new Request(url))).headers.get('location')!,
      store,
      dpop: dpopProofs(),
    })
    const client = new Client({ transport: new StreamableHttpClientTransport(MCP, { fetch: w.fetch, auth }) })
    const error = await client.listTools().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(OAuthError)
    expect((error as OAuthError).error).toBe('use_dpop_nonce')
    expect(w.tokenProofs).toHaveLength(2)
  })

  it('answers the MCP server’s 401 use_dpop_nonce once with a new proof carrying the nonce, then sends it unasked', async () => {
    const w = world({ rsNonce: 'rs-nonce-1' })
    const { client } = connect(w)
    await client.listTools()
    await client.callTool('reserve_book', { title: 'Dune' })
    expect(w.refusals).toEqual(['use_dpop_nonce'])
    expect(w.mcpProofs[0].nonce).toBeUndefined()
    expect(w.mcpProofs.slice(1).every((p) => p.nonce === 'rs-nonce-1')).toBe(true)
    expect(new Set(w.mcpProofs.map((p) => p.jti)).size).toBe(w.mcpProofs.length)
    expect(w.grants).toEqual(['authorization_code']) // a nonce is no reason to authorize again
  })

  it('puts a proof on the 2025-era session’s GET stream and DELETE too', async () => {
    const w = world()
    const { client } = connect(w, new InMemoryOAuthStore(), true)
    await client.listTools()
    await client.close()
    const methods = w.mcpProofs.map((p) => p.htm)
    expect(methods).toContain('GET')
    expect(methods).toContain('DELETE')
    expect(new Set(w.mcpProofs.map((p) => p.jti)).size).toBe(w.mcpProofs.length)
  })

  it('uses a Bearer token as Bearer when the authorization server did not bind it', async () => {
    const w = world({ tokenType: 'Bearer' })
    const { client } = connect(w)
    const tools = await client.listTools()
    expect(tools.length).toBeGreaterThan(0)
    expect(w.tokenProofs).toHaveLength(1)
    expect(w.mcpProofs).toHaveLength(0)
  })

  it('without dpop, a DPoP token is refused as unsupported_token_type', async () => {
    const w = world()
    const auth = new OAuthClientProvider({
      redirectUrl: 'http://127.0.0.1:3000/callback',
      fetch: async (request) => {
        // the token endpoint of this world wants a proof: hand it one made elsewhere, so that it answers DPoP
        if (request.url === TOKEN_ENDPOINT) {
          const proof = await dpopProofs().proof(new InMemoryOAuthStore(), 'POST', TOKEN_ENDPOINT)
          const headers = new Headers(request.headers)
          headers.set('dpop', proof)
          return w.fetch(new Request(request, { headers }))
        }
        return w.fetch(request)
      },
      redirectToAuthorization: async (url) => (await w.fetch(new Request(url))).headers.get('location')!,
    })
    const client = new Client({ transport: new StreamableHttpClientTransport(MCP, { fetch: w.fetch, auth }) })
    const error = await client.listTools().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect((error as OAuthError).error).toBe('unsupported_token_type')
  })

  it('takes a key pair of your own (ES256 only) and signs with it', async () => {
    const keyPair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify'])
    const proofs = dpopProofs({ keyPair })
    const proof = await proofs.proof(new InMemoryOAuthStore(), 'GET', 'https://mcp.test/mcp?x=1#y', 'tok')
    const checked = await verifyProof(proof, 'GET', 'https://mcp.test/mcp', 'tok')
    const jwk = await crypto.subtle.exportKey('jwk', keyPair.publicKey)
    expect(checked.jkt).toBe(await calculateJwkThumbprint(jwk as JWK))
    expect(Object.keys(decodeProtectedHeader(proof).jwk!).sort()).toEqual(['crv', 'kty', 'x', 'y'])
    expect(decodeJwt(proof).htu).toBe('https://mcp.test/mcp')
    const rsa = await crypto.subtle.generateKey(
      { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    )
    expect(() => dpopProofs({ keyPair: rsa })).toThrow(TypeError)
    expect(() => dpopProofs({ keyPair: rsa })).toThrow(/ECDSA P-256 \(ES256\)/)
    // null, or a pair without its public key: named, not a crash on the first request
    for (const bad of [null, { privateKey: keyPair.privateKey }])
      expect(() => dpopProofs({ keyPair: bad as unknown as CryptoKeyPair })).toThrow(/ECDSA P-256 \(ES256\) key pair/)
    // two keys of two pairs: every proof would be refused; the first request says why
    const other = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify'])
    const mixed = dpopProofs({ keyPair: { privateKey: keyPair.privateKey, publicKey: other.publicKey } })
    await expect(mixed.proof(new InMemoryOAuthStore(), 'POST', 'https://mcp.test/mcp')).rejects.toThrow(
      /The DPoP key pair \(dpopProofs keyPair\) is not an ES256 private key and its public key/,
    )
  })
})
