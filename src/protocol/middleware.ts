/**
 * What the server's and the client's middleware share: a stack of what `use()` was given (outermost first;
 * each an object of hooks by kind, a bare function being a hook of the first kind), the onion a call runs
 * through, and the `_meta` keys middleware may add.
 * @module
 */

/** A hook: around `call`; `next()` runs the rest of the stack. */
type Hook = (call: never, next: () => Promise<unknown>) => unknown

/**
 * Add `middleware` to `stack`: a function becomes `{ [kinds[0]]: fn }`.
 * @param who - how the `use()` is named in errors (`use()`, `Client#use`).
 * @throws TypeError for anything but a function or an object of hooks of `kinds`, naming a key that is not one.
 */
export function addHooks<M extends object>(
  stack: M[],
  middleware: unknown,
  kinds: readonly string[],
  who: string,
): void {
  const mw: unknown = typeof middleware === 'function' ? { [kinds[0]!]: middleware } : middleware
  if (typeof mw !== 'object' || mw === null || Array.isArray(mw))
    throw new TypeError(`${who} takes a middleware function, or an object of ${kinds.join(', ')} middleware`)
  for (const [kind, fn] of Object.entries(mw))
    if (!kinds.includes(kind) || typeof fn !== 'function')
      throw new TypeError(`${who}: '${kind}' is not one of ${kinds.join(', ')}, or not a function`)
  stack.push(mw as M)
}

/**
 * Run `inner` inside the `kind` hooks of `stack` (outermost first). Each `next` runs the rest once (a second
 * call gets the first call's promise).
 * @param side - `server` or `client`, for errors.
 * @param check - why a hook's result is refused (undefined: accepted).
 * @throws (rejects with) what a hook throws; TypeError when a hook returns `undefined` — having forgotten to
 *   return `next()`'s result — unless `next()` resolved to `undefined`, or a result `check` refuses; both
 *   name the hook's kind and position.
 */
export function runHooks<C, R>(
  stack: readonly object[],
  kind: string,
  call: C,
  inner: () => Promise<R>,
  side: string,
  check?: (result: unknown) => string | undefined,
): Promise<R> {
  const step = async (i: number): Promise<R> => {
    let fn: Hook | undefined
    while (i < stack.length && !(fn = (stack[i++] as Record<string, Hook | undefined>)[kind]));
    if (!fn) return inner()
    let ran: Promise<R> | undefined
    let passed = false
    const next = () => (ran ??= step(i).then((value) => ((passed = value === undefined), value)))
    const out = await (fn as (call: C, next: () => Promise<R>) => unknown)(call, next)
    const why = out === undefined ? (passed ? undefined : 'nothing') : check?.(out)
    if (why !== undefined)
      throw new TypeError(
        `The ${side} ${kind} middleware #${i} returned ${why}: return next()'s result, or a result of its own`,
      )
    return out as R
  }
  return step(0)
}

/** True when `stack` holds a hook of `kind`. */
export function hasHook(stack: readonly object[], kind: string): boolean {
  return stack.some((mw) => (mw as Record<string, unknown>)[kind] !== undefined)
}

/**
 * `own` with the keys of `added` that middleware may set (not the protocol's own `io.modelcontextprotocol/…`,
 * nor `reserved`): `own` itself when there are none.
 */
export function withAddedMeta<T extends Record<string, unknown> | undefined>(
  own: T,
  added: Record<string, unknown>,
  reserved?: string,
): T | Record<string, unknown> {
  const keys = Object.keys(added).filter((key) => key !== reserved && !key.startsWith('io.modelcontextprotocol/'))
  if (keys.length === 0) return own
  const out: Record<string, unknown> = { ...own }
  for (const key of keys) out[key] = added[key]
  return out
}
