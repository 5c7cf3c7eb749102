/**
 * The checks of what a client reads from a server (results, input requests, the listen acknowledgement)
 * and of what its callbacks answer, built with ../protocol/check.ts: each accepts and rejects exactly what
 * the same-named valibot schema of ../protocol/schemas/ does, with the same first issue (proved by
 * test/client-checks.test.ts), so that a browser client does not bundle valibot.
 * @module
 */
import {
  array,
  boolean,
  integer,
  literal,
  maxLength,
  maxValue,
  minValue,
  number,
  object,
  optional,
  picklist,
  pipe,
  record,
  string,
  union,
  unknown,
  url,
  variant,
  type Check,
} from '../protocol/check.ts'
import type {
  CallToolResult,
  CompleteResult,
  CreateMessageResult,
  DiscoverResult,
  ElicitRequestURLParams,
  ElicitResult,
  GetPromptResult,
  InputRequest,
  InputRequiredResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListRootsResult,
  ListToolsResult,
  ReadResourceResult,
  SubscriptionsAcknowledgedNotification,
} from '../protocol/schemas/index.ts'

type Entries = Record<string, Check>

const json = record(unknown)
const meta = { _meta: optional(json) }
const opt = optional
const optString = opt(string)
const optBoolean = opt(boolean)
const roles = picklist(['user', 'assistant'])
/** `{ title?, description? }`, in that order. */
const described = { title: optString, description: optString }

const Icon = object({
  src: string,
  mimeType: optString,
  sizes: opt(array(string)),
  theme: opt(picklist(['light', 'dark'])),
})
const icons = opt(array(Icon))

const Annotations = object({ audience: opt(array(roles)), priority: opt(number), lastModified: optString })
const annotations = opt(Annotations)
const base = { annotations, ...meta }
const typed = (type: string, entries: Entries) => object({ type: literal(type), ...entries, ...base })

const TextContent = typed('text', { text: string })
const ImageContent = typed('image', { data: string, mimeType: string })
const AudioContent = typed('audio', { data: string, mimeType: string })
const contents = (field: string) => object({ uri: string, mimeType: optString, [field]: string, ...meta })
const ResourceContents = union([contents('text'), contents('blob')])
const ResourceLink = typed('resource_link', {
  uri: string,
  name: string,
  ...described,
  mimeType: optString,
  size: opt(number),
  icons,
})
const EmbeddedResource = typed('resource', { resource: ResourceContents })
const ContentBlock = variant('type', [TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource])

const SamplingContentBlock = variant('type', [
  TextContent,
  ImageContent,
  AudioContent,
  object({ type: literal('tool_use'), id: string, name: string, input: json, ...meta }),
  object({
    type: literal('tool_result'),
    toolUseId: string,
    content: array(ContentBlock),
    structuredContent: opt(unknown),
    isError: optBoolean,
    ...meta,
  }),
])
const samplingContent = union([SamplingContentBlock, array(SamplingContentBlock)])

const Tool = object({
  name: string,
  ...described,
  inputSchema: object({ type: literal('object') }),
  outputSchema: opt(json),
  annotations: opt(
    object({
      title: optString,
      readOnlyHint: optBoolean,
      destructiveHint: optBoolean,
      idempotentHint: optBoolean,
      openWorldHint: optBoolean,
    }),
  ),
  icons,
  execution: opt(json),
  ...meta,
})

const ttlMs = pipe(number, integer, minValue(0))
const cacheScope = picklist(['public', 'private'])

/** A complete result: `resultType?: 'complete'`, `entries`, `_meta?` (results.ts `complete`). */
const complete = <T>(entries: Entries): Check<T> =>
  object({ resultType: opt(literal('complete')), ...entries, ...meta })
/** A paginated, cacheable list of `item` in member `key` (results.ts `listResult`). */
const list = <T>(key: string, item: Check): Check<T> =>
  complete({ [key]: array(item), nextCursor: optString, ttlMs, cacheScope })

export const CallToolResultCheck = complete<CallToolResult>({
  content: array(ContentBlock),
  structuredContent: opt(unknown),
  isError: optBoolean,
})
export const ListToolsResultCheck = list<ListToolsResult>('tools', Tool)

export const ListPromptsResultCheck = list<ListPromptsResult>(
  'prompts',
  object({
    name: string,
    ...described,
    arguments: opt(array(object({ name: string, ...described, required: optBoolean }))),
    icons,
    ...meta,
  }),
)
export const GetPromptResultCheck = complete<GetPromptResult>({
  description: optString,
  messages: array(object({ role: roles, content: ContentBlock })),
})

const resourceEntries = { ...described, mimeType: optString }
export const ListResourcesResultCheck = list<ListResourcesResult>(
  'resources',
  object({ uri: string, name: string, ...resourceEntries, size: opt(number), annotations, icons, ...meta }),
)
export const ListResourceTemplatesResultCheck = list<ListResourceTemplatesResult>(
  'resourceTemplates',
  object({ uriTemplate: string, name: string, ...resourceEntries, annotations, icons, ...meta }),
)
export const ReadResourceResultCheck = complete<ReadResourceResult>({
  contents: array(ResourceContents),
  ttlMs: opt(ttlMs),
  cacheScope: opt(cacheScope),
})

const listChanged = opt(object({ listChanged: optBoolean }))
export const DiscoverResultCheck = complete<DiscoverResult>({
  supportedVersions: array(string),
  capabilities: object({
    experimental: opt(json),
    extensions: opt(json),
    logging: opt(json),
    completions: opt(json),
    prompts: listChanged,
    resources: opt(object({ subscribe: optBoolean, listChanged: optBoolean })),
    tools: listChanged,
  }),
  instructions: optString,
  ttlMs,
  cacheScope,
})

export const CompleteResultCheck = complete<CompleteResult>({
  completion: object({
    values: pipe(array(string), maxLength(100)),
    total: opt(pipe(number, integer)),
    hasMore: optBoolean,
  }),
})

// elicitation (schemas/elicitation.ts)
const choice = object({ const: string, title: string })
const field = (type: Check, entries: Entries) => object({ type, ...described, ...entries })
const numbers = opt(number)
const strings = opt(array(string))
const PrimitiveSchemaDefinition = union([
  field(literal('string'), {
    minLength: numbers,
    maxLength: numbers,
    format: optString,
    default: optString,
    enum: strings,
    enumNames: strings,
    oneOf: opt(array(choice)),
  }),
  field(picklist(['number', 'integer']), { minimum: numbers, maximum: numbers, default: numbers }),
  field(literal('boolean'), { default: optBoolean }),
  field(literal('array'), {
    minItems: numbers,
    maxItems: numbers,
    items: union([object({ type: literal('string'), enum: array(string) }), object({ anyOf: array(choice) })]),
    default: strings,
  }),
])
export const ElicitRequestURLParamsCheck = object<ElicitRequestURLParams>({
  mode: literal('url'),
  message: string,
  url: pipe(string, url),
  ...meta,
})
const ElicitRequestFormParams = object({
  mode: opt(literal('form')),
  message: string,
  requestedSchema: object({
    $schema: optString,
    type: literal('object'),
    properties: record(PrimitiveSchemaDefinition),
    required: strings,
  }),
  ...meta,
})
const ElicitAnswer = object<ElicitResult>({
  action: picklist(['accept', 'decline', 'cancel']),
  content: opt(record(union([string, number, boolean, array(string)]))),
  ...meta,
})
/** `ElicitResult`: a `content` of `null`, or of a decline or cancel, is ignored (see schemas/elicitation.ts). */
export const ElicitResultCheck: Check<ElicitResult> = Object.assign(
  (value: unknown) => ElicitAnswer(withoutIgnoredContent(value)),
  { e: 'unknown' },
)

/** The answer without a `content` that means nothing: `null`, or any content of a decline or cancel. */
function withoutIgnoredContent(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, 'content'))
    return value
  const answer = value as Record<string, unknown>
  if (answer.content !== null && answer.action !== 'decline' && answer.action !== 'cancel') return value
  const rest = { ...answer }
  delete rest.content
  return rest
}

// sampling and roots (schemas/sampling.ts)
const priority = opt(pipe(number, minValue(0), maxValue(1)))
const CreateMessageRequestParams = object({
  messages: array(object({ role: roles, content: samplingContent, ...meta })),
  maxTokens: number,
  modelPreferences: opt(
    object({
      hints: opt(array(object({ name: optString }))),
      costPriority: priority,
      speedPriority: priority,
      intelligencePriority: priority,
    }),
  ),
  systemPrompt: optString,
  includeContext: opt(picklist(['none', 'thisServer', 'allServers'])),
  temperature: numbers,
  stopSequences: strings,
  metadata: opt(json),
  tools: opt(array(Tool)),
  toolChoice: opt(object({ mode: opt(picklist(['auto', 'required', 'none'])) })),
  ...meta,
})
export const CreateMessageResultCheck = object<CreateMessageResult>({
  role: roles,
  content: samplingContent,
  model: string,
  stopReason: optString,
  ...meta,
})
export const ListRootsResultCheck = object<ListRootsResult>({
  roots: array(object({ uri: string, name: optString, ...meta })),
  ...meta,
})

// input-required rounds (schemas/input-required.ts)
export const InputRequestCheck = variant<InputRequest>('method', [
  object({
    method: literal('elicitation/create'),
    params: union([ElicitRequestURLParamsCheck, ElicitRequestFormParams]),
  }),
  object({ method: literal('sampling/createMessage'), params: CreateMessageRequestParams }),
  object({ method: literal('roots/list'), params: opt(object(meta)) }),
])
export const InputRequiredResultCheck = object<InputRequiredResult>({
  resultType: literal('input_required'),
  inputRequests: opt(record(InputRequestCheck)),
  requestState: optString,
  ...meta,
})

/** `notifications/subscriptions/acknowledged` with the honoured filter (schemas/notifications.ts). */
export const SubscriptionsAcknowledgedNotificationCheck = object<SubscriptionsAcknowledgedNotification>(
  {
    jsonrpc: literal('2.0'),
    method: literal('notifications/subscriptions/acknowledged'),
    params: object({
      ...meta,
      notifications: object({
        toolsListChanged: optBoolean,
        promptsListChanged: optBoolean,
        resourcesListChanged: optBoolean,
        resourceSubscriptions: strings,
      }),
    }),
  },
  true, // a JSON-RPC message: its other members are not kept
)
