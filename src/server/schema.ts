/**
 * The schemas a user gives — tool `input` and `output`, prompt `arguments`, elicitation forms — in any
 * library that implements Standard Schema v1 (`~standard.validate`: valibot ≥ 1.0, zod ≥ 3.24, arktype ≥ 2.0,
 * effect through `Schema.standardSchemaV1`), with their JSON Schema (draft 2020-12, the spec's dialect) from
 * the library's own converter: Standard JSON Schema v1 (`~standard.jsonSchema`: zod ≥ 4.2, arktype ≥ 2.1.28,
 * valibot through `toStandardJsonSchema`), or `@valibot/to-json-schema` for a plain valibot schema.
 * Sources: https://standardschema.dev (`@standard-schema/spec` 1.1).
 * @module
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec'
import { toJsonSchema as valibotJsonSchema } from '@valibot/to-json-schema'
import * as v from 'valibot'
import { describe } from '../protocol/check.ts'
import { describeIssue } from '../protocol/issues.ts'
import { isPlainObject } from '../protocol/jsonrpc.ts'
import { InvalidSignatureError } from './errors.ts'

export type { StandardJSONSchemaV1, StandardSchemaV1 }

/** A JSON Schema object (draft 2020-12), as sent in `inputSchema`, `outputSchema` and `requestedSchema`. */
export type JsonSchema = Record<string, unknown>

/** The entries of an object schema, each any Standard Schema: `{ city: z.string(), days: v.number() }`. */
export type SchemaShape = { readonly [name: string]: StandardSchemaV1 }

/** An object schema of any Standard Schema library, or its entries ({@link SchemaShape}). */
export type ObjectSchemaInput = StandardSchemaV1<unknown, Record<string, unknown>> | SchemaShape

/** The validated value of a Standard Schema. */
export type Infer<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<S> : never

type Simplify<T> = { [K in keyof T]: T[K] } & {}

/** The validated object of a {@link SchemaShape}: an entry whose value may be `undefined` is optional. */
export type ShapeOutput<S extends SchemaShape> = Simplify<
  { [K in keyof S as undefined extends Infer<S[K]> ? never : K]: Infer<S[K]> } & {
    [K in keyof S as undefined extends Infer<S[K]> ? K : never]?: Infer<S[K]>
  }
>

/** The validated object of an {@link ObjectSchemaInput}; `{}` when there is none. */
export type ObjectOutput<I> = I extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<I>
  : I extends SchemaShape
    ? ShapeOutput<I>
    : Record<never, never>

/** The outcome of a check: the validated value, or the issues told as `"field 'a.b': message"`. */
export type Checked<T> = { readonly value: T; readonly issues?: undefined } | { readonly issues: readonly string[] }

/** A user's schema made ready: its check and its JSON Schema (input side, without `$schema`). */
export interface SchemaCheck<T = unknown> {
  /** Validate `value`; synchronous when the library is (valibot always is). */
  readonly check: (value: unknown) => Checked<T> | Promise<Checked<T>>
  readonly jsonSchema: JsonSchema
  /** The property names, for an object schema made from entries or a valibot object; else undefined. */
  readonly names?: ReadonlySet<string> | undefined
}

const TARGET = 'draft-2020-12'

/** Converters of `withJsonSchema`: their JSON Schema is sent as written, `$schema` included (SEP-1613). */
const verbatim = new WeakSet<object>()

/** How to give a library's schemas a JSON Schema, by vendor (`~standard.vendor`). */
const JSON_SCHEMA_HINT: Record<string, string> = {
  zod: 'zod ≥ 4.2 schemas carry it (upgrade zod)',
  arktype: 'arktype ≥ 2.1.28 types carry it (upgrade arktype)',
  valibot: "wrap it in toStandardJsonSchema() from '@valibot/to-json-schema', or pass the valibot schema itself",
  effect: 'build the JSON Schema with JSONSchema.make(schema) and pass both to withJsonSchema()',
}

/** True for a Standard Schema (an object or function with `~standard.validate`). */
export function isStandardSchema(x: unknown): x is StandardSchemaV1 {
  const props = (x as { '~standard'?: { validate?: unknown } } | null | undefined)?.['~standard']
  return (typeof x === 'object' || typeof x === 'function') && typeof props?.validate === 'function'
}

/** True for a valibot schema (not a wrapper of one): its JSON Schema comes from `@valibot/to-json-schema`. */
function isValibot(x: unknown): x is v.GenericSchema {
  return isStandardSchema(x) && x['~standard'].vendor === 'valibot' && (x as { kind?: unknown }).kind === 'schema'
}

/**
 * A validator with an explicit JSON Schema beside it, for a library without Standard JSON Schema (or to
 * send another schema than the library would write): a Standard JSON Schema whose `validate` is `schema`'s.
 * The JSON Schema is sent exactly as written (`$schema`, `$defs`, `$anchor`, `if`/`then`/`else` kept: SEP-1613);
 * a library's converter output is sent without its `$schema`.
 * @param schema - any Standard Schema.
 * @param input - the JSON Schema (draft 2020-12) of what it accepts; `output` that of what it produces
 *   (default: `input`), used for a tool's `outputSchema`.
 * @throws TypeError when `schema` is not a Standard Schema or `input` not a JSON object.
 * @example withJsonSchema(Schema.standardSchemaV1(Person), JSONSchema.make(Person))
 */
export function withJsonSchema<S extends StandardSchemaV1>(
  schema: S,
  input: JsonSchema,
  output: JsonSchema = input,
): S & StandardJSONSchemaV1<StandardSchemaV1.InferInput<S>, StandardSchemaV1.InferOutput<S>> {
  if (!isStandardSchema(schema)) throw new TypeError('withJsonSchema() takes a Standard Schema (with ~standard)')
  if (!isPlainObject(input) || !isPlainObject(output)) throw new TypeError('withJsonSchema() takes JSON Schema objects')
  const jsonSchema = { input: () => structuredClone(input), output: () => structuredClone(output) }
  verbatim.add(jsonSchema)
  return { '~standard': { ...schema['~standard'], jsonSchema } } as never
}

/**
 * The JSON Schema of a Standard Schema (the `side` it accepts or produces), from its library.
 * @param strict - throw for a check JSON Schema cannot express (valibot: `v.check`, `v.transform`, …).
 * @throws InvalidSignatureError naming `where` when the library cannot give one, with the call that adds it.
 */
export function jsonSchemaOf(
  schema: StandardSchemaV1,
  where: string,
  side: 'input' | 'output',
  strict = false,
): JsonSchema {
  let json: JsonSchema
  const converter = (schema['~standard'] as Partial<StandardJSONSchemaV1.Props>).jsonSchema
  try {
    if (isValibot(schema)) {
      json = valibotJsonSchema(schema, {
        target: TARGET,
        typeMode: side,
        errorMode: strict ? 'throw' : 'ignore',
      }) as JsonSchema
    } else {
      if (typeof converter?.[side] !== 'function') {
        const vendor = schema['~standard'].vendor
        const hint = JSON_SCHEMA_HINT[vendor] ?? 'pass the validator and its JSON Schema to withJsonSchema()'
        throw new InvalidSignatureError(
          `${where}: this ${vendor} schema has no JSON Schema (Standard JSON Schema, ~standard.jsonSchema): ${hint}`,
        )
      }
      json = converter[side]({ target: TARGET })
    }
  } catch (error) {
    if (error instanceof InvalidSignatureError) throw error
    throw new InvalidSignatureError(`${where}: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (!isPlainObject(json)) throw new InvalidSignatureError(`${where}: its JSON Schema is not an object`)
  if (converter && verbatim.has(converter)) return json
  const rest = { ...json } // a library's own `$schema` is left out: draft 2020-12 is the spec's default dialect
  delete rest.$schema
  return rest
}

/**
 * `"field 'a.b': message"` for a Standard Schema issue with a path, else its message. The path is copied
 * with `Array.from`: arktype's is an Array subclass whose `map` would turn an empty path into `[0]`.
 */
function describeStandardIssue(issue: StandardSchemaV1.Issue): string {
  const path = Array.from(issue.path ?? [], (p) => String(typeof p === 'object' && p !== null ? p.key : p))
  return describe({ message: issue.message, path })
}

const fromResult = <T>(result: StandardSchemaV1.Result<unknown>): Checked<T> =>
  result.issues ? { issues: result.issues.map(describeStandardIssue) } : { value: result.value as T }

/** Check `value` against a Standard Schema; valibot through `v.safeParse`, with its issues as the SDK tells them. */
export function checkWith<T>(schema: StandardSchemaV1, value: unknown): Checked<T> | Promise<Checked<T>> {
  if (isValibot(schema)) {
    const parsed = v.safeParse(schema, value)
    return parsed.success ? { value: parsed.output as T } : { issues: parsed.issues.map(describeIssue) }
  }
  const result = schema['~standard'].validate(value)
  return result instanceof Promise ? result.then(fromResult<T>) : fromResult<T>(result)
}

/**
 * A user's object schema made ready: a Standard Schema of an object, or entries of any libraries (checked one
 * by one, as an object that drops unknown members; an entry that accepts `undefined` is optional).
 * @param input - the schema or its entries; none: an empty object.
 * @param where - who it belongs to, for errors ("tool 'x' input").
 * @param strict - as in {@link jsonSchemaOf}.
 * @throws InvalidSignatureError when it is neither, an entry is no Standard Schema, or a JSON Schema is missing.
 */
export function objectSchemaOf(
  input: ObjectSchemaInput | undefined = {},
  where: string,
  strict = false,
): SchemaCheck<Record<string, unknown>> {
  if (isStandardSchema(input)) {
    const jsonSchema = jsonSchemaOf(input, where, 'input', strict)
    if (jsonSchema.type !== undefined && jsonSchema.type !== 'object')
      throw new InvalidSignatureError(
        `${where}: an object schema is needed, not one of type ${JSON.stringify(jsonSchema.type)}`,
      )
    // the names: a valibot object's entries, else the properties its JSON Schema declares
    const own = isValibot(input) ? (input as { entries?: unknown }).entries : undefined
    const entries = isPlainObject(own) ? own : jsonSchema.properties
    const names = isPlainObject(entries) ? new Set(Object.keys(entries)) : undefined
    return { check: (value) => checkWith(input, value), jsonSchema, names }
  }
  if (!isPlainObject(input)) throw new InvalidSignatureError(`${where}: expected a schema or an object of schemas`)
  const shape: SchemaShape = input
  for (const [name, entry] of Object.entries(shape))
    if (!isStandardSchema(entry)) throw new InvalidSignatureError(`${where}: '${name}' is not a Standard Schema`)
  if (Object.values(shape).every(isValibot)) return objectSchemaOf(v.object(shape as v.ObjectEntries), where, strict)
  return shapeCheck(shape, where, strict)
}

/** An object of entries from any libraries, checked entry by entry. */
function shapeCheck(shape: SchemaShape, where: string, strict: boolean): SchemaCheck<Record<string, unknown>> {
  const entries = Object.entries(shape)
  const names = entries.map(([name]) => name)
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  for (const [name, entry] of entries) {
    properties[name] = jsonSchemaOf(entry, `${where} '${name}'`, 'input', strict)
    const empty = entry['~standard'].validate(undefined)
    if (empty instanceof Promise || empty.issues) required.push(name)
    if (empty instanceof Promise) empty.catch(() => {})
  }
  const jsonSchema: JsonSchema = { type: 'object', properties, ...(required.length ? { required } : {}) }
  const check = (value: unknown): Checked<Record<string, unknown>> | Promise<Checked<Record<string, unknown>>> => {
    if (!isPlainObject(value)) {
      const received = value === null ? 'null' : Array.isArray(value) ? 'Array' : typeof value
      return { issues: [`Invalid type: Expected Object but received ${received}`] }
    }
    const results = entries.map(([name, entry]) => checkWith(entry, value[name]))
    const collect = (done: Checked<unknown>[]): Checked<Record<string, unknown>> => {
      const out: Record<string, unknown> = {}
      const issues: string[] = []
      done.forEach((result, i) => {
        const name = names[i] as string
        // an entry's issue told from the object: "field 'name.x': …"
        for (const issue of result.issues ?? [])
          issues.push(issue.startsWith("field '") ? `field '${name}.${issue.slice(7)}` : `field '${name}': ${issue}`)
        if (!result.issues && (result.value !== undefined || Object.hasOwn(value, name))) out[name] = result.value
      })
      return issues.length ? { issues } : { value: out }
    }
    return results.some((r) => r instanceof Promise)
      ? Promise.all(results.map((r) => Promise.resolve(r))).then(collect)
      : collect(results as Checked<unknown>[])
  }
  return { check, jsonSchema, names: new Set(names) }
}
