/**
 * A small structural checker for the client's side of the wire: the few schema kinds the results a client
 * reads are made of (strings, numbers, literals, loose objects, records, arrays, unions, variants), with
 * the acceptance rules and issue messages of valibot's. The client's checks (src/client/checks.gen.ts) are
 * generated from the valibot schemas of `./schemas/` with these combinators by scripts/client-checks.ts (the
 * server keeps valibot). It is a fraction of valibot's size, which matters in a browser bundle.
 *
 * A check returns `[typed, issues, output]`: whether the value has the checked type (valibot's `typed`: a
 * union keeps trying other options after an untyped one), every issue found, in valibot's order, and
 * valibot's output: a copy of the objects and arrays, each object's schema members first, without the
 * own members named `__proto__`, `prototype` or `constructor` among those it does not check.
 * @module
 */

/** One problem: `message` as valibot words it, at `path` (keys from the checked value), and for a union the issues of its options. */
export interface Issue {
  message: string
  path: Array<string | number>
  union?: Issue[]
}

/** A check's outcome: whether the value had the checked type, the issues found (none: it passed), the output. */
export type Outcome = [typed: boolean, issues: Issue[], output?: unknown]

/** A check of one value; `e` is what it expects (for messages), `o` marks an optional one, `n` an object's entries. */
export interface Check<T = unknown> {
  (value: unknown): Outcome
  e: string
  o?: true
  n?: Record<string, Check>
  /** The type the checked value has (phantom, for typing only). */
  readonly t?: T
}

/** A value in a message: `"text"` for a string, the constructor's name for an object, `null`, or the typeof. */
const show = (value: unknown): string => {
  const type = typeof value
  if (type === 'string') return `"${value as string}"`
  if (type === 'number' || type === 'bigint' || type === 'boolean') return `${value as number}`
  if (type === 'object' || type === 'function')
    return (
      ((value && (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor?.name) as
        string | undefined) ?? 'null'
    )
  return type
}

/** `(a | b)` of distinct alternatives, or the only one. */
const join = (list: string[]): string => {
  const distinct = [...new Set(list)]
  return distinct.length > 1 ? `(${distinct.join(' | ')})` : (distinct[0] ?? 'never')
}

const issue = (label: string, expected: string | null, received: string, path: Issue['path'] = []): Issue => ({
  message: `Invalid ${label}: ${expected ? `Expected ${expected} but r` : 'R'}eceived ${received}`,
  path,
})

/**
 * A getter that calls `make` on its first call only and returns that value ever after (never undefined): a
 * check (or a valibot schema of ./schemas/) built on first use, not at import.
 */
/* @__NO_SIDE_EFFECTS__ */
export function once<T>(make: () => T): () => T {
  let value: T | undefined
  return () => (value ??= make())
}

/** The issues of a passing check: one shared array, never added to (a check adds issues to arrays of its own). */
const NONE: Issue[] = []

const make = <T>(e: string, run: (value: unknown) => Outcome, extra?: Partial<Check>): Check<T> =>
  Object.assign(run, { e }, extra) as Check<T>

/** A check that passes when `test` holds, else a type issue. */
const when = <T>(e: string, test: (value: unknown) => boolean): Check<T> =>
  make(e, (value) => (test(value) ? [true, NONE, value] : [false, [issue('type', e, show(value))]]))

export const string = /* @__PURE__ */ when<string>('string', (x) => typeof x === 'string')
export const number = /* @__PURE__ */ when<number>('number', (x) => typeof x === 'number' && !isNaN(x))
export const boolean = /* @__PURE__ */ when<boolean>('boolean', (x) => typeof x === 'boolean')
export const unknown = /* @__PURE__ */ make<unknown>('unknown', (value) => [true, NONE, value])

// Each combinator below is marked free of side effects: a bundler drops a check that nothing uses (a
// browser app that never calls `listen` carries no check of its acknowledgement).

/** Exactly `literal` (a string). */
export const literal = /* @__NO_SIDE_EFFECTS__ */ <const L extends string>(literal: L): Check<L> =>
  when(show(literal), (x) => x === literal)

/** One of `options` (strings). */
export const picklist = /* @__NO_SIDE_EFFECTS__ */ <const L extends string>(options: readonly L[]): Check<L> =>
  when(join(options.map(show)), (x) => options.includes(x as L))

/** `check`, or undefined. */
export const optional = /* @__NO_SIDE_EFFECTS__ */ <T>(check: Check<T>): Check<T | undefined> =>
  make(`(${check.e} | undefined)`, (value) => (value === undefined ? [true, NONE, value] : check(value)), { o: true })

/** A refinement of a typed value (valibot's validation actions): an issue, or undefined when it holds. */
export type Rule = (value: never) => Issue | undefined

/** `check`, then each rule on a value of the right type (all of them: each issue is reported). */
export const pipe = /* @__NO_SIDE_EFFECTS__ */ <T>(check: Check<T>, ...rules: Rule[]): Check<T> =>
  make(check.e, (value) => {
    const outcome = check(value)
    if (!outcome[0]) return outcome
    let issues = outcome[1]
    for (const rule of rules) {
      const found = rule(value as never)
      if (found) issues = [...issues, found]
    }
    return issues === outcome[1] ? outcome : [true, issues, outcome[2]]
  })

/** `fn` applied to the value, then `check` on what it returns (valibot's `pipe(unknown(), transform(fn), schema)`). */
export const transform = /* @__NO_SIDE_EFFECTS__ */ <T>(fn: (value: unknown) => unknown, check: Check): Check<T> =>
  make('unknown', (value) => check(fn(value)))

/** An integer (after a `number`). */
export const integer: Rule = (x: number) => (Number.isInteger(x) ? undefined : issue('integer', null, show(x)))
/** At least `min` (after a `number`). */
export const minValue =
  (min: number): Rule =>
  (x: number) =>
    x >= min ? undefined : issue('value', `>=${min}`, show(x))
/** At most `max` (after a `number`). */
export const maxValue =
  (max: number): Rule =>
  (x: number) =>
    x <= max ? undefined : issue('value', `<=${max}`, show(x))
/** At most `max` long (after an array or string). */
export const maxLength =
  (max: number): Rule =>
  (x: { length: number }) =>
    x.length <= max ? undefined : issue('length', `<=${max}`, `${x.length}`)
/** A URL `URL.canParse` accepts (after a `string`). */
export const url: Rule = (x: string) => (URL.canParse(x) ? undefined : issue('URL', null, show(x)))

const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object'

/** An own member of `value` that is not `__proto__`, `prototype` or `constructor` (valibot's `_isValidObjectKey`). */
const plainKey = (value: object, key: string) =>
  Object.hasOwn(value, key) && key !== '__proto__' && key !== 'prototype' && key !== 'constructor'

/**
 * Run `check` on one member: its issues (under `key`) go into `into`, its output to `out[key]`.
 * @returns whether it was typed.
 */
function member(check: Check, value: unknown, key: string | number, into: Issue[], out: object): boolean {
  const [typed, issues, output] = check(value)
  for (const i of issues) {
    i.path.unshift(key)
    into.push(i)
  }
  ;(out as Record<string | number, unknown>)[key] = output
  return typed
}

/** An array of `item`. */
export const array = /* @__NO_SIDE_EFFECTS__ */ <T>(item: Check<T>): Check<T[]> =>
  make('Array', (value) => {
    if (!Array.isArray(value)) return [false, [issue('type', 'Array', show(value))]]
    const issues: Issue[] = []
    const out: unknown[] = []
    let typed = true
    // every index, holes too (as valibot: a hole is checked as undefined)
    for (let i = 0; i < value.length; i++) typed = member(item, value[i], i, issues, out) && typed
    return [typed, issues, out]
  })

/**
 * A loose object (any object, an array too): each of `entries` present (unless optional) and valid; other
 * members kept in the output, unless `strip` (valibot's `object` rather than `looseObject`).
 */
export const object = /* @__NO_SIDE_EFFECTS__ */ <T>(entries: Record<string, Check>, strip?: boolean): Check<T> => {
  const list = Object.entries(entries)
  return make(
    'Object',
    (value) => {
      if (!isObject(value)) return [false, [issue('type', 'Object', show(value))]]
      const issues: Issue[] = []
      const out: Record<string, unknown> = {}
      let typed = true
      for (const [key, entry] of list) {
        if (key in value) typed = member(entry, value[key], key, issues, out) && typed
        else if (!entry.o) {
          issues.push(issue('key', `"${key}"`, 'undefined', [key]))
          typed = false
        }
      }
      if (!strip)
        for (const key in value) if (plainKey(value, key) && !Object.hasOwn(entries, key)) out[key] = value[key]
      return [typed, issues, out]
    },
    { n: entries },
  )
}

/** An object whose own members (but `__proto__`, `prototype` and `constructor`) are each `check`. */
export const record = /* @__NO_SIDE_EFFECTS__ */ <T>(check: Check<T>): Check<Record<string, T>> =>
  make('Object', (value) => {
    if (!isObject(value)) return [false, [issue('type', 'Object', show(value))]]
    const issues: Issue[] = []
    const out: Record<string, unknown> = {}
    let typed = true
    for (const key in value) if (plainKey(value, key)) typed = member(check, value[key], key, issues, out) && typed
    return [typed, issues, out]
  })

/** The first of `options` the value passes; else the issues of the closest (valibot's union). */
export const union = /* @__NO_SIDE_EFFECTS__ */ <T>(options: Check[]): Check<T> => {
  const e = join(options.map((o) => o.e))
  return make(e, (value) => {
    const typed: Outcome[] = []
    const untyped: Outcome[] = []
    for (const option of options) {
      const outcome = option(value)
      if (outcome[0] && outcome[1].length === 0) return outcome
      ;(outcome[0] ? typed : untyped).push(outcome)
    }
    const tried = typed.length > 0 ? typed : untyped
    if (tried.length === 1) return tried[0]!
    return [typed.length > 0, [{ ...issue('type', e, show(value)), union: tried.flatMap((o) => o[1]) }]]
  })
}

/** The object option whose literal `key` matches (valibot's variant); else an issue at `key` listing them. */
export const variant = /* @__NO_SIDE_EFFECTS__ */ <T>(key: string, options: Check[]): Check<T> =>
  make('Object', (value) => {
    if (!isObject(value)) return [false, [issue('type', 'Object', show(value))]]
    let found: Outcome | undefined
    for (const option of options) {
      const tag = option.n![key]!
      if (key in value && tag(value[key])[1].length === 0) {
        const outcome = option(value)
        if (!found || (!found[0] && outcome[0])) found = outcome
      }
      if (found && found[1].length === 0) break
    }
    return found ?? [false, [issue('type', join(options.map((o) => o.n![key]!.e)), show(value[key]), [key])]]
  })

/**
 * "field 'a.b': message" for an issue with a path, else the message alone; a union is explained by the
 * issue of its options with the longest path (`describeIssue` in ./issues.ts explains valibot's issues with it).
 */
export function describe(first: Issue): string {
  const path = first.path.map(String)
  let current = first
  while (current.union?.length) {
    const deepest = current.union.reduce((best, i) => (i.path.length > best.path.length ? i : best))
    if (deepest.path.length === 0) break
    path.push(...deepest.path.map(String))
    current = deepest
  }
  return path.length ? `field '${path.join('.')}': ${current.message}` : current.message
}

/** The first issue of `check` on `value` described, or undefined when it passes. */
export function problem(check: Check, value: unknown): string | undefined {
  return parse(check, value)[0]
}

/** `[undefined, output]` when `value` passes `check` (the output as valibot's, see above), else `[the first issue described]`. */
export function parse<T>(check: Check<T>, value: unknown): [issue: undefined, output: T] | [issue: string] {
  const [, issues, output] = check(value)
  return issues[0] ? [describe(issues[0])] : [undefined, output as T]
}
