/** The onion both sides' middleware runs in (src/protocol/middleware.ts): order, next once, refusals, `_meta`. */
import { describe, expect, it } from 'vitest'
import { addHooks, runHooks, withAddedMeta } from '../../src/protocol/middleware.ts'

type Stack = Array<Record<string, (call: string[], next: () => Promise<unknown>) => unknown>>

describe('runHooks', () => {
  it('runs the hooks of one kind outermost first, skipping other kinds, then the inner work', async () => {
    const stack: Stack = []
    addHooks(
      stack,
      async (seen: string[], next: () => Promise<unknown>) => (seen.push('a'), next()),
      ['x', 'y'],
      'use()',
    )
    addHooks(stack, { y: () => 'never' }, ['x', 'y'], 'use()')
    addHooks(
      stack,
      { x: async (seen: string[], next: () => Promise<unknown>) => (seen.push('b'), next()) },
      ['x', 'y'],
      'use()',
    )
    const seen: string[] = []
    expect(await runHooks(stack, 'x', seen, () => Promise.resolve((seen.push('inner'), 'done')), 'server')).toBe('done')
    expect(seen).toEqual(['a', 'b', 'inner'])
  })

  it('next() called twice runs the rest once', async () => {
    let runs = 0
    const stack: Stack = [{ x: async (_c, next) => (await next(), next()) }]
    expect(await runHooks(stack, 'x', [], () => Promise.resolve(++runs), 'client')).toBe(1)
    expect(runs).toBe(1)
  })

  it('refuses undefined (unless next() gave it) and what check refuses, naming side, kind and position', async () => {
    const forgot: Stack = [{ x: (_c, next) => next() }, { x: async (_c, next) => void (await next()) }]
    await expect(runHooks(forgot, 'x', [], () => Promise.resolve(1), 'server')).rejects.toThrow(
      "The server x middleware #2 returned nothing: return next()'s result, or a result of its own",
    )
    const passes: Stack = [{ x: (_c, next) => next() }]
    await expect(runHooks(passes, 'x', [], () => Promise.resolve(undefined), 'server')).resolves.toBeUndefined()
    const number: Stack = [{ x: () => 42 }]
    const check = (v: unknown) => (typeof v === 'object' ? undefined : `${typeof v}, not an object`)
    await expect(runHooks(number, 'x', [], () => Promise.resolve({}), 'client', check)).rejects.toThrow(
      'The client x middleware #1 returned number, not an object',
    )
  })
})

describe('addHooks', () => {
  it('refuses what is no middleware, naming a key that is not a kind', () => {
    expect(() => addHooks([], 42, ['x'], 'Client#use')).toThrow(
      'Client#use takes a middleware function, or an object of x middleware',
    )
    expect(() => addHooks([], [], ['x'], 'use()')).toThrow(TypeError)
    expect(() => addHooks([], { z: () => 1 }, ['x'], 'use()')).toThrow("use(): 'z' is not one of x, or not a function")
    expect(() => addHooks([], { x: 1 }, ['x'], 'use()')).toThrow("use(): 'x' is not one of x, or not a function")
  })
})

describe('withAddedMeta', () => {
  it("adds keys after the own ones, never the protocol's or a reserved one; the same object when nothing is added", () => {
    const own = { a: 1 }
    expect(withAddedMeta(own, {})).toBe(own)
    expect(withAddedMeta(own, { 'io.modelcontextprotocol/serverInfo': 'x', progressToken: 't' }, 'progressToken')).toBe(
      own,
    )
    expect(withAddedMeta(own, { b: 2, a: 3 })).toEqual({ a: 3, b: 2 })
    expect(withAddedMeta(undefined, { b: 2 })).toEqual({ b: 2 })
  })
})
