/**
 * On Workers (`navigator.userAgent` stubbed to `Cloudflare-Workers`), `notifications/cancelled` reaches a
 * running 2025-era handler only through the question mailbox: a request still running after
 * `WATCH_AFTER_MS` waits on it for its own cancellation, and stops waiting when it ends. Here the mailbox
 * is an in-memory one behind a plain object (as the Durable Object's client is: a shared mailbox, so a
 * cancellation nobody waits for yet is kept for a wait to come). Under workerd, across isolates:
 * test/e2e/crossiso-cancel.test.ts.
 */
import * as v from 'valibot'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  InMemoryQuestionMailbox,
  McpServer,
  RequestStateSecurity,
  createFetchHandler,
  type QuestionMailbox,
} from '../../src/server/index.ts'
import { WATCH_AFTER_MS } from '../../src/server/legacy-cancel.ts'
import { initializeLegacy, legacyPost, messages } from '../legacy-wire.ts'

/** The shared mailbox, with what was waited on. */
function sharedMailbox() {
  const inner = new InMemoryQuestionMailbox({ earlyAnswerMs: 30_000 })
  const waited: string[] = []
  const mailbox: QuestionMailbox = {
    wait(qid, timeoutMs, signal) {
      waited.push(qid)
      return inner.wait(qid, timeoutMs, signal)
    },
    deliver: (qid, answer) => inner.deliver(qid, answer),
  }
  return { inner, waited, mailbox }
}

/** A server on "Workers" with tool `slow` `{ ms }`: waits `ms` ms or until its signal aborts, and says which. */
async function setup(mailbox: QuestionMailbox | null) {
  const mcp = new McpServer(
    { name: 'cancel-on-workers', version: '1' },
    { requestStateSecurity: new RequestStateSecurity({ keys: ['k'.repeat(32)] }), legacyQuestions: { mailbox } },
  )
  mcp.tool('slow', { input: { ms: v.number() } }, async ({ ms }, ctx) => {
    const aborted = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms)
      ctx.signal.addEventListener('abort', () => (clearTimeout(timer), resolve(true)), { once: true })
    })
    return aborted ? `aborted: ${String(ctx.signal.reason)}` : 'completed'
  })
  const handler = createFetchHandler(mcp)
  const session = await initializeLegacy(handler, {})
  const call = (id: number, ms: number) =>
    legacyPost(
      handler,
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: { ms } } },
      session,
    )
  const cancel = async (requestId: number) => {
    const res = await legacyPost(
      handler,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } },
      session,
    )
    expect(res.status).toBe(202)
  }
  const text = async (res: Response) => {
    const message = await messages(res).next()
    return (message.result as { content: { text: string }[] }).content[0].text
  }
  return { call, cancel, text }
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('notifications/cancelled on Workers (through the mailbox)', () => {
  beforeEach(() => {
    vi.stubGlobal('navigator', { userAgent: 'Cloudflare-Workers' })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  it('aborts a running handler that asks nothing: the request waits on its cancellation key until it ends', async () => {
    const { inner, waited, mailbox } = sharedMailbox()
    const { call, cancel, text } = await setup(mailbox)
    const running = call(7, 20_000)
    await tick(WATCH_AFTER_MS + 100)
    expect(waited).toEqual([expect.stringMatching(/^request:[\w-]{22}$/)]) // one wait, under a digest key
    expect(inner.waiting).toBe(1)
    await cancel(7)
    expect(await text(await running)).toBe('aborted: Error: cancelled by the client')
    expect(inner.waiting).toBe(0) // nothing left waiting once the request is over
  })

  it('a cancellation that came before the request started waiting still aborts it (kept for the wait)', async () => {
    const { inner, waited, mailbox } = sharedMailbox()
    const { call, cancel, text } = await setup(mailbox)
    const running = call(8, 20_000)
    await cancel(8) // at once: the request is not waiting yet
    expect(waited).toEqual([])
    expect(await text(await running)).toBe('aborted: Error: cancelled by the client')
    expect(inner.waiting).toBe(0)
  })

  it('a request that ends before WATCH_AFTER_MS never waits on the mailbox', async () => {
    const { inner, waited, mailbox } = sharedMailbox()
    const { call, text } = await setup(mailbox)
    expect(await text(await call(9, 1))).toBe('completed')
    await tick(WATCH_AFTER_MS + 100)
    expect(waited).toEqual([])
    expect(inner.waiting).toBe(0)
  })

  it('a request that ends after WATCH_AFTER_MS stops waiting when it ends', async () => {
    const { inner, waited, mailbox } = sharedMailbox()
    const { call, text } = await setup(mailbox)
    expect(await text(await call(10, WATCH_AFTER_MS + 200))).toBe('completed')
    expect(waited).toHaveLength(1)
    expect(inner.waiting).toBe(0)
  })

  it('without a mailbox (none bound) nothing waits, and a cancellation does not abort it', async () => {
    const { call, cancel, text } = await setup(null)
    const running = call(11, WATCH_AFTER_MS + 300)
    await tick(WATCH_AFTER_MS + 50)
    await cancel(11)
    expect(await text(await running)).toBe('completed')
  })
})
