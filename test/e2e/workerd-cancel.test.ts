/**
 * Cancellation inside workerd (`wrangler dev`, `enable_request_signal`; test/workers/cancel.ts): a client
 * that goes away aborts the handler's signal for a streamed call and for a quiet one (SSE accepted), on
 * both lanes; with `Accept: application/json` only, a quiet handler runs to completion. Node's side is in
 * test/server/http/quiet-requests.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { startWorker, type RunningWorker } from '../workerd.ts'

describe('cancellation in workerd (enable_request_signal)', () => {
  // test/workers/cancel.ts: keepAliveMs 200
  const KEEP_ALIVE_MS = 200
  let w: RunningWorker
  let c: Client
  beforeAll(async () => {
    w = await startWorker({ script: 'test/workers/cancel.ts' })
    c = new Client({ transport: new StreamableHttpClientTransport(w.url) })
  })
  afterAll(async () => {
    await w?.stop()
  })
  /** The Worker's counts: `wait` aborted, `quiet` started, `quiet` aborted, `quiet` completed. */
  const counts = async () =>
    ((await c.callTool('aborted', {})).content[0] as { text: string }).text.split(',').map(Number)
  /** Poll the counts until `done(counts)` (or `maxMs` pass); the last counts and the ms it took. */
  async function until(done: (now: number[]) => boolean, maxMs: number): Promise<{ now: number[]; ms: number }> {
    const t0 = Date.now()
    let now = await counts()
    while (!done(now) && Date.now() - t0 < maxMs) {
      await new Promise((r) => setTimeout(r, 50))
      now = await counts()
    }
    return { now, ms: Date.now() - t0 }
  }
  /** Poll until the counts differ from `before`. */
  const changed = (before: number[], maxMs: number) => until((now) => now.join() !== before.join(), maxMs)
  /** POST a `quiet` tools/call (2026-07-28, or 2025-era after an `initialize`); resolves once its handler runs. */
  async function quietCall(lane: 'modern' | 'legacy', accept: string, args: Record<string, unknown>) {
    const base = { 'content-type': 'application/json', accept }
    let headers: Record<string, string>
    let body: unknown
    if (lane === 'modern') {
      headers = { ...base, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'quiet' }
      body = {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'quiet', arguments: args, _meta: MODERN_META },
      }
    } else {
      const init = await fetch(w.url, {
        method: 'POST',
        headers: { ...base, accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      })
      await init.text()
      const session = init.headers.get('mcp-session-id')!
      headers = { ...base, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }
      body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'quiet', arguments: args } }
    }
    const before = await counts()
    const controller = new AbortController()
    const done = fetch(w.url, { method: 'POST', signal: controller.signal, headers, body: JSON.stringify(body) })
      .then((res) => res.text())
      .catch(() => 'aborted')
    // abort only once the handler runs (a request aborted before it arrives has no handler to abort)
    const started = await until((now) => now[1] > before[1], 10_000)
    expect(started.now[1]).toBe(before[1] + 1)
    return { started: started.now, abort: () => (controller.abort(), done) }
  }

  it("closing a streamed tools/call aborts the handler's signal inside the Worker", async () => {
    const before = await counts()
    const controller = new AbortController()
    const res = await fetch(w.url, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'wait',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'wait', _meta: { ...MODERN_META, progressToken: 't' } },
      }),
    })
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const reader = res.body!.getReader()
    // chunk boundaries are the runtime's (the assets router in front of the Worker splits them): read up to the first event's end
    let first = ''
    const decoder = new TextDecoder()
    while (!first.includes('\n\n')) {
      const chunk = await reader.read()
      if (chunk.done) break
      first += decoder.decode(chunk.value, { stream: true })
    }
    expect(first).toContain('notifications/progress')
    controller.abort()
    const { now } = await changed(before, 10_000)
    expect(now).toEqual([before[0] + 1, ...before.slice(1)])
  })

  // A quiet handler's response is pending until keepAliveMs, then an SSE stream of keep-alives: workerd sees
  // the client gone at a write after it left, so the abort comes within about 2 keep-alives (bound: generous).
  for (const lane of ['modern', 'legacy'] as const)
    for (const abortAtMs of [0, KEEP_ALIVE_MS * 3])
      it(`a quiet tools/call (${lane}, Accept with text/event-stream, client gone ${abortAtMs} ms after it started) aborts`, async () => {
        const call = await quietCall(lane, 'application/json, text/event-stream', {})
        await new Promise((r) => setTimeout(r, abortAtMs))
        await call.abort()
        const [wait, started, aborted, completed] = call.started
        const { now, ms } = await changed(call.started, 20_000)
        expect(now).toEqual([wait, started, aborted + 1, completed])
        expect(ms).toBeLessThan(KEEP_ALIVE_MS * 3 + 5_000)
      })

  // Accept: application/json only: nothing can be written before the answer, so workerd never sees the client go.
  for (const lane of ['modern', 'legacy'] as const)
    it(`a quiet tools/call (${lane}, Accept: application/json only) runs to completion after the client left`, async () => {
      const call = await quietCall(lane, 'application/json', { ms: 1_500 })
      await call.abort()
      const [wait, started, aborted, completed] = call.started
      const { now } = await changed(call.started, 20_000)
      expect(now).toEqual([wait, started, aborted, completed + 1])
    })
})

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
}
