/**
 * The in-memory DPoP replay store (the default of `dpopProofChecker`): a proof is seen until its window ends,
 * expired entries make room, and a store full of live entries refuses (the checker's 503) rather than forgets.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { memoryReplayStore } from '../../src/oauth/dpop.ts'

afterEach(() => vi.useRealTimers())

describe('memoryReplayStore', () => {
  it('a key is seen until its expiry, then taken again', async () => {
    vi.useFakeTimers({ now: 1_000_000 })
    const store = memoryReplayStore(10)
    expect(await store.seen('k:1', 1_060)).toBe(false)
    expect(await store.seen('k:1', 1_060)).toBe(true)
    vi.setSystemTime(1_061_000)
    expect(await store.seen('k:1', 1_120)).toBe(false)
    expect(await store.seen('k:1', 1_120)).toBe(true)
  })

  it('full of live entries: a new key throws, a known one is still seen; once they expire, there is room', async () => {
    vi.useFakeTimers({ now: 1_000_000 })
    const store = memoryReplayStore(3)
    for (const jti of ['a', 'b', 'c']) expect(await store.seen(`k:${jti}`, 1_060)).toBe(false)
    expect(() => store.seen('k:d', 1_060)).toThrow('the DPoP replay store is full')
    expect(await store.seen('k:b', 1_060)).toBe(true) // never forgotten to make room
    vi.setSystemTime(1_061_000)
    for (const jti of ['d', 'e', 'f']) expect(await store.seen(`k:${jti}`, 1_120)).toBe(false)
    expect(() => store.seen('k:g', 1_120)).toThrow('the DPoP replay store is full')
  })

  it('an expired entry behind a live one (out of expiry order) is swept when the store is full', async () => {
    vi.useFakeTimers({ now: 1_000_000 })
    const store = memoryReplayStore(2)
    expect(await store.seen('k:long', 1_300)).toBe(false)
    expect(await store.seen('k:short', 1_010)).toBe(false)
    vi.setSystemTime(1_011_000) // k:short expired, behind the live k:long
    expect(await store.seen('k:new', 1_300)).toBe(false)
    expect(await store.seen('k:long', 1_300)).toBe(true)
  })
})
