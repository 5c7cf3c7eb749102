/**
 * What a server with middleware seals beside a handler's state (the round and the middleware's carry): in
 * the `"v2."` plaintext after the times, and as the `x` claim with a custom codec. Tokens without it still
 * open; a malformed one is refused as malformed.
 */
import { describe, expect, it } from 'vitest'
import { decodeStatePlaintext, encodeStatePlaintext } from '../../src/request-state/claims.ts'
import { RequestStateSecurity } from '../../src/request-state/security.ts'
import { InvalidRequestStateError } from '../../src/request-state/errors.ts'
import { decodeBase64UrlStrict, encodeBase64Url } from '../../src/encoding/base64url.ts'

const binding = { method: 'tools/call', target: 't', canonicalArgs: '{}', principal: undefined }

describe('the round extension of a sealed state', () => {
  it('round-trips in the v2 plaintext, beside any state, and is absent when not written', () => {
    for (const state of ['x', { a: [1, 'ü'] }, null, 0]) {
      const bytes = encodeStatePlaintext(1000, 2000, state, { r: 3, c: { traceparent: '00-ab-cd-01' } })
      expect(bytes[12]).toBe(0) // the mark: JSON never starts with NUL
      expect(decodeStatePlaintext(bytes)).toEqual({
        iatMs: 1000,
        expMs: 2000,
        state,
        extension: { r: 3, c: { traceparent: '00-ab-cd-01' } },
      })
      expect(decodeStatePlaintext(encodeStatePlaintext(1000, 2000, state))).toEqual({ iatMs: 1000, expMs: 2000, state })
    }
  })

  it('a malformed extension is refused as malformed claims', () => {
    const good = encodeStatePlaintext(1, 2, {}, { r: 1 })
    const unterminated = good.slice(0, 12 + 1 + '{"r":1}'.length) // no NUL before a state
    const badRound = encodeStatePlaintext(1, 2, {}, { r: 0 })
    const badCarry = encodeStatePlaintext(1, 2, {}, { r: 1, c: { n: 5 as unknown as string } })
    for (const bytes of [unterminated, badRound, badCarry])
      expect(() => decodeStatePlaintext(bytes)).toThrow(InvalidRequestStateError)
  })

  it('with keys: sealed and opened through the policy; open() still gives the state alone', async () => {
    const policy = new RequestStateSecurity({ keys: ['e'.repeat(32)] })
    const token = await policy.seal({ s: 1 }, binding, 'aud', { r: 2, c: { k: 'v' } })
    expect(await policy.openRound(token, binding, 'aud')).toEqual({
      state: { s: 1 },
      extension: { r: 2, c: { k: 'v' } },
    })
    expect(await policy.open(token, binding, 'aud')).toEqual({ s: 1 })
    const plain = await policy.seal({ s: 1 }, binding, 'aud')
    expect(await policy.openRound(plain, binding, 'aud')).toEqual({ state: { s: 1 } })
  })

  it('with a custom codec: the x claim, checked on open', async () => {
    const codec = {
      seal: (b: Uint8Array) => Promise.resolve('p.' + encodeBase64Url(b)),
      unseal: (t: string) => Promise.resolve(decodeBase64UrlStrict(t.slice(2))!),
    }
    const policy = new RequestStateSecurity({ codec })
    const token = await policy.seal('st', binding, undefined, { r: 4, c: { k: 'v' } })
    const claims = JSON.parse(new TextDecoder().decode(decodeBase64UrlStrict(token.slice(2)))) as { x: unknown }
    expect(claims.x).toEqual({ r: 4, c: { k: 'v' } })
    expect(await policy.openRound(token, binding, undefined)).toEqual({
      state: 'st',
      extension: { r: 4, c: { k: 'v' } },
    })
    const forged = 'p.' + encodeBase64Url(new TextEncoder().encode(JSON.stringify({ ...claims, x: { r: 'two' } })))
    await expect(policy.openRound(forged, binding, undefined)).rejects.toThrow(InvalidRequestStateError)
  })
})
