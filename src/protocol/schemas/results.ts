/**
 * What results have in common, and the helpers that build them: every complete result is
 * `{ resultType?: 'complete', …, _meta? }`, and the four paginated lists (`tools/list`, `prompts/list`,
 * `resources/list`, `resources/templates/list`) differ only in the name and item of their array.
 *
 * The helpers have explicit return types that name their parts (`ListResultSchema<'tools', Tool>`), so
 * the declarations of the schemas built with them stay shallow (TS2589, see index.ts).
 * @module
 */
import * as v from 'valibot'
import { jsonObject, once, type MetaObject } from './common.ts'

/** Cache hints (`ttlMs` in milliseconds, ≥ 0; `cacheScope`) that every cacheable result carries. */
export const cacheable = /* @__PURE__ */ once(() => ({
  ttlMs: v.pipe(v.number(), v.integer(), v.minValue(0)),
  cacheScope: v.picklist(['public', 'private']),
}))
/** The entries of {@link cacheable}. */
export type Cacheable = ReturnType<typeof cacheable>

/** The entries {@link complete} puts around a result's own: `resultType` first, `_meta` last. */
export interface CompleteEntries {
  readonly resultType: v.OptionalSchema<v.LiteralSchema<'complete', undefined>, undefined>
  readonly _meta: v.OptionalSchema<typeof MetaObject, undefined>
}

/** The schema of a complete result with these entries of its own. */
export type CompleteResultSchema<E extends v.ObjectEntries> = v.LooseObjectSchema<CompleteEntries & E, undefined>

/** A complete result (loose object): `resultType: 'complete'` (optional on the wire), `entries`, `_meta`. */
/* @__NO_SIDE_EFFECTS__ */
export function complete<const E extends v.ObjectEntries>(entries: E): CompleteResultSchema<E> {
  return v.looseObject({ resultType: v.optional(v.literal('complete')), ...entries, _meta: v.optional(jsonObject()) })
}

/** The schema of a paginated, cacheable list result whose items, of type `T`, are in member `K`. */
export type ListResultSchema<K extends string, T> = CompleteResultSchema<
  { readonly [P in K]: v.ArraySchema<v.GenericSchema<T>, undefined> } & {
    readonly nextCursor: v.OptionalSchema<v.StringSchema<undefined>, undefined>
  } & Cacheable
>

/**
 * A paginated list result: `{ resultType?: 'complete', [key]: item[], nextCursor?, ttlMs, cacheScope, _meta? }`.
 * @param item the item schema typed by its interface or alias (`v.GenericSchema<Tool>`), which keeps the
 *   declaration of the list `ListResultSchema<'tools', Tool>` rather than the item's whole tree.
 */
/* @__NO_SIDE_EFFECTS__ */
export function listResult<const K extends string, T>(key: K, item: v.GenericSchema<T>): ListResultSchema<K, T> {
  // a computed key widens to `{ [x: string]: … }`; the entries are exactly ListResultSchema's
  return complete({ [key]: v.array(item), nextCursor: v.optional(v.string()), ...cacheable() }) as ListResultSchema<
    K,
    T
  >
}
