/**
 * The DPoP replay store on Workers (edge-mcp/cloudflare `durableObjectReplayStore` and its `McpDPoPReplay`
 * Durable Object) under Miniflare: two Workers, each its own isolate, on one namespace. A proof remembered
 * through one isolate is seen through the other; another key is not; the object forgets it when its window
 * ends (its alarm), and then takes it again.
 */
import { rm } from 'node:fs/promises'
import { Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleTestWorker } from '../workerd.ts'

let mf: Miniflare | undefined
let dir = ''
const base: Record<'a' | 'b', string> = { a: '', b: '' }

beforeAll(async () => {
  const bundled = await bundleTestWorker('dpop-replay')
  dir = bundled.dir
  const worker = (name: 'a' | 'b') => ({
    name,
    modules: true,
    scriptPath: bundled.scriptPath,
    modulesRoot: bundled.modulesRoot,
    compatibilityDate: '2026-04-01',
    bindings: { WORKER_NAME: name },
    durableObjects: {
      MCP_DPOP_REPLAY:
        name === 'a'
          ? { className: 'McpDPoPReplay', useSQLite: true }
          : { className: 'McpDPoPReplay', scriptName: 'a' },
    },
    unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
  })
  mf = new Miniflare({ cf: false, workers: [worker('a'), worker('b')] })
  await mf.ready
  base.a = (await mf.unsafeGetDirectURL('a')).href
  base.b = (await mf.unsafeGetDirectURL('b')).href
}, 120_000)

afterAll(async () => {
  await mf?.dispose()
  await rm(dir, { recursive: true, force: true })
})

async function seen(worker: 'a' | 'b', key: string, expiresAt: number): Promise<{ seen: boolean; isolate: string }> {
  const res = await fetch(base[worker], { method: 'POST', body: JSON.stringify({ key, expiresAt }) })
  expect(res.status, await res.clone().text()).toBe(200)
  return (await res.json()) as { seen: boolean; isolate: string }
}

describe('durableObjectReplayStore across isolates', () => {
  it('a proof remembered through one isolate is a replay through the other; another proof is not', async () => {
    const until = Math.floor(Date.now() / 1000) + 300
    expect(await seen('a', 'jkt-1:jti-1', until)).toEqual({ seen: false, isolate: 'a' })
    expect(await seen('b', 'jkt-1:jti-1', until)).toEqual({ seen: true, isolate: 'b' })
    expect(await seen('a', 'jkt-1:jti-1', until)).toEqual({ seen: true, isolate: 'a' })
    expect(await seen('b', 'jkt-1:jti-2', until)).toEqual({ seen: false, isolate: 'b' })
  })

  it('forgets a proof once its window has ended, and takes it again', async () => {
    const until = Math.floor(Date.now() / 1000) + 2
    expect((await seen('a', 'jkt-2:jti-1', until)).seen).toBe(false)
    expect((await seen('b', 'jkt-2:jti-1', until)).seen).toBe(true)
    await new Promise((r) => setTimeout(r, (until + 1) * 1000 - Date.now()))
    expect((await seen('b', 'jkt-2:jti-1', until + 300)).seen).toBe(false)
    expect((await seen('a', 'jkt-2:jti-1', until + 300)).seen).toBe(true)
  })
})
