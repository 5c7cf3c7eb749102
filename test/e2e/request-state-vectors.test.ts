/**
 * Deterministic request-state vectors pin the token bytes, and the same vectors pass in Node, workerd,
 * Deno and Bun. An independent Web Crypto computation checks the construction (HKDF infos, AAD).
 */
import { execFile } from 'node:child_process'
import { createCipheriv, createHash, hkdfSync } from 'node:crypto'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { decodeBase64UrlStrict } from '../../src/encoding/base64url.ts'
import { DIGEST_VECTORS, KEY_1, POLICY_VECTORS, counterRandom, runVectors } from '../vectors/request-state-vectors.ts'
import { ensureTool } from '../tools.ts'
import { ROOT, startWorker } from '../workerd.ts'

const run = promisify(execFile)
const enc = new TextEncoder()

async function hkdf(
  key: Uint8Array<ArrayBuffer>,
  info: string,
  salt: Uint8Array<ArrayBuffer> = new Uint8Array(0),
): Promise<Uint8Array> {
  const base = await crypto.subtle.importKey('raw', key, 'HKDF', false, ['deriveBits'])
  return new Uint8Array(
    await crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt, info: enc.encode(info) }, base, 256),
  )
}
const bytesOf = (k: Uint8Array | string) => (typeof k === 'string' ? enc.encode(k) : new Uint8Array(k))

describe('request-state test vectors', () => {
  it('the SDK reproduces every pinned value in Node', async () => {
    const result = await runVectors()
    expect(result.failures).toEqual([])
    expect(result.passed).toBe(14)
  })

  it('an independent Web Crypto computation opens each pinned token (HKDF infos and AAD as documented)', async () => {
    for (const v of POLICY_VECTORS) {
      const secret = bytesOf(v.keys[0])
      const body = decodeBase64UrlStrict(v.token.slice(3))!
      const kid = body.subarray(0, 4)
      expect([...kid]).toEqual([...(await hkdf(secret, 'edge-mcp/request-state/v1/kid')).subarray(0, 4)])
      const info =
        v.audience === undefined
          ? 'edge-mcp/request-state/v1/aes-256-gcm'
          : `edge-mcp/request-state/v1/aes-256-gcm\u0000${v.audience}`
      const aesKey = await crypto.subtle.importKey(
        'raw',
        (await hkdf(secret, info)) as Uint8Array<ArrayBuffer>,
        'AES-GCM',
        false,
        ['decrypt'],
      )
      expect(v.token.slice(0, 3)).toBe('v2.')
      // the AAD continues with the binding, compact JSON [method, target, canonical arguments (a JSON
      // string), audience|null, principal|null]
      const bound = enc.encode(
        JSON.stringify([
          v.binding.method,
          v.binding.target,
          v.binding.canonicalArgs,
          v.audience ?? null,
          v.binding.principal ?? null,
        ]),
      )
      const open = (aad: Uint8Array<ArrayBuffer>) =>
        crypto.subtle.decrypt(
          { name: 'AES-GCM', iv: body.subarray(4, 16), additionalData: aad },
          aesKey,
          body.subarray(16),
        )
      const plain = new Uint8Array(await open(new Uint8Array([...enc.encode('v2.'), ...kid, ...bound])))
      // the plaintext: iat(6) ‖ exp(6), milliseconds big-endian, then the state's JSON, once
      const ms = (at: number) => plain.subarray(at, at + 6).reduce((n, byte) => n * 256 + byte, 0)
      expect(ms(0)).toBe(v.nowMs)
      expect(ms(6)).toBe(v.nowMs + v.ttl * 1000)
      expect(new TextDecoder().decode(plain.subarray(12))).toBe(JSON.stringify(v.state))
      // the AAD really is bound: the same body under another prefix, or without the binding, does not open
      await expect(open(new Uint8Array([...enc.encode('v1.'), ...kid, ...bound]))).rejects.toThrow()
      await expect(open(new Uint8Array([...enc.encode('v2.'), ...kid]))).rejects.toThrow()
    }
  })

  it('node:crypto seals every vector to the pinned token, byte for byte (independent of the SDK)', () => {
    expect(POLICY_VECTORS.length).toBe(3)
    for (const v of POLICY_VECTORS) {
      const secret = bytesOf(v.keys[0])
      const derive = (info: string, length: number) =>
        Buffer.from(hkdfSync('sha256', secret, new Uint8Array(0), enc.encode(info), length))
      const kid = derive('edge-mcp/request-state/v1/kid', 32).subarray(0, 4)
      const key = derive(
        v.audience === undefined
          ? 'edge-mcp/request-state/v1/aes-256-gcm'
          : `edge-mcp/request-state/v1/aes-256-gcm\u0000${v.audience}`,
        32,
      )
      const nonce = Buffer.from(counterRandom(v.seed)(12)) // the policy draws the nonce first (no principal salt)
      const time = (ms: number) =>
        Buffer.from(Array.from({ length: 6 }, (_, i) => Math.floor(ms / 256 ** (5 - i)) % 256))
      const plaintext = Buffer.concat([
        time(v.nowMs),
        time(v.nowMs + v.ttl * 1000),
        Buffer.from(JSON.stringify(v.state), 'utf8'),
      ])
      const b = v.binding
      const aad = Buffer.concat([
        Buffer.from('v2.'),
        kid,
        Buffer.from(JSON.stringify([b.method, b.target, b.canonicalArgs, v.audience ?? null, b.principal ?? null])),
      ])
      const cipher = createCipheriv('aes-256-gcm', key, nonce).setAAD(aad)
      const sealed = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()])
      expect(v.token, v.name).toBe('v2.' + Buffer.concat([kid, nonce, sealed]).toString('base64url'))
    }
  })

  it('node:crypto computes every pinned arguments digest (claim `a` of the envelope a custom codec seals)', () => {
    for (const v of DIGEST_VECTORS)
      expect(createHash('sha256').update(v.canonical, 'utf8').digest().subarray(0, 16).toString('base64url')).toBe(
        v.digest,
      )
  })

  it('HKDF with an empty salt equals HKDF with 32 zero bytes (RFC 5869: absent salt = HashLen zeros)', async () => {
    const key = new Uint8Array(KEY_1)
    expect(await hkdf(key, 'x')).toEqual(await hkdf(key, 'x', new Uint8Array(32)))
  })

  const script = join(ROOT, 'test/vectors/run.ts')
  for (const [runtime, tool, args] of [
    ['Deno', 'deno', ['run', script]],
    ['Bun', 'bun', [script]],
  ] as const) {
    it(`the same vectors pass in ${runtime}`, { timeout: 180_000 }, async () => {
      const { stdout } = await run(await ensureTool(tool), [...args], { cwd: ROOT, timeout: 60_000 })
      const result = JSON.parse(stdout.trim().split('\n').pop()!) as {
        runtime: string
        failures: unknown[]
        passed: number
      }
      expect(result.runtime).toContain(runtime)
      expect(result.failures).toEqual([])
      expect(result.passed).toBe(14)
    })
  }

  it('the same vectors pass in workerd', async () => {
    const worker = await startWorker({ config: join(ROOT, 'test/vectors/wrangler.toml') })
    try {
      const result = (await (await fetch(`http://127.0.0.1:${worker.port}/`)).json()) as {
        runtime: string
        passed: number
        failures: string[]
      }
      expect(result.runtime).toBe('Cloudflare-Workers')
      expect(result.failures).toEqual([])
      expect(result.passed).toBe(14)
    } finally {
      await worker.stop()
    }
  })
})
