/**
 * Content: the blocks tools and prompts return (`ContentBlock`), resource contents, and the blocks of a
 * sampling message (which add tool use and tool results).
 * @module
 */
/* eslint @typescript-eslint/no-empty-object-type: ['error', { allowInterfaces: 'with-single-extends' }]
  -- `interface X extends v.InferOutput<typeof X> {}` names a schema's type: declarations derive it lazily (TS2589, index.ts) */
import * as v from 'valibot'
import { IconSchema, JsonObject, MetaObject } from './common.ts'

/** `Annotations`: hints for the client about who a block is for and how much it matters. */
export const Annotations = v.looseObject({
  audience: v.optional(v.array(v.picklist(['user', 'assistant']))),
  priority: v.optional(v.number()),
  lastModified: v.optional(v.string()),
})
const base = { annotations: v.optional(Annotations), _meta: v.optional(MetaObject) }

export const TextContent = v.looseObject({ type: v.literal('text'), text: v.string(), ...base })
export interface TextContent extends v.InferOutput<typeof TextContent> {}
export const ImageContent = v.looseObject({ type: v.literal('image'), data: v.string(), mimeType: v.string(), ...base })
export interface ImageContent extends v.InferOutput<typeof ImageContent> {}
export const AudioContent = v.looseObject({ type: v.literal('audio'), data: v.string(), mimeType: v.string(), ...base })
export interface AudioContent extends v.InferOutput<typeof AudioContent> {}

export const TextResourceContents = v.looseObject({
  uri: v.string(),
  mimeType: v.optional(v.string()),
  text: v.string(),
  _meta: v.optional(MetaObject),
})
export const BlobResourceContents = v.looseObject({
  uri: v.string(),
  mimeType: v.optional(v.string()),
  blob: v.string(),
  _meta: v.optional(MetaObject),
})
export const ResourceContents = v.union([TextResourceContents, BlobResourceContents])

export const ResourceLink = v.looseObject({
  type: v.literal('resource_link'),
  uri: v.string(),
  name: v.string(),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  mimeType: v.optional(v.string()),
  size: v.optional(v.number()),
  icons: v.optional(v.array(IconSchema)),
  ...base,
})
export interface ResourceLink extends v.InferOutput<typeof ResourceLink> {}
export const EmbeddedResource = v.looseObject({ type: v.literal('resource'), resource: ResourceContents, ...base })
export interface EmbeddedResource extends v.InferOutput<typeof EmbeddedResource> {}

/** `ContentBlock`: what tools and prompts return. */
export const ContentBlock = v.variant('type', [TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource])
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource
/** `ContentBlock` typed by its union of interfaces, for embedding. */
export const ContentBlockSchema: v.GenericSchema<ContentBlock> = ContentBlock

export const ToolUseContent = v.looseObject({
  type: v.literal('tool_use'),
  id: v.string(),
  name: v.string(),
  input: JsonObject,
  _meta: v.optional(MetaObject),
})
export type ToolUseContent = v.InferOutput<typeof ToolUseContent>
export const ToolResultContent = v.looseObject({
  type: v.literal('tool_result'),
  toolUseId: v.string(),
  content: v.array(ContentBlockSchema),
  structuredContent: v.optional(v.unknown()),
  isError: v.optional(v.boolean()),
  _meta: v.optional(MetaObject),
})
export type ToolResultContent = v.InferOutput<typeof ToolResultContent>

/** A block of a sampling message: text, image, audio, tool use or tool result. */
export const SamplingContentBlock = v.variant('type', [
  TextContent,
  ImageContent,
  AudioContent,
  ToolUseContent,
  ToolResultContent,
])
export const SamplingMessage = v.looseObject({
  role: v.picklist(['user', 'assistant']),
  content: v.union([SamplingContentBlock, v.array(SamplingContentBlock)]),
  _meta: v.optional(MetaObject),
})
export interface SamplingMessage extends v.InferOutput<typeof SamplingMessage> {}
/** `SamplingMessage` typed by its interface, for embedding. */
export const SamplingMessageSchema: v.GenericSchema<SamplingMessage> = SamplingMessage
