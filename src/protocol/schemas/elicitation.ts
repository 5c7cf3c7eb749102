/**
 * Elicitation (`elicitation/create`): the form-mode schema a server may request (a flat object of
 * primitive fields), the form and URL request params, and the user's answer.
 * @module
 */
/* eslint @typescript-eslint/no-empty-object-type: ['error', { allowInterfaces: 'with-single-extends' }]
  -- `interface X extends v.InferOutput<typeof X> {}` names a schema's type: declarations derive it lazily (TS2589, index.ts) */
import * as v from 'valibot'
import { MetaObject } from './common.ts'

/** A string field of an elicitation form (spec: `StringSchema`; `format` is email, uri, date or date-time; `enum` / `oneOf` make it a single choice). */
export const StringSchema = v.looseObject({
  type: v.literal('string'),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  minLength: v.optional(v.number()),
  maxLength: v.optional(v.number()),
  format: v.optional(v.string()),
  default: v.optional(v.string()),
  enum: v.optional(v.array(v.string())),
  enumNames: v.optional(v.array(v.string())),
  oneOf: v.optional(v.array(v.looseObject({ const: v.string(), title: v.string() }))),
})
/** A number or integer field of an elicitation form (spec: `NumberSchema`). */
export const NumberSchema = v.looseObject({
  type: v.picklist(['number', 'integer']),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  minimum: v.optional(v.number()),
  maximum: v.optional(v.number()),
  default: v.optional(v.number()),
})
/** A yes/no field of an elicitation form (spec: `BooleanSchema`). */
export const BooleanSchema = v.looseObject({
  type: v.literal('boolean'),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  default: v.optional(v.boolean()),
})
/** A multiple-choice field of an elicitation form: an array of strings from `items` (spec: `MultiSelectEnumSchema`). */
export const MultiSelectSchema = v.looseObject({
  type: v.literal('array'),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  minItems: v.optional(v.number()),
  maxItems: v.optional(v.number()),
  items: v.union([
    v.looseObject({ type: v.literal('string'), enum: v.array(v.string()) }),
    v.looseObject({ anyOf: v.array(v.looseObject({ const: v.string(), title: v.string() })) }),
  ]),
  default: v.optional(v.array(v.string())),
})
/** `PrimitiveSchemaDefinition`: one field of a form-mode elicitation schema (flat: no nesting). */
export const PrimitiveSchemaDefinition = v.union([StringSchema, NumberSchema, BooleanSchema, MultiSelectSchema])
export type PrimitiveSchemaDefinition = v.InferOutput<typeof PrimitiveSchemaDefinition>

/** The `requestedSchema` of a form-mode elicitation: a flat object of primitives. */
export const RequestedSchema = v.looseObject({
  $schema: v.optional(v.string()),
  type: v.literal('object'),
  properties: v.record(v.string(), PrimitiveSchemaDefinition),
  required: v.optional(v.array(v.string())),
})
export interface RequestedSchema extends v.InferOutput<typeof RequestedSchema> {}
const RequestedSchemaSchema: v.GenericSchema<RequestedSchema> = RequestedSchema

export const ElicitRequestFormParams = v.looseObject({
  mode: v.optional(v.literal('form')),
  message: v.string(),
  requestedSchema: RequestedSchemaSchema,
  _meta: v.optional(MetaObject),
})
export type ElicitRequestFormParams = v.InferOutput<typeof ElicitRequestFormParams>

export const ElicitRequestURLParams = v.looseObject({
  mode: v.literal('url'),
  message: v.string(),
  url: v.pipe(v.string(), v.url()),
  _meta: v.optional(MetaObject),
})
export type ElicitRequestURLParams = v.InferOutput<typeof ElicitRequestURLParams>

export const ElicitRequestParams = v.union([ElicitRequestURLParams, ElicitRequestFormParams])
export type ElicitRequestParams = v.InferOutput<typeof ElicitRequestParams>

/** The answer's shape once content it does not carry is gone (see {@link ElicitResult}). */
const ElicitAnswer = v.looseObject({
  action: v.picklist(['accept', 'decline', 'cancel']),
  content: v.optional(v.record(v.string(), v.union([v.string(), v.number(), v.boolean(), v.array(v.string())]))),
  _meta: v.optional(MetaObject),
})

/**
 * `ElicitResult`: the user's answer (spec: client/elicitation.mdx "Response Actions"). `content` only
 * with `accept` in form mode: on `decline` and `cancel` it is ignored, never validated, and dropped from
 * the output; `content: null` is no content (an `accept` without it is an answer with no fields filled).
 * The output is a copy of the answer's own properties; the input is left as it is.
 */
export const ElicitResult = v.pipe(v.unknown(), v.transform(withoutIgnoredContent), ElicitAnswer)
export interface ElicitResult extends v.InferOutput<typeof ElicitAnswer> {}

/** The answer without a `content` that means nothing: `null`, or any content of a decline or cancel. */
function withoutIgnoredContent(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, 'content'))
    return value
  const answer = value as Record<string, unknown>
  if (answer.content !== null && answer.action !== 'decline' && answer.action !== 'cancel') return value
  const rest = { ...answer } // own properties only (a `__proto__` key stays a plain property)
  delete rest.content
  return rest
}
