/**
 * With keys, a round makes exactly one Web Crypto call on our side — the AES-GCM seal, or the open: the
 * canonical arguments are in the AAD, not hashed. These pin that cost, that the binding still refuses a
 * token presented with other arguments, for another tool, principal or audience, and that a custom
 * codec's claims (which carry an arguments digest) make one digest a round and check it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { RequestStateSecurity, Server, elicitForm, inputRequired } from '../../src/server/index.ts'
import type { RequestStateCodec } from '../../src/request-state/codec.ts'
import { decodeBase64UrlStrict, encodeBase64Url } from '../../src/encoding/base64url.ts'
import type { AuthInfo } from '../../src/protocol/auth.ts'
import { recordingLogger, wireResponse } from '../helpers.ts'

const FROZEN = { code: -32602, message: 'Invalid or expired requestState', data: { reason: 'invalid_request_state' } }
const KEY = 'k'.repeat(32)
const ASK = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } } }
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
}
const SUBTLE = ['digest', 'encrypt', 'decrypt', 'sign', 'verify', 'importKey', 'deriveBits', 'deriveKey'] as const

/** A codec that seals nothing (integrity aside, enough to count the SDK's own calls around it). */
const passthrough: RequestStateCodec = {
  seal: (b) => Promise.resolve('p.' + encodeBase64Url(b)),
  unseal: (t) => Promise.resolve(decodeBase64UrlStrict(t.slice(2))!),
}

function lowLevel(name = 'low', codec?: RequestStateCodec) {
  const log = recordingLogger()
  const server = new Server({ name, version: '1' }, { logger: log.logger }).useRequestStateSecurity(
    new RequestStateSecurity(codec ? { codec } : { keys: [KEY] }),
  )
  const send = async (method: string, params: Record<string, unknown>, authInfo?: AuthInfo) =>
    wireResponse(
      await server.handleRequest(
        { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } },
        authInfo ? { authInfo } : {},
      ),
    )
  return { server, send, log }
}

/** Asks on a first round, completes on a retry. */
const asker = (params: { requestState?: unknown }) =>
  params.requestState !== undefined ? { content: [] } : inputRequired({ q: elicitForm('?', ASK) }, 'asked')

/** Spies on every `crypto.subtle` call: `calls()` → `{ name: count }` of those made since. */
function subtleCalls(): () => Partial<Record<(typeof SUBTLE)[number], number>> {
  const spies = SUBTLE.map((name) => [name, vi.spyOn(crypto.subtle, name)] as const)
  return () => {
    const out: Partial<Record<(typeof SUBTLE)[number], number>> = {}
    for (const [name, spy] of spies) if (spy.mock.calls.length !== 0) out[name] = spy.mock.calls.length
    return out
  }
}

afterEach(() => vi.restoreAllMocks())

describe('with keys a round makes one Web Crypto call, and still binds the request', () => {
  it('a handler that changes its arguments in place still binds them as received', async () => {
    const { server, send } = lowLevel()
    server.setRequestHandler('prompts/get', (params) => {
      const args = params.arguments as Record<string, string>
      args.lang ??= 'en' // the handler fills a default in place
      return params.requestState
        ? { messages: [{ role: 'user', content: { type: 'text', text: args.lang } }] }
        : inputRequired({ q: elicitForm('?', ASK) }, 'asked')
    })
    for (let round = 0; round < 2; round++) {
      const first = await send('prompts/get', { name: 'p', arguments: {} })
      const token = first.result.requestState
      expect(await send('prompts/get', { name: 'p', arguments: { lang: 'en' }, requestState: token })).toMatchObject({
        error: FROZEN,
      })
      expect(await send('prompts/get', { name: 'q', arguments: {}, requestState: token })).toMatchObject({
        error: FROZEN,
      })
      const honest = await send('prompts/get', { name: 'p', arguments: {}, requestState: token })
      expect(honest.result.messages[0].content.text).toBe('en')
    }
  })

  it('first round: one encrypt; retry: one decrypt, on this instance or another; no digest; plain calls: none', async () => {
    const { server, send } = lowLevel()
    server.setRequestHandler('tools/call', (params) => (params.name === 'plain' ? { content: [] } : asker(params)))
    const other = lowLevel() // another instance sharing the keys and audience
    other.server.setRequestHandler('tools/call', asker)
    const warm = (await send('tools/call', { name: 'asker', arguments: {} })).result.requestState
    await other.send('tools/call', { name: 'asker', arguments: {}, requestState: warm }) // keys derived once, before counting
    const calls = subtleCalls()
    for (let i = 0; i < 3; i++)
      expect((await send('tools/call', { name: 'plain', arguments: { i } })).result.resultType).toBe('complete')
    expect(calls()).toEqual({})
    const args = { n: 1, text: 'é "quoted" \ud800', nested: { b: [1, 2], a: null } }
    const first = await send('tools/call', { name: 'asker', arguments: args })
    expect(calls()).toEqual({ encrypt: 1 })
    const retry = { name: 'asker', arguments: args, requestState: first.result.requestState }
    expect((await send('tools/call', retry)).result.resultType).toBe('complete')
    expect(calls()).toEqual({ encrypt: 1, decrypt: 1 })
    expect((await other.send('tools/call', retry)).result.resultType).toBe('complete')
    expect(calls()).toEqual({ encrypt: 1, decrypt: 2 })
  })

  it('other arguments, another tool, another principal or another audience are refused', async () => {
    const { server, send } = lowLevel()
    server.setRequestHandler('tools/call', asker)
    const elsewhere = lowLevel('another-audience') // same keys, another server name: another audience
    elsewhere.server.setRequestHandler('tools/call', asker)
    const alice: AuthInfo = { clientId: 'alice' }
    const token = (await send('tools/call', { name: 't', arguments: { n: 1, s: 'x' } }, alice)).result.requestState
    const calls = subtleCalls()
    const retry = (name: string, args: unknown, who?: AuthInfo, via = send) =>
      via('tools/call', { name, arguments: args, requestState: token }, who)
    expect((await retry('t', { n: 2, s: 'x' }, alice)).error).toEqual(FROZEN)
    expect((await retry('t', { n: 1, s: 'x', extra: true }, alice)).error).toEqual(FROZEN)
    expect((await retry('t', { n: 1 }, alice)).error).toEqual(FROZEN)
    expect((await retry('t', {}, alice)).error).toEqual(FROZEN)
    expect((await retry('u', { n: 1, s: 'x' }, alice)).error).toEqual(FROZEN)
    expect((await retry('t', { n: 1, s: 'x' }, { clientId: 'bob' })).error).toEqual(FROZEN)
    expect((await retry('t', { n: 1, s: 'x' })).error).toEqual(FROZEN)
    expect((await retry('t', { n: 1, s: 'x' }, alice, elsewhere.send)).error).toEqual(FROZEN)
    expect((await retry('t', { s: 'x', n: 1 }, alice)).result.resultType).toBe('complete') // key order is not binding
    expect(calls().digest).toBeUndefined()
  })

  it('a resource binds its URI: another URI is refused', async () => {
    const { server, send } = lowLevel()
    server.setRequestHandler('resources/read', (params) =>
      params.requestState !== undefined
        ? { contents: [{ uri: params.uri, text: 'ok' }] }
        : inputRequired({ q: elicitForm('?', ASK) }, 'asked'),
    )
    const token = (await send('resources/read', { uri: 'file:///a' })).result.requestState
    expect((await send('resources/read', { uri: 'file:///b', requestState: token })).error).toEqual(FROZEN)
    expect((await send('resources/read', { uri: 'file:///a', requestState: token })).result.contents[0].uri).toBe(
      'file:///a',
    )
  })

  it('a failing SHA-256 does not touch rounds sealed with keys (none is made)', async () => {
    const { server, send } = lowLevel()
    server.setRequestHandler('tools/call', asker)
    vi.spyOn(crypto.subtle, 'digest').mockRejectedValue(new Error('digest unavailable'))
    const token = (await send('tools/call', { name: 't', arguments: { n: 1 } })).result.requestState
    expect(token.startsWith('v2.')).toBe(true)
    expect((await send('tools/call', { name: 't', arguments: { n: 1 }, requestState: token })).result.resultType).toBe(
      'complete',
    )
  })
})

describe("a custom codec's claims bind the arguments digest", () => {
  it('seal with one digest; another instance opens it with one digest; other arguments are refused', async () => {
    const one = lowLevel('low', passthrough)
    one.server.setRequestHandler('tools/call', asker)
    const other = lowLevel('low', passthrough) // another instance with the same codec and audience
    other.server.setRequestHandler('tools/call', asker)
    const calls = subtleCalls()
    const token = (await one.send('tools/call', { name: 't', arguments: { n: 1 } })).result.requestState
    expect(token.startsWith('p.')).toBe(true)
    expect(calls().digest).toBe(1)
    const send = other.send
    expect((await send('tools/call', { name: 't', arguments: { n: 2 }, requestState: token })).error).toEqual(FROZEN)
    expect((await send('tools/call', { name: 'u', arguments: { n: 1 }, requestState: token })).error).toEqual(FROZEN)
    const alice = { clientId: 'alice' }
    expect((await send('tools/call', { name: 't', arguments: { n: 1 }, requestState: token }, alice)).error).toEqual(
      FROZEN,
    )
    const before = calls().digest!
    const opened = await send('tools/call', { name: 't', arguments: { n: 1 }, requestState: token })
    expect(opened.result.resultType).toBe('complete')
    expect(calls().digest).toBe(before + 1)
  })

  it('a failing digest: -32603 without detail at a mint, the frozen error on a retry', async () => {
    const { server, send, log } = lowLevel('low', passthrough)
    server.setRequestHandler('tools/call', asker)
    const token = (await send('tools/call', { name: 't', arguments: {} })).result.requestState
    vi.spyOn(crypto.subtle, 'digest').mockRejectedValue(new Error('digest unavailable'))
    expect((await send('tools/call', { name: 't', arguments: { n: 1 } })).error).toEqual({
      code: -32603,
      message: 'Internal error',
    })
    expect((await send('tools/call', { name: 't', arguments: {}, requestState: token })).error).toEqual(FROZEN)
    expect([...log.warn, ...log.error].join('\n')).not.toContain(token)
  })
})
