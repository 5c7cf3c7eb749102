/**
 * A caller's long-lived AbortSignal passed to many calls keeps no listener once each call has settled
 * (otherwise every call would leak through a signal that outlives it); a server asking a 2025-era client
 * many questions at once puts no pile of listeners on one signal (Node would warn of a leak).
 */
import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import {
  createFetchHandler,
  elicitForm,
  InMemoryQuestionMailbox,
  inputRequired,
  McpServer,
  RequestStateSecurity,
  type QuestionMailbox,
} from '../../src/server/index.ts'
import { createDemoServer } from '../../worker/server.ts'
import { answer, initializeLegacy, legacyPost, sseReader, type Message } from '../legacy-wire.ts'

it('a long-lived signal keeps no listeners after calls settle', async () => {
  const handler = createFetchHandler(createDemoServer())
  const client = new Client({
    transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: handler }),
    versionNegotiation: 'modern',
    elicitation: () => ({ action: 'accept', content: { region: 'eu' } }),
  })
  const controller = new AbortController()
  for (let i = 0; i < 20; i++) await client.callTool('provision', { name: 'n' + i }, { signal: controller.signal })
  for (let i = 0; i < 5; i++) await client.listTools({ signal: controller.signal })
  expect(getEventListeners(controller.signal, 'abort').length).toBe(0)
})

describe('a round of many questions to a 2025-era client', () => {
  const QUESTIONS = 50
  const form = { type: 'object' as const, properties: { n: { type: 'number' as const } }, required: ['n'] }

  /** A tool asking `QUESTIONS` form questions in each of two rounds, and a mailbox recording each wait's signal. */
  function manyQuestions() {
    const inner = new InMemoryQuestionMailbox()
    const seen: Array<{ signal: AbortSignal; before: number }> = []
    const mailbox: QuestionMailbox = {
      wait(qid, timeoutMs, signal) {
        if (signal) seen.push({ signal, before: getEventListeners(signal, 'abort').length })
        return inner.wait(qid, timeoutMs, signal)
      },
      deliver: (qid, answer) => inner.deliver(qid, answer),
    }
    const mcp = new McpServer(
      { name: 'many', version: '1' },
      { requestStateSecurity: new RequestStateSecurity({ keys: ['k'.repeat(32)] }), legacyQuestions: { mailbox } },
    )
    mcp.tool('survey', { description: `asks ${QUESTIONS} questions, twice` }, (_args, ctx) => {
      const round = Number(ctx.requestState ?? 0)
      if (round === 2) return `answered ${Object.keys(ctx.inputResponses ?? {}).length}`
      const asks = Object.fromEntries(
        Array.from({ length: QUESTIONS }, (_, i) => [`q${i}`, elicitForm(`#${i}?`, form)]),
      )
      return inputRequired(asks, String(round + 1))
    })
    return { handler: createFetchHandler(mcp), seen }
  }

  // shared/cases/robustness.md R18
  it(`asks ${QUESTIONS} at once without a MaxListenersExceededWarning; no listener outlives its wait`, async () => {
    const warnings: Error[] = []
    const onWarning = (warning: Error) => warnings.push(warning)
    process.on('warning', onWarning)
    try {
      const { handler, seen } = manyQuestions()
      const session = await initializeLegacy(handler, { elicitation: { form: {} } })
      const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'survey', arguments: {} } }
      const stream = sseReader(await legacyPost(handler, call, session))
      for (let round = 0; round < 2; round++) {
        const asked: Message[] = []
        for (let i = 0; i < QUESTIONS; i++) asked.push(await stream.next())
        expect(asked.every((m) => m.method === 'elicitation/create')).toBe(true)
        const answers = asked.map((q, n) =>
          legacyPost(handler, answer(q.id, { action: 'accept', content: { n } }), session),
        )
        for (const res of await Promise.all(answers)) expect(res.status).toBe(202)
      }
      expect(await stream.next()).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'answered 50' }] } })
      await new Promise((resolve) => setTimeout(resolve, 10)) // a warning is emitted on a later tick
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([])
      // each wait found its signal bare (no listeners piling up on one signal), and left it bare
      expect(seen.length).toBeGreaterThanOrEqual(2 * QUESTIONS)
      expect(Math.max(...seen.map((s) => s.before))).toBe(0)
      expect(seen.filter((s) => getEventListeners(s.signal, 'abort').length > 0)).toEqual([])
    } finally {
      process.off('warning', onWarning)
    }
  })
})
