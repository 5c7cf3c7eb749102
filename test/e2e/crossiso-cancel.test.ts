/**
 * Cross-isolate: a 2025-era client's `notifications/cancelled` aborts a running handler that asks nothing
 * (tool `slow`, which would wait 12 s), whichever isolate it lands on: the request, once it has run
 * `WATCH_AFTER_MS`, waits on the Durable Object mailbox (`McpQuestionMailbox` on `env.MCP_MAILBOX`) for its
 * own cancellation, and the isolate the notification reaches delivers it there. The bound asserted is 1 s
 * from the cancel to the handler's answer (which it sends the moment its `ctx.signal` aborts): without the
 * watch the handler runs its 12 s (the client's going away would abort it only ~30 s later, at a keep-alive
 * write). The measured delays are printed.
 *
 * Also: a cancellation that arrives before the request waits still counts (the object keeps it 30 s); the
 * object keeps nothing for a request once it has ended (a wait on its key meets nobody: 504); a request
 * that ends within `WATCH_AFTER_MS` never reaches the object.
 *
 * How (test/crossiso-harness.ts): the demo Worker wrapped by test/workers/crossiso.ts, run by Miniflare as
 * two Workers in one workerd process, each its own isolate: `a` defines the Durable Object class, `b` binds
 * the same namespace (`scriptName: 'a'`). The wrapper records the keys each isolate waits on
 * (`GET /mailbox-waits`) and can wait on a key itself (`POST /mailbox-probe`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCrossIsolate, type CrossIsolate } from '../crossiso-harness.ts'
import { initializeLegacy, legacyPost, messages, remote } from '../legacy-wire.ts'
import { WATCH_AFTER_MS } from '../../src/server/legacy-cancel.ts'

type Name = 'a' | 'b'

let running: CrossIsolate<Name> | undefined
let base = {} as Record<Name, string>

beforeAll(async () => {
  running = await startCrossIsolate<Name>({
    a: { MCP_MAILBOX: { className: 'McpQuestionMailbox', useSQLite: true } },
    b: { MCP_MAILBOX: { className: 'McpQuestionMailbox', scriptName: 'a' } },
  })
  base = running.base
})

afterAll(async () => {
  await running?.dispose()
})

function post(worker: Name, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return legacyPost(remote(new URL('mcp', base[worker])), body, headers)
}

/** initialize at 2025-11-25; the session headers for the requests after it. */
function initialize(worker: Name): Promise<Record<string, string>> {
  return initializeLegacy(remote(new URL('mcp', base[worker])), {})
}

/** Call `slow` `{ ms }` on `worker` as request `id` (not awaited: a quiet call's headers may come late). */
function callSlow(worker: Name, session: Record<string, string>, id: number, ms: number) {
  return post(
    worker,
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: { ms } } },
    session,
  ).then(async (res) => {
    const message = await messages(res).next()
    const text = (message.result as { content: { text: string }[] }).content[0].text
    return JSON.parse(text) as { aborted: boolean; isolate: string }
  })
}

async function cancel(worker: Name, session: Record<string, string>, requestId: number): Promise<void> {
  const res = await post(worker, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } }, session)
  expect(res.status).toBe(202)
  await res.body?.cancel()
}

/** The cancellation keys (`request:…`) isolate `worker` has waited on. */
async function waits(worker: Name): Promise<string[]> {
  const { keys } = (await (await fetch(new URL('mailbox-waits', base[worker]))).json()) as { keys: string[] }
  return keys.filter((key) => key.startsWith('request:'))
}

/** Poll until `worker` waits on one more cancellation key than `before`; that key. */
async function nextWait(worker: Name, before: number): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const keys = await waits(worker)
    if (keys.length > before) return keys[before]
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`${worker} never waited on a cancellation`)
}

/** Wait on `key` in the object for `ms` ms from `worker`: 504 nobody waits and nothing is kept; 499 a wait holds it. */
async function probe(worker: Name, key: string, ms = 300): Promise<number> {
  const res = await fetch(new URL('mailbox-probe', base[worker]), { method: 'POST', body: JSON.stringify({ key, ms }) })
  return ((await res.json()) as { status: number }).status
}

async function isolateOf(worker: Name): Promise<string> {
  return ((await (await fetch(new URL('isolate', base[worker]))).json()) as { isolate: string }).isolate
}

describe('notifications/cancelled reaches a running 2025-era handler through the Durable Object', () => {
  const delays: Record<string, number> = {}
  afterAll(() => {
    console.log(`cancel → handler aborted (ms, Miniflare): ${JSON.stringify(delays)}`)
  })

  for (const where of ['b', 'a'] as const) {
    it(`POSTed to ${where}, it aborts a’s handler within 1 s (not its 12 s); the object keeps nothing afterwards`, async () => {
      const session = await initialize('a')
      const before = (await waits('a')).length
      const call = callSlow('a', session, 1, 12_000)
      const key = await nextWait('a', before) // the request runs, and waits on its cancellation
      expect(await probe('b', key)).toBe(499) // the object holds that wait (another one is refused)
      const t0 = performance.now()
      await cancel(where, session, 1)
      const result = await call
      const ms = performance.now() - t0
      delays[where === 'a' ? 'same isolate' : 'other isolate'] = Math.round(ms)
      expect(result.aborted).toBe(true)
      expect(ms).toBeLessThan(1_000)
      if (where === 'b') expect(result.isolate).not.toBe(await isolateOf('b'))
      expect(await probe('b', key)).toBe(504) // its wait ended with the request, and nothing is kept
    })
  }

  it('a cancellation that arrives before the request waits still aborts it', async () => {
    const session = await initialize('a')
    await cancel('b', session, 2) // kept by the object for the wait to come (30 s)
    const t0 = performance.now()
    const result = await callSlow('a', session, 2, 12_000)
    const ms = performance.now() - t0
    delays['cancel first (from the call)'] = Math.round(ms)
    expect(result.aborted).toBe(true)
    expect(ms).toBeLessThan(WATCH_AFTER_MS + 1_000)
  })

  it('a request that outlives WATCH_AFTER_MS waits until it ends, then the object keeps nothing for it', async () => {
    const session = await initialize('a')
    const before = (await waits('a')).length
    expect((await callSlow('a', session, 3, WATCH_AFTER_MS + 600)).aborted).toBe(false)
    const keys = await waits('a')
    expect(keys).toHaveLength(before + 1)
    expect(await probe('b', keys[before])).toBe(504)
  })

  it('a request that ends within WATCH_AFTER_MS never reaches the object', async () => {
    const session = await initialize('a')
    const before = (await waits('a')).length
    expect((await callSlow('a', session, 4, 0)).aborted).toBe(false)
    await new Promise((r) => setTimeout(r, WATCH_AFTER_MS + 200))
    expect(await waits('a')).toHaveLength(before)
  })
})
