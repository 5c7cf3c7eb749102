/**
 * Elicitation (`elicitation/create`): the form-mode schema a server may request (a flat object of
 * primitive fields), the form and URL request params, and the user's answer.
 * @module
 */
/* eslint @typescript-eslint/no-empty-object-type: ['error', { allowInterfaces: 'with-single-extends' }]
  -- `interface X extends v.InferOutput<typeof X> {}` names a schema's type: declarations derive it lazily (TS2589, index.ts) */
import * as v from 'valibot'
import { withoutIgnoredContent } from '../transforms.ts'
import { jsonObject, once } from './common.ts'

/** A string field of an elicitation form (spec: `StringSchema`; `format` is email, uri, date or date-time; `enum` / `oneOf` make it a single choice). */
const stringSchema = /* @__PURE__ */ once(() =>
  v.looseObject({
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
  }),
)
export const StringSchema = /* @__PURE__ */ stringSchema()
/** A number or integer field of an elicitation form (spec: `NumberSchema`). */
const numberSchema = /* @__PURE__ */ once(() =>
  v.looseObject({
    type: v.picklist(['number', 'integer']),
    title: v.optional(v.string()),
    description: v.optional(v.string()),
    minimum: v.optional(v.number()),
    maximum: v.optional(v.number()),
    default: v.optional(v.number()),
  }),
)
export const NumberSchema = /* @__PURE__ */ numberSchema()
/** A yes/no field of an elicitation form (spec: `BooleanSchema`). */
const booleanSchema = /* @__PURE__ */ once(() =>
  v.looseObject({
    type: v.literal('boolean'),
    title: v.optional(v.string()),
    description: v.optional(v.string()),
    default: v.optional(v.boolean()),
  }),
)
export const BooleanSchema = /* @__PURE__ */ booleanSchema()
/** A multiple-choice field of an elicitation form: an array of strings from `items` (spec: `MultiSelectEnumSchema`). */
const multiSelectSchema = /* @__PURE__ */ once(() =>
  v.looseObject({
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
  }),
)
export const MultiSelectSchema = /* @__PURE__ */ multiSelectSchema()
/** `PrimitiveSchemaDefinition`: one field of a form-mode elicitation schema (flat: no nesting). */
const primitiveSchemaDefinition = /* @__PURE__ */ once(() =>
  v.union([stringSchema(), numberSchema(), booleanSchema(), multiSelectSchema()]),
)
export const PrimitiveSchemaDefinition = /* @__PURE__ */ primitiveSchemaDefinition()
export type PrimitiveSchemaDefinition = v.InferOutput<typeof PrimitiveSchemaDefinition>

/** The `requestedSchema` of a form-mode elicitation: a flat object of primitives. */
const buildRequestedSchema = /* @__PURE__ */ once(() =>
  v.looseObject({
    $schema: v.optional(v.string()),
    type: v.literal('object'),
    properties: v.record(v.string(), primitiveSchemaDefinition()),
    required: v.optional(v.array(v.string())),
  }),
)
export const RequestedSchema = /* @__PURE__ */ buildRequestedSchema()
export interface RequestedSchema extends v.InferOutput<typeof RequestedSchema> {}
/** `RequestedSchema`'s getter, typed by its interface, for embedding. */
export const requestedSchema: () => v.GenericSchema<RequestedSchema> = buildRequestedSchema

const elicitRequestFormParams = /* @__PURE__ */ once(() =>
  v.looseObject({
    mode: v.optional(v.literal('form')),
    message: v.string(),
    requestedSchema: requestedSchema(),
    _meta: v.optional(jsonObject()),
  }),
)
export const ElicitRequestFormParams = /* @__PURE__ */ elicitRequestFormParams()
export type ElicitRequestFormParams = v.InferOutput<typeof ElicitRequestFormParams>

const elicitRequestURLParams = /* @__PURE__ */ once(() =>
  v.looseObject({
    mode: v.literal('url'),
    message: v.string(),
    url: v.pipe(v.string(), v.url()),
    _meta: v.optional(jsonObject()),
  }),
)
export const ElicitRequestURLParams = /* @__PURE__ */ elicitRequestURLParams()
export type ElicitRequestURLParams = v.InferOutput<typeof ElicitRequestURLParams>

export const elicitRequestParams = /* @__PURE__ */ once(() =>
  v.union([elicitRequestURLParams(), elicitRequestFormParams()]),
)
export const ElicitRequestParams = /* @__PURE__ */ elicitRequestParams()
export type ElicitRequestParams = v.InferOutput<typeof ElicitRequestParams>

/** The answer's shape once content it does not carry is gone (see {@link ElicitResult}). */
const elicitAnswer = /* @__PURE__ */ once(() =>
  v.looseObject({
    action: v.picklist(['accept', 'decline', 'cancel']),
    content: v.optional(v.record(v.string(), v.union([v.string(), v.number(), v.boolean(), v.array(v.string())]))),
    _meta: v.optional(jsonObject()),
  }),
)

/**
 * `ElicitResult`: the user's answer (spec: client/elicitation.mdx "Response Actions"). `content` only
 * with `accept` in form mode: on `decline` and `cancel` it is ignored, never validated, and dropped from
 * the output; `content: null` is no content (an `accept` without it is an answer with no fields filled).
 * The output is a copy of the answer's own properties; the input is left as it is.
 */
export const elicitResult = /* @__PURE__ */ once(() =>
  v.pipe(v.unknown(), v.transform(withoutIgnoredContent), elicitAnswer()),
)
export const ElicitResult = /* @__PURE__ */ elicitResult()
export interface ElicitResult extends v.InferOutput<ReturnType<typeof elicitAnswer>> {}
