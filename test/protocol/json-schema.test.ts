/**
 * The in-house JSON Schema converter (src/protocol/json-schema.ts) against `@valibot/to-json-schema`, run
 * side by side: every valibot schema kind and pipe action that library converts, hand-picked edge cases
 * and random schema trees must give the same JSON (key order included) with `errorMode: 'ignore'`, and
 * with `errorMode: 'throw'` both must throw the same message or give the same JSON.
 */
import * as v from 'valibot'
import * as fc from 'fast-check'
import { toJsonSchema as library } from '@valibot/to-json-schema'
import { describe, expect, it } from 'vitest'
import { toJsonSchema } from '../../src/protocol/json-schema.ts'

type Outcome = { json: string } | { error: string }

/** The library's answer, `$schema` removed (the SDK never sends it), as JSON text or the thrown message. */
function theirs(schema: v.GenericSchema, strict: boolean): Outcome {
  try {
    const json: Record<string, unknown> = {
      ...library(schema, { target: 'draft-2020-12', typeMode: 'input', errorMode: strict ? 'throw' : 'ignore' }),
    }
    delete json.$schema
    return { json: JSON.stringify(json) }
  } catch (error) {
    return { error: (error as Error).message }
  }
}

function ours(schema: v.GenericSchema, strict: boolean): Outcome {
  try {
    return { json: JSON.stringify(toJsonSchema(schema, strict)) }
  } catch (error) {
    return { error: (error as Error).message }
  }
}

/** `v.pipe` without its type checks: the corpus pipes actions onto schemas they do not fit, on purpose. */
const pipe = v.pipe as unknown as (...items: unknown[]) => v.GenericSchema
const s = v.string()
const n = v.number()
const Node: v.GenericSchema = v.object({ name: s, children: v.array(v.lazy(() => Node)) })
const Tree: v.GenericSchema = v.union([n, v.array(v.lazy(() => Tree))])
const Shared = v.object({ a: s })
const getShared = () => Shared

/** Schemas by name: each schema kind and each action the library knows, alone and combined. */
const CORPUS: Record<string, v.GenericSchema> = {
  string: s,
  number: n,
  boolean: v.boolean(),
  null: v.null(),
  any: v.any(),
  unknown: v.unknown(),
  never: v.never(),
  bigint: v.bigint(),
  date: v.date(),
  undefined: v.undefined(),
  symbol: v.symbol(),
  'object plain': v.object({ a: s, b: v.optional(n), c: v.nullish(s), d: v.exactOptional(s), e: v.undefinedable(s) }),
  'object empty': v.object({}),
  'object strict': v.strictObject({ a: s }),
  'object loose': v.looseObject({ a: s }),
  'object with rest': v.objectWithRest({ a: s }, n),
  'object nested': v.object({ inner: v.object({ deep: v.array(v.object({ x: v.boolean() })) }) }),
  'object with bigint entry': v.object({ big: v.bigint(), ok: s }),
  'optional default': v.object({ a: v.optional(s, 'x'), b: v.optional(n, () => 4), c: v.nullable(s, 'y') }),
  'nullish default fn': v.nullish(v.number(), () => 7),
  'optional of optional': v.optional(v.optional(s, 'inner'), 'outer'),
  'nullable array': v.nullable(v.array(s)),
  'optional piped': v.optional(pipe(s, v.description('d'), v.minLength(1)), 'dft'),
  'piped optional': pipe(v.optional(s, 'a'), v.description('after')),
  array: v.array(n),
  tuple: v.tuple([s, n]),
  'strict tuple': v.strictTuple([s]),
  'loose tuple': v.looseTuple([s, v.boolean()]),
  'tuple with rest': v.tupleWithRest([s], n),
  'record string key': v.record(s, n),
  'record piped key': v.record(v.pipe(s, v.regex(/^[a-z]+$/)), v.boolean()),
  'record picklist key': v.record(v.picklist(['a', 'b']), n),
  union: v.union([s, n, v.null()]),
  variant: v.variant('kind', [v.object({ kind: v.literal('a'), x: s }), v.object({ kind: v.literal('b'), y: n })]),
  intersect: v.intersect([v.object({ a: s }), v.object({ b: n })]),
  'picklist strings': v.picklist(['a', 'b', 'c']),
  'picklist numbers': v.picklist([1, 2, 3]),
  'picklist mixed': v.picklist(['a', 1]),
  'picklist non-finite': v.picklist([1, Infinity]),
  'enum strings': v.enum({ A: 'a', B: 'b' }),
  'enum numeric': v.enum({ A: 0, B: 1 }),
  'literal string': v.literal('x'),
  'literal number': v.literal(3),
  'literal boolean': v.literal(true),
  'literal bigint': v.literal(3n),
  'lazy recursive': Node,
  'lazy union': Tree,
  'lazy shared twice': v.object({ a: v.lazy(getShared), b: v.lazy(getShared), c: Shared }),
  'lazy two getters': v.object({ a: v.lazy(() => Shared), b: v.lazy(() => Shared), c: v.lazy(() => n) }),
  description: pipe(s, v.description('a string')),
  title: pipe(s, v.title('T')),
  examples: pipe(s, v.examples(['a']), v.examples(['b'])),
  metadata: pipe(s, v.metadata({ title: 'M', description: 'md', examples: ['x'], deprecated: true, 'x-a': 1 })),
  'metadata after examples': pipe(s, v.examples(['a']), v.metadata({ examples: ['b'], title: 3 })),
  'metadata proto': pipe(s, v.metadata(JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as Record<string, unknown>)),
  'metadata type override': pipe(s, v.metadata({ type: 'number' }), v.minValue(2), v.minLength(1)),
  'min/max length string': pipe(s, v.minLength(2), v.maxLength(9), v.minLength(1), v.maxLength(12)),
  'length string': pipe(s, v.length(4)),
  'length array': pipe(v.array(s), v.length(2), v.minLength(1), v.maxLength(3)),
  'min length array': pipe(v.array(n), v.minLength(1), v.maxLength(4)),
  'length on number': pipe(n, v.minLength(1)),
  'max length on number': pipe(n, v.maxLength(1)),
  'length exact on number': pipe(n, v.length(1)),
  'length bad requirement': pipe(s, v.minLength(-1)),
  'length fractional': pipe(s, v.maxLength(1.5)),
  'length NaN': pipe(s, v.length(NaN)),
  'empty string': pipe(s, v.empty()),
  'empty array': pipe(v.array(s), v.empty()),
  'empty after a negative metadata bound': pipe(v.array(s), v.metadata({ maxItems: -1 }), v.empty()),
  'empty number': pipe(n, v.empty()),
  'non empty string': pipe(s, v.minLength(3), v.nonEmpty()),
  'non empty array': pipe(v.array(s), v.nonEmpty()),
  'non empty boolean': pipe(v.boolean(), v.nonEmpty()),
  entries: pipe(v.record(s, n), v.entries(2)),
  'min/max entries': pipe(v.record(s, n), v.minEntries(1), v.maxEntries(5), v.minEntries(2), v.maxEntries(9)),
  'entries negative': pipe(v.record(s, n), v.minEntries(-2)),
  'max entries fractional': pipe(v.record(s, n), v.maxEntries(0.5)),
  'entries fractional': pipe(v.record(s, n), v.entries(0.5)),
  'min/max value': pipe(n, v.minValue(1), v.maxValue(10), v.minValue(0), v.maxValue(20)),
  'gt/lt value': pipe(n, v.gtValue(1), v.ltValue(10), v.gtValue(2), v.ltValue(5)),
  'min value on string': pipe(s, v.minValue('a')),
  'max value on string': pipe(s, v.maxValue('a')),
  'gt value on string': pipe(s, v.gtValue('a')),
  'lt value on string': pipe(s, v.ltValue('a')),
  'min value infinite': pipe(n, v.minValue(-Infinity)),
  'max value infinite': pipe(n, v.maxValue(Infinity)),
  'gt value NaN': pipe(n, v.gtValue(NaN)),
  'lt value infinite': pipe(n, v.ltValue(Infinity)),
  'min value on integer': pipe(n, v.integer(), v.minValue(1), v.maxValue(3)),
  integer: pipe(n, v.integer()),
  'safe integer': pipe(n, v.minValue(0), v.safeInteger()),
  'safe integer bounded': pipe(n, v.safeInteger(), v.maxValue(5)),
  'multiple of': pipe(n, v.multipleOf(3), v.multipleOf(5)),
  regex: pipe(s, v.regex(/^a+$/)),
  'regex flags': pipe(s, v.regex(/^a+$/i)),
  'regex twice': pipe(s, v.regex(/^a/), v.regex(/b$/)),
  'regex flags twice': pipe(s, v.regex(/^a/), v.regex(/b$/u)),
  'starts/ends/includes': pipe(s, v.startsWith('a.b*')),
  'ends with': pipe(s, v.endsWith('(x)$')),
  includes: pipe(s, v.includes('[y]?')),
  'includes on array': pipe(v.array(s), v.includes('x')),
  'starts then ends': pipe(s, v.startsWith('a'), v.endsWith('b')),
  email: pipe(s, v.email()),
  'rfc email': pipe(s, v.rfcEmail()),
  url: pipe(s, v.url()),
  uuid: pipe(s, v.uuid()),
  ipv4: pipe(s, v.ipv4()),
  ipv6: pipe(s, v.ipv6()),
  ip: pipe(s, v.ip()),
  'iso date': pipe(s, v.isoDate()),
  'iso date time': pipe(s, v.isoDateTime()),
  'iso timestamp': pipe(s, v.isoTimestamp()),
  'iso time': pipe(s, v.isoTime()),
  'iso time second': pipe(s, v.isoTimeSecond()),
  'iso date time second': pipe(s, v.isoDateTimeSecond()),
  'iso week': pipe(s, v.isoWeek()),
  base64: pipe(s, v.base64()),
  'regex-backed actions': v.object({
    bic: pipe(s, v.bic()),
    cuid2: pipe(s, v.cuid2()),
    decimal: pipe(s, v.decimal()),
    digits: pipe(s, v.digits()),
    domain: pipe(s, v.domain()),
    emoji: pipe(s, v.emoji()),
    hash: pipe(s, v.hash(['sha256'])),
    hexadecimal: pipe(s, v.hexadecimal()),
    hexColor: pipe(s, v.hexColor()),
    isrc: pipe(s, v.isrc()),
    jws: pipe(s, v.jwsCompact()),
    ksuid: pipe(s, v.ksuid()),
    mac: pipe(s, v.mac()),
    mac48: pipe(s, v.mac48()),
    mac64: pipe(s, v.mac64()),
    nanoid: pipe(s, v.nanoid()),
    octal: pipe(s, v.octal()),
    slug: pipe(s, v.slug()),
    ulid: pipe(s, v.ulid()),
  }),
  'regex-backed twice': pipe(s, v.digits(), v.hexadecimal()),
  'regex then digits': pipe(s, v.regex(/x/), v.digits()),
  value: pipe(n, v.value(3)),
  'value twice same': pipe(n, v.value(3), v.value(3)),
  'value twice different': pipe(n, v.value(3), v.value(4)),
  'value on literal': pipe(v.literal('a'), v.value('b')),
  'value bigint': pipe(v.bigint(), v.value(3n)),
  'value date': pipe(v.date(), v.value(new Date(0))),
  values: pipe(s, v.values(['a', 'b', 'a'])),
  'values intersected': pipe(v.picklist(['a', 'b', 'c']), v.values(['b', 'c', 'd'])),
  'values disjoint': pipe(v.picklist(['a']), v.values(['z']), v.notValue('q')),
  'values empty': pipe(s, v.values([])),
  'values intersected to one': pipe(v.picklist(['a', 'b']), v.values(['b', 'z'])),
  'values after a falsy metadata enum': pipe(s, v.metadata({ enum: 0 }), v.values(['a'])),
  'values after an empty metadata enum': pipe(s, v.metadata({ enum: [] }), v.values(['a'])),
  'values bigint': pipe(v.bigint(), v.values([1n])),
  'not value': pipe(n, v.notValue(3), v.notValue(4), v.notValue(5)),
  'not value bigint': pipe(v.bigint(), v.notValue(1n)),
  'not values': pipe(s, v.notValues(['a', 'a', 'b']), v.notValues([])),
  'not values bad': pipe(n, v.notValues([NaN])),
  'check action': pipe(
    s,
    v.check((x: string) => x.length > 0),
  ),
  'check after description': pipe(
    s,
    v.description('d'),
    v.check((x) => x !== 'a'),
    v.title('t'),
  ),
  'unsupported actions': v.object({
    trim: pipe(s, v.trim()),
    lower: pipe(s, v.toLowerCase()),
    words: pipe(s, v.minWords('en', 2)),
    bytes: pipe(s, v.maxBytes(9)),
    graphemes: pipe(s, v.maxGraphemes(4)),
    finite: pipe(n, v.finite()),
    creditCard: pipe(s, v.creditCard()),
    imei: pipe(s, v.imei()),
    brand: pipe(s, v.brand('B')),
    readonly: pipe(v.array(s), v.readonly()),
    notLength: pipe(s, v.notLength(3)),
  }),
  'transform ends input': pipe(s, v.minLength(1), v.transform(Number), v.minValue(3)),
  'to number ends input': pipe(s, v.email(), v.toNumber(), v.integer()),
  'parse json ends input': pipe(s, v.parseJson(), v.object({ a: n })),
  'second schema ends input': pipe(v.unknown(), v.description('raw'), v.string(), v.email()),
  'raw transform ends input': pipe(
    s,
    v.rawTransform(({ dataset }) => dataset.value),
    v.email(),
  ),
  'nested pipes': pipe(pipe(s, v.email()), v.maxLength(40), pipe(v.string(), v.minLength(2))),
  'pipe in pipe in object': v.object({ a: pipe(pipe(pipe(n, v.integer()), v.minValue(1)), v.title('A')) }),
  'optional lazy': v.object({ next: v.optional(v.lazy(() => Shared)) }),
  'piped lazy target': v.object({ l: v.lazy(() => pipe(s, v.email())) }),
  'map/set/date/blob/file': v.object({ m: v.map(s, n), st: v.set(s), d: v.date(), b: v.blob(), f: v.file() }),
  'function/instance/promise/void/nan': v.union([v.function(), v.instance(Date), v.promise(), v.void(), v.nan()]),
  'record bigint key': v.record(v.picklist([1, 2]) as unknown as v.GenericSchema<string>, n),
  'record number key with bad value': v.record(v.number() as unknown as v.GenericSchema<string>, v.date()),
  'custom schema': v.custom<string>((x) => typeof x === 'string'),
  'non optional': v.nonOptional(v.optional(s)),
  'non nullable': v.nonNullable(v.nullable(s)),
  'non nullish': v.nonNullish(v.nullish(n)),
  fallback: v.fallback(s, 'x'),
  partial: v.partial(v.object({ a: s, b: n })),
  required: v.required(v.partial(v.object({ a: s }))),
  pick: v.pick(v.object({ a: s, b: n, c: v.boolean() }), ['a', 'c']),
  omit: v.omit(v.object({ a: s, b: n }), ['a']),
  'tool input (every field)': v.object({
    q: pipe(s, v.minLength(1), v.maxLength(200), v.description('query')),
    limit: v.optional(pipe(n, v.integer(), v.minValue(1), v.maxValue(100)), 10),
    tags: v.optional(v.array(v.picklist(['x', 'y']))),
    when: v.nullish(pipe(s, v.isoDateTime())),
    mode: v.union([v.literal('fast'), v.literal('slow')]),
    meta: v.record(s, v.unknown()),
    point: v.tuple([n, n]),
  }),
}

describe('toJsonSchema (src/protocol/json-schema.ts) equals @valibot/to-json-schema', () => {
  for (const [name, schema] of Object.entries(CORPUS)) {
    it(`${name}`, () => {
      expect(ours(schema, false)).toEqual(theirs(schema, false))
      expect(ours(schema, true)).toEqual(theirs(schema, true))
    })
  }

  it('the corpus exercises both outcomes: some schemas throw in strict mode, most convert', () => {
    const outcomes = Object.values(CORPUS).map((schema) => 'error' in theirs(schema, true))
    expect(outcomes.filter(Boolean).length).toBeGreaterThan(20)
    expect(outcomes.filter((x) => !x).length).toBeGreaterThan(80)
  })

  it('strict mode names what cannot be expressed', () => {
    expect(() =>
      toJsonSchema(
        pipe(
          s,
          v.check(() => true),
        ),
        true,
      ),
    ).toThrow('The "check" action cannot be converted to JSON Schema.')
    expect(() => toJsonSchema(v.object({ n: v.bigint() }), true)).toThrow(
      'The "bigint" schema cannot be converted to JSON Schema.',
    )
    expect(toJsonSchema(v.object({ n: v.bigint() }), false)).toEqual({
      type: 'object',
      properties: { n: {} },
      required: ['n'],
    })
  })

  it('random schema trees give the same JSON and the same errors', () => {
    fc.assert(
      fc.property(schemaArbitrary, (schema) => {
        expect(ours(schema, false)).toEqual(theirs(schema, false))
        expect(ours(schema, true)).toEqual(theirs(schema, true))
      }),
      { numRuns: 600, seed: 16_04 },
    )
  })
})

const leafAction = fc.oneof(
  fc.constantFrom<unknown>(
    v.email(),
    v.url(),
    v.uuid(),
    v.integer(),
    v.safeInteger(),
    v.nonEmpty(),
    v.empty(),
    v.isoDate(),
    v.trim(),
    v.check(() => true),
    v.regex(/a/),
    v.regex(/a/g),
    v.digits(),
    v.base64(),
    v.value('a'),
    v.value(1),
    v.values(['a', 'b']),
    v.notValue(2),
    v.notValues(['a']),
    v.transform((x: unknown) => x),
    v.toNumber(),
    v.readonly(),
  ),
  fc.integer({ min: -2, max: 20 }).map((k) => v.minLength(k)),
  fc.integer({ min: -2, max: 20 }).map((k) => v.maxLength(k)),
  fc.integer({ min: 0, max: 20 }).map((k) => v.length(k)),
  fc.integer({ min: 0, max: 5 }).map((k) => v.minEntries(k)),
  fc.double({ noNaN: false }).map((k) => v.minValue(k)),
  fc.double({ noNaN: false }).map((k) => v.maxValue(k)),
  fc.integer().map((k) => v.gtValue(k)),
  fc.integer().map((k) => v.ltValue(k)),
  fc.integer({ min: 1, max: 9 }).map((k) => v.multipleOf(k)),
  fc.string().map((k) => v.startsWith(k)),
  fc.string().map((k) => v.description(k)),
  fc.string().map((k) => v.title(k)),
  fc.array(fc.string(), { maxLength: 2 }).map((k) => v.examples(k)),
  fc
    .dictionary(
      fc.constantFrom(
        'title',
        'description',
        'examples',
        'x-k',
        'deprecated',
        'type',
        'enum',
        'pattern',
        'const',
        'maxItems',
      ),
      fc.jsonValue(),
    )
    .map((m) => v.metadata(m)),
)

const key = fc.constantFrom('a', 'b', 'c', 'd')
const literal = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean(), fc.constant(Infinity))
const defaultValue = fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 1 }))

/** Random valibot schemas: every kind the converter handles (and some it does not), with random pipes. */
const { schemaArbitrary } = fc.letrec<{ schemaArbitrary: v.GenericSchema }>((tie) => {
  const sub = tie('schemaArbitrary')
  const leaf = fc.oneof(
    fc.constantFrom<v.GenericSchema>(
      s,
      n,
      v.boolean(),
      v.null(),
      v.any(),
      v.unknown(),
      v.never(),
      v.bigint(),
      v.date(),
    ),
    literal.map((x) => v.literal(x)),
    fc
      .uniqueArray(fc.oneof(fc.string({ maxLength: 2 }), fc.integer({ min: 0, max: 3 })), {
        minLength: 1,
        maxLength: 3,
      })
      .map((o) => v.picklist(o)),
  )
  const node = fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    sub.map((x) => v.array(x)),
    fc.dictionary(key, sub, { maxKeys: 3 }).map((e) => v.object(e)),
    fc.dictionary(key, sub, { maxKeys: 2 }).map((e) => v.strictObject(e)),
    fc.dictionary(key, sub, { maxKeys: 2 }).map((e) => v.looseObject(e)),
    fc.tuple(fc.dictionary(key, sub, { maxKeys: 2 }), sub).map(([e, r]) => v.objectWithRest(e, r)),
    fc.array(sub, { maxLength: 3 }).map((i) => v.tuple(i)),
    fc.array(sub, { maxLength: 2 }).map((i) => v.strictTuple(i)),
    fc.tuple(fc.array(sub, { maxLength: 2 }), sub).map(([i, r]) => v.tupleWithRest(i, r)),
    fc
      .tuple(fc.constantFrom<v.GenericSchema<string>>(s, v.pipe(s, v.email()), n as never), sub)
      .map(([k, x]) => v.record(k, x)),
    fc.tuple(sub, defaultValue).map(([x, d]) => v.optional(x, d as never)),
    fc.tuple(sub, defaultValue).map(([x, d]) => v.nullable(x, d as never)),
    fc.tuple(sub, defaultValue).map(([x, d]) => v.nullish(x, d as never)),
    sub.map((x) => v.exactOptional(x)),
    sub.map((x) => v.undefinedable(x)),
    fc.array(sub, { minLength: 1, maxLength: 3 }).map((o) => v.union(o)),
    fc.array(sub, { minLength: 1, maxLength: 2 }).map((o) => v.intersect(o)),
    sub.map((x) => v.lazy(() => x)),
    fc
      .tuple(sub, fc.array(fc.oneof(leafAction, sub), { minLength: 1, maxLength: 4 }))
      .map(([x, items]) => pipe(x, ...items)),
  )
  return { schemaArbitrary: node }
})
