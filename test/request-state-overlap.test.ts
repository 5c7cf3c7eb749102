/**
 * The arguments digest runs alongside other work: with the handler on the first round of a handler that has
 * sealed state before; and a retry reuses the digest its first round computed on this instance (per
 * principal). These pin that the binding, the errors and the cost of plain calls are what they were when
 * every digest was computed and awaited on its own.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { RequestStateSecurity, Server, elicitForm, inputRequired } from '../src/server/index.ts'
import type { AuthInfo } from '../src/protocol/auth.ts'
import { recordingLogger, wireResponse } from './helpers.ts'

const FROZEN = { code: -32602, message: 'Invalid or expired requestState', data: { reason: 'invalid_request_state' } }
const KEY = 'k'.repeat(32)
const ASK = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } } }
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
}

function lowLevel() {
  const log = recordingLogger()
  const server = new Server({ name: 'low', version: '1' }, { logger: log.logger }).useRequestStateSecurity(
    new RequestStateSecurity({ keys: [KEY] }),
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

afterEach(() => vi.restoreAllMocks())

describe('the arguments digest overlaps other work', () => {
  it('a handler that asked before still binds the arguments as received, not as it changed them', async () => {
    const { server, send } = lowLevel()
    server.setRequestHandler('prompts/get', (params) => {
      const args = params.arguments as Record<string, string>
      args.lang ??= 'en' // the handler fills a default in place, while the digest may still be running
      return params.requestState
        ? { messages: [{ role: 'user', content: { type: 'text', text: args.lang } }] }
        : inputRequired({ q: elicitForm('?', ASK) }, 'asked')
    })
    for (let round = 0; round < 3; round++) {
      // round 0 registers the prompt as one that seals; rounds 1 and 2 hash while the handler runs
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

  it('hashes only when a token is opened or sealed, or for a handler that sealed before; a retry reuses its digest', async () => {
    const { server, send } = lowLevel()
    let ask = true
    server.setRequestHandler('tools/call', (params) =>
      params.name === 'plain' || params.requestState !== undefined || !ask
        ? { content: [] }
        : inputRequired({ q: elicitForm('?', ASK) }, 'asked'),
    )
    const digest = vi.spyOn(crypto.subtle, 'digest')
    for (let i = 0; i < 5; i++)
      expect((await send('tools/call', { name: 'plain', arguments: { i } })).result.resultType).toBe('complete')
    expect(digest).toHaveBeenCalledTimes(0)
    const first = await send('tools/call', { name: 'asker', arguments: { i: 1 } })
    expect(digest).toHaveBeenCalledTimes(1)
    expect(
      (await send('tools/call', { name: 'asker', arguments: { i: 1 }, requestState: first.result.requestState })).result
        .resultType,
    ).toBe('complete')
    expect(digest).toHaveBeenCalledTimes(1) // the retry's arguments are its first round's: their digest is known
    ask = false // a first round of a handler that sealed before hashes once, even when it completes at once
    expect((await send('tools/call', { name: 'asker', arguments: { i: 2 } })).result.resultType).toBe('complete')
    expect(digest).toHaveBeenCalledTimes(2)
    expect((await send('tools/call', { name: 'plain', arguments: {} })).result.resultType).toBe('complete')
    expect(digest).toHaveBeenCalledTimes(2)
  })

  it('a reused digest still binds: other arguments, another tool or another principal are refused', async () => {
    const { server, send } = lowLevel()
    server.setRequestHandler('tools/call', (params) =>
      params.requestState !== undefined ? { content: [] } : inputRequired({ q: elicitForm('?', ASK) }, 'asked'),
    )
    const alice: AuthInfo = { clientId: 'alice' }
    const digest = vi.spyOn(crypto.subtle, 'digest')
    const token = (await send('tools/call', { name: 't', arguments: { n: 1 } }, alice)).result.requestState
    expect(digest).toHaveBeenCalledTimes(1)
    const retry = (name: string, args: unknown, who?: AuthInfo) =>
      send('tools/call', { name, arguments: args, requestState: token }, who)
    expect((await retry('t', { n: 2 }, alice)).error).toEqual(FROZEN) // other arguments: hashed, then refused
    expect(digest).toHaveBeenCalledTimes(2)
    // the same token and arguments: the digest is known, and the tag still binds tool and principal
    expect((await retry('u', { n: 1 }, alice)).error).toEqual(FROZEN)
    expect((await retry('t', { n: 1 }, { clientId: 'bob' })).error).toEqual(FROZEN)
    expect((await retry('t', { n: 1 })).error).toEqual(FROZEN)
    expect(digest).toHaveBeenCalledTimes(2)
    expect((await retry('t', { n: 1 }, alice)).result.resultType).toBe('complete')
    expect(digest).toHaveBeenCalledTimes(2)
  })

  it('a digest is known only through the token it was sealed into: the same arguments without it are hashed', async () => {
    const { server, send } = lowLevel()
    server.setRequestHandler('tools/call', (params) =>
      params.requestState !== undefined ? { content: [] } : inputRequired({ q: elicitForm('?', ASK) }, 'asked'),
    )
    const token = (await send('tools/call', { name: 't', arguments: { secret: 'x' } })).result.requestState
    const digest = vi.spyOn(crypto.subtle, 'digest')
    // another client's first round with the same arguments: hashed (nothing learnt from timing)
    expect(typeof (await send('tools/call', { name: 't', arguments: { secret: 'x' } })).result.requestState).toBe(
      'string',
    )
    expect(digest).toHaveBeenCalledTimes(1)
    // another token with the same arguments: hashed
    const forged = token.slice(0, -2) + (token.endsWith('A') ? 'BB' : 'AA')
    expect((await send('tools/call', { name: 't', arguments: { secret: 'x' }, requestState: forged })).error).toEqual(
      FROZEN,
    )
    expect(digest).toHaveBeenCalledTimes(2)
    // the holder of the token: known
    expect(
      (await send('tools/call', { name: 't', arguments: { secret: 'x' }, requestState: token })).result.resultType,
    ).toBe('complete')
    expect(digest).toHaveBeenCalledTimes(2)
  })

  it('remembers at most 256 digests, and forgets a failed one', async () => {
    const { server, send } = lowLevel()
    server.setRequestHandler('tools/call', (params) =>
      params.requestState !== undefined ? { content: [] } : inputRequired({ q: elicitForm('?', ASK) }, 'asked'),
    )
    const tokens: string[] = []
    for (let i = 0; i < 300; i++)
      tokens.push((await send('tools/call', { name: 't', arguments: { i } })).result.requestState)
    const digest = vi.spyOn(crypto.subtle, 'digest')
    const retry = (i: number) => send('tools/call', { name: 't', arguments: { i }, requestState: tokens[i] })
    expect((await retry(299)).result.resultType).toBe('complete')
    expect(digest).toHaveBeenCalledTimes(0)
    expect((await retry(0)).result.resultType).toBe('complete') // forgotten (the oldest): hashed again
    expect(digest).toHaveBeenCalledTimes(1)
    digest.mockRejectedValueOnce(new Error('digest unavailable'))
    expect((await send('tools/call', { name: 't', arguments: { i: 'x' } })).error).toMatchObject({ code: -32603 })
    const token = (await send('tools/call', { name: 't', arguments: { i: 'x' } })).result.requestState
    expect(typeof token).toBe('string') // the failure was not remembered
    expect(
      (await send('tools/call', { name: 't', arguments: { i: 'x' }, requestState: token })).result.resultType,
    ).toBe('complete')
  })

  it('a failing digest: -32603 without detail at mint, the frozen error on a retry, no unhandled rejection', async () => {
    const { server, send, log } = lowLevel()
    let ask = true
    server.setRequestHandler('tools/call', (params) =>
      params.requestState !== undefined || !ask ? { content: [] } : inputRequired({ q: elicitForm('?', ASK) }, 'asked'),
    )
    const token = (await send('tools/call', { name: 't', arguments: {} })).result.requestState
    // the retry lands on another instance (sharing the keys): it has not hashed these arguments
    const other = lowLevel()
    other.server.setRequestHandler('tools/call', () => ({ content: [] }))
    vi.spyOn(crypto.subtle, 'digest').mockRejectedValue(new Error('digest unavailable'))
    expect((await send('tools/call', { name: 't', arguments: { n: 1 } })).error).toEqual({
      code: -32603,
      message: 'Internal error',
    })
    expect((await other.send('tools/call', { name: 't', arguments: {}, requestState: token })).error).toEqual(FROZEN)
    ask = false // the digest started for a handler that sealed before is not needed: the result stands
    expect((await send('tools/call', { name: 't', arguments: { n: 2 } })).result.resultType).toBe('complete')
    expect([...log.warn, ...log.error, ...other.log.warn, ...other.log.error].join('\n')).not.toContain(token)
  })

  it('remembers at most 1,024 sealing targets and keeps binding past that (resource URIs are unbounded)', async () => {
    const { server, send } = lowLevel()
    server.setRequestHandler('resources/read', (params) =>
      params.requestState !== undefined
        ? { contents: [{ uri: params.uri, text: 'ok' }] }
        : inputRequired({ q: elicitForm('?', ASK) }, 'asked'),
    )
    const tokens: string[] = []
    for (let i = 0; i < 1100; i++)
      tokens.push((await send('resources/read', { uri: `file:///${i}` })).result.requestState)
    for (const i of [0, 1023, 1024, 1099]) {
      expect(
        (await send('resources/read', { uri: `file:///${i}`, requestState: tokens[i] })).result.contents[0].uri,
      ).toBe(`file:///${i}`)
      expect((await send('resources/read', { uri: `file:///${i + 1}`, requestState: tokens[i] })).error).toEqual(FROZEN)
    }
  })
})
