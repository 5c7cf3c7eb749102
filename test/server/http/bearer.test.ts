/**
 * Attacks on the OAuth protected resource, each once a hole: a token minted for another
 * resource of the same issuer replayed with a Host header naming that resource, and scope checks that
 * other methods reaching a scoped item's code skipped.
 */
import { UriTemplate } from '../../../src/index.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as valibot from 'valibot'
import type { ProtectedResourceOptions } from '../../../src/server/http/bearer.ts'
import {
  introspectionVerifier,
  jwtVerifier,
  InvalidTokenError,
  protectedResource,
  type VerifyToken,
} from '../../../src/oauth/index.ts'
import { McpServer, createFetchHandler } from '../../../src/server/index.ts'
import { startOAuthServer, type TestAuthorizationServer } from '../../oauth-server.ts'
import { env, std } from '../../helpers.ts'

let as: TestAuthorizationServer
beforeAll(async () => {
  as = await startOAuthServer()
})
afterAll(async () => {
  await as?.close()
})

let id = 1
function call(url: string, method: string, params: Record<string, unknown>, token?: string): Request {
  const name = (params.name ?? params.uri) as string | undefined
  const headers: Record<string, string> = { ...std(method, name) }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  return new Request(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params: { ...params, _meta: env() } }),
  })
}

function shop(): McpServer {
  const mcp = new McpServer({ name: 'shop', version: '1' })
  mcp.tool('whoami', {}, (_a, ctx) => `you are ${ctx.authInfo?.subject}`)
  return mcp
}

describe('the resource a token must name is not the client’s to choose (Host header)', () => {
  const oauth = (extra: Partial<ProtectedResourceOptions> = {}) =>
    protectedResource({
      authorizationServers: [as.issuer],
      verifyToken: jwtVerifier({ issuer: as.issuer }),
      ...extra,
    })

  it('refuses an oauth endpoint whose resource would come from the Host header of any request', () => {
    // On Node, Deno or Bun (or behind a proxy that forwards Host) the client picks the Host header: a token
    // the same issuer minted for https://evil.test/mcp would be accepted by sending `Host: evil.test`.
    expect(() => createFetchHandler(shop(), { oauth: oauth() })).toThrow(TypeError)
    expect(() => createFetchHandler(shop(), { oauth: oauth() })).toThrow(/allowedHosts|resource/)
    expect(() => createFetchHandler(shop(), { oauth: oauth({ resource: 'https://mcp.test/mcp' }) })).not.toThrow()
    expect(() => createFetchHandler(shop(), { oauth: oauth(), allowedHosts: ['mcp.test'] })).not.toThrow()
  })

  it('with allowedHosts, a token for another host of the issuer is refused under either Host', async () => {
    const handler = createFetchHandler(shop(), { oauth: oauth(), allowedHosts: ['mcp.test'] })
    const evil = await as.mint({ aud: 'https://evil.test/mcp', sub: 'mallory-victim' })
    const asEvil = await handler(call('https://evil.test/mcp', 'tools/call', { name: 'whoami', arguments: {} }, evil))
    expect(asEvil.status).toBe(403)
    const asUs = await handler(call('https://mcp.test/mcp', 'tools/call', { name: 'whoami', arguments: {} }, evil))
    expect(asUs.status).toBe(401)
    const good = await as.mint({ aud: 'https://mcp.test/mcp' })
    const ok = await handler(call('https://mcp.test/mcp', 'tools/call', { name: 'whoami', arguments: {} }, good))
    expect(ok.status).toBe(200)
  })

  it('with a fixed resource, the Host header does not change the audience', async () => {
    const handler = createFetchHandler(shop(), { oauth: oauth({ resource: 'https://mcp.test/mcp' }) })
    const evil = await as.mint({ aud: 'https://evil.test/mcp' })
    const res = await handler(call('https://evil.test/mcp', 'tools/call', { name: 'whoami', arguments: {} }, evil))
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"')
  })
})

describe('completion/complete runs a scoped item’s completer only for a token with its scopes', () => {
  function crm() {
    const mcp = new McpServer({ name: 'crm', version: '1' })
    const customers = () => ['Acme Corp (churning)', 'Globex (overdue)']
    mcp.prompt(
      'account_review',
      { arguments: { customer: valibot.string() }, scopes: ['crm:read'], complete: { customer: customers } },
      () => 'review',
    )
    mcp.resourceTemplate(
      'account',
      new UriTemplate('crm://accounts/{customer}'),
      { scopes: ['crm:read'], complete: { customer: customers } },
      () => 'account',
    )
    return createFetchHandler(mcp, {
      oauth: protectedResource({ authorizationServers: [as.issuer], verifyToken: jwtVerifier({ issuer: as.issuer }) }),
      allowedHosts: ['mcp.test'],
    })
  }
  const refs = [
    { type: 'ref/prompt', name: 'account_review' },
    { type: 'ref/resource', uri: 'crm://accounts/{customer}' },
  ]

  it.each(refs)(
    'refuses a token without the scope (403 insufficient_scope) and answers one with it: %o',
    async (ref) => {
      const handler = crm()
      const params = { ref, argument: { name: 'customer', value: '' } }
      const weak = await as.mint({ aud: 'https://mcp.test/mcp', scope: 'other' })
      const res = await handler(call('https://mcp.test/mcp', 'completion/complete', params, weak))
      const text = await res.text()
      expect(text).not.toContain('Acme')
      expect(res.status).toBe(403)
      expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"')
      expect(res.headers.get('www-authenticate')).toContain('scope="crm:read"')
      const strong = await as.mint({ aud: 'https://mcp.test/mcp', scope: 'crm:read' })
      const ok = await handler(call('https://mcp.test/mcp', 'completion/complete', params, strong))
      expect(ok.status).toBe(200)
      expect(await ok.text()).toContain('Acme')
    },
  )
})

describe('a sender-constrained token (cnf: DPoP or mTLS) is not accepted as a bearer token', () => {
  // RFC 9449 §7.2 / RFC 8705 §3: the holder must prove the key; this resource cannot check a proof, so a
  // stolen DPoP- or certificate-bound token sent as `Bearer` would otherwise work here as a plain bearer one.
  const R = 'https://mcp.test/mcp'
  const context = { resource: R, request: new Request(R), env: {} }
  async function reason(verify: VerifyToken, token: string): Promise<string> {
    try {
      await verify(token, context)
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidTokenError)
      return (error as Error).message
    }
    return 'accepted'
  }

  it('jwtVerifier refuses a JWT with cnf, and accepts the same token without it', async () => {
    const verify = jwtVerifier({ issuer: as.issuer })
    expect(
      await reason(verify, await as.mint({ aud: R, cnf: { jkt: '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I' } })),
    ).toMatch(/bound to a key/)
    expect(
      await reason(
        verify,
        await as.mint({ aud: R, cnf: { 'x5t#S256': 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2' } }),
      ),
    ).toMatch(/bound to a key/)
    expect(await reason(verify, await as.mint({ aud: R }))).toBe('accepted')
  })

  it('introspectionVerifier refuses an answer with cnf', async () => {
    const answer = (claims: Record<string, unknown>) =>
      introspectionVerifier({
        endpoint: 'https://as.test/introspect',
        clientId: 'rs',
        fetch: () => Promise.resolve(Response.json({ active: true, aud: R, ...claims })),
      })
    expect(await reason(answer({ cnf: { jkt: 'abc' } }), 'opaque')).toMatch(/bound to a key/)
    expect(await reason(answer({}), 'opaque')).toBe('accepted')
  })
})

describe('introspection answers with unusable time claims', () => {
  const R = 'https://mcp.test/mcp'
  const context = { resource: R, request: new Request(R), env: {} }
  const verifier = (claims: Record<string, unknown>) =>
    introspectionVerifier({
      endpoint: 'https://as.test/introspect',
      clientId: 'rs',
      fetch: () => Promise.resolve(Response.json({ active: true, aud: R, ...claims })),
    })
  const now = () => Math.floor(Date.now() / 1000)

  it('an exp that is not a number (RFC 7662 §2.2: NumericDate) is refused, not skipped', async () => {
    await expect(verifier({ exp: String(now() - 3600) })(`t`, context)).rejects.toThrow(InvalidTokenError)
    await expect(verifier({ exp: null })(`t`, context)).rejects.toThrow(InvalidTokenError)
    await expect(verifier({ exp: now() + 3600 })(`t`, context)).resolves.toMatchObject({ resource: R })
  })

  it('an nbf in the future (beyond the skew) is refused', async () => {
    await expect(verifier({ nbf: now() + 3600 })(`t`, context)).rejects.toThrow(/not yet valid/)
    await expect(verifier({ nbf: 'soon' })(`t`, context)).rejects.toThrow(InvalidTokenError)
    await expect(verifier({ nbf: now() - 10 })(`t`, context)).resolves.toMatchObject({ resource: R })
  })
})

describe('the Authorization header is parsed in linear time, and bounded', () => {
  // `/^Bearer +(\S*) *$/i` backtracked quadratically over spaces: `Bearer` + 64 KiB of spaces + `x y` took
  // 1.7 s of CPU per request (Node 20), 128 KiB about 7 s
  function setupRefusing() {
    let verified = 0
    const handler = createFetchHandler(shop(), {
      allowedHosts: ['mcp.test'],
      oauth: protectedResource({
        authorizationServers: ['https://as.test'],
        verifyToken: () => {
          verified++
          throw new InvalidTokenError('no')
        },
      }),
    })
    return { handler, verified: () => verified }
  }
  const withAuthorization = (value: string) => {
    const request = call('https://mcp.test/mcp', 'tools/call', { name: 'whoami', arguments: {} })
    request.headers.set('authorization', value)
    return request
  }

  it('a header over 32 KiB is refused unparsed (401 invalid_request), before the verifier', async () => {
    const { handler, verified } = setupRefusing()
    const res = await handler(withAuthorization(`Bearer${' '.repeat(128 * 1024)}x y`))
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_request"')
    expect(res.headers.get('www-authenticate')).toContain('too long')
    const long = await handler(withAuthorization(`Bearer ${'a'.repeat(40_000)}`))
    expect(long.status).toBe(401)
    expect(long.headers.get('www-authenticate')).toContain('too long')
    expect(verified()).toBe(0)
  })

  it('a padded header under the bound is an invalid token, and a token just under it reaches the verifier', async () => {
    const { handler, verified } = setupRefusing()
    const res = await handler(withAuthorization(`Bearer${' '.repeat(30_000)}x y`))
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"')
    expect(verified()).toBe(0)
    const big = await handler(withAuthorization(`Bearer ${'a'.repeat(30_000)}`))
    expect(big.headers.get('www-authenticate')).toContain('error_description="no"')
    expect(verified()).toBe(1)
  })
})

describe('a subscriptions/listen stream does not outlive its token', () => {
  it('ends with the graceful result when the token expires (authInfo.expiresAt), not hours later', async () => {
    const mcp = new McpServer({ name: 'feed', version: '1' })
    mcp.resource('stock', 'books://stock', {}, () => '3 left')
    const expiresAt = Math.floor(Date.now() / 1000) + 2
    const handler = createFetchHandler(mcp, {
      allowedHosts: ['mcp.test'],
      oauth: protectedResource({
        authorizationServers: ['https://as.test'],
        verifyToken: () => ({ clientId: 'app', subject: 'alice', scopes: [], expiresAt }),
      }),
    })
    const res = await handler(
      new Request('https://mcp.test/mcp', {
        method: 'POST',
        headers: { ...std('subscriptions/listen'), authorization: 'Bearer t' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'listen-1',
          method: 'subscriptions/listen',
          params: { notifications: { resourceSubscriptions: ['books://stock'] }, _meta: env({}) },
        }),
      }),
    )
    expect(res.status).toBe(200)
    // the whole stream: the acknowledgement, then (once the token expired) the result that ends it
    const text = await res.text()
    expect(text).toContain('notifications/subscriptions/acknowledged')
    expect(text).toContain('"id":"listen-1","result"')
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt * 1000 - 50)
  }, 10_000)
})
