/**
 * Resources: the definitions `resources/list` and `resources/templates/list` list, and the results of
 * those two and of `resources/read`.
 * @module
 */
import * as v from 'valibot'
import { icon, MetaObject } from './common.ts'
import { Annotations, ResourceContents } from './content.ts'
import { cacheable, complete, listResult } from './results.ts'

/** `Resource`: a concrete resource as listed by `resources/list`. */
export const Resource = /* @__PURE__ */ v.looseObject({
  uri: v.string(),
  name: v.string(),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  mimeType: v.optional(v.string()),
  size: v.optional(v.number()),
  annotations: v.optional(Annotations),
  icons: v.optional(v.array(icon())),
  _meta: v.optional(MetaObject),
})
export type Resource = v.InferOutput<typeof Resource>

/** `ResourceTemplate`: an RFC 6570 URI template as listed by `resources/templates/list`. */
export const ResourceTemplate = /* @__PURE__ */ (() =>
  v.looseObject({
    uriTemplate: v.string(),
    name: v.string(),
    title: v.optional(v.string()),
    description: v.optional(v.string()),
    mimeType: v.optional(v.string()),
    annotations: v.optional(Annotations),
    icons: v.optional(v.array(icon())),
    _meta: v.optional(MetaObject),
  }))()
export type ResourceTemplate = v.InferOutput<typeof ResourceTemplate>

export const ListResourcesResult = /* @__PURE__ */ listResult<'resources', Resource>('resources', Resource)
export type ListResourcesResult = v.InferOutput<typeof ListResourcesResult>

export const ListResourceTemplatesResult = /* @__PURE__ */ listResult<'resourceTemplates', ResourceTemplate>(
  'resourceTemplates',
  ResourceTemplate,
)
export type ListResourceTemplatesResult = v.InferOutput<typeof ListResourceTemplatesResult>

/** `ReadResourceResult`: the contents of a resource; cacheable (ttlMs/cacheScope) when complete. */
export const ReadResourceResult = /* @__PURE__ */ (() => {
  const { ttlMs, cacheScope } = cacheable()
  return complete({ contents: v.array(ResourceContents), ttlMs: v.optional(ttlMs), cacheScope: v.optional(cacheScope) })
})()
export type ReadResourceResult = v.InferOutput<typeof ReadResourceResult>
