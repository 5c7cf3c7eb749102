/**
 * Elicitation form schemas: an object schema of any Standard Schema library, checked once, at start-up,
 * against the spec's form subset (spec: client/elicitation.mdx `PrimitiveSchemaDefinition`), with the
 * `requestedSchema` sent to clients. A hand-built `requestedSchema` (`elicitForm`) gets the same check.
 * @module
 */
import { parse } from '../../protocol/check.ts'
import { RequestedSchema } from '../../protocol/checks.gen.ts'
import type { RequestedSchema as RequestedSchemaType } from '../../protocol/schemas/elicitation.ts'
import { InvalidSignatureError } from '../errors.ts'
import { objectSchemaOf, type Checked, type JsonSchema, type ObjectOutput, type ObjectSchemaInput } from '../schema.ts'

/** A form schema for `elicit`, of output type `T`: checked against the spec's form subset when it is made. */
export interface FormSchema<T = Record<string, unknown>> {
  /** Check an answer's `content` (synchronously: a form's schema may not validate asynchronously). */
  readonly check: (content: unknown) => Checked<T>
  /** The `requestedSchema` sent to the client. */
  readonly requestedSchema: RequestedSchemaType
}

/** The string formats a form field may have. */
const FORMATS = new Set(['email', 'uri', 'date', 'date-time'])
/** Forms already checked, by their schema: `formSchema` is idempotent and cheap when repeated. */
const formCache = new WeakMap<object, FormSchema>()

/**
 * A form schema for `elicit`: an object schema (or its entries) of any Standard Schema library whose
 * fields are the spec's primitives — string (minLength, maxLength; formats email, uri, date, date-time),
 * number, integer (minimum, maximum), boolean, single-select enum (`v.picklist`, `z.enum`; titled: a union of
 * literals each with a title) and multi-select
 * enum (an array of one). Call it at module level: a schema outside the subset throws at start-up.
 * @throws InvalidSignatureError naming the field that leaves the form subset, or when the library gives no
 *   JSON Schema (see `withJsonSchema`).
 * @example const Backorder = formSchema({ confirm: v.pipe(v.boolean(), v.description('Order anyway and wait?')) })
 */
export function formSchema<S extends ObjectSchemaInput>(schema: S): FormSchema<ObjectOutput<S>> {
  const cached = typeof schema === 'object' && schema !== null ? formCache.get(schema) : undefined
  if (cached) return cached as never
  // strict: a check the client cannot see (v.check, v.transform, …) could never be satisfied by a form
  const made = objectSchemaOf(schema, 'An elicitation form schema', true)
  const check = (content: unknown): Checked<Record<string, unknown>> => {
    const checked = made.check(content)
    if (checked instanceof Promise) {
      checked.catch(() => {})
      return { issues: ['an elicitation form schema must validate synchronously'] }
    }
    return checked
  }
  const form: FormSchema = { check, requestedSchema: checkedRequestedSchema(made.jsonSchema) }
  if (typeof schema === 'object' && schema !== null) formCache.set(schema, form)
  return form as never
}

/**
 * A form's `requestedSchema` from its JSON Schema: each field normalized and checked against the subset.
 * @throws InvalidSignatureError naming the field that leaves the form subset.
 */
export function checkedRequestedSchema(json: JsonSchema): RequestedSchemaType {
  if (json.type !== 'object' || typeof json.properties !== 'object' || json.properties === null) {
    throw new InvalidSignatureError('An elicitation form schema must be an object of primitive fields')
  }
  const properties: Record<string, unknown> = {}
  for (const [field, prop] of Object.entries(json.properties as Record<string, Record<string, unknown>>)) {
    const normalized = normalizeField(prop)
    const problem = formFieldProblem(normalized)
    if (problem) throw new InvalidSignatureError(`Elicitation form field '${field}' ${problem}`)
    properties[field] = normalized
  }
  const [issue, parsed] = parse(RequestedSchema(), {
    type: 'object',
    properties,
    ...(Array.isArray(json.required) && json.required.length ? { required: json.required } : {}),
  })
  if (issue !== undefined) throw new InvalidSignatureError(`Elicitation form schema: ${issue}`)
  return parsed
}

/** Keywords a form field may carry (spec: client/elicitation.mdx `PrimitiveSchemaDefinition`). */
const FIELD_KEYWORDS = new Set([
  'type',
  'title',
  'description',
  'default',
  'minLength',
  'maxLength',
  'format',
  'minimum',
  'maximum',
  'enum',
  'enumNames',
  'oneOf',
  'items',
  'minItems',
  'maxItems',
])

/**
 * A multi-select of untitled literals (`v.array(v.union([v.literal('x'), …]))`) becomes the spec's enum form; a
 * union of titled literals (`v.union([v.pipe(v.literal('x'), v.title('X')), …])`) its titled single-select.
 */
function normalizeField(prop: Record<string, unknown>): Record<string, unknown> {
  const items = prop.items as Record<string, unknown> | undefined
  if (prop.type === 'array' && items && Array.isArray(items.anyOf)) {
    const options = items.anyOf as Array<Record<string, unknown>>
    if (options.every((o) => typeof o.const === 'string' && o.title === undefined)) {
      return { ...prop, items: { type: 'string', enum: options.map((o) => o.const) } }
    }
  }
  // a union of titled string literals is the spec's titled single-select (`TitledSingleSelectEnumSchema`)
  if (Array.isArray(prop.anyOf) && prop.anyOf.length > 0) {
    const options = prop.anyOf as Array<Record<string, unknown>>
    if (options.every((o) => typeof o.const === 'string' && typeof o.title === 'string')) {
      const titled: Record<string, unknown> = { ...prop, type: 'string' }
      delete titled.anyOf
      return { ...titled, oneOf: options.map((o) => ({ const: o.const, title: o.title })) }
    }
  }
  return prop
}

function formFieldProblem(prop: Record<string, unknown>): string | undefined {
  const problem = fieldTypeProblem(prop)
  if (problem) return problem
  const extra = Object.keys(prop).filter((k) => !FIELD_KEYWORDS.has(k))
  if (extra.length) return `uses ${extra.map((k) => `'${k}'`).join(', ')}, which elicitation forms do not support`
  return undefined
}

function fieldTypeProblem(prop: Record<string, unknown>): string | undefined {
  const type = prop.type
  if (Array.isArray(prop.enum))
    return prop.enum.every((e) => typeof e === 'string') ? undefined : 'has a non-string enum value'
  if (Array.isArray(prop.oneOf)) return undefined
  switch (type) {
    case 'string':
      return formatProblem(prop.format)
    case 'number':
    case 'integer':
    case 'boolean':
      return undefined
    case 'array': {
      const items = (prop.items ?? {}) as Record<string, unknown>
      if (Array.isArray(items.enum) || Array.isArray(items.anyOf)) return undefined
      return 'is an array that is not a multi-select enum'
    }
    default:
      return `has type ${JSON.stringify(type ?? 'unknown')}; a form field is a string, number, integer, boolean or enum`
  }
}

/** Why a string field's `format` is not one a form allows, or undefined when it is (or is absent). */
function formatProblem(format: unknown): string | undefined {
  if (format === undefined || (typeof format === 'string' && FORMATS.has(format))) return undefined
  const shown = typeof format === 'string' ? format : JSON.stringify(format)
  return `has format '${shown}' (allowed: email, uri, date, date-time)`
}

/** True for a form made by {@link formSchema}. */
export function isFormSchema(x: unknown): x is FormSchema {
  return typeof x === 'object' && x !== null && 'requestedSchema' in x && typeof (x as FormSchema).check === 'function'
}
