/**
 * edge-mcp/client's machine-to-machine OAuth under workerd (Miniflare, the Worker bundled by `wrangler deploy
 * --dry-run`): a `private_key_jwt` client assertion signed with workerd's Web Crypto from an ES256 PKCS#8 PEM and
 * an RS256 JWK, verified here with jose.
 */
import { rm } from 'node:fs/promises'
import { exportJWK, exportPKCS8, generateKeyPair, jwtVerify } from 'jose'
import { Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleTestWorker } from '../workerd.ts'

let mf: Miniflare | undefined
let dir = ''
let base = ''

beforeAll(async () => {
  const bundled = await bundleTestWorker('m2m-client')
  dir = bundled.dir
  mf = new Miniflare({
    modules: true,
    scriptPath: bundled.scriptPath,
    modulesRoot: bundled.modulesRoot,
    compatibilityDate: '2026-04-01',
    unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
  })
  base = (await mf.unsafeGetDirectURL()).href
}, 120_000)

afterAll(async () => {
  await mf?.dispose()
  await rm(dir, { recursive: true, force: true })
})

describe('machine-to-machine OAuth in workerd', () => {
  it.each([
    ['an ES256 PKCS#8 PEM', 'ES256' as const, (k: CryptoKey) => exportPKCS8(k)],
    ['an RS256 JWK', 'RS256' as const, (k: CryptoKey) => exportJWK(k)],
  ])('signs a private_key_jwt client assertion with %s that jose verifies', async (_label, alg, exportKey) => {
    const keys = await generateKeyPair(alg, { extractable: true })
    const response = await fetch(base, {
      method: 'POST',
      body: JSON.stringify({ clientId: 'worker-job', privateKey: await exportKey(keys.privateKey) }),
    })
    const answer = (await response.json()) as { form?: Record<string, string>; header?: string; error?: string }
    expect(answer.error).toBeUndefined()
    expect(answer.header).toBe('Bearer issued')
    expect(answer.form).toMatchObject({ grant_type: 'client_credentials', resource: 'https://mcp.example.com/mcp' })
    const { payload, protectedHeader } = await jwtVerify(answer.form!.client_assertion, keys.publicKey, {
      audience: 'https://as.example.com',
      issuer: 'worker-job',
      subject: 'worker-job',
    })
    expect(protectedHeader.alg).toBe(alg)
    expect(payload.exp! - payload.iat!).toBe(60)
  })
})
