/**
 * Building blocks shared by every other schema file: JSON objects, `_meta`, request ids, icons, and
 * {@link once}, the memoising getter the schema files build their schemas with.
 *
 * Laziness: each schema the SDK itself reads has a getter (`requestMeta()`, `callToolResult()`, …) that
 * builds it on first use; the exported constant (`RequestMeta`) is that getter's value, marked pure. A
 * bundle that only reaches the getters (a Worker) builds a schema when a request first needs it, not at
 * import, and leaves out the constants and the schemas nothing reads. (esbuild keeps a top-level call it
 * cannot prove pure: valibot's own annotations do not count, hence the explicit marks; and it keeps an
 * object literal with a spread or a computed key even then, hence the pure IIFEs around the schemas the
 * SDK does not read that have one.)
 * @module
 */
/* eslint @typescript-eslint/no-empty-object-type: ['error', { allowInterfaces: 'with-single-extends' }]
  -- `interface X extends v.InferOutput<typeof X> {}` names a schema's type: declarations derive it lazily (TS2589, index.ts) */
import * as v from 'valibot'
import { once } from '../check.ts'

export { once }

/** A JSON object with any members (the spec's `{ [key: string]: unknown }`). */
export const jsonObject = /* @__PURE__ */ once(() => v.record(v.string(), v.unknown()))
export const JsonObject = /* @__PURE__ */ jsonObject()

/** `_meta` on any object: a map of namespaced keys. */
export const MetaObject = /* @__PURE__ */ jsonObject()
export type MetaObject = v.InferOutput<typeof MetaObject>

/** `RequestId`: a string or a number (never null). */
export const RequestId = /* @__PURE__ */ v.union([/* @__PURE__ */ v.string(), /* @__PURE__ */ v.number()])
export type RequestId = v.InferOutput<typeof RequestId>

/** `Icon`: an image for a client to show beside an implementation, tool, prompt or resource. */
const buildIcon = /* @__PURE__ */ once(() =>
  v.looseObject({
    src: v.string(),
    mimeType: v.optional(v.string()),
    sizes: v.optional(v.array(v.string())),
    theme: v.optional(v.picklist(['light', 'dark'])),
  }),
)
export const Icon = /* @__PURE__ */ buildIcon()
export interface Icon extends v.InferOutput<typeof Icon> {}
/** `Icon`'s getter, typed by its interface, for embedding (see index.ts: declarations stay shallow). */
export const icon: () => v.GenericSchema<Icon> = buildIcon
