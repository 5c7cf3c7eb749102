/**
 * The client's hand-written result checks (src/client/result-checks.ts) against the valibot schemas they
 * replace: over every example message of the spec, results our demo server produces, a maximal valid
 * value generated from each schema (every optional member present, each union option taken), and
 * systematically broken variants of all of those (each member removed, or replaced by a value of each
 * wrong type), both must agree on pass / fail and, on failure, on the described first issue.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { type Check, parse } from '../src/protocol/check.ts'
import { describeIssue } from '../src/protocol/issues.ts'
import * as S from '../src/protocol/schemas/index.ts'
import * as C from '../src/client/result-checks.ts'
import { createFetchHandler } from '../src/server/index.ts'
import { createDemoServer } from '../worker/server.ts'
import { call } from './helpers.ts'

const PAIRS: Array<[string, v.GenericSchema, Check]> = [
  ['CallToolResult', S.CallToolResult, C.CallToolResultCheck],
  ['ListToolsResult', S.ListToolsResult, C.ListToolsResultCheck],
  ['ListPromptsResult', S.ListPromptsResult, C.ListPromptsResultCheck],
  ['GetPromptResult', S.GetPromptResult, C.GetPromptResultCheck],
  ['ListResourcesResult', S.ListResourcesResult, C.ListResourcesResultCheck],
  ['ListResourceTemplatesResult', S.ListResourceTemplatesResult, C.ListResourceTemplatesResultCheck],
  ['ReadResourceResult', S.ReadResourceResult, C.ReadResourceResultCheck],
  ['DiscoverResult', S.DiscoverResult, C.DiscoverResultCheck],
  ['CompleteResult', S.CompleteResult, C.CompleteResultCheck],
  ['ElicitRequestURLParams', S.ElicitRequestURLParams, C.ElicitRequestURLParamsCheck],
  ['ElicitResult', S.ElicitResult, C.ElicitResultCheck],
  ['CreateMessageResult', S.CreateMessageResult, C.CreateMessageResultCheck],
  ['ListRootsResult', S.ListRootsResult, C.ListRootsResultCheck],
  ['InputRequest', S.InputRequest, C.InputRequestCheck],
  ['InputRequiredResult', S.InputRequiredResult, C.InputRequiredResultCheck],
  [
    'SubscriptionsAcknowledgedNotification',
    S.SubscriptionsAcknowledgedNotification,
    C.SubscriptionsAcknowledgedNotificationCheck,
  ],
]

/** valibot's verdict: undefined when it passes, else the described first issue. */
function valibot(schema: v.GenericSchema, value: unknown): string | undefined {
  const parsed = v.safeParse(schema, value)
  return parsed.success ? undefined : describeIssue(parsed.issues[0])
}

/** Members in order, `undefined` ones and own `__proto__` ones included. */
const exact = (value: unknown) => JSON.stringify(value, (_, x: unknown) => (x === undefined ? '(undefined)' : x))

/** Both agree on `value`: the same described first issue, or (when it passes) the same output. */
function agree(name: string, schema: v.GenericSchema, check: Check, value: unknown): string | undefined {
  const theirs = v.safeParse(schema, value)
  const ours = parse(check, value)
  const expected = theirs.success ? undefined : describeIssue(theirs.issues[0])
  expect(ours[0], `${name} on ${exact(value)}`).toBe(expected)
  if (theirs.success) expect(exact(ours[1]), `${name} output of ${exact(value)}`).toBe(exact(theirs.output))
  return expected
}

/** Every object and array inside `value` (itself included). */
function nodes(value: unknown, into: unknown[] = []): unknown[] {
  if (value && typeof value === 'object') {
    into.push(value)
    for (const child of Object.values(value)) nodes(child, into)
  }
  return into
}

// wrong values of every JSON type (and undefined, NaN, objects that look like others)
const WRONG: unknown[] = [
  undefined,
  null,
  0,
  -1,
  1.5,
  NaN,
  101,
  '',
  'x',
  'not a url',
  true,
  false,
  [],
  ['x'],
  [1],
  {},
  { type: 'x' },
]

/** `value` with the member at `path` replaced by `by` (or removed when `by` is REMOVE). */
const REMOVE = Symbol('remove')
function edit(value: unknown, path: Array<string | number>, by: unknown): unknown {
  if (path.length === 0) return by
  const copy = (Array.isArray(value) ? [...(value as unknown[])] : { ...(value as object) }) as Record<
    string | number,
    unknown
  >
  const [key, ...rest] = path
  if (rest.length === 0 && by === REMOVE) {
    if (Array.isArray(copy)) (copy as unknown[]).splice(key as number, 1)
    else delete copy[key]
  } else copy[key] = edit(copy[key], rest, by)
  return copy
}

/** Every path to a member inside `value`. */
function paths(value: unknown, prefix: Array<string | number> = [], into: Array<Array<string | number>> = []) {
  if (value && typeof value === 'object')
    for (const [key, child] of Object.entries(value)) {
      const path = [...prefix, Array.isArray(value) ? Number(key) : key]
      into.push(path)
      paths(child, path, into)
    }
  return into
}

/**
 * Broken variants of `value`: each member removed or replaced by each wrong value, the whole replaced, an
 * item added to each array, the members of each object from the i-th on all replaced or removed.
 */
function* variants(value: unknown): Generator<unknown> {
  for (const wrong of WRONG) yield wrong
  for (const path of paths(value)) {
    yield edit(value, path, REMOVE)
    for (const wrong of WRONG) yield edit(value, path, wrong)
  }
  for (const path of [[], ...paths(value)]) {
    const at = path.reduce<unknown>((x, k) => (x as Record<string | number, unknown>)[k], value)
    if (Array.isArray(at)) for (const wrong of WRONG) yield edit(value, path, [...(at as unknown[]), wrong])
    // members valibot's output leaves out (`__proto__` as JSON.parse makes it: an own member) and one it keeps
    if (at && typeof at === 'object' && !Array.isArray(at))
      yield edit(value, path, {
        ...at,
        ...(JSON.parse('{"__proto__":{"x":1},"constructor":1,"prototype":"p","extra":null}') as object),
      })
    // the members from the i-th on all wrong, or all removed: the first issue shows the order members are checked in
    if (at && typeof at === 'object' && !Array.isArray(at)) {
      const keys = Object.keys(at)
      for (let i = 0; i < keys.length; i++) {
        const kept = Object.fromEntries(keys.slice(0, i).map((k) => [k, (at as Record<string, unknown>)[k]]))
        yield edit(value, path, kept)
        for (const wrong of WRONG)
          yield edit(value, path, { ...kept, ...Object.fromEntries(keys.slice(i).map((k) => [k, wrong])) })
      }
    }
  }
}

/** A valid value of `schema` with every optional member present; `pick` chooses each union / variant / picklist option. */
function maximal(schema: v.GenericSchema, pick: number): unknown {
  const s = schema as v.GenericSchema & Record<string, unknown>
  const wrapped = s.pipe as v.GenericSchema[] | undefined
  if (wrapped) {
    const last = [...wrapped].reverse().find((x) => (x as { kind?: string }).kind === 'schema')!
    if (s.type === 'string' && wrapped.some((x) => x.type === 'url')) return 'https://example.com/x'
    if (last !== schema && last.type !== 'unknown' && wrapped[0].type === 'unknown') return maximal(last, pick)
  }
  switch (s.type) {
    case 'string':
      return 'a'
    case 'number':
      return 1
    case 'boolean':
      return true
    case 'unknown':
      return { any: [1] }
    case 'literal':
      return s.literal
    case 'picklist': {
      const options = s.options as unknown[]
      return options[pick % options.length]
    }
    case 'optional':
    case 'nullable':
      return maximal(s.wrapped as v.GenericSchema, pick)
    case 'array':
      return [maximal(s.item as v.GenericSchema, pick)]
    case 'record':
      return { k: maximal(s.value as v.GenericSchema, pick) }
    case 'union':
    case 'variant': {
      const options = s.options as v.GenericSchema[]
      return maximal(options[pick % options.length], pick)
    }
    case 'object':
    case 'loose_object':
      return Object.fromEntries(
        Object.entries(s.entries as Record<string, v.GenericSchema>).map(([k, e]) => [k, maximal(e, pick)]),
      )
  }
  throw new Error(`no generator for ${String(s.type)}`)
}

const SPEC = join(import.meta.dirname, 'fixtures/spec/examples-2026-07-28')
function specExamples(): unknown[] {
  return readdirSync(SPEC, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith('.json'))
    .map((d) => JSON.parse(readFileSync(join(d.parentPath, d.name), 'utf8')) as unknown)
}

async function serverResults(): Promise<unknown[]> {
  const handler = createFetchHandler(createDemoServer())
  const calls: Array<[string, Record<string, unknown>]> = [
    ['server/discover', {}],
    ['tools/list', {}],
    ['prompts/list', {}],
    ['resources/list', {}],
    ['resources/templates/list', {}],
    ['tools/call', { name: 'provision', arguments: { name: 'orders' } }],
    ['tools/call', { name: 'order_book', arguments: { title: 'Neuromancer' } }],
    ['tools/call', { name: 'nope', arguments: {} }],
  ]
  const out: unknown[] = []
  for (const [method, params] of calls) out.push((await call(handler, method, params)).body)
  const listed = out[2] as { result?: { prompts?: Array<{ name: string }> } }
  for (const p of listed.result?.prompts ?? []) out.push((await call(handler, 'prompts/get', { name: p.name })).body)
  const resources = (out[3] as { result?: { resources?: Array<{ uri: string }> } }).result?.resources ?? []
  for (const r of resources) out.push((await call(handler, 'resources/read', { uri: r.uri })).body)
  return out
}

describe('client result checks agree with the valibot schemas', () => {
  it('on the spec examples, server results, and every node inside them', async () => {
    const examples = specExamples()
    const produced = await serverResults()
    expect(examples.length).toBeGreaterThanOrEqual(120)
    const corpus = [...examples, ...produced].flatMap((x) => nodes(x))
    let passed = 0
    for (const [name, schema, check] of PAIRS)
      for (const value of corpus) if (agree(name, schema, check, value) === undefined) passed++
    expect(passed).toBeGreaterThan(50) // the corpus holds valid values, not only rejections
  })

  it.each(PAIRS)(
    '%s: on maximal values and each broken variant of the valid corpus values',
    async (name, schema, check) => {
      const corpus = [...specExamples(), ...(await serverResults())].flatMap((x) => nodes(x))
      const valid = [0, 1, 2, 3, 4].map((pick) => maximal(schema, pick))
      for (const value of valid)
        expect(valibot(schema, value), `${name} maximal ${JSON.stringify(value)}`).toBeUndefined()
      valid.push(...corpus.filter((x) => valibot(schema, x) === undefined))
      let failures = 0
      for (const value of valid)
        for (const variant of variants(value)) if (agree(name, schema, check, variant) !== undefined) failures++
      expect(failures).toBeGreaterThan(20) // the variants do break it
    },
  )

  it('words a failure by field, as valibot does', () => {
    expect(parse(C.CallToolResultCheck, { content: [{ type: 'text', text: 42 }] })[0]).toBe(
      "field 'content.0.text': Invalid type: Expected string but received 42",
    )
    expect(parse(C.CallToolResultCheck, { content: [{ type: 'video' }] })[0]).toBe(
      `field 'content.0.type': Invalid type: Expected ("text" | "image" | "audio" | "resource_link" | "resource") but received "video"`,
    )
    expect(parse(C.ListToolsResultCheck, { tools: [], ttlMs: 1.5, cacheScope: 'public' })[0]).toBe(
      "field 'ttlMs': Invalid integer: Received 1.5",
    )
    expect(parse(C.ReadResourceResultCheck, { contents: [{ uri: 'x' }] })[0]).toBe(
      `field 'contents.0.text': Invalid key: Expected "text" but received undefined`,
    )
  })
})
