/**
 * edge-mcp/oauth under workerd (Miniflare, the Worker bundled by `wrangler deploy --dry-run` as deployed):
 * jose's JWT verification and remote JWKS (its Workers code path) and introspection, against the loopback
 * authorization server of test/oauth-server.ts.
 */
import { rm } from 'node:fs/promises'
import { Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { foreignKey, startOAuthServer, type TestAuthorizationServer } from '../oauth-server.ts'
import { bundleTestWorker } from '../workerd.ts'

const RESOURCE = 'https://mcp.example.com/mcp'
let as: TestAuthorizationServer
let mf: Miniflare | undefined
let dir = ''
let base = ''

beforeAll(async () => {
  as = await startOAuthServer()
  const bundled = await bundleTestWorker('oauth-verify')
  dir = bundled.dir
  mf = new Miniflare({
    modules: true,
    scriptPath: bundled.scriptPath,
    modulesRoot: bundled.modulesRoot,
    compatibilityDate: '2026-04-01',
    bindings: {
      ISSUER: as.issuer,
      CLIENT_ID: as.introspectionClient.clientId,
      CLIENT_SECRET: as.introspectionClient.clientSecret,
    },
    unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
  })
  base = (await mf.unsafeGetDirectURL()).href
}, 120_000)

afterAll(async () => {
  await mf?.dispose()
  await as?.close()
  await rm(dir, { recursive: true, force: true })
})

async function verify(token: string, path = '/') {
  const response = await fetch(new URL(path, base), { headers: { authorization: `Bearer ${token}` } })
  return (await response.json()) as { ok: boolean; invalid?: boolean; message?: string; info?: Record<string, unknown> }
}

describe('edge-mcp/oauth in workerd', () => {
  it('verifies a JWT through discovery and the JWKS, and refuses bad ones as InvalidTokenError', async () => {
    const good = await verify(await as.mint({ aud: RESOURCE, scope: 'a b', sub: 'dora' }))
    expect(good).toMatchObject({ ok: true, info: { subject: 'dora', scopes: ['a', 'b'], resource: RESOURCE } })
    expect(await verify(await as.mint({ aud: 'https://other.example' }))).toEqual({
      ok: false,
      invalid: true,
      message: 'the token is for another resource',
    })
    const stranger = await verify(await as.mint({ aud: RESOURCE }, { key: await foreignKey(), kid: as.currentKey.kid }))
    expect(stranger).toMatchObject({ ok: false, invalid: true, message: 'the token signature is invalid' })
  })

  it('after a rotation a new kid is fetched and passes; a JWKS outage is not InvalidTokenError', async () => {
    const fetches = as.jwksFetches
    await as.rotate()
    expect(await verify(await as.mint({ aud: RESOURCE }))).toMatchObject({ ok: true })
    expect(as.jwksFetches).toBe(fetches + 1)
    await as.rotate()
    as.failJwks(true)
    try {
      expect(await verify(await as.mint({ aud: RESOURCE }))).toMatchObject({ ok: false, invalid: false })
    } finally {
      as.failJwks(false)
    }
  })

  it('introspection: active and inactive', async () => {
    expect(await verify(as.mintOpaque({ aud: RESOURCE, sub: 'erin' }), '/introspect')).toMatchObject({
      ok: true,
      info: { subject: 'erin' },
    })
    expect(await verify('unknown', '/introspect')).toMatchObject({ ok: false, invalid: true })
  })
})
