/**
 * `McpServer`'s request handlers: `tools/call`, `prompts/get`, `resources/read` and
 * `completion/complete`, each reading the registrations it serves.
 * @module
 */
import { hasEnvelope } from '../../protocol/envelope.ts'
import { ErrorCode, McpError } from '../../protocol/errors.ts'
import { parse } from '../../protocol/check.ts'
import * as checks from '../../protocol/checks.gen.ts'
import { isPlainObject } from '../../protocol/jsonrpc.ts'
import { isVisibleAscii, quoteValue } from '../../protocol/headers.ts'
import { paramMatches, valueAt, type HeaderParam } from '../../protocol/param-headers.ts'
import type { CallToolResult } from '../../protocol/schemas/index.ts'
import { normalizeUri } from '../../protocol/uri-literal.ts'
import type { RequestContext, RequestParams, ResultObject } from '../context.ts'
import { HandlerResultError, RefusalError } from '../errors.ts'
import { checkWith } from '../schema.ts'
import { isInputRequired } from '../results.ts'
import { requireScopes } from '../scopes.ts'
import { invoke, invokeOrFail, withoutResolved } from './invoke.ts'
import type { Completer, Registry, RegisteredTemplate } from './types.ts'

/** Where log-only notes of a round go (the server's `logger.warn`). */
type Note = (message: string) => void

/**
 * `tools/call` (spec: server/tools.mdx): invalid arguments and handler failures are `isError` results
 * the model can read (a declined or cancelled question: `"The user declined: <question>"`); a result that breaks the tool's contract is a server bug. A result with only
 * `structuredContent` gets one text block of its JSON as `content`.
 * @throws McpError -32602 for a bad name or non-object arguments; -32020 (HTTP 400) for an
 *   `Mcp-Param-*` header mismatch on a 2026-07-28 request (a 2025-era one has no such headers: not
 *   checked); any McpError the handler or a resolver throws.
 * @throws Error (-32603, logged) for an invalid `CallToolResult` or `structuredContent` that does not
 *   match the tool's `outputSchema`.
 */
export async function callTool(
  registry: Registry,
  params: RequestParams,
  ctx: RequestContext,
  note: Note,
): Promise<ResultObject> {
  const { name, item: tool, rawArgs } = named(params, registry.tools, 'tool')
  requireScopes(tool.scopes, ctx.authInfo, registry.impliedScopes, `tool ${name}`)
  // Mcp-Param-* exist in 2026-07-28 only: a 2025-era request (no envelope) never carries them, and is not checked
  if (ctx.request && hasEnvelope(params)) checkParamHeaders(ctx.request.headers, tool.headerParams, rawArgs)
  let args = tool.schema(withoutResolved(rawArgs, tool.plan))
  if (args instanceof Promise) args = await args
  if (args.issues) return toolResult(true, `Invalid arguments for tool ${name}: ${args.issues.join('; ')}`)
  if (registry.tasks && tool.task) {
    const early = await registry.tasks(tool, args.value, params, ctx)
    if (early) return early
  }
  let out: unknown
  try {
    out = await invoke(tool, args.value, params, ctx, name, note)
  } catch (error) {
    if (error instanceof McpError) throw error
    // a declined or cancelled question is the user's answer, told as such ("The user declined: …"); still
    // isError: the tool did not do its work (and a tool with an outputSchema has no structuredContent to give)
    if (error instanceof RefusalError) return toolResult(true, error.message)
    const message = error instanceof Error ? error.message : String(error)
    return toolResult(true, `Error executing tool ${name}: ${message}`)
  }
  if (typeof out === 'string') return toolResult(false, out)
  if (isInputRequired(out)) return out
  const result = withTextOfStructured(out)
  const [issue, checked] = parse(checks.CallToolResult(), result)
  if (issue !== undefined) throw new HandlerResultError(`tool ${name} returned an invalid CallToolResult: ${issue}`)
  if (tool.output && !checked.isError) {
    let structured = checkWith(tool.output, checked.structuredContent)
    if (structured instanceof Promise) structured = await structured
    if (structured.issues)
      throw new HandlerResultError(
        `tool ${name} returned structuredContent that does not match its outputSchema: ${structured.issues[0]}`,
      )
  }
  return result as ResultObject
}

/**
 * A result with `structuredContent` and no `content` gets one text block with its JSON (spec:
 * server/tools.mdx "Structured Content": a tool that returns structured content SHOULD also return it
 * as text). Anything else is returned as it is.
 */
function withTextOfStructured(out: unknown): unknown {
  if (!isPlainObject(out) || Object.hasOwn(out, 'content') || out.structuredContent === undefined) return out
  return { ...out, content: [{ type: 'text', text: JSON.stringify(out.structuredContent) }] }
}

/**
 * `prompts/get` (spec: server/prompts.mdx): a string is one user message, an array the messages.
 * @throws McpError -32602 for a bad name, invalid arguments, or a question that could not be resolved.
 */
export async function getPrompt(
  registry: Registry,
  params: RequestParams,
  ctx: RequestContext,
  note: Note,
): Promise<ResultObject> {
  const { name, item: prompt, rawArgs } = named(params, registry.prompts, 'prompt')
  requireScopes(prompt.scopes, ctx.authInfo, registry.impliedScopes, `prompt ${name}`)
  let args = prompt.schema(withoutResolved(rawArgs, prompt.plan))
  if (args instanceof Promise) args = await args
  if (args.issues)
    throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for prompt ${name}: ${args.issues.join('; ')}`)
  const out = await invokeOrFail(prompt, args.value, params, ctx, name, 'prompt', note)
  if (isInputRequired(out)) return out
  if (typeof out === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: out } }] }
  if (Array.isArray(out)) return { messages: out }
  return out as ResultObject
}

/**
 * `resources/read` (spec: server/resources.mdx): a static resource (its URI in any equivalent form) first, then the templates in
 * registration order. A string is the text of the URI; the item's cache hints fill what the handler left
 * unset (`Server` fills the rest, and handles retries).
 * @throws McpError -32602 for a non-string URI, "Resource not found" (`data.uri`), or a question that
 *   could not be resolved.
 */
export async function readResource(
  registry: Registry,
  params: RequestParams,
  ctx: RequestContext,
  note: Note,
): Promise<ResultObject> {
  const uri = params.uri
  if (typeof uri !== 'string') throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "uri" must be a string')
  const exact = registry.resources.get(normalizeUri(uri)) // equivalent forms of a static URI (RFC 3986 6.2.2)
  for (const template of exact ? [exact] : registry.templates.values()) {
    const vars = template.match(uri)
    if (!vars) continue
    requireScopes(template.scopes, ctx.authInfo, registry.impliedScopes, `resource ${uri}`)
    const out = await invokeOrFail(template, vars, params, ctx, uri, 'resource', note)
    if (isInputRequired(out)) return out
    return withItemHints(typeof out === 'string' ? textContents(template, uri, out) : (out as ResultObject), template)
  }
  throw new McpError(ErrorCode.InvalidParams, 'Resource not found', { uri })
}

/**
 * `completion/complete` (spec: server/utilities/completion.mdx): the argument's completer, if any, cut
 * to 100 values.
 * @throws McpError -32602 for invalid params, an unknown prompt, or an unknown template ("Resource not found").
 * @throws InsufficientScopeError when the caller lacks the prompt's or template's registration `scopes`.
 */
export async function complete(registry: Registry, params: RequestParams, ctx: RequestContext): Promise<ResultObject> {
  const [issue, parsed] = parse(checks.CompleteParams(), params)
  if (issue !== undefined) throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${issue}`)
  const { ref, argument, context } = parsed
  let completers: Record<string, Completer | undefined> | undefined
  // a completer serves the item's data: it needs the item's scopes, as prompts/get and resources/read do
  if (ref.type === 'ref/prompt') {
    const prompt = registry.prompts.get(ref.name)
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`)
    requireScopes(prompt.scopes, ctx.authInfo, registry.impliedScopes, `prompt ${ref.name}`)
    completers = prompt.complete
  } else {
    const template = [...registry.templates.values()].find((t) => t.definition.uriTemplate === ref.uri)
    if (!template) throw new McpError(ErrorCode.InvalidParams, 'Resource not found', { uri: ref.uri })
    requireScopes(template.scopes, ctx.authInfo, registry.impliedScopes, `resource ${ref.uri}`)
    completers = template.complete
  }
  const completer = completers && Object.hasOwn(completers, argument.name) ? completers[argument.name] : undefined
  const all = completer ? await completer(argument.value, context?.arguments ?? {}) : []
  const values = all.slice(0, 100)
  return { completion: { values, total: all.length, hasMore: all.length > values.length } }
}

/**
 * The named item and its raw arguments.
 * @throws McpError -32602 for a non-string name, an unknown name, or arguments that are not an object.
 */
function named<T>(
  params: RequestParams,
  items: Map<string, T>,
  kind: 'tool' | 'prompt',
): { name: string; item: T; rawArgs: Record<string, unknown> } {
  const name = params.name
  if (typeof name !== 'string') throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "name" must be a string')
  const item = items.get(name)
  if (!item) throw new McpError(ErrorCode.InvalidParams, `Unknown ${kind}: ${name}`)
  const rawArgs = params.arguments ?? {}
  if (!isPlainObject(rawArgs))
    throw new McpError(ErrorCode.InvalidParams, 'Invalid params: arguments must be an object')
  return { name, item, rawArgs }
}

/**
 * Over HTTP, every `x-mcp-header` argument with a value needs its `Mcp-Param-{Name}` header, equal to it
 * once decoded; a header for an absent value is a mismatch too.
 * @throws McpError -32020 (HTTP 400).
 */
function checkParamHeaders(headers: Headers, params: readonly HeaderParam[], args: Record<string, unknown>): void {
  for (const param of params) {
    const header = headers.get(`mcp-param-${param.name}`)
    const value = valueAt(args, param.path)
    if (value === undefined) {
      if (header !== null)
        throw new McpError(
          ErrorCode.HeaderMismatch,
          `Header mismatch: Mcp-Param-${param.name} is set but arguments.${param.path.join('.')} is absent`,
        )
      continue
    }
    if (header === null)
      throw new McpError(ErrorCode.HeaderMismatch, `Header mismatch: missing Mcp-Param-${param.name} header`)
    if (!paramMatches(header, value, param.type)) {
      const shown = typeof value === 'string' ? quoteValue(value) : JSON.stringify(value)
      const why = isVisibleAscii(header)
        ? 'does not match'
        : 'is not visible ASCII (non-ASCII values must be sent as =?base64?…?=), so it does not match'
      throw new McpError(
        ErrorCode.HeaderMismatch,
        `Header mismatch: Mcp-Param-${param.name} header value ${quoteValue(header)} ${why} arguments.${param.path.join('.')} ${shown}`,
      )
    }
  }
}

/** A `CallToolResult` of one text block. */
function toolResult(isError: boolean, text: string): ResultObject {
  const result: CallToolResult = { content: [{ type: 'text', text }] }
  if (isError) result.isError = true
  return result
}

/** The contents of a resource handler's string: the text of the URI, with the item's `mimeType`. */
function textContents(template: RegisteredTemplate, uri: string, text: string): ResultObject {
  const mimeType = template.definition.mimeType as string | undefined
  return { contents: [mimeType ? { uri, mimeType, text } : { uri, text }] }
}

/** The item's cache hints fill what the result left unset. */
function withItemHints(result: ResultObject, template: RegisteredTemplate): ResultObject {
  const hints = template.cache
  let out = result
  if (hints?.ttlMs !== undefined && out.ttlMs === undefined) out = { ...out, ttlMs: hints.ttlMs }
  if (hints?.cacheScope !== undefined && out.cacheScope === undefined) out = { ...out, cacheScope: hints.cacheScope }
  return out
}
