/**
 * Every example message of the 2026-07-28 spec parses with our valibot wire types (for the types
 * implemented so far); the rest are named explicitly so a new folder cannot go unnoticed.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import * as S from '../src/protocol/schemas/index.ts'

const ROOT = join(import.meta.dirname, 'fixtures/spec/examples-2026-07-28')
const ErrorResponse = (code: number) =>
  v.object({
    jsonrpc: v.literal('2.0'),
    id: S.RequestId,
    error: v.looseObject({ code: v.literal(code), message: v.string(), data: v.optional(v.unknown()) }),
  })
const errorOrObject = (code: number) =>
  v.union([ErrorResponse(code), v.looseObject({ code: v.literal(code), message: v.string() })])
const response = (result: v.GenericSchema) => v.object({ jsonrpc: v.literal('2.0'), id: S.RequestId, result })

const PARSERS: Record<string, v.GenericSchema> = {
  AudioContent: S.AudioContent,
  BlobResourceContents: S.BlobResourceContents,
  BooleanSchema: S.BooleanSchema,
  CallToolRequest: S.CallToolRequest,
  CallToolRequestParams: S.CallToolRequestParams,
  CallToolResult: S.CallToolResult,
  CallToolResultResponse: response(v.union([S.InputRequiredResult, S.CallToolResult])),
  CancelledNotification: S.CancelledNotification,
  CancelledNotificationParams: S.CancelledNotificationParams,
  ClientCapabilities: S.ClientCapabilities,
  CreateMessageRequest: S.CreateMessageRequest,
  CreateMessageRequestParams: S.CreateMessageRequestParams,
  CreateMessageResult: S.CreateMessageResult,
  DiscoverRequest: S.DiscoverRequest,
  DiscoverResult: S.DiscoverResult,
  DiscoverResultResponse: response(S.DiscoverResult),
  ElicitRequest: S.ElicitRequest,
  ElicitRequestFormParams: S.ElicitRequestFormParams,
  ElicitRequestURLParams: S.ElicitRequestURLParams,
  ElicitResult: S.ElicitResult,
  EmbeddedResource: S.EmbeddedResource,
  HeaderMismatchError: errorOrObject(-32020),
  ImageContent: S.ImageContent,
  InputRequests: S.InputRequests,
  InputRequiredResult: S.InputRequiredResult,
  InputResponses: S.InputResponses,
  InternalError: errorOrObject(-32603),
  InvalidParamsError: errorOrObject(-32602),
  ListRootsRequest: S.ListRootsRequest,
  ListRootsResult: S.ListRootsResult,
  ListToolsRequest: S.ListToolsRequest,
  ListToolsResult: S.ListToolsResult,
  ListToolsResultResponse: response(S.ListToolsResult),
  MethodNotFoundError: errorOrObject(-32601),
  MissingRequiredClientCapabilityError: errorOrObject(-32021),
  ModelPreferences: S.ModelPreferences,
  NumberSchema: S.NumberSchema,
  ParseError: errorOrObject(-32700),
  ResourceLink: S.ResourceLink,
  CompleteRequest: S.CompleteRequest,
  CompleteRequestParams: S.CompleteRequestParams,
  CompleteResult: S.CompleteResult,
  CompleteResultResponse: response(S.CompleteResult),
  GetPromptRequest: S.GetPromptRequest,
  GetPromptRequestParams: S.GetPromptRequestParams,
  GetPromptResult: S.GetPromptResult,
  GetPromptResultResponse: response(v.union([S.InputRequiredResult, S.GetPromptResult])),
  ListPromptsRequest: S.ListPromptsRequest,
  ListPromptsResult: S.ListPromptsResult,
  ListPromptsResultResponse: response(S.ListPromptsResult),
  ListResourceTemplatesRequest: S.ListResourceTemplatesRequest,
  ListResourceTemplatesResult: S.ListResourceTemplatesResult,
  ListResourceTemplatesResultResponse: response(S.ListResourceTemplatesResult),
  ListResourcesRequest: S.ListResourcesRequest,
  ListResourcesResult: S.ListResourcesResult,
  ListResourcesResultResponse: response(S.ListResourcesResult),
  PaginatedRequestParams: S.PaginatedRequestParams,
  ReadResourceRequest: S.ReadResourceRequest,
  ReadResourceResult: S.ReadResourceResult,
  ReadResourceResultResponse: response(v.union([S.InputRequiredResult, S.ReadResourceResult])),
  Resource: S.Resource,
  Root: S.Root,
  SamplingMessage: S.SamplingMessage,
  ServerCapabilities: S.ServerCapabilities,
  StringSchema: S.StringSchema,
  TextContent: S.TextContent,
  TextResourceContents: S.TextResourceContents,
  TitledMultiSelectEnumSchema: S.MultiSelectSchema,
  TitledSingleSelectEnumSchema: S.StringSchema,
  Tool: S.Tool,
  ToolResultContent: S.ToolResultContent,
  ToolUseContent: S.ToolUseContent,
  UnsupportedProtocolVersionError: errorOrObject(-32022),
  UntitledMultiSelectEnumSchema: S.MultiSelectSchema,
  UntitledSingleSelectEnumSchema: S.StringSchema,
  PromptListChangedNotification: S.PromptListChangedNotification,
  ResourceListChangedNotification: S.ResourceListChangedNotification,
  ResourceUpdatedNotification: S.ResourceUpdatedNotification,
  ResourceUpdatedNotificationParams: S.ResourceUpdatedNotificationParams,
  SubscriptionsAcknowledgedNotification: S.SubscriptionsAcknowledgedNotification,
  SubscriptionsListenRequest: S.SubscriptionsListenRequest,
  SubscriptionsListenResult: S.SubscriptionsListenResult,
  SubscriptionsListenResultResponse: S.SubscriptionsListenResultResponse,
  ToolListChangedNotification: S.ToolListChangedNotification,
}

/** Types with no valibot wire schema: the server builds logging and progress notifications by hand. */
const NOT_YET = new Set([
  'LoggingMessageNotification',
  'LoggingMessageNotificationParams',
  'ProgressNotification',
  'ProgressNotificationParams',
])

const folders = readdirSync(ROOT, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)

describe('spec examples (2026-07-28)', () => {
  it('every example folder is either parsed or named as not yet implemented', () => {
    const unknown = folders.filter((f) => !(f in PARSERS) && !NOT_YET.has(f))
    expect(unknown).toEqual([])
    expect(Object.keys(PARSERS).length).toBeGreaterThanOrEqual(50)
  })
  for (const folder of folders.filter((f) => f in PARSERS)) {
    for (const file of readdirSync(join(ROOT, folder)).filter((f) => f.endsWith('.json'))) {
      it(`${folder}/${file}`, () => {
        const value: unknown = JSON.parse(readFileSync(join(ROOT, folder, file), 'utf8'))
        const result = v.safeParse(PARSERS[folder], value)
        expect(result.issues?.map((i) => `${i.path?.map((p) => p.key).join('.')}: ${i.message}`) ?? []).toEqual([])
      })
    }
  }
  it('rejects what the spec forbids', () => {
    expect(v.safeParse(S.InputRequest, { type: 'elicitation', schema: {} }).success).toBe(false) // the RC blog's wrong shape
    expect(v.safeParse(S.ElicitResult, { action: 'maybe' }).success).toBe(false)
    expect(v.safeParse(S.InputRequiredResult, { resultType: 'complete' }).success).toBe(false)
    expect(
      v.safeParse(S.DiscoverResult, {
        supportedVersions: ['2026-07-28'],
        capabilities: {},
        ttlMs: -1,
        cacheScope: 'public',
      }).success,
    ).toBe(false)
  })
})
