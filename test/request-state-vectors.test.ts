/**
 * Deterministic request-state vectors pin the token bytes, and the same vectors pass in Node, workerd,
 * Deno and Bun. An independent Web Crypto computation checks the construction (HKDF infos, AAD).
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { decodeBase64UrlStrict } from '../src/encoding/base64url.ts'
import { CODEC_VECTORS, POLICY_VECTORS, runVectors } from './vectors/request-state-vectors.ts'
import { ensureTool } from './tools.ts'
import { ROOT, startWorker } from './workerd.ts'

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
    expect(result.passed).toBe(22)
  })

  it('an independent Web Crypto computation opens each pinned token (HKDF infos and AAD as documented)', async () => {
    for (const v of [...CODEC_VECTORS, ...POLICY_VECTORS]) {
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
      const version = 'version' in v ? v.version : 1
      expect(v.token.slice(0, 3)).toBe(`v${version}.`)
      // v2: the AAD continues with the binding, compact JSON [method, target, argsDigest, audience|null, principal|null]
      const bound =
        'binding' in v && version === 2
          ? enc.encode(
              JSON.stringify([
                v.binding.method,
                v.binding.target,
                v.binding.argsDigest,
                v.audience ?? null,
                v.binding.principal ?? null,
              ]),
            )
          : new Uint8Array(0)
      const aad = new Uint8Array([...enc.encode(`v${version}.`), ...kid, ...bound])
      const plain = new Uint8Array(
        await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv: body.subarray(4, 16), additionalData: aad },
          aesKey,
          body.subarray(16),
        ),
      )
      if ('plaintext' in v) expect(new TextDecoder().decode(plain)).toBe(v.plaintext)
      else if (version === 2) {
        // v2 plaintext: iat(6) ‖ exp(6), milliseconds big-endian, then the state's JSON, once
        const ms = (at: number) => plain.subarray(at, at + 6).reduce((n, byte) => n * 256 + byte, 0)
        expect(ms(0)).toBe(v.nowMs)
        expect(ms(6)).toBe(v.nowMs + v.ttl * 1000)
        expect(new TextDecoder().decode(plain.subarray(12))).toBe(JSON.stringify(v.state))
      } else {
        const claims = JSON.parse(new TextDecoder().decode(plain)) as Record<string, unknown>
        expect(Object.keys(claims)).toEqual(
          v.binding.principal
            ? ['v', 'iat', 'exp', 'm', 't', 'a', 's', 'aud', 'p']
            : ['v', 'iat', 'exp', 'm', 't', 'a', 's', 'aud'],
        )
        expect(claims).toMatchObject({
          v: 1,
          iat: v.nowMs / 1000,
          exp: v.nowMs / 1000 + v.ttl,
          m: v.binding.method,
          t: v.binding.target,
          a: v.binding.argsDigest,
          s: v.state,
          aud: v.audience,
        })
      }
      // the AAD really is bound: the same body with another prefix in the AAD does not open
      const otherAad = new Uint8Array([...enc.encode(version === 1 ? 'v2.' : 'v1.'), ...kid, ...bound])
      await expect(
        crypto.subtle.decrypt(
          { name: 'AES-GCM', iv: body.subarray(4, 16), additionalData: otherAad },
          aesKey,
          body.subarray(16),
        ),
      ).rejects.toThrow()
    }
  })

  it('HKDF with an empty salt equals HKDF with 32 zero bytes (RFC 5869: absent salt = HashLen zeros)', async () => {
    const key = bytesOf(CODEC_VECTORS[0].keys[0])
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
      expect(result.passed).toBe(22)
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
      expect(result.passed).toBe(22)
    } finally {
      await worker.stop()
    }
  })
})
