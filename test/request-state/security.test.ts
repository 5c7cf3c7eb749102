/**
 * RequestStateSecurity (src/request-state/security.ts) and its AES-GCM key ring: the claims a sealed state
 * carries and checks (audience, expiry, the bound arguments' digest), `parseRequestStateKeys`, and tokens
 * re-prefixed, transplanted onto another body or over `maxTokenLength`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { decodeBase64UrlStrict, encodeBase64Url } from '../../src/encoding/base64url.ts'
import { argumentsDigest } from '../../src/encoding/canonical.ts'
import { AesGcmKeyRing } from '../../src/request-state/codec.ts'
import { InvalidRequestStateError } from '../../src/request-state/errors.ts'
import { RequestStateSecurity, type RequestBinding } from '../../src/request-state/security.ts'

const KEY_A = 'a'.repeat(32)
const KEY_B = new Uint8Array(32).fill(7)
const enc = (s: string) => new TextEncoder().encode(s)
const dec = (b: Uint8Array) => new TextDecoder().decode(b)

async function reason(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestStateError)
    return (error as InvalidRequestStateError).reason
  }
  return undefined
}

describe('AES-GCM key ring', () => {
  it('seals into v2. + base64url(kid ‖ nonce ‖ ciphertext ‖ tag) that hides the plaintext and the binding', async () => {
    const ring = new AesGcmKeyRing([KEY_A])
    const plaintext = 'SECRET-PLAINTEXT-provision'
    const binding = 'SECRET-BINDING-deploy'
    const token = await ring.sealBound(enc(plaintext), binding, 'svc')
    expect(token).toMatch(/^v2\.[A-Za-z0-9_-]+$/)
    const body = decodeBase64UrlStrict(token.slice(3))!
    expect(body.length).toBe(4 + 12 + plaintext.length + 16) // the binding is in the AAD, not the token
    for (const secret of [plaintext, binding]) {
      expect(token).not.toContain(secret)
      expect(dec(body)).not.toContain(secret)
      expect(token).not.toContain(encodeBase64Url(enc(secret)).slice(0, 12))
    }
    expect(dec(await ring.openBound(token, binding, 'svc'))).toBe(plaintext)
    expect(await ring.sealBound(enc(plaintext), binding, 'svc')).not.toBe(token) // fresh nonce
  })
  it('round-trips empty, UTF-8, all byte values and 64 KiB, under text and byte bindings', async () => {
    const ring = new AesGcmKeyRing([KEY_A])
    const all = Uint8Array.from({ length: 256 }, (_, i) => i)
    for (const p of [new Uint8Array(0), enc('héllo → 世界'), all, new Uint8Array(65536).fill(9)])
      expect(await ring.openBound(await ring.sealBound(p, 'b'), 'b')).toEqual(p)
    for (const binding of ['', 'ünï \u{1F600}', all, new Uint8Array(65536).fill(3)])
      expect(dec(await ring.openBound(await ring.sealBound(enc('x'), binding), binding))).toBe('x')
    // a text binding is its UTF-8 bytes
    expect(dec(await ring.openBound(await ring.sealBound(enc('x'), 'é'), enc('é')))).toBe('x')
  })
  it('rejects malformed, foreign-key, wrong-audience and wrong-binding tokens', async () => {
    const ring = new AesGcmKeyRing([KEY_A])
    const token = await ring.sealBound(enc('x'), 'b', 'svc')
    expect(await reason(ring.openBound('', 'b', 'svc'))).toBe('malformed')
    expect(await reason(ring.openBound(token.slice(3), 'b', 'svc'))).toBe('malformed')
    expect(await reason(ring.openBound('v2.!!!not-base64!!!', 'b', 'svc'))).toBe('malformed')
    expect(await reason(ring.openBound('v2.' + encodeBase64Url(new Uint8Array(31)), 'b', 'svc'))).toBe('malformed')
    expect(await reason(ring.openBound(token + '=', 'b', 'svc'))).toBe('malformed')
    expect(await reason(new AesGcmKeyRing([KEY_B]).openBound(token, 'b', 'svc'))).toBe('unknown key')
    expect(await reason(ring.openBound(token, 'b', 'other'))).toBe('seal')
    expect(await reason(ring.openBound(token, 'b'))).toBe('seal')
    expect(await reason(ring.openBound(token, 'c', 'svc'))).toBe('seal')
    expect(await reason(ring.openBound(token, '', 'svc'))).toBe('seal')
  })
  it('rotates: keys[0] seals, every key opens', async () => {
    const OLD = 'o'.repeat(32)
    const NEW = 'n'.repeat(32)
    const fromOld = await new AesGcmKeyRing([OLD]).sealBound(enc('1'), 'b', 's')
    expect(dec(await new AesGcmKeyRing([OLD, NEW]).openBound(fromOld, 'b', 's'))).toBe('1')
    expect(dec(await new AesGcmKeyRing([NEW, OLD]).openBound(fromOld, 'b', 's'))).toBe('1')
    expect(await reason(new AesGcmKeyRing([NEW]).openBound(fromOld, 'b', 's'))).toBe('unknown key')
    const fromNew = await new AesGcmKeyRing([NEW, OLD]).sealBound(enc('2'), 'b', 's')
    expect(dec(await new AesGcmKeyRing([NEW]).openBound(fromNew, 'b', 's'))).toBe('2')
    expect(await reason(new AesGcmKeyRing([OLD]).openBound(fromNew, 'b', 's'))).toBe('unknown key')
  })
  it('validates keys at construction', () => {
    expect(() => new AesGcmKeyRing([])).toThrow(/at least one key/)
    expect(() => new AesGcmKeyRing(['short'])).toThrow(/keys\[0\] is 5 bytes/)
    expect(() => new AesGcmKeyRing([KEY_A, KEY_A])).toThrow(/keys\[1\] duplicates keys\[0\]/)
    expect(() => new AesGcmKeyRing([KEY_A, enc(KEY_A)])).toThrow(/duplicates/) // a string is its UTF-8 bytes
    expect(() => new AesGcmKeyRing([42 as never])).toThrow(TypeError)
  })
})

describe('RequestStateSecurity claims', () => {
  const binding: RequestBinding = {
    method: 'tools/call',
    target: 'deploy',
    canonicalArgs: '{"env":"prod"}',
    principal: undefined,
  }
  it('validates its options', () => {
    expect(() => new RequestStateSecurity({})).toThrow(/exactly one of keys or codec/)
    expect(
      () =>
        new RequestStateSecurity({
          keys: [KEY_A],
          codec: { seal: () => Promise.resolve(''), unseal: () => Promise.resolve(new Uint8Array()) },
        }),
    ).toThrow(/exactly one/)
    for (const ttl of [0, -600, NaN, Infinity]) {
      expect(() => new RequestStateSecurity({ keys: [KEY_A], ttlSeconds: ttl })).toThrow(/positive finite/)
      expect(() => RequestStateSecurity.ephemeral({ ttlSeconds: ttl })).toThrow(/positive finite/)
    }
  })
  it('expires after ttl seconds (exp is strict) and tolerates 60 s of future skew', async () => {
    let now = 1_700_000_000_000
    const policy = new RequestStateSecurity({ keys: [KEY_A], now: () => now })
    const token = await policy.seal('state', binding, 'svc')
    now += 601_000
    expect(await reason(policy.open(token, binding, 'svc'))).toBe('expired')
    now -= 2_000
    expect(await policy.open(token, binding, 'svc')).toBe('state')
    now -= 599_000 + 120_000
    expect(await reason(policy.open(token, binding, 'svc'))).toBe('minted in the future')
    now += 90_000
    expect(await policy.open(token, binding, 'svc')).toBe('state')
  })
  it('binds method, target, arguments, audience and principal (the AAD: every mismatch fails the tag)', async () => {
    const policy = new RequestStateSecurity({ keys: [KEY_A] })
    const token = await policy.seal('s', binding, 'svc')
    expect(token.startsWith('v2.')).toBe(true)
    expect(await reason(policy.open(token, { ...binding, target: 'other' }, 'svc'))).toBe('seal')
    expect(await reason(policy.open(token, { ...binding, method: 'prompts/get' }, 'svc'))).toBe('seal')
    expect(await reason(policy.open(token, { ...binding, canonicalArgs: '{"env":"staging"}' }, 'svc'))).toBe('seal')
    expect(await reason(policy.open(token, { ...binding, principal: 'alice' }, 'svc'))).toBe('seal')
    expect(await reason(policy.open(token, binding, 'other-audience'))).toBe('seal') // another audience's key
    const alice = await policy.seal('s', { ...binding, principal: 'alice' }, 'svc')
    expect(await reason(policy.open(alice, { ...binding, principal: 'bob' }, 'svc'))).toBe('seal')
    expect(await reason(policy.open(alice, binding, 'svc'))).toBe('seal')
    expect(await policy.open(alice, { ...binding, principal: 'alice' }, 'svc')).toBe('s')
    // another instance with the same keys opens it
    expect(
      await new RequestStateSecurity({ keys: [KEY_A] }).open(alice, { ...binding, principal: 'alice' }, 'svc'),
    ).toBe('s')
  })
  it('carries any JSON value, unchanged, with keys and with a custom codec', async () => {
    const values = [
      's',
      '',
      '\ud800 lone',
      0,
      -1.5,
      true,
      false,
      null,
      [],
      [1, 'a', null],
      { a: { b: [1, { c: 'é' }] } },
    ]
    const passthrough = {
      seal: (b: Uint8Array) => Promise.resolve('p.' + encodeBase64Url(b)),
      unseal: (t: string) => Promise.resolve(decodeBase64UrlStrict(t.slice(2))!),
    }
    for (const policy of [
      new RequestStateSecurity({ keys: [KEY_A] }),
      new RequestStateSecurity({ codec: passthrough }),
    ]) {
      for (const value of values)
        expect(await policy.open(await policy.seal(value, binding, 'svc'), binding, 'svc')).toEqual(value)
      await expect(policy.seal(undefined as never, binding, 'svc')).rejects.toThrow(TypeError)
      await expect(policy.seal({ n: 1n } as never, binding, 'svc')).rejects.toThrow(TypeError)
    }
  })
  it('a 1 KiB JSON object state seals to at most 1,443 characters', async () => {
    const state = { id: 42, tags: ['a', 'b'], data: '' }
    state.data = 'x'.repeat(1024 - JSON.stringify(state).length)
    expect(JSON.stringify(state).length).toBe(1024)
    const token = await new RequestStateSecurity({ keys: [KEY_A] }).seal(state, binding, 'svc')
    // "v2." + base64url(kid 4 ‖ nonce 12 ‖ iat 6 ‖ exp 6 ‖ 1,024 JSON bytes ‖ tag 16)
    expect(token.length).toBe(3 + Math.ceil(((4 + 12 + 12 + 1024 + 16) * 4) / 3))
    expect(token.length).toBeLessThanOrEqual(1443)
  })
  it('checks claims for a custom codec too', async () => {
    const passthrough = {
      seal: (b: Uint8Array) => Promise.resolve('p.' + encodeBase64Url(b)),
      unseal: (t: string) => Promise.resolve(decodeBase64UrlStrict(t.slice(2))!),
    }
    const policy = new RequestStateSecurity({ codec: passthrough })
    const forged =
      'p.' +
      encodeBase64Url(
        enc(
          JSON.stringify({
            v: 1,
            iat: 0,
            exp: 1,
            m: 'tools/call',
            t: 'deploy',
            a: await argumentsDigest({ env: 'prod' }),
            s: 'x',
          }),
        ),
      )
    expect(await reason(policy.open(forged, binding, undefined))).toBe('expired')
    expect(await reason(policy.open('p.' + encodeBase64Url(enc('not json')), binding, undefined))).toBe(
      'malformed claims',
    )
    const throwing = new RequestStateSecurity({
      codec: {
        seal: passthrough.seal,
        unseal: () => Promise.reject(new Error('boom')),
      },
    })
    expect(await reason(throwing.open('anything', binding, undefined))).toBe('codec error')
  })
})

describe('RequestStateSecurity hashes the arguments only where a digest is bound (a custom codec)', () => {
  const base = { method: 'tools/call', target: 'deploy', canonicalArgs: '{"env":"prod"}', principal: undefined }
  const passthrough = {
    seal: (b: Uint8Array) => Promise.resolve('p.' + encodeBase64Url(b)),
    unseal: (t: string) => Promise.resolve(decodeBase64UrlStrict(t.slice(2))!),
  }
  afterEach(() => vi.restoreAllMocks())

  it('with keys: a seal and an open make one Web Crypto call each, no digest; other arguments fail the tag', async () => {
    const policy = new RequestStateSecurity({ keys: [KEY_A] })
    await policy.open(await policy.seal('warm', base, 'svc'), base, 'svc') // derive the keys first
    const digest = vi.spyOn(crypto.subtle, 'digest')
    const encrypt = vi.spyOn(crypto.subtle, 'encrypt')
    const decrypt = vi.spyOn(crypto.subtle, 'decrypt')
    const token = await policy.seal('s', base, 'svc')
    expect(await policy.open(token, base, 'svc')).toBe('s')
    expect([digest.mock.calls.length, encrypt.mock.calls.length, decrypt.mock.calls.length]).toEqual([0, 1, 1])
    expect(await reason(policy.open(token, { ...base, canonicalArgs: '{"env":"staging"}' }, 'svc'))).toBe('seal')
    expect(await reason(policy.open(token, { ...base, canonicalArgs: '{"env": "prod"}' }, 'svc'))).toBe('seal')
    expect(digest).not.toHaveBeenCalled()
  })
  it('a custom codec binds the digest of the canonical arguments (claim `a`), one digest per seal and open', async () => {
    const expected = await argumentsDigest({ env: 'prod' })
    const custom = new RequestStateSecurity({ codec: passthrough })
    const digest = vi.spyOn(crypto.subtle, 'digest')
    const token = await custom.seal('s', base, 'svc')
    expect(digest).toHaveBeenCalledTimes(1)
    expect(JSON.parse(new TextDecoder().decode(decodeBase64UrlStrict(token.slice(2))))).toMatchObject({ a: expected })
    expect(await custom.open(token, base, 'svc')).toBe('s')
    expect(digest).toHaveBeenCalledTimes(2)
    expect(await reason(custom.open(token, { ...base, canonicalArgs: '{"env":"staging"}' }, 'svc'))).toBe(
      'request binding',
    )
  })
  it('starts unsealing before the digest settles (a custom codec), and a failed digest rejects with its own error', async () => {
    let unseals = 0
    const policy = new RequestStateSecurity({
      codec: {
        seal: passthrough.seal,
        unseal: (t) => {
          unseals++
          return passthrough.unseal(t)
        },
      },
    })
    const token = await policy.seal('s', { ...base, principal: 'alice' }, 'svc')
    const boom = new Error('digest failed')
    let unsealedFirst: boolean | undefined
    vi.spyOn(crypto.subtle, 'digest').mockImplementation(() => {
      unsealedFirst ??= unseals === 1
      return Promise.reject(boom)
    })
    await expect(policy.open(token, { ...base, principal: 'alice' }, 'svc')).rejects.toBe(boom)
    expect(unsealedFirst).toBe(false) // the digest was started before the codec's open, and ran alongside it
    expect(unseals).toBe(1)
    await expect(policy.seal('s', { ...base, principal: 'alice' }, 'svc')).rejects.toBe(boom)
  })
})

describe('parseRequestStateKeys', async () => {
  const { parseRequestStateKeys } = await import('../../src/request-state/codec.ts')
  it('decodes comma-separated base64url keys and names the bad entry', () => {
    const a = encodeBase64Url(new Uint8Array(32).fill(1))
    const b = encodeBase64Url(new Uint8Array(48).fill(2))
    expect(parseRequestStateKeys(`${a}, ${b}`).map((k) => k.length)).toEqual([32, 48])
    expect(() => parseRequestStateKeys(`${a},${a}=`)).toThrow(/keys\[1\] is not unpadded base64url/)
    expect(() => parseRequestStateKeys(encodeBase64Url(new Uint8Array(31)))).toThrow(/keys\[0\] is 31 bytes/)
  })
})

describe('RequestStateSecurity and the key ring: audience, exp, re-prefixed and transplanted tokens', () => {
  const binding: RequestBinding = {
    method: 'tools/call',
    target: 'deploy',
    canonicalArgs: '{"env":"prod"}',
    principal: undefined,
  }
  const passthrough = {
    seal: (b: Uint8Array) => Promise.resolve('p.' + encodeBase64Url(b)),
    unseal: (t: string) => Promise.resolve(decodeBase64UrlStrict(t.slice(2))!),
  }

  it('checks the audience claim even when the codec cannot tell audiences apart', async () => {
    const policy = new RequestStateSecurity({ codec: passthrough })
    const billing = await policy.seal('s', binding, 'billing')
    expect(await reason(policy.open(billing, binding, 'payments'))).toBe('audience')
    expect(await reason(policy.open(billing, binding, undefined))).toBe('audience')
    const none = await policy.seal('s', binding, undefined)
    expect(await reason(policy.open(none, binding, 'billing'))).toBe('audience')
    expect(await policy.open(billing, binding, 'billing')).toBe('s')
  })
  it('rejects exactly at exp (now < exp is strict) and accepts 1 ms before', async () => {
    let now = 1_000_000_000_000
    const policy = new RequestStateSecurity({ keys: [KEY_A], ttlSeconds: 1, now: () => now })
    const token = await policy.seal('s', binding, 'a')
    now += 1000
    expect(await reason(policy.open(token, binding, 'a'))).toBe('expired')
    now -= 1
    expect(await policy.open(token, binding, 'a')).toBe('s')
  })
  it('rejects a re-prefixed token and a kid transplanted onto another body', async () => {
    const ring = new AesGcmKeyRing([KEY_A, KEY_B])
    const fromA = await ring.sealBound(enc('a'), 'b', 's')
    const fromB = await new AesGcmKeyRing([KEY_B, KEY_A]).sealBound(enc('b'), 'b', 's')
    const bodyA = decodeBase64UrlStrict(fromA.slice(3))!
    const bodyB = decodeBase64UrlStrict(fromB.slice(3))!
    const transplanted = new Uint8Array(bodyB)
    transplanted.set(bodyA.subarray(0, 4)) // A's kid on B's nonce+ciphertext
    expect(await reason(ring.openBound('v2.' + encodeBase64Url(transplanted), 'b', 's'))).toBe('seal')
    for (const prefix of ['v1.', 'v3.', 's1.', 'q1.'])
      expect(await reason(ring.openBound(prefix + fromA.slice(3), 'b', 's'))).toBe('malformed')
    expect(dec(await ring.openBound(fromB, 'b', 's'))).toBe('b')
  })
  it('refuses tokens over maxTokenLength before decoding, and validates the option', async () => {
    const policy = new RequestStateSecurity({ keys: [KEY_A], maxTokenLength: 100 })
    expect(await reason(policy.open('v2.' + 'A'.repeat(200), binding, 'a'))).toBe('too large')
    for (const maxTokenLength of [0, -1, 1.5, NaN])
      expect(() => new RequestStateSecurity({ keys: [KEY_A], maxTokenLength })).toThrow(/maxTokenLength/)
  })
})
