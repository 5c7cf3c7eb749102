/**
 * JSON states through a server, and the stand-alone codec (`createRequestStateCodec`): what it seals a
 * server opens, what a server seals it opens, and every binding it checks is the server's.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import type { RequestStateValue } from '../../src/request-state/claims.ts'
import {
  McpServer,
  RequestStateSecurity,
  createFetchHandler,
  createRequestStateCodec,
  elicitForm,
  inputRequired,
  type RequestStateTarget,
} from '../../src/server/index.ts'
import { InvalidRequestStateError } from '../../src/request-state/errors.ts'
import { ASK, call, recordingLogger } from '../helpers.ts'

const KEYS = ['a'.repeat(32), 'b'.repeat(32)]
const FROZEN = { code: -32602, message: 'Invalid or expired requestState', data: { reason: 'invalid_request_state' } }

function server(audience?: string) {
  const seen: RequestStateValue[] = []
  const security = new RequestStateSecurity({ keys: KEYS, ...(audience === undefined ? {} : { audience }) })
  const mcp = new McpServer(
    { name: 'billing', version: '1' },
    { requestStateSecurity: security, logger: recordingLogger().logger },
  )
  mcp.tool('deploy', { input: { env: v.string() } }, (_args, ctx) => {
    if (ctx.requestState === undefined)
      return inputRequired({ q: elicitForm('?', ASK) }, { step: 1, plan: ['build', 'ship'], note: 'é "q"' })
    seen.push(ctx.requestState)
    return 'done'
  })
  return { handler: createFetchHandler(mcp), seen }
}

const to: RequestStateTarget = { method: 'tools/call', target: 'deploy', arguments: { env: 'prod' } }

describe('JSON requestState and the stand-alone codec', () => {
  it('a handler writes an object and reads back an equal object; the token holds no plaintext', async () => {
    const { handler, seen } = server()
    const first = await call(handler, 'tools/call', { name: 'deploy', arguments: { env: 'prod' } })
    const token: string = first.body.result.requestState
    expect(token).toMatch(/^v2\.[A-Za-z0-9_-]+$/)
    expect(first.text).not.toContain('build')
    const second = await call(handler, 'tools/call', {
      name: 'deploy',
      arguments: { env: 'prod' },
      requestState: token,
    })
    expect(second.body.result.content[0].text).toBe('done')
    expect(seen).toEqual([{ step: 1, plan: ['build', 'ship'], note: 'é "q"' }])
  })

  it('what the codec seals, the server opens; what the server seals, the codec opens', async () => {
    const { handler, seen } = server()
    const codec = createRequestStateCodec<{ step: number }>(new RequestStateSecurity({ keys: KEYS }), {
      audience: 'billing', // the server's name: its default audience
    })
    const token = await codec.seal({ step: 7 }, to)
    const res = await call(handler, 'tools/call', { name: 'deploy', arguments: { env: 'prod' }, requestState: token })
    expect(res.body.result.content[0].text).toBe('done')
    expect(seen).toEqual([{ step: 7 }])
    const minted = (await call(handler, 'tools/call', { name: 'deploy', arguments: { env: 'prod' } })).body.result
    expect(await codec.open(minted.requestState, to)).toEqual({ step: 1, plan: ['build', 'ship'], note: 'é "q"' })
  })

  it('binds exactly like the server: other arguments, tool, audience or principal are refused', async () => {
    const security = new RequestStateSecurity({ keys: KEYS })
    const codec = createRequestStateCodec(security, { audience: 'billing' })
    const token = await codec.seal('s', to)
    // absent, null and {} arguments bind alike, and key order never matters
    const many = { method: 'tools/call', target: 't', arguments: { b: 1, a: 2 } } as const
    expect(await codec.open(await codec.seal(1, many), { ...many, arguments: { a: 2, b: 1 } })).toBe(1)
    const none = { method: 'tools/call', target: 't' } as const
    expect(await codec.open(await codec.seal(2, none), { ...none, arguments: null })).toBe(2)
    const other = createRequestStateCodec(new RequestStateSecurity({ keys: ['c'.repeat(32)] }), { audience: 'billing' })
    const flipped = token.slice(0, -2) + (token.at(-2) === 'A' ? 'B' : 'A') + token.slice(-1)
    const refused = [
      () => codec.open(token, { ...to, arguments: { env: 'staging' } }),
      () => codec.open(token, { ...to, target: 'other' }),
      () => codec.open(token, { ...to, method: 'prompts/get' }),
      () => codec.open(token, { ...to, authInfo: { clientId: 'c', scopes: [] } }),
      () => createRequestStateCodec(security, { audience: 'other' }).open(token, to),
      () => createRequestStateCodec(security, { audience: null }).open(token, to),
      () => other.open(token, to),
      () => codec.open(flipped, to),
    ]
    for (const attempt of refused) await expect(attempt()).rejects.toBeInstanceOf(InvalidRequestStateError)
    // resources/read binds the URI only
    const file = { method: 'resources/read', target: 'file:///a' } as const
    expect(await codec.open(await codec.seal('r', { ...file, arguments: { x: 1 } }), file)).toBe('r')
  })

  it('a token the server rejects gets the frozen error, and a non-JSON state is refused at seal', async () => {
    const { handler } = server()
    const codec = createRequestStateCodec(new RequestStateSecurity({ keys: KEYS }), { audience: 'not-billing' })
    const token = await codec.seal({ step: 1 }, to)
    const res = await call(handler, 'tools/call', { name: 'deploy', arguments: { env: 'prod' }, requestState: token })
    expect(res.body.error).toEqual(FROZEN)
    await expect(codec.seal(undefined as never, to)).rejects.toThrow(TypeError)
  })
})
