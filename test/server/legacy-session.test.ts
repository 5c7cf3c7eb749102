/**
 * Sessions without storage: a legacy `initialize` gets a sealed `Mcp-Session-Id`
 * ("s1." token under the request-state key ring's session HKDF info) that later requests carry back.
 */
import { describe, expect, it, vi } from 'vitest'
import {
  RequestStateSecurity,
  Server,
  createFetchHandler,
  inputRequired,
  type FetchHandler,
  type RequestContext,
} from '../../src/server/index.ts'
import type { AuthInfo } from '../../src/protocol/auth.ts'
import { AesGcmKeyRing } from '../../src/request-state/codec.ts'
import { SESSION_CACHE_CHARS, SESSION_CACHE_SIZE } from '../../src/request-state/opened-sessions.ts'
import { post, recordingLogger, req, std, type Posted } from '../helpers.ts'

const KEY_A = 'a'.repeat(32)
const KEY_B = 'b'.repeat(32)
const DAY_MS = 24 * 60 * 60 * 1000
const CAPS = { elicitation: { form: {} }, roots: { listChanged: true } }
const CLIENT_INFO = { name: 'legacy-client', version: '1.0.0' }

interface Setup {
  handler: FetchHandler
  server: Server
  /** The contexts of the handler runs, in order. */
  seen: RequestContext[]
  warn: string[]
  clock: { ms: number }
}

/**
 * A server named `name` (default `sessions`) sealing with `policy`, else with `keys` (null: sealing off), a
 * settable clock, and `subject` as the caller.
 */
function setup(
  options: {
    keys?: string[] | null
    subject?: () => string | undefined
    sessionTtlSeconds?: number
    name?: string
    policy?: RequestStateSecurity
  } = {},
): Setup {
  const clock = { ms: Date.UTC(2026, 0, 1) }
  const { warn, logger } = recordingLogger()
  const server = new Server({ name: options.name ?? 'sessions', version: '1' }, { logger })
  const keys = options.keys === undefined ? [KEY_A] : options.keys
  if (options.policy) server.useRequestStateSecurity(options.policy)
  else if (keys !== null)
    server.useRequestStateSecurity(
      new RequestStateSecurity({
        keys,
        now: () => clock.ms,
        ...(options.sessionTtlSeconds ? { sessionTtlSeconds: options.sessionTtlSeconds } : {}),
      }),
    )
  const seen: RequestContext[] = []
  server.setRequestHandler('tools/list', (_params, ctx) => {
    seen.push(ctx)
    return { tools: [{ name: 'ask', inputSchema: { type: 'object' } }] }
  })
  server.setRequestHandler('tools/call', (_params, ctx) => {
    seen.push(ctx)
    return ctx.requestState ? { content: [{ type: 'text', text: 'done' }] } : inputRequired(undefined, 'asked')
  })
  const subject = options.subject ?? (() => 'alice')
  const handler = createFetchHandler(server, {
    authenticate: (): AuthInfo | undefined => {
      const sub = subject()
      return sub === undefined ? undefined : { clientId: 'c', subject: sub }
    },
  })
  return { handler, server, seen, warn, clock }
}

let nextId = 1
function legacy(
  handler: FetchHandler,
  method: string,
  options: { sessionId?: string; version?: string | null; params?: Record<string, unknown> } = {},
): Promise<Posted> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  }
  const version = options.version === undefined ? '2025-11-25' : options.version
  if (version !== null) headers['mcp-protocol-version'] = version
  if (options.sessionId !== undefined) headers['mcp-session-id'] = options.sessionId
  return post(handler, { jsonrpc: '2.0', id: nextId++, method, params: options.params ?? {} }, headers)
}

/** Initialize as a 2025-11-25 client declaring {@link CAPS}; the reply's session id. */
async function initialize(handler: FetchHandler, protocolVersion = '2025-11-25'): Promise<string> {
  const res = await legacy(handler, 'initialize', {
    version: null,
    params: { protocolVersion, capabilities: CAPS, clientInfo: CLIENT_INFO },
  })
  expect(res.status, res.text).toBe(200)
  expect(res.body.result.protocolVersion).toBe(protocolVersion)
  const id = res.headers.get('mcp-session-id')
  expect(id, 'Mcp-Session-Id').toMatch(/^s1\.[A-Za-z0-9_-]+$/)
  return id!
}

function expect404(res: Posted): void {
  expect(res.status, res.text).toBe(404)
  expect(res.body.jsonrpc).toBe('2.0')
  expect(res.body.error.code).toBe(-32001)
  expect(res.body.error.message).toBe('Session not found')
}

/** A character of `token` flipped (in the middle of the body, so the base64url stays canonical). */
function tamper(token: string): string {
  const i = Math.floor(token.length / 2)
  return token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1)
}

describe('legacy sessions without storage', () => {
  it('initialize issues Mcp-Session-Id; a request carrying it gets the declared capabilities and client info', async () => {
    const { handler, seen } = setup()
    const id = await initialize(handler, '2025-06-18')
    const res = await legacy(handler, 'tools/list', { sessionId: id, version: '2025-06-18' })
    expect(res.status, res.text).toBe(200)
    expect(res.body.result.tools.map((t) => t.name)).toEqual(['ask'])
    expect(seen[0]?.clientCapabilities).toEqual(CAPS)
    expect(seen[0]?.clientInfo).toEqual(CLIENT_INFO)
    expect(seen[0]?.protocolVersion).toBe('2025-06-18')
  })

  it('a version-less request in a session speaks the session version', async () => {
    const { handler, seen } = setup()
    const id = await initialize(handler, '2025-06-18')
    const res = await legacy(handler, 'tools/list', { sessionId: id, version: null })
    expect(res.status, res.text).toBe(200)
    expect(seen[0]?.protocolVersion).toBe('2025-06-18')
  })

  it('no id when it would be longer than MAX_SESSION_ID_LENGTH (huge capabilities): served statelessly, logged', async () => {
    const { handler, warn } = setup()
    const res = await legacy(handler, 'initialize', {
      version: null,
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { experimental: { x: 'y'.repeat(20_000) } },
        clientInfo: CLIENT_INFO,
      },
    })
    expect(res.status, res.text).toBe(200)
    expect(res.headers.get('mcp-session-id')).toBeNull()
    expect(warn.some((line) => /no session id: it would be \d+ characters/.test(line))).toBe(true)
  })

  it('ids are non-deterministic: two initializes get two ids', async () => {
    const { handler } = setup()
    expect(await initialize(handler)).not.toBe(await initialize(handler))
  })

  it('a legacy request without a session id stays stateless (no capabilities)', async () => {
    const { handler, seen } = setup()
    await initialize(handler)
    const res = await legacy(handler, 'tools/list')
    expect(res.status, res.text).toBe(200)
    expect(seen[0]?.clientCapabilities).toEqual({})
  })

  it('a tampered id → 404 with a JSON-RPC error', async () => {
    const { handler, seen, warn } = setup()
    const id = await initialize(handler)
    expect404(await legacy(handler, 'tools/list', { sessionId: tamper(id) }))
    expect404(await legacy(handler, 'tools/list', { sessionId: 'not-a-session' }))
    expect404(await legacy(handler, 'tools/list', { sessionId: id.slice(0, -4) }))
    expect(seen).toHaveLength(0)
    expect(warn.join('\n')).toMatch(/session id rejected/)
  })

  it('an expired id → 404 (default lifetime 14 days; configurable in seconds)', async () => {
    const { handler, clock } = setup()
    const id = await initialize(handler)
    clock.ms += 14 * DAY_MS - 1000
    expect((await legacy(handler, 'tools/list', { sessionId: id })).status).toBe(200)
    clock.ms += 2000
    expect404(await legacy(handler, 'tools/list', { sessionId: id }))

    const short = setup({ sessionTtlSeconds: 60 })
    const shortId = await initialize(short.handler)
    short.clock.ms += 61_000
    expect404(await legacy(short.handler, 'tools/list', { sessionId: shortId }))
  })

  it("another principal's id → 404; an authenticated id presented without auth → 404", async () => {
    let subject: string | undefined = 'alice'
    const { handler } = setup({ subject: () => subject })
    const id = await initialize(handler)
    subject = 'mallory'
    expect404(await legacy(handler, 'tools/list', { sessionId: id }))
    subject = undefined
    expect404(await legacy(handler, 'tools/list', { sessionId: id }))
    subject = 'alice'
    expect((await legacy(handler, 'tools/list', { sessionId: id })).status).toBe(200)
  })

  it('a requestState token presented as a session id → 404', async () => {
    const { handler } = setup()
    const first = await post(handler, req('tools/call', { name: 'ask', arguments: {} }), std('tools/call', 'ask'))
    const state = first.body.result.requestState
    expect(state).toMatch(/^v2\./)
    expect404(await legacy(handler, 'tools/list', { sessionId: state }))
    // even re-prefixed as a session id, the requestState key does not open it
    expect404(await legacy(handler, 'tools/list', { sessionId: 's1.' + state.slice(3) }))
  })

  it('a session id presented as requestState on a 2026 tools/call → the frozen -32602', async () => {
    const { handler } = setup()
    const id = await initialize(handler)
    for (const token of [id, 'v2.' + id.slice(3)]) {
      const res = await post(
        handler,
        req('tools/call', { name: 'ask', arguments: {}, requestState: token }),
        std('tools/call', 'ask'),
      )
      expect(res.body.error, res.text).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' })
    }
  })

  it('session ids and requestState tokens of one ring never open as each other', async () => {
    const ring = new AesGcmKeyRing([KEY_A])
    const bytes = new TextEncoder().encode('{}')
    const session = await ring.sessionCodec('x').seal(bytes)
    const state = await ring.sealBound(bytes, '', 'x') // an empty binding: the AAD is the session's but for the prefix
    expect(session.startsWith('s1.')).toBe(true)
    await expect(ring.openBound('v2.' + session.slice(3), '', 'x')).rejects.toThrow(/invalid requestState/)
    await expect(ring.sessionCodec('x').unseal('s1.' + state.slice(3))).rejects.toThrow(/invalid requestState/)
    expect(new TextDecoder().decode(await ring.sessionCodec('x').unseal(session))).toBe('{}')
  })

  it('an id minted by one instance opens on another with the same keys, not on one with other keys', async () => {
    const one = setup({ keys: [KEY_A] })
    const id = await initialize(one.handler)
    const same = setup({ keys: [KEY_B, KEY_A] }) // rotated: the old key still opens
    const res = await legacy(same.handler, 'tools/list', { sessionId: id })
    expect(res.status, res.text).toBe(200)
    expect(same.seen[0]?.clientCapabilities).toEqual(CAPS)
    expect404(await legacy(setup({ keys: [KEY_B] }).handler, 'tools/list', { sessionId: id }))
  })

  it("an MCP-Protocol-Version other than the session's → 400", async () => {
    const { handler, seen } = setup()
    const id = await initialize(handler, '2025-11-25')
    const res = await legacy(handler, 'tools/list', { sessionId: id, version: '2025-06-18' })
    expect(res.status, res.text).toBe(400)
    expect(res.body.error.code).toBe(-32600)
    expect(seen).toHaveLength(0)
  })

  it('initialize ignores a stale id (a client re-initializing after 404)', async () => {
    const { handler } = setup()
    const res = await legacy(handler, 'initialize', {
      sessionId: 's1.stale',
      version: null,
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO },
    })
    expect(res.status, res.text).toBe(200)
    expect(res.headers.get('mcp-session-id')).toMatch(/^s1\./)
  })

  it('with sealing off: no id is issued, and a received one is ignored', async () => {
    const { handler } = setup({ keys: null })
    const res = await legacy(handler, 'initialize', {
      version: null,
      params: { protocolVersion: '2025-11-25', capabilities: CAPS, clientInfo: CLIENT_INFO },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('mcp-session-id')).toBeNull()
    expect((await legacy(handler, 'tools/list', { sessionId: 's1.whatever' })).status).toBe(200)
  })

  it('2026 requests ignore Mcp-Session-Id entirely', async () => {
    const { handler } = setup()
    const res = await post(handler, req('tools/list'), { ...std('tools/list'), 'mcp-session-id': 'garbage' })
    expect(res.status, res.text).toBe(200)
    expect(res.headers.get('mcp-session-id')).toBeNull()
  })

  it('notifications/cancelled aborts a running request of its session, its signal read before or after', async () => {
    const { handler, server } = setup()
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const seen: Array<[string, boolean, unknown]> = []
    let running = 0
    let bothRunning!: () => void
    const started = new Promise<void>((resolve) => (bothRunning = resolve))
    server.setRequestHandler('tools/call', async (params, ctx) => {
      if (++running === 2) bothRunning()
      const early = params.name === 'early' ? ctx.signal : undefined
      let heard = false
      early?.addEventListener('abort', () => (heard = true))
      await gate
      seen.push([String(params.name), ctx.signal.aborted && (early === undefined || heard), ctx.signal.reason])
      return { content: [] }
    })
    const id = await initialize(handler)
    const headers = { 'content-type': 'application/json', accept: 'application/json', 'mcp-session-id': id }
    const calls = ['early', 'late'].map((name, i) =>
      post(handler, { jsonrpc: '2.0', id: `c${i}`, method: 'tools/call', params: { name } }, headers),
    )
    await started
    for (const requestId of ['c0', 'c1']) {
      const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } }
      expect((await post(handler, cancel, headers)).status).toBe(202)
    }
    release()
    await Promise.all(calls)
    // by name: which call reaches its handler first is not fixed (opening each session id is Web Crypto,
    // whose work settles in any order under load), so neither is the order they resume in
    seen.sort(([a], [b]) => a.localeCompare(b))
    expect(seen.map(([name, aborted]) => [name, aborted])).toEqual([
      ['early', true],
      ['late', true],
    ])
    for (const [, , reason] of seen) expect(String(reason)).toMatch(/cancelled by the client/)
  })

  it('DELETE and GET with a session id → 405', async () => {
    const { handler } = setup()
    const id = await initialize(handler)
    for (const method of ['DELETE', 'GET']) {
      const res = await handler(new Request('http://localhost/mcp', { method, headers: { 'mcp-session-id': id } }))
      expect(res.status, method).toBe(405)
    }
  })

  it('a cross-origin caller can read Mcp-Session-Id and send it', async () => {
    const server = new Server({ name: 'sessions', version: '1' })
    server.useRequestStateSecurity(RequestStateSecurity.ephemeral())
    const handler = createFetchHandler(server, { allowedOrigins: ['https://app.example'] })
    const pre = await handler(
      new Request('http://localhost/mcp', {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
      }),
    )
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/mcp-session-id/)
    const res = await handler(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: {
          origin: 'https://app.example',
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO },
        }),
      }),
    )
    expect(res.headers.get('mcp-session-id')).toMatch(/^s1\./)
    expect(res.headers.get('access-control-expose-headers')).toMatch(/Mcp-Session-Id/)
  })
})

/**
 * A session id this instance has opened is not decrypted again (a bounded cache by exact token), and
 * every check still runs: each refusal below is made against a warm cache, exactly as cold.
 */
describe('legacy sessions: an id opened before', () => {
  /** Initialize, then one request that opens the id (the cache is warm); the id. */
  async function warm(handler: FetchHandler): Promise<string> {
    const id = await initialize(handler)
    expect((await legacy(handler, 'tools/list', { sessionId: id })).status).toBe(200)
    return id
  }

  it('is not decrypted again: the next requests open it without AES-GCM', async () => {
    const { handler, seen } = setup()
    const decrypt = vi.spyOn(crypto.subtle, 'decrypt')
    try {
      const id = await warm(handler)
      const opened = decrypt.mock.calls.length
      expect(opened).toBe(1)
      for (let i = 0; i < 3; i++) expect((await legacy(handler, 'tools/list', { sessionId: id })).status).toBe(200)
      expect(decrypt.mock.calls.length).toBe(opened)
      expect(seen.map((ctx) => ctx.clientCapabilities)).toEqual([CAPS, CAPS, CAPS, CAPS])
    } finally {
      decrypt.mockRestore()
    }
  })

  it('each request gets its own copy of what the client declared: a handler changing it changes no other', async () => {
    const { handler, server, seen } = setup()
    server.setRequestHandler('tools/list', (_params, ctx) => {
      seen.push(ctx)
      const caps = ctx.clientCapabilities as Record<string, Record<string, unknown>>
      caps.elicitation.form = 'changed'
      caps.added = {}
      ;(ctx.clientInfo as { name: string }).name = 'changed'
      return { tools: [] }
    })
    const id = await initialize(handler)
    for (let i = 0; i < 3; i++) expect((await legacy(handler, 'tools/list', { sessionId: id })).status).toBe(200)
    expect(new Set(seen.map((ctx) => ctx.clientCapabilities)).size).toBe(3)
    server.setRequestHandler('tools/list', (_params, ctx) => {
      seen.push(ctx)
      return { tools: [] }
    })
    expect((await legacy(handler, 'tools/list', { sessionId: id })).status).toBe(200)
    expect(seen[3]?.clientCapabilities).toEqual(CAPS)
    expect(seen[3]?.clientInfo).toEqual(CLIENT_INFO)
  })

  it('a tampered id → 404, the genuine one still served', async () => {
    const { handler, warn } = setup()
    const id = await warm(handler)
    expect404(await legacy(handler, 'tools/list', { sessionId: tamper(id) }))
    expect404(await legacy(handler, 'tools/list', { sessionId: id + 'A' }))
    expect404(await legacy(handler, 'tools/list', { sessionId: id.slice(0, -4) }))
    expect(warn.join('\n')).toMatch(/session id rejected: (seal|malformed)/)
    expect((await legacy(handler, 'tools/list', { sessionId: id })).status).toBe(200)
  })

  it('a forged id (sealed under another key, same claims) → 404', async () => {
    const { handler, warn } = setup()
    await warm(handler)
    const forged = await initialize(setup({ keys: [KEY_B] }).handler)
    expect404(await legacy(handler, 'tools/list', { sessionId: forged }))
    expect(warn.join('\n')).toMatch(/session id rejected: unknown key/)
  })

  it('an expired id → 404 (and stays refused)', async () => {
    const { handler, clock, warn } = setup()
    const id = await warm(handler)
    clock.ms += 14 * DAY_MS + 1000
    expect404(await legacy(handler, 'tools/list', { sessionId: id }))
    expect404(await legacy(handler, 'tools/list', { sessionId: id }))
    expect(warn.filter((line) => line === 'session id rejected: expired')).toHaveLength(2)
  })

  it("another principal's id → 404; without auth → 404; its own principal still served", async () => {
    let subject: string | undefined = 'alice'
    const { handler, warn } = setup({ subject: () => subject })
    const id = await warm(handler)
    subject = 'mallory'
    expect404(await legacy(handler, 'tools/list', { sessionId: id }))
    subject = undefined
    expect404(await legacy(handler, 'tools/list', { sessionId: id }))
    expect(warn.filter((line) => line === 'session id rejected: principal')).toHaveLength(2)
    subject = 'alice'
    expect((await legacy(handler, 'tools/list', { sessionId: id })).status).toBe(200)
  })

  it("another audience's id → 404, on a policy shared by two servers", async () => {
    const policy = new RequestStateSecurity({ keys: [KEY_A] })
    const one = setup({ policy })
    const id = await warm(one.handler)
    const other = setup({ policy, name: 'elsewhere' })
    expect404(await legacy(other.handler, 'tools/list', { sessionId: id }))
    expect(other.warn.join('\n')).toMatch(/session id rejected: seal/)
  })

  it('keys rotated: an id the new policy cannot open → 404; one it can (old key kept) → 200', async () => {
    const { handler, server, clock } = setup()
    const id = await warm(handler)
    const now = () => clock.ms
    server.useRequestStateSecurity(new RequestStateSecurity({ keys: [KEY_B], now }))
    expect404(await legacy(handler, 'tools/list', { sessionId: id }))
    server.useRequestStateSecurity(new RequestStateSecurity({ keys: [KEY_B, KEY_A], now }))
    expect((await legacy(handler, 'tools/list', { sessionId: id })).status).toBe(200)
  })

  it(`is bounded: after ${SESSION_CACHE_SIZE} other ids are opened, the first is decrypted again`, async () => {
    const policy = new RequestStateSecurity({ keys: [KEY_A] })
    const session = { protocolVersion: '2025-11-25', clientCapabilities: {} }
    const mint = (i: number) => policy.sealSession({ sid: `s${i}`, ...session }, undefined, 'aud')
    const ids = await Promise.all(Array.from({ length: SESSION_CACHE_SIZE + 1 }, (_, i) => mint(i)))
    const decrypt = vi.spyOn(crypto.subtle, 'decrypt')
    try {
      const open = async (id: string) => (await policy.openSession(id, undefined, 'aud')).sid
      expect(await open(ids[0])).toBe('s0')
      expect(await open(ids[0])).toBe('s0')
      expect(decrypt).toHaveBeenCalledTimes(1)
      for (const id of ids.slice(1, SESSION_CACHE_SIZE)) await open(id) // the cache is full
      expect(await open(ids[0])).toBe('s0') // still kept
      expect(decrypt).toHaveBeenCalledTimes(SESSION_CACHE_SIZE)
      await open(ids[SESSION_CACHE_SIZE]) // one more: ids[0], the first kept, is dropped
      expect(decrypt).toHaveBeenCalledTimes(SESSION_CACHE_SIZE + 1)
      expect(await open(ids[0])).toBe('s0')
      expect(decrypt).toHaveBeenCalledTimes(SESSION_CACHE_SIZE + 2)
      expect(await open(ids[SESSION_CACHE_SIZE])).toBe(`s${SESSION_CACHE_SIZE}`) // the newest still kept
      expect(decrypt).toHaveBeenCalledTimes(SESSION_CACHE_SIZE + 2)
    } finally {
      decrypt.mockRestore()
    }
  })

  it(`is bounded in size: ids whose clients declared much are kept up to ${SESSION_CACHE_CHARS} characters in all`, async () => {
    const policy = new RequestStateSecurity({ keys: [KEY_A] })
    // what a client may declare: experimental capabilities are any JSON (parsed, 950 empty objects weigh ~60 KB)
    const heavy = { experimental: { x: Array.from({ length: 950 }, () => ({})) } }
    const session = { protocolVersion: '2025-11-25', clientCapabilities: heavy }
    const ids = await Promise.all(
      Array.from({ length: 800 }, (_, i) => policy.sealSession({ sid: `s${i}`, ...session }, undefined, 'aud')),
    )
    expect(ids[0].length).toBeLessThanOrEqual(4096) // short enough to be kept
    const kept = Math.floor(SESSION_CACHE_CHARS / (ids[0].length + JSON.stringify([heavy]).length))
    expect(kept).toBeLessThan(ids.length)
    const decrypt = vi.spyOn(crypto.subtle, 'decrypt')
    try {
      const open = async (id: string) => (await policy.openSession(id, undefined, 'aud')).clientCapabilities
      for (const id of ids) expect(await open(id)).toEqual(heavy)
      expect(decrypt).toHaveBeenCalledTimes(ids.length)
      for (const id of ids.slice(-kept)) expect(await open(id)).toEqual(heavy) // the newest: kept
      expect(decrypt).toHaveBeenCalledTimes(ids.length)
      expect(await open(ids[ids.length - kept - 1])).toEqual(heavy) // one older: dropped for size
      expect(decrypt).toHaveBeenCalledTimes(ids.length + 1)
    } finally {
      decrypt.mockRestore()
    }
  })
})
