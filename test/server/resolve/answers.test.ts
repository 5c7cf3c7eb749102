/**
 * Answers to a question: `content: null` in an elicitation answer is no content, a decline's or cancel's
 * content is ignored, on the 2026 `inputResponses` lane (raw handlers and resolvers) and the 2025 legacy
 * questions lane; a malformed sampling answer is reported by its own fields, not as a missing action.
 */
import { describe, expect, it } from 'vitest'
import { createFetchHandler } from '../../../src/server/index.ts'
import { answer, initializeLegacy, legacyPost, sseReader } from '../../legacy-wire.ts'
import { answerWith, makeServer, textOf } from '../../fixtures/wire-server.ts'

// shared/cases/robustness.md R8, R9
describe('content null is no content; a decline or cancel ignores its content', () => {
  const handler = createFetchHandler(makeServer())

  it('2026 inputResponses: cancel / decline with content null, nested or a string are a cancel / decline', async () => {
    const cancel = await answerWith(handler, 'confirm', () => ({ action: 'cancel' }))
    expect(textOf(cancel)).toBe('{"action":"cancel"}')
    for (const content of [null, 'nope', { confirm: { nested: 1 } }]) {
      const res = await answerWith(handler, 'confirm', () => ({ action: 'cancel', content }))
      expect([res.status, textOf(res)]).toEqual([200, '{"action":"cancel"}'])
      const dec = await answerWith(handler, 'confirm', () => ({ action: 'decline', content }))
      expect([dec.status, textOf(dec)]).toEqual([200, '{"action":"decline"}'])
    }
  })

  it('2026 inputResponses: accept with content null is an answer with nothing in it (asked again)', async () => {
    const res = await answerWith(handler, 'confirm', () => ({ action: 'accept', content: null }))
    expect(res.status).toBe(200)
    expect(res.body.result.resultType).toBe('input_required')
    const accepted = await answerWith(handler, 'confirm', () => ({ action: 'accept', content: { name: 'Ada' } }))
    expect(textOf(accepted)).toBe('{"action":"accept","content":{"name":"Ada"}}')
  })

  it('resolvers: a decline with content is a decline, accept with content null asks again', async () => {
    const plain = await answerWith(handler, 'greet', () => ({ action: 'decline' }))
    const nested = await answerWith(handler, 'greet', () => ({
      action: 'decline',
      content: { confirm: { nested: 1 } },
    }))
    expect(nested.status).toBe(200)
    expect(nested.body.result).toEqual(plain.body.result)
    const cancelled = await answerWith(handler, 'greet', () => ({ action: 'cancel', content: 'nope' }))
    const cancelPlain = await answerWith(handler, 'greet', () => ({ action: 'cancel' }))
    expect(cancelled.body.result).toEqual(cancelPlain.body.result)
    expect(cancelled.body.result.content[0].text).not.toBe(nested.body.result.content[0].text)
    const empty = await answerWith(handler, 'greet', () => ({ action: 'accept', content: null }))
    expect(empty.body.result.resultType).toBe('input_required')
  })

  it('an accept whose content is not a form answer is still -32602', async () => {
    const res = await answerWith(handler, 'confirm', () => ({ action: 'accept', content: 'nope' }))
    expect(res.body.error.code).toBe(-32602)
  })

  it('a malformed sampling answer is reported by its own fields, not as a missing action', async () => {
    const res = await answerWith(handler, 'sample', () => ({ role: 'assistant', content: { type: 'text', text: 'x' } }))
    expect(res.body.error.code).toBe(-32602)
    expect(res.body.error.message).toContain("field 's.model'")
    expect(res.body.error.message).not.toContain('action')
  })

  it('2025 legacy questions: an elicitation/create answer with content null, or a decline / cancel with content', async () => {
    const mcp = makeServer()
    const legacy = createFetchHandler(mcp)
    const session = await initializeLegacy(legacy, { elicitation: {} })
    let id = 100
    const ask = async (name: string, result: unknown) => {
      const stream = sseReader(
        await legacyPost(
          legacy,
          { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: {} } },
          session,
        ),
      )
      const question = await stream.next()
      expect(question.method).toBe('elicitation/create')
      expect((await legacyPost(legacy, answer(question.id, result), session)).status).toBe(202)
      return stream
    }
    const cases: Array<[unknown, string]> = [
      [{ action: 'cancel', content: null }, '{"action":"cancel"}'],
      [{ action: 'decline', content: null }, '{"action":"decline"}'],
      [{ action: 'decline', content: { confirm: { nested: 1 } } }, '{"action":"decline"}'],
      [{ action: 'cancel', content: 'nope' }, '{"action":"cancel"}'],
    ]
    for (const [result, text] of cases) {
      const stream = await ask('confirm', result)
      expect((await stream.next()).result).toEqual({ content: [{ type: 'text', text }] })
    }
    const greet = await ask('greet', { action: 'decline', content: 'nope' })
    const declined = (await greet.next()).result as { content: Array<{ text: string }> }
    expect(declined.content[0].text).toMatch(/declin/i)
    const again = await ask('confirm', { action: 'accept', content: null })
    const next = await again.next()
    expect(next.method).toBe('elicitation/create') // asked again, as for a missing required field
    await again.cancel()
  })
})
