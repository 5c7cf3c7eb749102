/** Attacks on requestState sealing: argument binding edge cases and codec properties, each pinned by a test. */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import {
  McpServer,
  RequestStateSecurity,
  Server,
  createFetchHandler,
  elicitForm,
  inputRequired,
} from '../../src/server/index.ts'
import { McpError } from '../../src/index.ts'
import { argumentsDigest } from '../../src/encoding/canonical.ts'
import { AesGcmKeyRing, TEST_RANDOM_SOURCE } from '../../src/request-state/codec.ts'
import { decodeBase64UrlStrict, encodeBase64Url } from '../../src/encoding/base64url.ts'
import { call, json, recordingLogger, wireResponse, type WireClaims, type WireResponse } from '../helpers.ts'

const FROZEN = { code: -32602, message: 'Invalid or expired requestState', data: { reason: 'invalid_request_state' } }
const KEY = 'k'.repeat(32)
const ASK = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } } }

describe('argument binding edge cases', () => {
  it('-0 and 0, and non-finite numbers, never share a digest with other values', async () => {
    expect(await argumentsDigest({ x: -0 })).not.toBe(await argumentsDigest({ x: 0 }))
    await expect(argumentsDigest({ x: Infinity })).rejects.toThrow(/non-finite/)
    await expect(argumentsDigest({ x: -Infinity })).rejects.toThrow(/non-finite/)
    await expect(argumentsDigest({ x: NaN })).rejects.toThrow(/non-finite/)
  })

  it('a token minted for null or 0 is not accepted for -1e999 or -0', async () => {
    let runs = 0
    const mcp = new McpServer(
      { name: 's', version: '1' },
      { requestStateSecurity: new RequestStateSecurity({ keys: [KEY] }), logger: recordingLogger().logger },
    )
    mcp.tool('adjust', { input: { delta: v.nullable(v.number()) } }, ({ delta }, ctx) =>
      ctx.requestState ? (runs++, `applied ${delta}`) : inputRequired({ q: elicitForm('Sure?', ASK) }, 'confirmed'),
    )
    const handler = createFetchHandler(mcp)
    const send = (body: string) =>
      handler(
        new Request('http://x/mcp', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 'adjust',
          },
          body,
        }),
      ).then((r) => json<WireResponse>(r))
    const env =
      '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}'
    const nullToken = (
      await send(
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{${env},"name":"adjust","arguments":{"delta":null}}}`,
      )
    ).result.requestState
    const infinite = await send(
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{${env},"name":"adjust","arguments":{"delta":-1e999},"requestState":"${nullToken}"}}`,
    )
    expect(infinite.error.code).toBe(-32602)
    expect(infinite.error.message).toMatch(/arguments cannot be bound \(non-finite number -Infinity\)/)
    const zeroToken = (
      await send(
        `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{${env},"name":"adjust","arguments":{"delta":0}}}`,
      )
    ).result.requestState
    const negZero = await send(
      `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{${env},"name":"adjust","arguments":{"delta":-0},"requestState":"${zeroToken}"}}`,
    )
    expect(negZero.error).toEqual(FROZEN)
    // a first round (no token yet) is refused the same way: the arguments could never be bound
    const firstRound = await send(
      `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{${env},"name":"adjust","arguments":{"delta":1e999}}}`,
    )
    expect(firstRound.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/arguments cannot be bound \(non-finite number Infinity\)/) as unknown,
    })
    expect(runs).toBe(0)
  })

  it('binds the arguments as received, before a handler can change them', async () => {
    const server = new Server(
      { name: 'low', version: '1' },
      { logger: recordingLogger().logger },
    ).useRequestStateSecurity(new RequestStateSecurity({ keys: [KEY] }))
    server.setRequestHandler('prompts/get', (params) => {
      const args = params.arguments as Record<string, string>
      args.lang ??= 'en' // the handler fills a default in place
      return params.requestState ? { messages: [] } : inputRequired({ q: elicitForm('?', ASK) }, 'asked')
    })
    const handler = createFetchHandler(server)
    const first = await call(handler, 'prompts/get', { name: 'p', arguments: {} })
    const honest = await call(handler, 'prompts/get', {
      name: 'p',
      arguments: {},
      requestState: first.body.result.requestState,
    })
    expect(honest.body.result.messages).toEqual([])
  })

  it('a non-string target is never bound as an empty string (low-level Server)', async () => {
    const log = recordingLogger()
    const server = new Server({ name: 'low', version: '1' }, { logger: log.logger }).useRequestStateSecurity(
      new RequestStateSecurity({ keys: [KEY] }),
    )
    let ran = 0
    server.setRequestHandler('tools/call', (params) =>
      params.requestState ? (ran++, { content: [] }) : inputRequired(undefined, 'approved'),
    )
    const send = async (params: Record<string, unknown>) =>
      wireResponse(
        await server.handleRequest({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            ...params,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
      )
    const minted = await send({ name: 123 })
    expect(minted.error).toEqual({ code: -32603, message: 'Internal error' })
    const good = await send({ name: 'real' })
    const replay = await send({ name: ['delete-everything'], requestState: good.result.requestState })
    expect(replay.error).toEqual(FROZEN)
    expect(ran).toBe(0)
  })

  it('a bindPrincipal that throws McpError still gets the frozen error, and is logged', async () => {
    const log = recordingLogger()
    const security = new RequestStateSecurity({
      keys: [KEY],
      bindPrincipal: () => {
        throw new McpError(-32602, 'no session for principal alice@corp')
      },
    })
    const mcp = new McpServer({ name: 's', version: '1' }, { requestStateSecurity: security, logger: log.logger })
    mcp.tool('t', {}, () => 'ran')
    const res = await call(createFetchHandler(mcp), 'tools/call', { name: 't', requestState: 'v2.AAAA' })
    expect(res.body.error).toEqual(FROZEN)
    expect(res.text).not.toContain('alice')
    expect(log.error.join()).toContain('bindPrincipal failed')
  })
})

describe('codec properties: nonces, principal tags, strict base64url, key-id collisions, ttl', () => {
  it('1,000 consecutive seals use 1,000 distinct, non-zero nonces (the pool refills)', async () => {
    const ring = new AesGcmKeyRing([KEY])
    const nonces = new Set<string>()
    for (let i = 0; i < 1000; i++) {
      const body = decodeBase64UrlStrict((await ring.sealBound(new Uint8Array([i & 0xff]), 'b', 'a')).slice(3))!
      const nonce = body.subarray(4, 16)
      expect(nonce.some((b) => b !== 0)).toBe(true)
      nonces.add(encodeBase64Url(nonce))
    }
    expect(nonces.size).toBe(1000)
  })

  it('the principal tag is compared in full: one flipped bit in its last byte fails', async () => {
    const passthrough = {
      seal: (b: Uint8Array) => Promise.resolve('p.' + encodeBase64Url(b)),
      unseal: (t: string) => Promise.resolve(decodeBase64UrlStrict(t.slice(2))!),
    }
    const policy = new RequestStateSecurity({ codec: passthrough })
    const binding = { method: 'tools/call', target: 't', canonicalArgs: '{}', principal: 'alice' }
    const token = await policy.seal('s', binding, 'x')
    const claims = JSON.parse(new TextDecoder().decode(decodeBase64UrlStrict(token.slice(2)))) as WireClaims
    const p = decodeBase64UrlStrict(claims.p!)!
    p[23] ^= 1
    claims.p = encodeBase64Url(p)
    const forged = 'p.' + encodeBase64Url(new TextEncoder().encode(JSON.stringify(claims)))
    await expect(policy.open(forged, binding, 'x')).rejects.toMatchObject({ reason: 'principal' })
    expect(await policy.open(token, binding, 'x')).toBe('s')
  })

  it('base64url decoding refuses non-ASCII look-alikes and non-zero trailing bits', () => {
    expect(decodeBase64UrlStrict('AAB')).toBeUndefined()
    expect(decodeBase64UrlStrict('AAA')).toEqual(new Uint8Array([0, 0]))
    for (const junk of ['ŁAAA', 'AŁAA', 'AAAŁ', 'AAAA\u0141', 'ĀAAA', 'AA\u0100A'])
      expect(decodeBase64UrlStrict(junk), junk).toBeUndefined()
  })

  it('a state of any characters reads back the same (ASCII, 2-, 3- and 4-byte UTF-8, lone surrogates)', async () => {
    const policy = new RequestStateSecurity({ keys: ['k'.repeat(32)] })
    const binding = { method: 'tools/call', target: 't', canonicalArgs: '{}', principal: undefined }
    for (const state of [
      '',
      'plain',
      'é',
      'ünïcödé'.repeat(50),
      '日本語',
      '\u{1F600}x',
      '\ud800',
      { k: ['€', 1, null] },
    ]) {
      expect(await policy.open(await policy.seal(state, binding, 'x'), binding, 'x')).toEqual(state)
    }
  })

  it('a v2 binding with non-ASCII target, arguments, audience or principal opens only for exactly those', async () => {
    const policy = new RequestStateSecurity({ keys: ['k'.repeat(32)] })
    const canonicalArgs = '{"k":"é\\ud800"}'
    const binding = { method: 'tools/call', target: 'déploy', canonicalArgs, principal: 'ünï\u{1F600}' }
    const token = await policy.seal('s', binding, 'äud')
    expect(token.startsWith('v2.')).toBe(true)
    expect(await policy.open(token, binding, 'äud')).toBe('s')
    for (const [other, audience] of [
      [{ ...binding, target: 'deploy' }, 'äud'],
      [{ ...binding, target: 'déploy\u0000' }, 'äud'],
      [{ ...binding, canonicalArgs: '{"k":"é\\udfff"}' }, 'äud'],
      [{ ...binding, canonicalArgs: '{"k":"e\\ud800"}' }, 'äud'],
      [{ ...binding, principal: 'ünï' }, 'äud'],
      [{ ...binding, principal: 'uni\u{1F600}' }, 'äud'],
      [binding, 'aud'],
    ] as const)
      await expect(policy.open(token, other, audience)).rejects.toMatchObject({ reason: 'seal' })
  })

  it('base64url decoding round-trips every length and refuses any non-alphabet character anywhere', () => {
    const reference = (bytes: Uint8Array) =>
      btoa(String.fromCharCode(...bytes))
        .replace(/\+/g, '-')
        .replace(/\//g, '_')
        .replace(/=+$/, '')
    for (let n = 0; n < 70; n++) {
      const bytes = crypto.getRandomValues(new Uint8Array(n))
      const text = encodeBase64Url(bytes)
      expect(text).toBe(reference(bytes))
      expect(decodeBase64UrlStrict(text)).toEqual(bytes)
      // also as a slice of a longer string, as tokens are decoded after their prefix
      expect(decodeBase64UrlStrict(('v2.' + text).slice(3))).toEqual(bytes)
    }
    const text = encodeBase64Url(crypto.getRandomValues(new Uint8Array(30))) // 40 characters
    const junk = ['=', '+', '/', ' ', '\n', '\u0000', '\u007f', '\u0080', 'é', '\u00ff', 'Ł', '\ud800', '\u{1F600}']
    for (const bad of junk)
      for (const at of [0, 1, 2, 3, 20, 39]) {
        const swapped = text.slice(0, at) + bad + text.slice(at + 1)
        expect(decodeBase64UrlStrict(swapped), JSON.stringify(swapped)).toBeUndefined()
      }
    expect(decodeBase64UrlStrict(text + '==')).toBeUndefined()
    // longer than the decoder's reusable buffer (16 Ki characters): the same rules
    const long = crypto.getRandomValues(new Uint8Array(30_000))
    expect(decodeBase64UrlStrict(encodeBase64Url(long))).toEqual(long)
    expect(decodeBase64UrlStrict(encodeBase64Url(long).slice(0, -4) + 'AAé')).toBeUndefined()
  })

  it('two keys that share a key id both keep working (trial among the few that collide)', async () => {
    // a real 32-bit kid collision, found by brute force
    const a = decodeBase64UrlStrict('6v2AaLc-Oh9YlpxXynYwV7UfTVH2WlEl-EslmniZ5mw')!
    const b = decodeBase64UrlStrict('Mo2Ux5Rmlae7hvjEW-uo_eYNO-7i0inuiLgpbtTH4lA')!
    const tokenA = await new AesGcmKeyRing([a]).sealBound(new Uint8Array([1]), 'b', 's')
    const tokenB = await new AesGcmKeyRing([b]).sealBound(new Uint8Array([2]), 'b', 's')
    expect(tokenA.slice(0, 8)).toBe(tokenB.slice(0, 8)) // same prefix and the 30 kid bits the first 5 characters carry
    for (const ring of [new AesGcmKeyRing([a, b]), new AesGcmKeyRing([b, a])]) {
      expect([...(await ring.openBound(tokenA, 'b', 's'))]).toEqual([1])
      expect([...(await ring.openBound(tokenB, 'b', 's'))]).toEqual([2])
    }
  })

  it('a shortened ttl also shortens tokens already issued', async () => {
    let now = 1_000_000_000
    const binding = { method: 'tools/call', target: 't', canonicalArgs: '{}', principal: undefined }
    const long = new RequestStateSecurity({ keys: [KEY], ttlSeconds: 86_400, now: () => now })
    const token = await long.seal('s', binding, 'x')
    now += 3_600_000
    expect(await long.open(token, binding, 'x')).toBe('s')
    const short = new RequestStateSecurity({ keys: [KEY], ttlSeconds: 60, now: () => now })
    await expect(short.open(token, binding, 'x')).rejects.toMatchObject({ reason: 'expired' })
  })

  it('deterministic nonces are only reachable through the internal test hook', async () => {
    const server = await import('../../src/server/index.ts')
    expect(Object.values(server)).not.toContain(TEST_RANDOM_SOURCE)
  })
})
