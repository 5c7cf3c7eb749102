/** The documented rate-limit middleware (examples/rate-limit.ts) on a real server: per principal, per window, every round counted. */
import { describe, expect, it } from 'vitest'
import { askName } from '../fixtures/asker.ts'
import { rateLimit } from '../../examples/rate-limit.ts'
import type { AuthInfo } from '../../src/index.ts'
import { McpServer } from '../../src/server/index.ts'
import { req } from '../helpers.ts'

function setup() {
  let clock = 1_000
  const mcp = new McpServer({ name: 'limited', version: '1' })
  mcp.tool('echo', { description: 'echo' }, () => 'ok')
  mcp.tool('greet', { description: 'asks', use: { who: askName } }, ({ who }) => `hi ${who.name}`)
  mcp.use(rateLimit({ limit: 2, windowMs: 60_000, now: () => clock }))
  const call = async (authInfo: AuthInfo | undefined, params: Record<string, unknown> = { name: 'echo' }) =>
    mcp.server.handle({ kind: 'request', message: req('tools/call', params) as never }, authInfo ? { authInfo } : {})
  return { call, tick: (ms: number) => (clock += ms), mcp }
}

const alice: AuthInfo = { clientId: 'app', subject: 'alice' }
const bob: AuthInfo = { clientId: 'app', subject: 'bob' }

describe('rateLimit middleware (examples/rate-limit.ts)', () => {
  it('allows `limit` calls per window per principal, then -32000 with HTTP 429 and retryAfterMs', async () => {
    const { call, tick } = setup()
    expect((await call(alice)).status).toBe(200)
    tick(10_000)
    expect((await call(alice)).status).toBe(200)
    const refused = await call(alice)
    expect(refused.status).toBe(429)
    expect(refused.response).toMatchObject({
      error: { code: -32000, message: 'Rate limited', data: { retryAfterMs: 50_000 } },
    })
    expect((await call(bob)).status).toBe(200) // another principal has its own window
    expect((await call(undefined)).status).toBe(200) // anonymous, too
    tick(50_000)
    expect((await call(alice)).status).toBe(200) // a new window
  })

  it('counts every round: a replayed later round is refused like any call', async () => {
    const { call } = setup()
    const first = await call(alice, { name: 'greet', arguments: {} })
    const result = (first.response as unknown as { result: { requestState: string } }).result
    const second = await call(alice, {
      name: 'greet',
      arguments: {},
      requestState: result.requestState,
      inputResponses: { askName: { action: 'accept', content: { name: 'Al' } } },
    })
    expect(second.response).toMatchObject({ result: { content: [{ type: 'text', text: 'hi Al' }] } })
    const replayed = await call(alice, {
      name: 'greet',
      arguments: {},
      requestState: result.requestState,
      inputResponses: { askName: { action: 'accept', content: { name: 'Al' } } },
    })
    expect(replayed.status).toBe(429)
  })

  it('refuses a limit or window that is not a positive integer', () => {
    expect(() => rateLimit({ limit: 0, windowMs: 1000 })).toThrow(RangeError)
    expect(() => rateLimit({ limit: 1, windowMs: 1.5 })).toThrow(RangeError)
  })
})
