/**
 * Under `wrangler dev`, a 2025-era client that aborts a call whose handler asks nothing aborts the handler's
 * `ctx.signal` within 1 s: the client's `notifications/cancelled` reaches the running request through the
 * Durable Object mailbox (the request waits on it for its own cancellation). The official v1 client (its
 * `callTool` with an AbortSignal) and ours (`versionNegotiation: 'legacy'`, which POSTs the notification on
 * abort). Without it the handler would run its 12 s (the connection's end aborts it only at a keep-alive
 * write, ~15–30 s later by default). The measured delays are printed.
 *
 * The Worker is test/workers/crossiso.ts under test/workers/crossiso.toml (the demo with `MCP_MAILBOX`
 * bound, and tool `slow`, whose calls `GET /slow-calls` counts). Across isolates under Miniflare:
 * test/e2e/crossiso-cancel.test.ts.
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { startWorker, type RunningWorker } from '../workerd.ts'

type SlowCalls = { started: number; aborted: number; completed: number }

let w: RunningWorker
beforeAll(async () => {
  w = await startWorker({ config: 'test/workers/crossiso.toml' })
}, 120_000)
afterAll(async () => {
  await w?.stop()
})

const slowCalls = async () => (await (await fetch(new URL('/slow-calls', w.url))).json()) as SlowCalls

/** Poll the counts until `done` holds (at most `maxMs`); the counts and when they were read. */
async function until(done: (now: SlowCalls) => boolean, maxMs: number): Promise<{ now: SlowCalls; at: number }> {
  const t0 = performance.now()
  let now = await slowCalls()
  while (!done(now) && performance.now() - t0 < maxMs) {
    await new Promise((r) => setTimeout(r, 20))
    now = await slowCalls()
  }
  return { now, at: performance.now() }
}

describe('a 2025-era client aborting a call on Workers (wrangler dev, Durable Object mailbox)', () => {
  const delays: Record<string, number> = {}
  afterAll(() => {
    console.log(`abort → handler aborted (ms, wrangler dev): ${JSON.stringify(delays)}`)
  })

  /** Start the call with `call(signal)`, abort it once its handler runs, and measure until the handler saw it. */
  async function abortRunning(name: string, call: (signal: AbortSignal) => Promise<unknown>) {
    const before = await slowCalls()
    const ac = new AbortController()
    const settled = call(ac.signal).then(
      () => 'resolved',
      (error: unknown) => error,
    )
    const running = await until((now) => now.started > before.started, 20_000)
    expect(running.now.started).toBe(before.started + 1)
    const t0 = performance.now()
    ac.abort()
    expect(await settled).toBeInstanceOf(Error) // the client gave up at once
    const { now, at } = await until((n) => n.aborted > before.aborted || n.completed > before.completed, 15_000)
    delays[name] = Math.round(at - t0)
    expect(now).toEqual({ started: before.started + 1, aborted: before.aborted + 1, completed: before.completed })
    expect(at - t0).toBeLessThan(1_000)
  }

  it('the official v1 client: callTool aborted with an AbortSignal aborts the handler within 1 s', async () => {
    const client = new V1Client({ name: 'v1', version: '1' })
    await client.connect(new V1Transport(new URL(w.url)))
    try {
      expect(client.getServerVersion()?.name).toBeDefined()
      await abortRunning('v1 client', (signal) =>
        client.callTool({ name: 'slow', arguments: { ms: 12_000 } }, undefined, { signal }),
      )
    } finally {
      await client.close()
    }
  })

  it('our Client in a 2025 session: an aborted callTool aborts the handler within 1 s', async () => {
    const client = new Client({ transport: new StreamableHttpClientTransport(w.url), versionNegotiation: 'legacy' })
    try {
      await client.listTools() // the session is open
      await abortRunning('our client', (signal) => client.callTool('slow', { ms: 12_000 }, { signal }))
    } finally {
      await client.close()
    }
  })
})
