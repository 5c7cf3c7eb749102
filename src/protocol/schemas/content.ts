/**
 * Content: the blocks tools and prompts return (`ContentBlock`), resource contents, and the blocks of a
 * sampling message (which add tool use and tool results).
 * @module
 */
/* eslint @typescript-eslint/no-empty-object-type: ['error', { allowInterfaces: 'with-single-extends' }]
  -- `interface X extends v.InferOutput<typeof X> {}` names a schema's type: declarations derive it lazily (TS2589, index.ts) */
import * as v from 'valibot'
import { icon, jsonObject, once } from './common.ts'

/** `Annotations`: hints for the client about who a block is for and how much it matters. */
const annotations = /* @__PURE__ */ once(() =>
  v.looseObject({
    audience: v.optional(v.array(v.picklist(['user', 'assistant']))),
    priority: v.optional(v.number()),
    lastModified: v.optional(v.string()),
  }),
)
export const Annotations = /* @__PURE__ */ annotations()
const base = () => ({ annotations: v.optional(annotations()), _meta: v.optional(jsonObject()) })

const textContent = /* @__PURE__ */ once(() => v.looseObject({ type: v.literal('text'), text: v.string(), ...base() }))
export const TextContent = /* @__PURE__ */ textContent()
export interface TextContent extends v.InferOutput<typeof TextContent> {}
const imageContent = /* @__PURE__ */ once(() =>
  v.looseObject({ type: v.literal('image'), data: v.string(), mimeType: v.string(), ...base() }),
)
export const ImageContent = /* @__PURE__ */ imageContent()
export interface ImageContent extends v.InferOutput<typeof ImageContent> {}
const audioContent = /* @__PURE__ */ once(() =>
  v.looseObject({ type: v.literal('audio'), data: v.string(), mimeType: v.string(), ...base() }),
)
export const AudioContent = /* @__PURE__ */ audioContent()
export interface AudioContent extends v.InferOutput<typeof AudioContent> {}

const textResourceContents = /* @__PURE__ */ once(() =>
  v.looseObject({
    uri: v.string(),
    mimeType: v.optional(v.string()),
    text: v.string(),
    _meta: v.optional(jsonObject()),
  }),
)
export const TextResourceContents = /* @__PURE__ */ textResourceContents()
const blobResourceContents = /* @__PURE__ */ once(() =>
  v.looseObject({
    uri: v.string(),
    mimeType: v.optional(v.string()),
    blob: v.string(),
    _meta: v.optional(jsonObject()),
  }),
)
export const BlobResourceContents = /* @__PURE__ */ blobResourceContents()
const resourceContents = /* @__PURE__ */ once(() => v.union([textResourceContents(), blobResourceContents()]))
export const ResourceContents = /* @__PURE__ */ resourceContents()

const resourceLink = /* @__PURE__ */ once(() =>
  v.looseObject({
    type: v.literal('resource_link'),
    uri: v.string(),
    name: v.string(),
    title: v.optional(v.string()),
    description: v.optional(v.string()),
    mimeType: v.optional(v.string()),
    size: v.optional(v.number()),
    icons: v.optional(v.array(icon())),
    ...base(),
  }),
)
export const ResourceLink = /* @__PURE__ */ resourceLink()
export interface ResourceLink extends v.InferOutput<typeof ResourceLink> {}
const embeddedResource = /* @__PURE__ */ once(() =>
  v.looseObject({ type: v.literal('resource'), resource: resourceContents(), ...base() }),
)
export const EmbeddedResource = /* @__PURE__ */ embeddedResource()
export interface EmbeddedResource extends v.InferOutput<typeof EmbeddedResource> {}

/** `ContentBlock`: what tools and prompts return. */
const buildContentBlock = /* @__PURE__ */ once(() =>
  v.variant('type', [textContent(), imageContent(), audioContent(), resourceLink(), embeddedResource()]),
)
export const ContentBlock = /* @__PURE__ */ buildContentBlock()
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource
/** `ContentBlock`'s getter, typed by its union of interfaces, for embedding. */
export const contentBlock: () => v.GenericSchema<ContentBlock> = buildContentBlock

const toolUseContent = /* @__PURE__ */ once(() =>
  v.looseObject({
    type: v.literal('tool_use'),
    id: v.string(),
    name: v.string(),
    input: jsonObject(),
    _meta: v.optional(jsonObject()),
  }),
)
export const ToolUseContent = /* @__PURE__ */ toolUseContent()
export type ToolUseContent = v.InferOutput<typeof ToolUseContent>
const toolResultContent = /* @__PURE__ */ once(() =>
  v.looseObject({
    type: v.literal('tool_result'),
    toolUseId: v.string(),
    content: v.array(contentBlock()),
    structuredContent: v.optional(v.unknown()),
    isError: v.optional(v.boolean()),
    _meta: v.optional(jsonObject()),
  }),
)
export const ToolResultContent = /* @__PURE__ */ toolResultContent()
export type ToolResultContent = v.InferOutput<typeof ToolResultContent>

/** A block of a sampling message: text, image, audio, tool use or tool result. */
export const samplingContentBlock = /* @__PURE__ */ once(() =>
  v.variant('type', [textContent(), imageContent(), audioContent(), toolUseContent(), toolResultContent()]),
)
const buildSamplingMessage = /* @__PURE__ */ once(() => {
  const block = samplingContentBlock()
  return v.looseObject({
    role: v.picklist(['user', 'assistant']),
    content: v.union([block, v.array(block)]),
    _meta: v.optional(jsonObject()),
  })
})
export const SamplingMessage = /* @__PURE__ */ buildSamplingMessage()
export interface SamplingMessage extends v.InferOutput<typeof SamplingMessage> {}
/** `SamplingMessage`'s getter, typed by its interface, for embedding. */
export const samplingMessage: () => v.GenericSchema<SamplingMessage> = buildSamplingMessage
