import { describe, expect, it } from 'vitest'
import { newTaskRecord, TaskEngine } from '../../../src/server/tasks/engine.ts'
import type { TaskJob, TaskRecord } from '../../../src/server/tasks/types.ts'

const job: TaskJob = { name: 't', arguments: {}, protocolVersion: '2026-07-28', clientCapabilities: {} }
const elicit = (message: string) => ({
  method: 'elicitation/create' as const,
  params: { mode: 'form' as const, message, requestedSchema: { type: 'object' as const, properties: {} } },
})

function engine(): { engine: TaskEngine; saved: TaskRecord[] } {
  const saved: TaskRecord[] = []
  const record = newTaskRecord(job, { ttlMs: 60_000, pollIntervalMs: 500 })
  return { engine: new TaskEngine(record, { persist: (r) => void saved.push(structuredClone(r)) }), saved }
}

describe('TaskEngine', () => {
  it('starts working with an unguessable id, ISO dates, integer ttlMs and pollIntervalMs', () => {
    const { engine: e } = engine()
    const seed = e.seed()
    expect(seed.taskId).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(seed).toMatchObject({ status: 'working', ttlMs: 60_000, pollIntervalMs: 500 })
    expect(new Date(seed.createdAt).toISOString()).toBe(seed.createdAt)
    expect(e.view()).not.toHaveProperty('result')
  })

  it('keys are unique over the task life; answered keys vanish at once; a partial answer keeps input_required', async () => {
    const { engine: e, saved } = engine()
    const first = e.ask({ a: elicit('A?'), b: elicit('B?') })
    const view = e.view() as { status: string; inputRequests: Record<string, unknown> }
    expect(view.status).toBe('input_required')
    const [ka, kb] = Object.keys(view.inputRequests)
    await e.update({ [ka]: { action: 'accept', content: {} }, unknown: { action: 'decline' } })
    const partial = e.view() as { status: string; inputRequests: Record<string, unknown> }
    expect(partial.status).toBe('input_required')
    expect(Object.keys(partial.inputRequests)).toEqual([kb])
    await e.update({ [ka]: { action: 'decline' } }) // answered already: ignored
    await e.update({ [kb]: { action: 'cancel' } })
    expect(await first).toEqual({ a: { action: 'accept', content: {} }, b: { action: 'cancel' } })
    expect(e.view().status).toBe('working')
    const again = e.ask({ a: elicit('A again?') })
    const keys = Object.keys((e.view() as { inputRequests: Record<string, unknown> }).inputRequests)
    expect(keys).toHaveLength(1)
    expect([ka, kb]).not.toContain(keys[0])
    await e.update({ [keys[0]]: { action: 'decline' } })
    expect(await again).toEqual({ a: { action: 'decline' } })
    expect(saved.length).toBeGreaterThan(3)
  })

  it('cancel: cancelled at once, the signal aborts, pending asks reject; terminal is sticky', async () => {
    const { engine: e } = engine()
    const asked = e.ask({ a: elicit('A?') })
    await e.cancel()
    expect(e.signal.aborted).toBe(true)
    await expect(asked).rejects.toThrow(/cancelled/)
    expect(e.view()).toMatchObject({ status: 'cancelled' })
    expect(e.view()).not.toHaveProperty('inputRequests')
    await e.finish({ result: { content: [] } })
    await e.cancel()
    expect(e.view().status).toBe('cancelled')
  })

  it('finishes completed with the result or failed with the error, and progress rides in _meta', async () => {
    const { engine: e } = engine()
    await e.progress(3, 10, 'Shelf 3 of 10')
    expect(e.view()).toMatchObject({
      statusMessage: 'Shelf 3 of 10',
      _meta: { 'edge-mcp/progress': { progress: 3, total: 10 } },
    })
    await e.finish({ result: { content: [{ type: 'text', text: 'ok' }] } })
    expect(e.view()).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'ok' }] } })
    const { engine: f } = engine()
    await f.finish({ error: { code: -32603, message: 'boom' } })
    expect(f.view()).toMatchObject({ status: 'failed', error: { code: -32603, message: 'boom' } })
    const { engine: g } = engine()
    await g.interrupted()
    expect(g.view()).toMatchObject({ status: 'failed', error: { code: -32603 } })
  })

  it('expire aborts the run and persists nothing more', async () => {
    const { engine: e, saved } = engine()
    e.expire()
    expect(e.signal.aborted).toBe(true)
    await e.status('late')
    expect(saved).toEqual([])
  })
})
