/**
 * The demo Worker with `OAUTH_ISSUER` set, against a real loopback authorization server
 * (test/oauth-server.ts: its own JWKS), twice: in-process (the Worker's Hono app called directly) and
 * under `wrangler dev` (workerd fetching the issuer's metadata and JWKS over loopback). Every token
 * failure the issue lists, the scope challenge, requestState bound to the user, the challenge readable
 * cross-origin, JWKS rotation; then the edge-mcp Client's full flow (401 → discovery → registration →
 * authorization → token → call; 403 → step-up) in both protocol eras.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client, OAuthClientProvider, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { createDemoWorker } from '../../worker/index.ts'
import { foreignKey, startOAuthServer, unsignedToken, type TestAuthorizationServer } from '../oauth-server.ts'
import { env as envelope, std } from '../helpers.ts'
import { startWorker, type RunningWorker } from '../workerd.ts'

let as: TestAuthorizationServer
let worker: RunningWorker

interface Target {
  name: string
  /** The Worker's origin: the resource is `${origin}/mcp`. */
  origin: string
  fetch: (request: Request) => Promise<Response>
}
const targets: Target[] = []

beforeAll(async () => {
  as = await startOAuthServer()
  const app = createDemoWorker()
  const env = { OAUTH_ISSUER: as.issuer, ALLOWED_HOSTS: 'shop.test', ALLOWED_ORIGINS: 'https://app.test' }
  targets.push({
    name: 'in-process',
    origin: 'https://shop.test',
    fetch: async (request) => app.fetch(request, env),
  })
  worker = await startWorker({ vars: { OAUTH_ISSUER: as.issuer, ALLOWED_ORIGINS: 'https://app.test' } })
  targets.push({ name: 'wrangler dev', origin: `http://127.0.0.1:${worker.port}`, fetch: (r) => fetch(r) })
}, 120_000)

afterAll(async () => {
  await worker?.stop()
  await as?.close()
})

let id = 1
/** A 2026-07-28 request to the target's /mcp, with a bearer token (or none) and extra headers. */
function mcp(
  t: Target,
  method: string,
  params: Record<string, unknown>,
  token?: string,
  headers: Record<string, string> = {},
  query = '',
): Request {
  const name = (params.name ?? params.uri) as string | undefined
  return new Request(`${t.origin}/mcp${query}`, {
    method: 'POST',
    headers: { ...std(method, name), ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params: { ...params, _meta: envelope() } }),
  })
}
const resourceOf = (t: Target) => `${t.origin}/mcp`
const metadataUrl = (t: Target) => `${t.origin}/.well-known/oauth-protected-resource/mcp`
/** A token from the issuer for this target's resource, as `sub`, with `scope`. */
const tokenFor = (t: Target, scope = 'books:read', claims: Record<string, unknown> = {}) =>
  as.mint({ aud: resourceOf(t), scope, ...claims })
const challengeOf = (res: Response) => res.headers.get('www-authenticate') ?? ''

async function body<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T
}

describe.each(['in-process', 'wrangler dev'])('a protected demo Worker (%s)', (which) => {
  const t = () => targets.find((x) => x.name === which)!

  it('serves the protected resource metadata (RFC 9728), readable from any origin', async () => {
    const res = await t().fetch(new Request(metadataUrl(t()), { headers: { origin: 'https://elsewhere.test' } }))
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(await body(res)).toEqual({
      resource: resourceOf(t()),
      authorization_servers: [as.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['books:read', 'books:order'],
      resource_name: 'edge-mcp demo bookshop',
    })
  })

  it('401 without a token, naming the metadata and the base scope', async () => {
    const res = await t().fetch(mcp(t(), 'tools/list', {}))
    expect(res.status).toBe(401)
    expect(challengeOf(res)).toBe(`Bearer resource_metadata="${metadataUrl(t())}", scope="books:read"`)
  })

  it('200 with a valid token', async () => {
    const res = await t().fetch(mcp(t(), 'tools/list', {}, await tokenFor(t())))
    expect(res.status).toBe(200)
    const tools = (await body<{ result: { tools: Array<{ name: string }> } }>(res)).result.tools.map((x) => x.name)
    expect(tools).toContain('order_book') // listed although this token cannot call it
  })

  it('401 invalid_token for a wrong audience, expired, wrong issuer, foreign key, alg none, malformed, HS256 confusion', async () => {
    const current = as.currentKey
    const bad: Record<string, string> = {
      'wrong audience': await as.mint({ aud: 'https://other.test/mcp', scope: 'books:read' }),
      expired: await as.mint({ aud: resourceOf(t()), scope: 'books:read' }, { expiresIn: -3600 }),
      'wrong issuer': await as.mint({ aud: resourceOf(t()), scope: 'books:read', iss: 'https://evil.test' }),
      'foreign key (same kid)': await as.mint(
        { aud: resourceOf(t()), scope: 'books:read' },
        { key: await foreignKey(current.alg, current.kid) },
      ),
      'alg none': unsignedToken({
        iss: as.issuer,
        aud: resourceOf(t()),
        sub: 'alice',
        scope: 'books:read',
        exp: Math.floor(Date.now() / 1000) + 300,
      }),
      malformed: 'not.a.jwt',
      'HS256 with the public key': await as.mint(
        { aud: resourceOf(t()), scope: 'books:read' },
        { alg: 'HS256', secret: new TextEncoder().encode(await as.publicKeyPem()) },
      ),
    }
    for (const [why, token] of Object.entries(bad)) {
      const res = await t().fetch(mcp(t(), 'tools/list', {}, token))
      expect(res.status, why).toBe(401)
      expect(challengeOf(res), why).toContain(`resource_metadata="${metadataUrl(t())}"`)
      expect(challengeOf(res), why).toContain('error="invalid_token"')
    }
  })

  it('401 for a token in the query string (never read from there)', async () => {
    const token = await tokenFor(t())
    for (const headerToken of [undefined, token]) {
      const res = await t().fetch(mcp(t(), 'tools/list', {}, headerToken, {}, `?access_token=${token}`))
      expect(res.status).toBe(401)
      expect(challengeOf(res)).toContain('error="invalid_request"')
    }
  })

  it('403 insufficient_scope naming books:order for order_book; 200 with it', async () => {
    const call = (token: string) => mcp(t(), 'tools/call', { name: 'order_book', arguments: { title: 'Dune' } }, token)
    const res = await t().fetch(call(await tokenFor(t())))
    expect(res.status).toBe(403)
    expect(challengeOf(res)).toContain(`resource_metadata="${metadataUrl(t())}"`)
    expect(challengeOf(res)).toContain('error="insufficient_scope"')
    expect(challengeOf(res)).toContain('scope="books:read books:order"') // the server-wide scope too
    const ok = await t().fetch(call(await tokenFor(t(), 'books:read books:order')))
    expect(ok.status).toBe(200)
    const result = (await body<{ result: { isError?: boolean; content: Array<{ text: string }> } }>(ok)).result
    expect(result.isError).toBeUndefined()
    expect(result.content[0].text).toMatch(/Dune/)
  })

  it('a requestState minted for alice is refused for bob and accepted for alice', async () => {
    const alice = await tokenFor(t(), 'books:read books:order', { sub: 'alice' })
    const bob = await tokenFor(t(), 'books:read books:order', { sub: 'bob' })
    const first = await t().fetch(
      mcp(t(), 'tools/call', { name: 'order_book', arguments: { title: 'Neuromancer' } }, alice),
    )
    const round = (await body<{ result: { requestState: string; inputRequests: Record<string, unknown> } }>(first))
      .result
    const key = Object.keys(round.inputRequests)[0]
    const retry = (token: string) =>
      mcp(
        t(),
        'tools/call',
        {
          name: 'order_book',
          arguments: { title: 'Neuromancer' },
          requestState: round.requestState,
          inputResponses: { [key]: { action: 'accept', content: { confirm: true } } },
        },
        token,
      )
    const refused = await body<{ error?: { code: number; message: string } }>(await t().fetch(retry(bob)))
    expect(refused.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' })
    const accepted = await body<{ result?: { content: Array<{ text: string }> } }>(await t().fetch(retry(alice)))
    expect(accepted.result?.content[0].text).toMatch(/Neuromancer/)
  })

  it('the challenge is readable cross-origin (CORS exposes WWW-Authenticate)', async () => {
    const res = await t().fetch(mcp(t(), 'tools/list', {}, undefined, { origin: 'https://app.test' }))
    expect(res.status).toBe(401)
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.test')
    expect(res.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/i)
    const token = await tokenFor(t())
    const denied = await t().fetch(
      mcp(t(), 'tools/call', { name: 'order_book', arguments: { title: 'Dune' } }, token, {
        origin: 'https://app.test',
      }),
    )
    expect(denied.status).toBe(403)
    expect(denied.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/i)
  })
})

describe('JWKS rotation', () => {
  it('a token signed with a new key costs one JWKS refetch, then passes; an unknown kid right after costs none and is refused', async () => {
    // jose refetches for an unknown kid at most once per 30 s cooldown: wait it out once for both targets
    await new Promise((r) => setTimeout(r, 31_000))
    const rotated = await as.rotate({ keepOld: true })
    for (const t of targets) {
      const before = as.jwksFetches
      const res = await t.fetch(mcp(t, 'tools/list', {}, await tokenFor(t)))
      expect(res.status, t.name).toBe(200)
      expect(as.jwksFetches - before, t.name).toBe(1)
      const stranger = await foreignKey(rotated.alg)
      const after = as.jwksFetches
      const refused = await t.fetch(
        mcp(t, 'tools/list', {}, await as.mint({ aud: resourceOf(t), scope: 'books:read' }, { key: stranger })),
      )
      expect(refused.status, t.name).toBe(401)
      expect(challengeOf(refused), t.name).toContain('error="invalid_token"')
      expect(as.jwksFetches - after, t.name).toBe(0)
    }
  }, 60_000)
})

describe('the edge-mcp Client against the protected Worker (wrangler dev)', () => {
  /** A provider that follows the authorization server's redirect itself (the test AS approves at once). */
  function provider(): OAuthClientProvider {
    return new OAuthClientProvider({
      redirectUrl: 'http://127.0.0.1:9/callback',
      redirectToAuthorization: async (url) => {
        const res = await fetch(url, { redirect: 'manual' })
        expect(res.status).toBe(302)
        return res.headers.get('location')!
      },
    })
  }

  it.each(['modern', 'legacy'] as const)(
    '401 → discovery → registration → authorization → token → call; 403 → step-up (%s era)',
    async (era) => {
      const url = `http://127.0.0.1:${worker.port}/mcp`
      const before = as.authorizations.length
      const client = new Client({
        versionNegotiation: era === 'modern' ? 'auto' : 'legacy',
        transport: new StreamableHttpClientTransport(url, { auth: provider() }),
      })
      const tools = await client.listTools()
      expect(tools.map((x) => x.name)).toContain('order_book')
      expect(client.era).toBe(era)
      const first = as.authorizations.slice(before)
      expect(first).toHaveLength(1)
      expect(first[0].resource).toBe(url)
      expect(first[0].scope).toBe('books:read') // the 401's scope, no more (least privilege)
      const result = await client.callTool('order_book', { title: 'Dune' })
      expect(result.isError).toBeUndefined()
      expect(JSON.stringify(result.content)).toMatch(/Dune/)
      const all = as.authorizations.slice(before)
      expect(all).toHaveLength(2) // one step-up
      expect(all[1].scope.split(' ').sort()).toEqual(['books:order', 'books:read'])
      await client.close()
    },
    60_000,
  )
})
