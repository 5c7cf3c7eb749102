/**
 * The request-state policy end to end through the server boundary: property tests over every bit and
 * every base64url character, the replay matrix, principal and audience binding, codec failures, log
 * secrecy (python-sdk-semantics.md §E 1–33, expressed against our API).
 */
import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { authenticatedPrincipal, type RequestStateSecurityOptions } from '../../src/request-state/security.ts'
import {
  InvalidRequestStateError,
  McpServer,
  RequestStateSecurity,
  Server,
  elicitForm,
  inputRequired,
} from '../../src/server/index.ts'
import { type AuthInfo } from '../../src/index.ts'
import { decodeBase64UrlStrict, encodeBase64Url } from '../../src/encoding/base64url.ts'
import { env, recordingLogger, wireResponse, type WireClaims, type WireResponse } from '../helpers.ts'

const FROZEN = { code: -32602, message: 'Invalid or expired requestState', data: { reason: 'invalid_request_state' } }
const KEY = 'k'.repeat(32)
const ASK = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } } }
let nextId = 1

interface Fixture {
  server: Server
  runs: Record<string, number>
  log: ReturnType<typeof recordingLogger>
  send(method: string, params: Record<string, unknown>, authInfo?: AuthInfo): Promise<WireResponse>
}

/** A server with a tool, a prompt and a resource that each ask once and count the runs that got past the boundary. */
type FixtureOptions = { [K in keyof RequestStateSecurityOptions]?: RequestStateSecurityOptions[K] | undefined }

function fixture(name = 'deployer', options: FixtureOptions | RequestStateSecurity = {}): Fixture {
  const log = recordingLogger()
  let security: RequestStateSecurity
  if (options instanceof RequestStateSecurity) security = options
  else {
    const merged: FixtureOptions = { keys: [KEY], ...options }
    if (merged.keys === undefined) delete merged.keys // `keys: undefined` means "use the codec given instead"
    security = new RequestStateSecurity(merged as RequestStateSecurityOptions)
  }
  const mcp = new McpServer({ name, version: '1' }, { requestStateSecurity: security, logger: log.logger })
  const runs: Record<string, number> = {}
  const count = (k: string) => (runs[k] = (runs[k] ?? 0) + 1)
  for (const tool of ['deploy', 'other']) {
    mcp.tool(tool, { input: { env: v.optional(v.string()) } }, (_args, ctx) => {
      count(tool)
      return ctx.requestState
        ? `done with ${ctx.requestState as string}`
        : inputRequired({ q: elicitForm('Sure?', ASK) }, `${tool}-state`)
    })
  }
  mcp.server.setRequestHandler('prompts/get', (params) => {
    count('prompt')
    return params.requestState ? { messages: [] } : inputRequired({ q: elicitForm('Who?', ASK) }, 'prompt-state')
  })
  mcp.server.setRequestHandler('resources/read', (params) => {
    count('resource')
    return params.requestState ? { contents: [] } : inputRequired({ q: elicitForm('Which?', ASK) }, 'resource-state')
  })
  mcp.server.setRequestHandler('custom/echo', (params) => ({
    echo: params.requestState,
    requestState: 'outbound plaintext',
  }))
  const send = async (method: string, params: Record<string, unknown>, authInfo?: AuthInfo) => {
    const handled = await mcp.server.handleRequest(
      { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: env({ elicitation: {} }) } },
      authInfo ? { authInfo } : {},
    )
    return wireResponse(handled)
  }
  return { server: mcp.server, runs, log, send }
}

async function mint(
  f: Fixture,
  method = 'tools/call',
  params: Record<string, unknown> = { name: 'deploy', arguments: { env: 'prod' } },
  authInfo?: AuthInfo,
): Promise<string> {
  const res = await f.send(method, params, authInfo)
  expect(res.result.resultType).toBe('input_required')
  return res.result.requestState
}

describe('property: every change to a valid token is rejected with the frozen error', () => {
  it('flipping any single bit of the decoded token (3 tokens, 3 methods): 100 % rejected, no handler runs', async () => {
    const f = fixture()
    const cases: Array<[string, Record<string, unknown>]> = [
      ['tools/call', { name: 'deploy', arguments: { env: 'prod' } }],
      ['prompts/get', { name: 'briefing', arguments: {} }],
      ['resources/read', { uri: 'file:///a.txt' }],
    ]
    let attempts = 0
    let rejected = 0
    for (const [method, params] of cases) {
      const token = await mint(f, method, params)
      const before = { ...f.runs }
      const prefix = token.slice(0, 3) // "v2."
      expect(prefix).toBe('v2.')
      const raw = new TextEncoder().encode(prefix)
      const body = decodeBase64UrlStrict(token.slice(3))!
      const variants: string[] = []
      for (let bit = 0; bit < raw.length * 8; bit++) {
        const p = new Uint8Array(raw)
        p[bit >> 3] ^= 1 << (bit & 7)
        variants.push(new TextDecoder().decode(p) + token.slice(3))
      }
      for (let bit = 0; bit < body.length * 8; bit++) {
        const b = new Uint8Array(body)
        b[bit >> 3] ^= 1 << (bit & 7)
        variants.push(prefix + encodeBase64Url(b))
      }
      for (const tampered of variants) {
        attempts++
        const res = await f.send(method, {
          ...params,
          requestState: tampered,
          inputResponses: { q: { action: 'accept', content: { ok: true } } },
        })
        if (JSON.stringify(res.error) === JSON.stringify(FROZEN)) rejected++
      }
      expect(f.runs).toEqual(before)
    }
    // tokens carry no binding (it is in the AAD): ~1,480 bits
    expect(attempts).toBeGreaterThan(1400)
    expect(rejected).toBe(attempts)
  })

  it('replacing any base64url character with each of the 63 others: 100 % rejected', async () => {
    const policy = new RequestStateSecurity({ keys: [KEY] })
    const binding = { method: 'tools/call', target: 'deploy', canonicalArgs: '{}', principal: undefined }
    const tokens = [await policy.seal('', binding, 'a'), await policy.seal('s'.repeat(40), binding, 'a')]
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    let attempts = 0
    let rejected = 0
    for (const token of tokens) {
      for (let i = 3; i < token.length; i++) {
        for (const ch of alphabet) {
          if (ch === token[i]) continue
          attempts++
          try {
            await policy.open(token.slice(0, i) + ch + token.slice(i + 1), binding, 'a')
          } catch (error) {
            if (error instanceof InvalidRequestStateError) rejected++
          }
        }
      }
      for (const junk of [token + '=', token + '\n', ' ' + token, token.slice(0, -1), token + 'A']) {
        attempts++
        await policy.open(junk, binding, 'a').catch((e: unknown) => e instanceof InvalidRequestStateError && rejected++)
      }
    }
    expect(attempts).toBeGreaterThan(5000)
    expect(rejected).toBe(attempts)
  })
})

describe('replay matrix: a valid token presented anywhere else is rejected, and no handler runs', () => {
  it('another tool, other arguments, another method, another principal, another audience, expiry, unknown key', async () => {
    let now = 1_800_000_000_000
    const f = fixture('deployer', { now: () => now })
    const alice: AuthInfo = { clientId: 'client-123', subject: 'alice' }
    const bob: AuthInfo = { clientId: 'client-123', subject: 'bob' }
    const token = await mint(f, 'tools/call', { name: 'deploy', arguments: { env: 'prod' } }, alice)
    const answers = { q: { action: 'accept', content: { ok: true } } }
    const runsBefore = { ...f.runs }
    const attempts: Array<[string, () => Promise<WireResponse>]> = [
      [
        'another tool',
        () =>
          f.send(
            'tools/call',
            { name: 'other', arguments: { env: 'prod' }, requestState: token, inputResponses: answers },
            alice,
          ),
      ],
      [
        'other arguments',
        () =>
          f.send(
            'tools/call',
            { name: 'deploy', arguments: { env: 'staging' }, requestState: token, inputResponses: answers },
            alice,
          ),
      ],
      [
        'an extra argument',
        () =>
          f.send(
            'tools/call',
            { name: 'deploy', arguments: { env: 'prod', force: true }, requestState: token, inputResponses: answers },
            alice,
          ),
      ],
      [
        'another method',
        () =>
          f.send(
            'prompts/get',
            { name: 'deploy', arguments: { env: 'prod' }, requestState: token, inputResponses: answers },
            alice,
          ),
      ],
      [
        'another principal',
        () =>
          f.send(
            'tools/call',
            { name: 'deploy', arguments: { env: 'prod' }, requestState: token, inputResponses: answers },
            bob,
          ),
      ],
      [
        'no principal',
        () =>
          f.send('tools/call', {
            name: 'deploy',
            arguments: { env: 'prod' },
            requestState: token,
            inputResponses: answers,
          }),
      ],
      [
        'another audience (same keys, another server name)',
        () =>
          fixture('payments').send(
            'tools/call',
            { name: 'deploy', arguments: { env: 'prod' }, requestState: token, inputResponses: answers },
            alice,
          ),
      ],
      [
        'an unknown key',
        () =>
          fixture('deployer', { keys: ['z'.repeat(32)] }).send(
            'tools/call',
            { name: 'deploy', arguments: { env: 'prod' }, requestState: token, inputResponses: answers },
            alice,
          ),
      ],
    ]
    for (const [label, attempt] of attempts) expect((await attempt()).error, label).toEqual(FROZEN)
    now += 600_001
    expect(
      (
        await f.send(
          'tools/call',
          { name: 'deploy', arguments: { env: 'prod' }, requestState: token, inputResponses: answers },
          alice,
        )
      ).error,
    ).toEqual(FROZEN)
    expect(f.runs).toEqual(runsBefore)
    expect(f.log.warn.map((l) => l.replace(/^requestState rejected on [^:]+: /, ''))).toEqual([
      // "v2." tokens bind the request and the principal in the AAD: any mismatch fails the tag
      'seal',
      'seal',
      'seal',
      'seal',
      'seal',
      'seal',
      'expired',
    ])
    now -= 2 // still inside the TTL: the original binding works
    expect(
      (
        await f.send(
          'tools/call',
          { name: 'deploy', arguments: { env: 'prod' }, requestState: token, inputResponses: answers },
          alice,
        )
      ).result.content[0].text,
    ).toBe('done with deploy-state')
  })

  it('binds resources/read to the URI only, and prompts/get to its arguments', async () => {
    const f = fixture()
    const token = await mint(f, 'resources/read', { uri: 'file:///a.txt' })
    expect((await f.send('resources/read', { uri: 'file:///b.txt', requestState: token })).error).toEqual(FROZEN)
    expect((await f.send('resources/read', { uri: 'file:///a.txt', requestState: token })).result.contents).toEqual([])
    const prompt = await mint(f, 'prompts/get', { name: 'briefing', arguments: { audience: 'board' } })
    expect(
      (await f.send('prompts/get', { name: 'briefing', arguments: { audience: 'team' }, requestState: prompt })).error,
    ).toEqual(FROZEN)
    expect(
      (await f.send('prompts/get', { name: 'briefing', arguments: { audience: 'board' }, requestState: prompt })).result
        .messages,
    ).toEqual([])
  })
})

describe('principal binding', () => {
  it('derives the default principal from verified auth info, exactly', () => {
    expect(authenticatedPrincipal({})).toBeUndefined()
    expect(authenticatedPrincipal({ authInfo: { clientId: 'client-123' } })).toBe('["client-123",null,null]')
    expect(authenticatedPrincipal({ authInfo: { clientId: 'client-123', subject: 'alice' } })).toBe(
      '["client-123",null,"alice"]',
    )
    expect(
      authenticatedPrincipal({ authInfo: { clientId: 'client-123', issuer: 'https://as.example', subject: 'alice' } }),
    ).toBe('["client-123","https://as.example","alice"]')
  })
  it('rejects presence drift both ways, and two mints for one principal are unlinkable', async () => {
    const f = fixture()
    const alice = { clientId: 'c', subject: 'alice' }
    const anonymous = await mint(f)
    expect(
      (await f.send('tools/call', { name: 'deploy', arguments: { env: 'prod' }, requestState: anonymous }, alice))
        .error,
    ).toEqual(FROZEN)
    const t1 = await mint(f, undefined, undefined, alice)
    const t2 = await mint(f, undefined, undefined, alice)
    expect(t1).not.toBe(t2)
    expect(
      (await f.send('tools/call', { name: 'deploy', arguments: { env: 'prod' }, requestState: t1 })).error,
    ).toEqual(FROZEN)
    const passthrough = fixture('d', {
      keys: undefined,
      codec: {
        seal: (b) => Promise.resolve('p.' + encodeBase64Url(b)),
        unseal: (t) => Promise.resolve(decodeBase64UrlStrict(t.slice(2))!),
      },
    })
    const p1 = (
      JSON.parse(
        new TextDecoder().decode(
          decodeBase64UrlStrict((await mint(passthrough, undefined, undefined, alice)).slice(2)),
        ),
      ) as WireClaims
    ).p
    const p2 = (
      JSON.parse(
        new TextDecoder().decode(
          decodeBase64UrlStrict((await mint(passthrough, undefined, undefined, alice)).slice(2)),
        ),
      ) as WireClaims
    ).p
    expect(p1).toMatch(/^[A-Za-z0-9_-]{32}$/)
    expect(p1).not.toBe(p2)
    expect(JSON.stringify(p1)).not.toContain('alice')
  })
  it('a bindPrincipal that throws or returns a non-string: -32603 with no data at mint, frozen at verify', async () => {
    for (const bindPrincipal of [
      () => {
        throw new Error('auth backend down')
      },
      () => 42 as never,
    ]) {
      const f = fixture('d', { bindPrincipal })
      const minted = await f.send('tools/call', { name: 'deploy', arguments: { env: 'prod' } })
      expect(minted.error).toEqual({ code: -32603, message: 'Internal error' })
      const verify = await f.send('tools/call', { name: 'deploy', arguments: { env: 'prod' }, requestState: 'v2.AAAA' })
      expect(verify.error).toEqual(FROZEN)
    }
  })
  it('bindPrincipal: null disables the binding', async () => {
    const f = fixture('d', { bindPrincipal: null })
    const token = await mint(f, undefined, undefined, { clientId: 'a' })
    expect(
      (
        await f.send(
          'tools/call',
          { name: 'deploy', arguments: { env: 'prod' }, requestState: token },
          { clientId: 'b' },
        )
      ).result.content[0].text,
    ).toBe('done with deploy-state')
  })
})

describe('audience', () => {
  it('same keys, different names reject each other; an explicit audience overrides the name', async () => {
    const billing = fixture('billing')
    const payments = fixture('payments')
    expect(
      (
        await payments.send('tools/call', {
          name: 'deploy',
          arguments: { env: 'prod' },
          requestState: await mint(billing),
        })
      ).error,
    ).toEqual(FROZEN)
    expect(
      (
        await billing.send('tools/call', {
          name: 'deploy',
          arguments: { env: 'prod' },
          requestState: await mint(payments),
        })
      ).error,
    ).toEqual(FROZEN)
    const a = fixture('service-a', { audience: 'shared' })
    const b = fixture('service-b', { audience: 'shared' })
    expect(
      (await b.send('tools/call', { name: 'deploy', arguments: { env: 'prod' }, requestState: await mint(a) })).result
        .content[0].text,
    ).toBe('done with deploy-state')
  })
  it('an explicit policy on an unnamed server throws the named-server message; the default, an explicit audience, and a name construct', () => {
    const policy = () => new RequestStateSecurity({ keys: [KEY] })
    expect(() => new McpServer({ name: '', version: '1' }, { requestStateSecurity: policy() })).toThrow(
      /requestStateSecurity is configured but this server has no name\. Sealed requestState carries the server name as an audience claim/,
    )
    expect(() => new McpServer({ name: '', version: '1' })).not.toThrow()
    expect(
      () =>
        new McpServer(
          { name: '', version: '1' },
          { requestStateSecurity: new RequestStateSecurity({ keys: [KEY], audience: 'x' }) },
        ),
    ).not.toThrow()
    expect(() => new McpServer({ name: 'named', version: '1' }, { requestStateSecurity: policy() })).not.toThrow()
  })
})

describe('claims envelope', () => {
  const passthrough = {
    seal: (b: Uint8Array) => Promise.resolve('p.' + encodeBase64Url(b)),
    unseal: (t: string) => {
      const b = decodeBase64UrlStrict(t.slice(2))
      if (!t.startsWith('p.') || !b) return Promise.reject(new InvalidRequestStateError('malformed'))
      return Promise.resolve(b)
    },
  }
  const claimsOf = (token: string) =>
    JSON.parse(new TextDecoder().decode(decodeBase64UrlStrict(token.slice(2)))) as WireClaims

  it('has exactly {v, iat, exp, m, t, a, s, aud}; exp = iat + ttl; aud = the server name', async () => {
    const f = fixture('deployer', { keys: undefined, codec: passthrough, ttlSeconds: 90, now: () => 1_000_000 })
    const claims = claimsOf(await mint(f))
    expect(Object.keys(claims)).toEqual(['v', 'iat', 'exp', 'm', 't', 'a', 's', 'aud'])
    expect(claims).toMatchObject({
      v: 1,
      iat: 1000,
      exp: 1090,
      m: 'tools/call',
      t: 'deploy',
      s: 'deploy-state',
      aud: 'deployer',
    })
  })
  it('re-seals every round with a fresh iat', async () => {
    let now = 5_000_000
    const log = recordingLogger()
    const mcp = new McpServer(
      { name: 'wizard', version: '1' },
      { logger: log.logger, requestStateSecurity: new RequestStateSecurity({ codec: passthrough, now: () => now }) },
    )
    mcp.tool('wizard', {}, (_a, ctx) => {
      const step = Number(ctx.requestState ?? 0)
      return step < 3
        ? inputRequired({ [`q${step}`]: elicitForm(`Round ${step + 1}?`, ASK) }, String(step + 1))
        : `done after ${step} rounds`
    })
    const tokens: string[] = []
    let state: string | undefined
    for (let round = 0; round < 4; round++) {
      const res = await mcp.server.handleRequest({
        jsonrpc: '2.0',
        id: round,
        method: 'tools/call',
        params: { name: 'wizard', _meta: env({ elicitation: {} }), ...(state ? { requestState: state } : {}) },
      })
      const result = wireResponse(res).result
      if (round === 3) {
        expect(result.content[0].text).toBe('done after 3 rounds')
        break
      }
      state = result.requestState
      tokens.push(state)
      now += 5000
    }
    expect(new Set(tokens).size).toBe(3)
    expect(tokens.map((t) => claimsOf(t).iat)).toEqual([5000, 5005, 5010])
  })
  it('rejects what is not a valid envelope, whatever the codec says', async () => {
    const seal = (obj: unknown) =>
      'p.' + encodeBase64Url(new TextEncoder().encode(typeof obj === 'string' ? obj : JSON.stringify(obj)))
    const f = fixture('deployer', { keys: undefined, codec: passthrough, now: () => 1_000_000 })
    const good = claimsOf(await mint(f))
    const forged = [
      seal('not json'),
      seal({ v: 1 }),
      seal({ ...good, v: 2 }),
      seal(Object.fromEntries(Object.entries(good).filter(([k]) => k !== 's'))), // no state at all
      seal({ ...good, p: 'A' }),
      seal({ ...good, p: 7 }),
      seal({ ...good, p: {} }),
      seal({ ...good, exp: 'never' }),
      seal({ ...good, iat: Number.NaN }),
      seal([good]),
    ]
    for (const token of forged)
      expect(
        (await f.send('tools/call', { name: 'deploy', arguments: { env: 'prod' }, requestState: token })).error,
        token,
      ).toEqual(FROZEN)
    expect(
      (await f.send('tools/call', { name: 'deploy', arguments: { env: 'prod' }, requestState: seal(good) })).result,
    ).toBeDefined()
  })
  it('round-trips lone surrogates in state and principal, and keeps them distinct', async () => {
    const mcpState = '\ud800 half a pair'
    const policy = new RequestStateSecurity({ keys: [KEY] })
    const binding = { method: 'tools/call', target: 't', canonicalArgs: '{}', principal: '\ud800' }
    const token = await policy.seal(mcpState, binding, 'x')
    expect(await policy.open(token, binding, 'x')).toBe(mcpState)
    await expect(policy.open(token, { ...binding, principal: '\udfff' }, 'x')).rejects.toMatchObject({
      reason: 'seal', // the principal is in the AAD of a "v2." token
    })
  })
  it('fractional ttl: 0.5 s accepts at 0.4 s and rejects at 0.6 s', async () => {
    let now = 10_000
    const policy = new RequestStateSecurity({ keys: [KEY], ttlSeconds: 0.5, now: () => now })
    const binding = { method: 'tools/call', target: 't', canonicalArgs: '{}', principal: undefined }
    const token = await policy.seal('s', binding, 'x')
    now += 400
    expect(await policy.open(token, binding, 'x')).toBe('s')
    now += 200
    await expect(policy.open(token, binding, 'x')).rejects.toMatchObject({ reason: 'expired' })
  })
})

describe('boundary posture', () => {
  it('the default server seals, and a plaintext echo gets the frozen error', async () => {
    const mcp = new McpServer({ name: 'plain-default', version: '1' }, { logger: recordingLogger().logger })
    mcp.tool('t', {}, (_a, ctx) => (ctx.requestState ? 'ok' : inputRequired(undefined, 'plain')))
    const first = wireResponse(
      await mcp.server.handleRequest({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 't', _meta: env() },
      }),
    )
    expect(first.result.requestState).toMatch(/^v2\./)
    const echo = wireResponse(
      await mcp.server.handleRequest({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 't', requestState: 'plain', _meta: env() },
      }),
    )
    expect(echo.error).toEqual(FROZEN)
  })
  it('non-carrier methods pass requestState through verbatim, never sealed or verified', async () => {
    const f = fixture()
    const res = await f.send('custom/echo', { requestState: 'anything at all' })
    expect(res.result.echo).toBe('anything at all')
    expect(res.result.requestState).toBe('outbound plaintext')
    expect(f.log.warn).toEqual([])
  })
  it('verifies state even for handlers that never mint any', async () => {
    const log = recordingLogger()
    const mcp = new McpServer({ name: 'n', version: '1' }, { logger: log.logger })
    let ran = 0
    mcp.tool('simple', {}, () => (ran++, 'ok'))
    const res = wireResponse(
      await mcp.server.handleRequest({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'simple', requestState: 'forged', _meta: env() },
      }),
    )
    expect(res.error).toEqual(FROZEN)
    expect(ran).toBe(0)
  })
})

describe('codec failures and log secrecy', () => {
  it('a codec rejection with an empty reason still fails closed: frozen error, the handler never runs', async () => {
    const silent = fixture('d', {
      keys: undefined,
      codec: {
        seal: () => Promise.resolve('opaque'),
        unseal: () => Promise.reject(new InvalidRequestStateError('')),
      },
    })
    const res = await silent.send('tools/call', { name: 'deploy', arguments: {}, requestState: 'forged' })
    expect(res.error).toEqual(FROZEN)
    expect(silent.log.warn).toEqual(['requestState rejected on tools/call: no reason given'])
  })
  it('an unseal that throws anything: frozen error; its own reason only in the log; a throwing seal: -32603 without detail', async () => {
    const boom = fixture('d', {
      keys: undefined,
      codec: {
        seal: () => Promise.resolve('opaque'),
        unseal: () => Promise.reject(new InvalidRequestStateError('boom')),
      },
    })
    expect((await boom.send('tools/call', { name: 'deploy', arguments: {}, requestState: 'x' })).error).toEqual(FROZEN)
    expect(boom.log.warn).toEqual(['requestState rejected on tools/call: boom'])
    const generic = fixture('d', {
      keys: undefined,
      codec: {
        seal: () => Promise.resolve('opaque'),
        unseal: () => Promise.reject(new TypeError('kms timeout: secret-detail')),
      },
    })
    expect((await generic.send('tools/call', { name: 'deploy', arguments: {}, requestState: 'x' })).error).toEqual(
      FROZEN,
    )
    expect(generic.log.warn).toEqual(['requestState rejected on tools/call: codec error'])
    const sealFails = fixture('d', {
      keys: undefined,
      codec: {
        seal: () => Promise.reject(new Error('kms down: secret-detail')),
        unseal: () => Promise.resolve(new Uint8Array()),
      },
    })
    const res = await sealFails.send('tools/call', { name: 'deploy', arguments: {} })
    expect(res.error).toEqual({ code: -32603, message: 'Internal error' })
    expect(JSON.stringify(res)).not.toContain('secret-detail')
  })
  it('tampered, expired and rebound tokens get the identical error; exactly 3 warnings; no token, plaintext or principal in any log', async () => {
    let now = 2_000_000_000_000
    const f = fixture('d', { now: () => now })
    const principal: AuthInfo = { clientId: 'client-secret-id', subject: 'alice-secret' }
    const t1 = await mint(f, undefined, undefined, principal)
    const t2 = await mint(f, undefined, undefined, principal)
    const tampered = t1.slice(0, 10) + (t1[10] === 'A' ? 'B' : 'A') + t1.slice(11)
    const errors = [
      (await f.send('tools/call', { name: 'deploy', arguments: { env: 'prod' }, requestState: tampered }, principal))
        .error,
      (await f.send('tools/call', { name: 'deploy', arguments: { env: 'other' }, requestState: t2 }, principal)).error,
    ]
    now += 700_000
    errors.push(
      (await f.send('tools/call', { name: 'deploy', arguments: { env: 'prod' }, requestState: t1 }, principal)).error,
    )
    for (const e of errors) expect(e).toEqual(FROZEN)
    expect(f.log.warn).toHaveLength(3)
    const everything = [...f.log.warn, ...f.log.error].join('\n')
    for (const secret of [t1, t2, tampered, 'deploy-state', 'client-secret-id', 'alice-secret'])
      expect(everything).not.toContain(secret)
  })
})

describe('rotation in three phases through the server', () => {
  it('[OLD] → [OLD, NEW] → [NEW, OLD] → [NEW]: in-flight tokens keep working until OLD is retired', async () => {
    const OLD = 'o'.repeat(32)
    const NEW = 'n'.repeat(32)
    const at = (keys: string[]) => fixture('svc', { keys })
    const retry = (f: Fixture, token: string) =>
      f.send('tools/call', { name: 'deploy', arguments: { env: 'prod' }, requestState: token })
    const fromOld = await mint(at([OLD]))
    expect((await retry(at([OLD, NEW]), fromOld)).result).toBeDefined() // phase 1: everyone can open NEW; OLD still seals
    const phase1 = await mint(at([OLD, NEW]))
    expect((await retry(at([NEW, OLD]), phase1)).result).toBeDefined() // phase 2: NEW seals; OLD tokens still open
    const fromNew = await mint(at([NEW, OLD]))
    expect((await retry(at([OLD, NEW]), fromNew)).result).toBeDefined() // a phase-1 instance opens phase-2 tokens
    expect((await retry(at([NEW]), fromNew)).result).toBeDefined() // phase 3
    expect((await retry(at([NEW]), fromOld)).error).toEqual(FROZEN) // OLD retired
    expect((await retry(at([OLD]), fromNew)).error).toEqual(FROZEN) // why NEW must never seal before everyone can open it
  })
})
