/**
 * A 2025-era request's SSE stream is resumable (spec 2025-11-25: basic/transports.mdx "Resumability and
 * Redelivery"): it opens with a priming event (an id bound to the session and the request, empty data), its
 * response carries an id; a `GET` with the priming id as `Last-Event-ID`, in that session, gets a one-event SSE
 * stream with -32603 for that request (its outcome unknown: nothing is replayed or run again), on any
 * instance sharing the keys. Any other `Last-Event-ID` gets what a `GET` gets (405). 2026-07-28 streams carry no id.
 */
import { describe, expect, it } from 'vitest'
import type { FetchHandler } from '../../../src/server/index.ts'
import { callTool, initialize, makeServer } from '../../fixtures/asker.ts'
import { answer, legacyPost } from '../../legacy-wire.ts'
import { env, post, std } from '../../helpers.ts'

/** The raw SSE events of a response, as `{ id?, data }`, until `count` are read (then the body is cancelled). */
async function rawEvents(res: Response, count: number): Promise<{ id?: string; data: string }[]> {
  expect(res.headers.get('content-type')).toBe('text/event-stream')
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
  let text = ''
  const events: { id?: string; data: string }[] = []
  while (events.length < count) {
    const { value, done } = await reader.read()
    if (done) break
    text += value
    let end: number
    while ((end = text.indexOf('\n\n')) >= 0) {
      const block = text.slice(0, end)
      text = text.slice(end + 2)
      const lines = block.split('\n').filter((l) => !l.startsWith(':'))
      if (lines.length === 0) continue
      const event: { id?: string; data: string } = { data: '' }
      for (const line of lines) {
        if (line.startsWith('id: ')) event.id = line.slice(4)
        if (line.startsWith('data:')) event.data = line.slice(5).trim()
      }
      events.push(event)
    }
  }
  await reader.cancel().catch(() => {})
  return events
}

const resume = (handler: FetchHandler, headers: Record<string, string>, lastEventId: string) =>
  handler(
    new Request('http://localhost/mcp', {
      method: 'GET',
      headers: { accept: 'text/event-stream', ...headers, 'last-event-id': lastEventId },
    }),
  )

describe('resumable 2025-era request streams', () => {
  it('a priming event comes first, the response carries an id; the priming id resumes to -32603 for that request', async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    const call = callTool('greet')
    const [priming, question] = await rawEvents(await legacyPost(handler, call, session), 2)
    expect(priming.data).toBe('')
    expect(priming.id).toMatch(new RegExp(`${call.id}$`))
    expect(question.id).toBeUndefined()
    const asked = JSON.parse(question.data) as { id: string; method: string }
    expect(asked.method).toBe('elicitation/create')

    // the stream was cut (the events above were all the client got): any instance sharing the keys answers
    const other = makeServer().handler
    const res = await resume(other, session, priming.id!)
    expect(res.status).toBe(200)
    const [cut, ...rest] = await rawEvents(res, 5)
    expect(rest).toEqual([])
    expect(cut.id).toBeUndefined()
    const parsed = JSON.parse(cut.data) as { jsonrpc: string; id: unknown; error: { code: number; message: string } }
    expect([parsed.jsonrpc, parsed.id, parsed.error.code]).toEqual(['2.0', call.id, -32603])
    expect(parsed.error.message).toMatch(/stream was cut before its response.*check, then call again/)
  })

  it("a complete stream's response event carries the priming id plus r, which resumes nothing (405)", async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    const call = callTool('greet')
    const res = await legacyPost(handler, call, session)
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
    let text = ''
    while (!text.includes('elicitation/create')) text += (await reader.read()).value ?? ''
    const asked = JSON.parse(/data: (\{.*elicitation\/create.*\})/.exec(text)![1]) as { id: string }
    expect(
      (await legacyPost(handler, answer(asked.id, { action: 'accept', content: { name: 'Ada' } }), session)).status,
    ).toBe(202)
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      text += value
    }
    const priming = /^id: (.*)\ndata:\n\n/.exec(text)![1]
    expect(text).toContain(`id: ${priming}r\nevent: message\ndata: {"jsonrpc":"2.0","id":${call.id},"result"`)
    const again = await resume(handler, session, `${priming}r`)
    expect(again.status).toBe(405)
  })

  it('a 2026-07-28 stream has no ids, even with an Mcp-Session-Id header', async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    const body = {
      jsonrpc: '2.0',
      id: 77,
      method: 'tools/call',
      params: { name: 'progress', arguments: {}, _meta: { ...env(), progressToken: 'p' } },
    }
    const res = await post(handler, body, {
      ...std('tools/call', 'progress'),
      'mcp-session-id': session['mcp-session-id'],
    })
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    expect(res.text).toContain('notifications/progress')
    expect(res.text).not.toMatch(/^id:/m)
  })

  it('a session id that does not open gets 404', async () => {
    const { handler } = makeServer()
    const session = await initialize(handler)
    const tampered = `${session['mcp-session-id'].slice(0, -9)}A${session['mcp-session-id'].slice(-8)}`
    const res = await resume(handler, { ...session, 'mcp-session-id': tampered }, `${tampered.slice(-8)}7`)
    expect(res.status).toBe(404)
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32001)
  })

  it("another session's priming id, a forged one, or one without a session gets 405 as any GET", async () => {
    const { handler } = makeServer()
    const a = await initialize(handler)
    const b = await initialize(handler)
    const call = callTool('greet')
    const [priming] = await rawEvents(await legacyPost(handler, call, a), 1)
    for (const [headers, id] of [
      [b, priming.id!],
      [a, `${priming.id!}r`],
      [a, 'forged'],
      [{}, priming.id!],
    ] as [Record<string, string>, string][]) {
      const res = await resume(handler, headers, id)
      expect([res.status, id]).toEqual([405, id])
      expect(res.headers.get('allow')).toBe('POST, OPTIONS')
    }
  })
})
