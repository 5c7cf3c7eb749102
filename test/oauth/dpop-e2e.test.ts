/**
 * DPoP end to end, edge-mcp on both sides: our Client with `OAuthClientProvider({ dpop: dpopProofs() })`
 * against our fetch handler protected by `jwtVerifier({ dpop: dpopProofChecker({ nonce: true }) })`, with a
 * real loopback authorization server (test/oauth-server.ts) that binds tokens to the proof's key and asks
 * for its own nonce. Both protocol eras; the token is useless without the key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeJwt } from 'jose'
import {
  Client,
  InMemoryOAuthStore,
  OAuthClientProvider,
  StreamableHttpClientTransport,
  dpopProofs,
} from '../../src/client/index.ts'
import { dpopProofChecker, jwtVerifier, protectedResource } from '../../src/oauth/index.ts'
import { createFetchHandler } from '../../src/server/index.ts'
import { createDemoServer } from '../../worker/server.ts'
import { startOAuthServer, type TestAuthorizationServer } from '../oauth-server.ts'

const MCP = 'https://mcp.test/mcp'

let as: TestAuthorizationServer
beforeAll(async () => {
  as = await startOAuthServer({ alg: 'ES256', dpopNonce: 'as-nonce-e2e' })
})
afterAll(() => as.close())

/** Our server, DPoP required, with the requests it got (method, Authorization scheme, whether a proof came). */
function server() {
  const seen: Array<{ method: string; scheme: string; proof: boolean; status: number }> = []
  const handler = createFetchHandler(createDemoServer({ requestStateKeys: ['d'.repeat(32)] }), {
    allowedHosts: ['mcp.test'],
    oauth: protectedResource({
      authorizationServers: [as.issuer],
      verifyToken: jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker({ nonce: true, required: true }) }),
    }),
  })
  const fetch = async (request: Request) => {
    const response = await handler(request)
    const scheme = request.headers.get('authorization')?.split(' ')[0] ?? ''
    seen.push({ method: request.method, scheme, proof: request.headers.has('dpop'), status: response.status })
    return response
  }
  return { fetch, seen }
}

/** Local fetch for the MCP server, the loopback network for the authorization server. */
const routed = (mcp: (request: Request) => Promise<Response>) => (request: Request) =>
  request.url.startsWith('https://mcp.test/') ? mcp(request) : fetch(request)

function connect(mcp: (request: Request) => Promise<Response>, legacy: boolean) {
  const store = new InMemoryOAuthStore()
  const auth = new OAuthClientProvider({
    redirectUrl: 'http://127.0.0.1:3000/callback',
    fetch: routed(mcp),
    redirectToAuthorization: async (url) => (await fetch(url, { redirect: 'manual' })).headers.get('location')!,
    store,
    dpop: dpopProofs(),
  })
  const transport = new StreamableHttpClientTransport(MCP, { fetch: routed(mcp), auth })
  return { store, client: new Client({ transport, versionNegotiation: legacy ? 'legacy' : 'auto' }) }
}

describe.each([
  ['2026-07-28', false],
  ['2025-11-25', true],
])('our DPoP client against our DPoP server (%s)', (_era, legacy) => {
  it('gets a bound token through both nonces and calls tools with a proof on every request', async () => {
    const { fetch, seen } = server()
    const { client, store } = connect(fetch, legacy)
    const before = as.tokenRequests.length
    const result = await client.callTool('reserve_book', { title: 'Dune' })
    expect((result.content[0] as { text: string }).text).toMatch(/^Reserved 'Dune'/)
    await client.callTool('reserve_book', { title: 'Emma' })
    await client.close()

    // the token endpoint asked for its nonce once: the code exchange was sent twice
    expect(as.tokenRequests.slice(before).map((r) => r.grant_type)).toEqual([
      'authorization_code',
      'authorization_code',
    ])
    const tokens = store.loadTokens(MCP)
    expect(tokens?.token_type).toBe('DPoP')
    expect(typeof (decodeJwt(tokens!.access_token).cnf as { jkt?: unknown }).jkt).toBe('string')
    // 401 without a token, 401 use_dpop_nonce once, then every request DPoP with a proof and accepted
    const authorized = seen.filter((s) => s.scheme !== '')
    expect(seen[0]).toMatchObject({ scheme: '', status: 401 })
    expect(authorized.every((s) => s.scheme === 'DPoP' && s.proof)).toBe(true)
    expect(authorized.filter((s) => s.status === 401)).toHaveLength(1)
    expect(authorized.filter((s) => s.status >= 400 && s.status !== 401 && s.status !== 405)).toEqual([])
    if (legacy) expect(new Set(authorized.map((s) => s.method))).toEqual(new Set(['POST', 'GET', 'DELETE']))
  })
})

describe('a DPoP-bound token without its key', () => {
  it('is refused as Bearer and with another key’s proof', async () => {
    const { fetch } = server()
    const { client, store } = connect(fetch, false)
    await client.listTools()
    const token = store.loadTokens(MCP)!.access_token
    const asBearer = await fetch(
      new Request(MCP, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
        body: '{}',
      }),
    )
    expect(asBearer.status).toBe(401)
    expect(asBearer.headers.get('www-authenticate')).toMatch(
      /^DPoP algs="[^"]+", resource_metadata="[^"]+", error="invalid_token"/,
    )
    // a thief with its own key pair: a valid proof, but not of the key the token is bound to
    const thief = dpopProofs()
    const proof = await thief.proof(new InMemoryOAuthStore(), 'POST', MCP, token)
    const stolen = await fetch(
      new Request(MCP, {
        method: 'POST',
        headers: {
          authorization: `DPoP ${token}`,
          dpop: proof,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: '{}',
      }),
    )
    expect(stolen.status).toBe(401)
    // refused for the binding, before any nonce is handed out
    expect(stolen.headers.get('www-authenticate')).toMatch(
      /error="invalid_token", error_description="the token is bound to another key than the DPoP proof"/,
    )
    expect(stolen.headers.get('dpop-nonce')).toBeNull()
  })
})
