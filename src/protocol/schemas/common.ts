/**
 * Building blocks shared by every other schema file: JSON objects, `_meta`, request ids, icons.
 * @module
 */
/* eslint @typescript-eslint/no-empty-object-type: ['error', { allowInterfaces: 'with-single-extends' }]
  -- `interface X extends v.InferOutput<typeof X> {}` names a schema's type: declarations derive it lazily (TS2589, index.ts) */
import * as v from 'valibot'

/** A JSON object with any members (the spec's `{ [key: string]: unknown }`). */
export const JsonObject = v.record(v.string(), v.unknown())

/** `_meta` on any object: a map of namespaced keys. */
export const MetaObject = JsonObject
export type MetaObject = v.InferOutput<typeof MetaObject>

/** `RequestId`: a string or a number (never null). */
export const RequestId = v.union([v.string(), v.number()])
export type RequestId = v.InferOutput<typeof RequestId>

/** `Icon`: an image for a client to show beside an implementation, tool, prompt or resource. */
export const Icon = v.looseObject({
  src: v.string(),
  mimeType: v.optional(v.string()),
  sizes: v.optional(v.array(v.string())),
  theme: v.optional(v.picklist(['light', 'dark'])),
})
export interface Icon extends v.InferOutput<typeof Icon> {}
/** `Icon` typed by its interface, for embedding (see index.ts: declarations stay shallow). */
export const IconSchema: v.GenericSchema<Icon> = Icon
