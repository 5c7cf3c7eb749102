/**
 * Cross-isolate: a question to a 2025-era client goes out from one Worker and its answer is
 * POSTed to ANOTHER Worker; the Durable Object mailbox (`McpQuestionMailbox` on `env.MCP_MAILBOX`) carries
 * it to the first, and the tool completes. Without the binding the same flow fails at once, naming it.
 *
 * How (test/crossiso-harness.ts): the demo Worker (worker/index.ts, wrapped by test/workers/crossiso.ts
 * to add `GET /isolate`) is bundled once by `wrangler deploy --dry-run` (test/workers/crossiso.toml) and run
 * by Miniflare's API as four Workers in one workerd process, each its own isolate and each on its own
 * loopback socket (real HTTP from Node, SSE included):
 * - `a` defines the Durable Object class and binds `MCP_MAILBOX` to it;
 * - `b` binds `MCP_MAILBOX` to the SAME namespace (`scriptName: 'a'`), as a second deployment (or a
 *   second isolate of one deployment) does;
 * - `nobox` has no `MCP_MAILBOX` binding;
 * - `own` binds `MCP_MAILBOX` to a namespace of its own (its own copy of the class), not a's.
 * All four share one `REQUEST_STATE_KEYS` key, drawn at random per run, so each opens the others' sealed
 * session ids and question ids. Bundling plus start-up take a few seconds.
 *
 * Why this proves the Durable Object path: isolates share no memory, so `b` can hand the answer to the
 * request waiting in `a` only through a binding, and the only one they share is the namespace. `/isolate`
 * shows `b` is another Worker in another isolate. Two controls get the very same answer first (same keys,
 * same code): `nobox` refuses it (400: nowhere to deliver it), and `own` accepts it (202) into its own
 * namespace, from where it never reaches `a`. Only then does `b`, sharing a's namespace, complete the call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCrossIsolate, type CrossIsolate } from '../crossiso-harness.ts'
import { initializeLegacy, legacyPost, messages, remote } from '../legacy-wire.ts'

type Name = 'a' | 'b' | 'nobox' | 'own'

let running: CrossIsolate<Name> | undefined
let base = {} as Record<Name, string>

beforeAll(async () => {
  running = await startCrossIsolate<Name>({
    a: { MCP_MAILBOX: { className: 'McpQuestionMailbox', useSQLite: true } },
    b: { MCP_MAILBOX: { className: 'McpQuestionMailbox', scriptName: 'a' } },
    nobox: {},
    own: { MCP_MAILBOX: { className: 'McpQuestionMailbox', useSQLite: true } },
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
  return initializeLegacy(remote(new URL('mcp', base[worker])), { elicitation: {} })
}

/** The first half of the flow, the same for every Worker: initialize, call `provision`, take the first message. */
async function callProvision(worker: Name) {
  const session = await initialize(worker)
  const started = performance.now()
  const res = await post(
    worker,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'provision', arguments: { name: 'orders' } } },
    session,
  )
  expect(res.status).toBe(200)
  const stream = messages(res)
  const first = await stream.next()
  return { session, stream, first, ms: performance.now() - started }
}

async function whoami(worker: Name): Promise<{ worker: string; isolate: string }> {
  return (await (await fetch(new URL('isolate', base[worker]))).json()) as { worker: string; isolate: string }
}

describe('a question asked by one Worker, answered through another (Durable Object mailbox)', () => {
  it('a and b are different Workers in different isolates', async () => {
    const [a1, a2, b] = [await whoami('a'), await whoami('a'), await whoami('b')]
    expect(a1.worker).toBe('a')
    expect(b.worker).toBe('b')
    expect(a2.isolate).toBe(a1.isolate) // module memory persists within an isolate...
    expect(b.isolate).not.toBe(a1.isolate) // ...and b's is another isolate's
  })

  it('elicitation/create goes out on a’s stream, the answer POSTed to b gets 202, a’s tool completes', async () => {
    const { session, stream, first } = await callProvision('a')
    try {
      expect(first.method).toBe('elicitation/create')
      expect(String(first.id)).toMatch(/^q1\./)
      const params = first.params as { mode?: string; requestedSchema: { properties: Record<string, unknown> } }
      expect(params.mode).toBe('form')
      expect(Object.keys(params.requestedSchema.properties)).toEqual(['region'])
      const answer = {
        jsonrpc: '2.0',
        id: first.id,
        result: { action: 'accept', content: { region: 'ap-southeast-2' } },
      }

      // Control 1: same keys and code, no namespace: the answer cannot be delivered, so it is refused.
      const refused = await post('nobox', answer, session)
      expect(refused.status).toBe(400)
      expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32600)

      // Control 2: same keys and code, another namespace: accepted, kept there, and a goes on waiting.
      const elsewhere = await post('own', answer, session)
      expect(elsewhere.status).toBe(202)
      await elsewhere.body?.cancel()
      const next = stream.next()
      next.catch(() => {}) // awaited below; never an unhandled rejection if an expect fails first
      const quiet = await Promise.race([next, new Promise((r) => setTimeout(r, 1000, 'still waiting'))])
      expect(quiet).toBe('still waiting')

      // b holds no waiter and shares no memory with a: only the Durable Object can carry the answer over.
      const delivered = await post('b', answer, session)
      expect(delivered.status).toBe(202)
      await delivered.body?.cancel()

      const final = await next
      expect(final.id).toBe(1)
      expect(final.result).toEqual({ content: [{ type: 'text', text: "Provisioned 'orders' in ap-southeast-2." }] })
    } finally {
      await stream.cancel()
    }
  })

  // The official 1.x client cancels at its 60 s default timeout and keeps the stream open. workerd refuses
  // to abort one request's I/O from another request, so the cancel must reach the waiting request through
  // the mailbox, on the same isolate as on another.
  for (const where of ['a', 'b'] as const) {
    it(`notifications/cancelled POSTed to ${where} ends a’s request: its question is cancelled, no response, a late answer runs nothing`, async () => {
      const { session, stream, first } = await callProvision('a')
      try {
        expect(first.method).toBe('elicitation/create')
        const cancel = {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 1, reason: 'timeout' },
        }
        const cancelled = await post(where, cancel, session)
        expect(cancelled.status).toBe(202)
        await cancelled.body?.cancel()
        expect(await stream.next()).toMatchObject({
          method: 'notifications/cancelled',
          params: { requestId: first.id },
        })
        await expect(stream.next()).rejects.toThrow('stream ended') // no response for a cancelled request
        const late = { jsonrpc: '2.0', id: first.id, result: { action: 'accept', content: { region: 'eu-west-1' } } }
        const answered = await post('b', late, session)
        expect(answered.status).toBe(202) // accepted by the mailbox, but nobody waits for it any more
        await answered.body?.cancel()
      } finally {
        await stream.cancel()
      }
    })
  }

  it('the same flow on a Worker without the MCP_MAILBOX binding fails at once, naming the binding', async () => {
    const { stream, first, ms } = await callProvision('nobox')
    try {
      expect(first.method).toBeUndefined() // no question was sent
      expect(first.id).toBe(1)
      const result = first.result as { isError?: boolean; content: { type: string; text: string }[] }
      expect(result.isError).toBe(true)
      expect(result.content[0].text).toContain('env.MCP_MAILBOX is not bound to a Durable Object namespace')
      expect(ms).toBeLessThan(5000)
    } finally {
      await stream.cancel()
    }
  })
})
