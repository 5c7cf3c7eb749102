/**
 * The high-level server: tools, prompts and resource templates with valibot schemas and resolved
 * parameters; `requestState` sealed by default.
 * @module
 */
import * as v from 'valibot'
import { toJsonSchema } from '@valibot/to-json-schema'
import { ErrorCode, McpError } from '../protocol/errors.ts'
import { describeIssue } from '../protocol/issues.ts'
import { isPlainObject } from '../protocol/jsonrpc.ts'
import { headerParamsOf, paramMatches, valueAt, type HeaderParam } from '../protocol/param-headers.ts'
import {
  CallToolResult,
  CompleteRequestParams,
  InputResponses,
  type GetPromptResult,
  type Implementation,
  type InputRequiredResult,
  type PromptMessage,
  type ReadResourceResult,
  type Tool,
} from '../protocol/schemas.ts'
import { UriTemplate, type TemplateArgs, type TemplateVariables } from '../protocol/uri-template.ts'
import { RequestStateSecurity } from '../request-state/security.ts'
import type { RequestContext, ResultObject } from './context.ts'
import {
  planResolvers,
  resolveRound,
  ResolutionError,
  type CheckedUses,
  type NeedValues,
  type ResolverPlan,
  type Uses,
} from './resolve/index.ts'
import { isAbsoluteUri, type ServerEvent } from './notifications.ts'
import { isInputRequired } from './results.ts'
import { Server, type ServerOptions } from './server.ts'
import { checkCacheHints, type CacheHints } from './cache.ts'
import { decodeBase64UrlStrict, encodeBase64Url } from '../encoding/base64url.ts'

/** A valibot object schema, or the entries of one (`{ title: v.string() }`). */
export type ToolInput = v.ObjectEntries | v.GenericSchema<Record<string, unknown>, Record<string, unknown>>

/** The validated arguments type of a {@link ToolInput}. */
export type ToolArgs<I extends ToolInput | undefined> = I extends v.GenericSchema
  ? v.InferOutput<I>
  : I extends v.ObjectEntries
    ? v.InferOutput<v.ObjectSchema<I, undefined>>
    : Record<never, never>

/** What a tool handler may return: a result, an `InputRequiredResult`, or a string (one text block). */
export type ToolReturn = CallToolResult | InputRequiredResult | string

/** The context of a tool, prompt or resource call: the request context plus this round's answers and state. */
export interface ToolContext extends RequestContext {
  /** The tool or prompt name, or the resource URI. */
  toolName: string
  /**
   * The client's answers to the previous round's `inputRequests`, by key (undefined on the first round,
   * and always undefined for handlers that use resolvers: the SDK owns their questions).
   */
  inputResponses: InputResponses | undefined
  /** The plaintext state your previous round returned (verified and unsealed); undefined on the first round. */
  requestState: string | undefined
}

/** A tool handler. Throw `McpError` for a JSON-RPC error; any other throw becomes an `isError` result. */
export type ToolHandler<Args, R = ToolReturn> = (args: Args, ctx: ToolContext) => R | Promise<R>

/** Registration options of a tool (spec: server/tools.mdx `Tool`). */
export interface ToolConfig<I extends ToolInput | undefined, U extends Uses = {}> {
  title?: string
  description?: string
  /** Input arguments as a valibot object schema or its entries; advertised as `inputSchema` (JSON Schema 2020-12). */
  input?: I
  /**
   * Resolved parameters: name → resolver (or `outcome(resolver)`). Hidden from `inputSchema`; a value a
   * client sends under such a name is ignored. A handler with resolvers may not return an
   * `InputRequiredResult` itself (one input-required channel per call).
   */
  use?: U & CheckedUses<ToolArgs<I>, U>
  /**
   * The shape of `structuredContent`, advertised as `outputSchema`. A result that lacks
   * `structuredContent` or does not match is a server error (-32603, logged), never sent.
   */
  output?: v.GenericSchema
  /**
   * Arguments mirrored into request headers: argument name → `{Name}` of `Mcp-Param-{Name}` (advertised as
   * `x-mcp-header`; string, integer or boolean arguments only). Over HTTP, a header that is missing or
   * differs from the body is `-32020` (HTTP 400).
   */
  headers?: { [K in keyof ToolArgs<I>]?: string }
  annotations?: Tool['annotations']
  icons?: Tool['icons']
  _meta?: Record<string, unknown>
}

/** A prompt's arguments: string-valued valibot entries (`v.string()`, `v.optional(v.string())`, pipes). */
export type PromptArguments = Record<string, v.GenericSchema<string | undefined, unknown>>

/** What a prompt handler may return: a result, its messages, one user message as a string, or an `InputRequiredResult`. */
export type PromptReturn = GetPromptResult | PromptMessage[] | string | InputRequiredResult

/** Registration options of a prompt. */
export interface PromptConfig<A extends PromptArguments, U extends Uses = {}> {
  title?: string
  description?: string
  /** Arguments by name; each a string schema (wrap in `v.optional` for optional ones). Use `v.description` to document them. */
  arguments?: A
  /** Resolved parameters, as for tools. */
  use?: U & CheckedUses<v.InferOutput<v.ObjectSchema<A, undefined>>, U>
  /** Suggestions for argument values (`completion/complete`), by argument name. */
  complete?: { [K in keyof A]?: Completer }
  icons?: Tool['icons']
}

/**
 * Suggest values for an argument being typed: `value` is what the user typed so far, `context` the
 * other arguments already given. Return up to 100 values (more are cut, with `hasMore: true`).
 */
export type Completer = (value: string, context: Record<string, string>) => string[] | Promise<string[]>

/** What a resource-template handler may return: contents, a string (text of the URI), or an `InputRequiredResult`. */
export type ResourceReturn = ReadResourceResult | string | InputRequiredResult

/** Registration options of a resource template. */
export interface ResourceTemplateConfig<T extends string = string, U extends Uses = {}> {
  title?: string
  description?: string
  mimeType?: string
  /** Resolved parameters; their `arg()` needs name URI template variables. */
  use?: U & CheckedUses<TemplateArgs<T>, U>
  /** Suggestions for template variables (`completion/complete`), by variable name. */
  complete?: { [K in TemplateVariables<T>]?: Completer }
  icons?: Tool['icons']
  /**
   * Cache hints of its `resources/read` results (`ttlMs` in milliseconds, integer ≥ 0; `cacheScope`).
   * Fields the handler's result sets win; unset ones come from the server's `cache` for `resources/read`.
   * Results reached through input-required rounds are always `{ ttlMs: 0, cacheScope: 'private' }`.
   */
  cache?: Partial<CacheHints>
}

/** Options of {@link McpServer}. */
export interface McpServerOptions extends ServerOptions {
  /**
   * How `requestState` is sealed. Default `RequestStateSecurity.ephemeral()` (one random key per process;
   * the audience is the server's name). Pass shared keys when retries may reach another instance.
   */
  requestStateSecurity?: RequestStateSecurity
  /**
   * Most items on one page of `tools/list`, `prompts/list`, `resources/list` and
   * `resources/templates/list` (spec: server/utilities/pagination.mdx). Lists are in registration order;
   * a longer list ends its page with an opaque `nextCursor`. Default 100.
   * @throws RangeError (from the constructor) unless a positive integer.
   */
  pageSize?: number
}

/** Default {@link McpServerOptions.pageSize}. */
const DEFAULT_PAGE_SIZE = 100
const CURSOR_PREFIX = 'edge-mcp/cursor/v1'

interface Registered {
  plan: ResolverPlan | undefined
  handler: (args: never, ctx: ToolContext) => unknown
}
interface RegisteredTool extends Registered {
  schema: v.GenericSchema<unknown, Record<string, unknown>>
  definition: Tool
  output: v.GenericSchema | undefined
  headerParams: HeaderParam[]
}
interface RegisteredPrompt extends Registered {
  schema: v.GenericSchema<unknown, Record<string, unknown>>
  definition: Record<string, unknown>
  complete?: Record<string, Completer | undefined> | undefined
}
interface RegisteredTemplate extends Registered {
  definition: Record<string, unknown>
  cache?: Partial<CacheHints> | undefined
  match: (uri: string) => Record<string, unknown> | undefined
  complete?: Record<string, Completer | undefined> | undefined
}

/**
 * A high-level MCP server.
 *
 * @throws Error at construction when an explicit `requestStateSecurity` is given to a server with an empty name.
 * @example
 * const mcp = new McpServer({ name: 'bookshop', version: '1.0.0' })
 * mcp.tool('reserve_book', { input: { title: v.string() }, use: { stock: checkStock } }, ({ title, stock }) =>
 *   stock.copies > 0 ? `Reserved '${title}' (${stock.copies - 1} copies left).` : `'${title}' is out of stock.`)
 * export default { fetch: createFetchHandler(mcp) }
 */
export class McpServer {
  /** The low-level server underneath (register other methods here). */
  readonly server: Server
  readonly #pageSize: number
  readonly #tools = new Map<string, RegisteredTool>()
  readonly #prompts = new Map<string, RegisteredPrompt>()
  readonly #templates = new Map<string, RegisteredTemplate>()
  readonly #resources = new Map<string, RegisteredTemplate>()
  #resourcesEnabled = false

  constructor(info: Implementation, options: McpServerOptions = {}) {
    const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE
    if (!(Number.isInteger(pageSize) && pageSize > 0))
      throw new RangeError(`pageSize must be a positive integer, got ${String(options.pageSize)}`)
    this.#pageSize = pageSize
    this.server = new Server(info, options)
    this.server.useRequestStateSecurity(options.requestStateSecurity ?? RequestStateSecurity.ephemeral())
    this.server.setRequestHandler('tools/list', (params) => this.#list(params, 'tools', this.#tools))
    this.server.setRequestHandler('tools/call', (params, ctx) => this.#callTool(params, ctx))
  }

  /**
   * Register a tool. Tools are listed in registration order. Once the server is serving, listen streams
   * that asked for `toolsListChanged` are told (likewise for prompts, resources and templates).
   * @throws Error when a tool with this name is already registered.
   * @throws InvalidSignatureError when its resolver graph cannot work (unknown argument, cycle, collision).
   */
  tool<I extends ToolInput | undefined = undefined, U extends Uses = {}>(
    name: string,
    config: ToolConfig<I, U>,
    handler: ToolHandler<ToolArgs<I> & NeedValues<U>, [keyof U] extends [never] ? ToolReturn : CallToolResult | string>,
  ): this {
    if (this.#tools.has(name)) throw new Error(`Tool '${name}' is already registered`)
    const schema = objectSchema(config.input)
    const inputSchema = jsonSchemaOf(schema)
    const plan = config.use ? planResolvers(`tool '${name}'`, argumentNames(schema), config.use as Uses) : undefined
    const definition: Tool = { name, inputSchema: { type: 'object', ...inputSchema } }
    if (config.output !== undefined) definition.outputSchema = jsonSchemaOf(config.output)
    const properties = (definition.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>
    for (const [argName, header] of Object.entries((config.headers ?? {}) as Record<string, string | undefined>)) {
      if (header === undefined) continue
      if (!Object.hasOwn(properties, argName)) throw new Error(`Tool '${name}': headers.${argName} names no argument`)
      properties[argName] = { ...properties[argName], 'x-mcp-header': header }
    }
    const found = headerParamsOf(definition.inputSchema)
    if ('invalid' in found) throw new Error(`Tool '${name}': ${found.invalid}`)
    if (config.title !== undefined) definition.title = config.title
    if (config.description !== undefined) definition.description = config.description
    if (config.annotations !== undefined) definition.annotations = config.annotations
    if (config.icons !== undefined) definition.icons = config.icons
    if (config._meta !== undefined) definition._meta = config._meta
    this.#tools.set(name, {
      definition,
      schema,
      plan,
      handler: handler as Registered['handler'],
      output: config.output,
      headerParams: found.params,
    })
    this.#changed('toolsListChanged')
    return this
  }

  /**
   * Remove a tool; once the server is serving, listen streams that asked for `toolsListChanged` are told.
   * @returns whether a tool of that name was registered.
   */
  removeTool(name: string): boolean {
    return this.#remove(this.#tools, name, 'toolsListChanged')
  }

  /** Remove a prompt (announced like {@link McpServer.removeTool}). @returns whether it was registered. */
  removePrompt(name: string): boolean {
    return this.#remove(this.#prompts, name, 'promptsListChanged')
  }

  /** Remove a static resource by URI (announced as `resourcesListChanged`). @returns whether it was registered. */
  removeResource(uri: string): boolean {
    return this.#remove(this.#resources, uri, 'resourcesListChanged')
  }

  /** Remove a resource template by name (announced as `resourcesListChanged`). @returns whether it was registered. */
  removeResourceTemplate(name: string): boolean {
    return this.#remove(this.#templates, name, 'resourcesListChanged')
  }

  /**
   * Announce that the resource at `uri` changed: `notifications/resources/updated` goes to the listen
   * streams (on every instance sharing the notification bus) whose `resourceSubscriptions` hold exactly
   * this URI. Resolves once the bus took the event; bus failures are logged, not thrown.
   * @throws TypeError when `uri` is not an absolute URI (`scheme:…`).
   */
  async resourceUpdated(uri: string): Promise<void> {
    if (!isAbsoluteUri(uri)) throw new TypeError(`resourceUpdated: ${JSON.stringify(uri)} is not an absolute URI`)
    await this.server.publish({ kind: 'resourceUpdated', uri })
  }

  /** A list changed: announce it once the server is serving (registrations at start-up are not news). */
  #changed(kind: Exclude<ServerEvent['kind'], 'resourceUpdated'>): void {
    if (this.server.serving) void this.server.publish({ kind })
  }

  #remove(items: Map<string, unknown>, key: string, kind: Exclude<ServerEvent['kind'], 'resourceUpdated'>): boolean {
    if (!items.delete(key)) return false
    this.#changed(kind)
    return true
  }

  /**
   * Register a prompt (`prompts/list`, `prompts/get`). Its handler may return an `InputRequiredResult`
   * or use resolvers, exactly like a tool.
   * @throws Error when a prompt with this name is already registered; InvalidSignatureError for a bad resolver graph.
   */
  prompt<A extends PromptArguments = {}, U extends Uses = {}>(
    name: string,
    config: PromptConfig<A, U>,
    handler: ToolHandler<
      v.InferOutput<v.ObjectSchema<A, undefined>> & NeedValues<U>,
      [keyof U] extends [never] ? PromptReturn : Exclude<PromptReturn, InputRequiredResult>
    >,
  ): this {
    if (this.#prompts.has(name)) throw new Error(`Prompt '${name}' is already registered`)
    const entries = (config.arguments ?? {}) as v.ObjectEntries
    const schema = v.object(entries) as v.GenericSchema<unknown, Record<string, unknown>>
    const json = jsonSchemaOf(schema)
    const required = new Set((json.required as string[] | undefined) ?? [])
    const props = (json.properties ?? {}) as Record<string, { description?: string; title?: string }>
    const definition: Record<string, unknown> = { name }
    if (config.title !== undefined) definition.title = config.title
    if (config.description !== undefined) definition.description = config.description
    if (Object.keys(entries).length > 0) {
      definition.arguments = Object.keys(entries).map((arg) => {
        const out: Record<string, unknown> = { name: arg }
        if (props[arg]?.title) out.title = props[arg].title
        if (props[arg]?.description) out.description = props[arg].description
        if (required.has(arg)) out.required = true
        return out
      })
    }
    if (config.icons !== undefined) definition.icons = config.icons
    const plan = config.use
      ? planResolvers(`prompt '${name}'`, new Set(Object.keys(entries)), config.use as Uses)
      : undefined
    if (this.#prompts.size === 0) {
      this.server.setRequestHandler('prompts/list', (params) => this.#list(params, 'prompts', this.#prompts))
      this.server.setRequestHandler('prompts/get', (params, ctx) => this.#getPrompt(params, ctx))
    }
    this.#prompts.set(name, {
      definition,
      schema,
      plan,
      handler: handler as Registered['handler'],
      complete: config.complete as Record<string, Completer | undefined> | undefined,
    })
    if (config.complete) this.#enableCompletions()
    this.#changed('promptsListChanged')
    return this
  }

  /**
   * Register a resource template (`resources/templates/list`, and `resources/read` for URIs it matches;
   * spec: server/resources.mdx "Resource Templates"). `uriTemplate` is an RFC 6570 template, levels 1–4
   * (`file:///{+path}`, `docs://{/segments*}`, `search://{?q,lang}`). `resources/read` routes a URI to
   * the first template (in registration order) whose `UriTemplate.match` accepts it, and the handler gets
   * the percent-decoded variables: a `string` for the lone variable of `{x}` or `{+x}`, a `string[]` for an
   * exploded `{x*}`, an optional `string` otherwise (see `uri-template.ts` for the matching rule).
   * @throws UriTemplateError for an invalid template; Error for a duplicate name or a `complete` entry
   *   that names no variable; InvalidSignatureError for a bad resolver graph; RangeError for invalid
   *   `cache` hints.
   */
  resourceTemplate<const T extends string, U extends Uses = {}>(
    name: string,
    uriTemplate: T,
    config: ResourceTemplateConfig<T, U>,
    handler: ToolHandler<
      TemplateArgs<T> & NeedValues<U>,
      [keyof U] extends [never] ? ResourceReturn : Exclude<ResourceReturn, InputRequiredResult>
    >,
  ): this {
    if (this.#templates.has(name)) throw new Error(`Resource template '${name}' is already registered`)
    checkCacheHints(`Resource template '${name}': cache`, config.cache)
    const template = new UriTemplate(uriTemplate)
    const variables = template.variables
    for (const key of Object.keys(config.complete ?? {})) {
      if (!variables.includes(key))
        throw new Error(`Resource template '${name}': complete.${key} names no variable of ${uriTemplate}`)
    }
    const definition: Record<string, unknown> = { uriTemplate, name }
    if (config.title !== undefined) definition.title = config.title
    if (config.description !== undefined) definition.description = config.description
    if (config.mimeType !== undefined) definition.mimeType = config.mimeType
    if (config.icons !== undefined) definition.icons = config.icons
    const plan = config.use
      ? planResolvers(`resource template '${name}'`, new Set(variables), config.use as Uses)
      : undefined
    this.#enableResources()
    const match = (uri: string) => template.match(uri) as Record<string, unknown> | undefined
    this.#templates.set(name, {
      definition,
      plan,
      handler: handler as Registered['handler'],
      match,
      complete: config.complete as Record<string, Completer | undefined> | undefined,
      cache: config.cache,
    })
    if (config.complete) this.#enableCompletions()
    this.#changed('resourcesListChanged')
    return this
  }

  /**
   * Register a static resource (`resources/list`, and `resources/read` of exactly this URI). Its handler
   * returns the contents (or a string: the text of the URI); it takes no arguments and asks no questions.
   * @throws Error when a resource with this URI is already registered; RangeError for invalid `cache` hints.
   */
  resource(
    name: string,
    uri: string,
    config: Omit<ResourceTemplateConfig, 'use'>,
    handler: (ctx: ToolContext) => ReadResourceResult | string | Promise<ReadResourceResult | string>,
  ): this {
    if (this.#resources.has(uri)) throw new Error(`Resource '${uri}' is already registered`)
    checkCacheHints(`Resource '${uri}': cache`, config.cache)
    const definition: Record<string, unknown> = { uri, name }
    if (config.title !== undefined) definition.title = config.title
    if (config.description !== undefined) definition.description = config.description
    if (config.mimeType !== undefined) definition.mimeType = config.mimeType
    if (config.icons !== undefined) definition.icons = config.icons
    this.#enableResources()
    this.#resources.set(uri, {
      definition,
      plan: undefined,
      handler: ((_args: never, ctx: ToolContext) => handler(ctx)) as Registered['handler'],
      match: (candidate) => (candidate === uri ? {} : undefined),
      cache: config.cache,
    })
    this.#changed('resourcesListChanged')
    return this
  }

  #enableCompletions(): void {
    this.server.setRequestHandler('completion/complete', (params) => this.#complete(params))
  }

  async #complete(params: Record<string, unknown>): Promise<ResultObject> {
    const parsed = v.safeParse(CompleteRequestParams, params)
    if (!parsed.success)
      throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${describeIssue(parsed.issues[0])}`)
    const { ref, argument, context } = parsed.output
    let completers: Record<string, Completer | undefined> | undefined
    if (ref.type === 'ref/prompt') {
      const prompt = this.#prompts.get(ref.name)
      if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`)
      completers = prompt.complete
    } else {
      const template = [...this.#templates.values()].find((t) => t.definition.uriTemplate === ref.uri)
      if (!template) throw new McpError(ErrorCode.InvalidParams, 'Resource not found', { uri: ref.uri })
      completers = template.complete
    }
    const completer = completers && Object.hasOwn(completers, argument.name) ? completers[argument.name] : undefined
    const all = completer ? await completer(argument.value, context?.arguments ?? {}) : []
    const values = all.slice(0, 100)
    return { completion: { values, total: all.length, hasMore: all.length > values.length } }
  }

  #enableResources(): void {
    if (this.#resourcesEnabled) return
    this.#resourcesEnabled = true
    this.server.setRequestHandler('resources/list', (params) => this.#list(params, 'resources', this.#resources))
    this.server.setRequestHandler('resources/templates/list', (params) =>
      this.#list(params, 'resourceTemplates', this.#templates),
    )
    this.server.setRequestHandler('resources/read', (params, ctx) => this.#readResource(params, ctx))
  }

  #list(params: Record<string, unknown>, field: string, items: Map<string, { definition: unknown }>): ResultObject {
    const all = [...items.values()]
    const start = params.cursor === undefined ? 0 : this.#offsetOf(params.cursor, field)
    const end = start + this.#pageSize
    const page: ResultObject = { [field]: all.slice(start, end).map((t) => t.definition) }
    if (end < all.length) page.nextCursor = this.#cursorFor(field, end)
    // cache hints: the server's for this list method (stamped by Server), never the items' own
    return page
  }

  /** An opaque cursor: base64url of `edge-mcp/cursor/v1 <list field> <offset>`. */
  #cursorFor(field: string, offset: number): string {
    return encodeBase64Url(new TextEncoder().encode(`${CURSOR_PREFIX} ${field} ${offset}`))
  }

  /**
   * The offset a cursor of {@link McpServer.#cursorFor} points at. A list that shrank since is read from
   * its end (an empty last page), so a walk in progress ends rather than fails.
   * @throws McpError -32602 "Invalid cursor" for anything this server did not issue for this list.
   */
  #offsetOf(cursor: unknown, field: string): number {
    const bytes = typeof cursor === 'string' && cursor.length <= 200 ? decodeBase64UrlStrict(cursor) : undefined
    const match = bytes && /^(\S+) (\S+) (\d{1,9})$/.exec(new TextDecoder().decode(bytes))
    if (!match || match[1] !== CURSOR_PREFIX || match[2] !== field || Number(match[3]) === 0) {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor')
    }
    return Number(match[3])
  }

  /**
   * The named item and its raw arguments.
   * @throws McpError -32602 for a non-string name, an unknown name, or arguments that are not an object.
   */
  #named<T>(
    params: Record<string, unknown>,
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

  async #callTool(params: Record<string, unknown>, ctx: RequestContext): Promise<ResultObject> {
    const { name, item: tool, rawArgs } = this.#named(params, this.#tools, 'tool')
    if (ctx.request) checkParamHeaders(ctx.request.headers, tool.headerParams, rawArgs)
    const args = v.safeParse(tool.schema, withoutResolved(rawArgs, tool.plan))
    if (!args.success)
      return toolResult(true, `Invalid arguments for tool ${name}: ${args.issues.map(describeIssue).join('; ')}`)
    let out: unknown
    try {
      out = await this.#invoke(tool, args.output, params, ctx, name)
    } catch (error) {
      if (error instanceof McpError) throw error
      const message = error instanceof Error ? error.message : String(error)
      return toolResult(true, `Error executing tool ${name}: ${message}`)
    }
    if (typeof out === 'string') return toolResult(false, out)
    if (isInputRequired(out)) return out
    const checked = v.safeParse(CallToolResult, out)
    if (!checked.success)
      throw new Error(`tool ${name} returned an invalid CallToolResult: ${describeIssue(checked.issues[0])}`)
    if (tool.output && !checked.output.isError) {
      const structured = v.safeParse(tool.output, checked.output.structuredContent)
      if (!structured.success)
        throw new Error(
          `tool ${name} returned structuredContent that does not match its outputSchema: ${describeIssue(structured.issues[0])}`,
        )
    }
    return out as ResultObject
  }

  async #getPrompt(params: Record<string, unknown>, ctx: RequestContext): Promise<ResultObject> {
    const { name, item: prompt, rawArgs } = this.#named(params, this.#prompts, 'prompt')
    const args = v.safeParse(prompt.schema, withoutResolved(rawArgs, prompt.plan))
    if (!args.success)
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid arguments for prompt ${name}: ${args.issues.map(describeIssue).join('; ')}`,
      )
    const out = await this.#invokeOrFail(prompt, args.output, params, ctx, name, 'prompt')
    if (isInputRequired(out)) return out
    if (typeof out === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: out } }] }
    if (Array.isArray(out)) return { messages: out }
    return out as ResultObject
  }

  async #readResource(params: Record<string, unknown>, ctx: RequestContext): Promise<ResultObject> {
    const uri = params.uri
    if (typeof uri !== 'string') throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "uri" must be a string')
    // an exact static resource first, then the templates in registration order
    const exact = this.#resources.get(uri)
    for (const template of exact ? [exact] : this.#templates.values()) {
      const vars = template.match(uri)
      if (!vars) continue
      const out = await this.#invokeOrFail(template, vars, params, ctx, uri, 'resource')
      if (isInputRequired(out)) return out
      let result = out as ResultObject
      if (typeof out === 'string') {
        const mimeType = template.definition.mimeType as string | undefined
        result = { contents: [mimeType ? { uri, mimeType, text: out } : { uri, text: out }] }
      }
      // the item's hints fill what the handler left unset; Server fills the rest and handles retries
      const hints = template.cache
      if (hints?.ttlMs !== undefined && result.ttlMs === undefined) result = { ...result, ttlMs: hints.ttlMs }
      if (hints?.cacheScope !== undefined && result.cacheScope === undefined)
        result = { ...result, cacheScope: hints.cacheScope }
      return result
    }
    throw new McpError(ErrorCode.InvalidParams, 'Resource not found', { uri })
  }

  /**
   * Prompts and resources have no `isError`: a question that could not be resolved (a refusal, a wrong
   * answer) is `-32602` naming it; any other failure of a resolver or handler is `-32603` (logged).
   */
  async #invokeOrFail(
    item: Registered,
    args: Record<string, unknown>,
    params: Record<string, unknown>,
    ctx: RequestContext,
    target: string,
    what: string,
  ) {
    try {
      return await this.#invoke(item, args, params, ctx, target)
    } catch (error) {
      if (error instanceof ResolutionError && !(error instanceof HandlerContractError)) {
        throw new McpError(ErrorCode.InvalidParams, `Could not get ${what} ${target}: ${error.message}`)
      }
      throw error
    }
  }

  /** Validate answers, run resolvers (if any), then the handler. */
  async #invoke(
    item: Registered,
    args: Record<string, unknown>,
    params: Record<string, unknown>,
    ctx: RequestContext,
    target: string,
  ): Promise<unknown> {
    let inputResponses: InputResponses | undefined
    if (params.inputResponses !== undefined) {
      const raw = params.inputResponses
      if (!isPlainObject(raw) || !Object.values(raw).every(isPlainObject)) {
        throw new McpError(
          ErrorCode.InvalidParams,
          'Invalid params: inputResponses must be an object of result objects',
        )
      }
      const parsed = v.safeParse(InputResponses, raw)
      if (!parsed.success)
        throw new McpError(ErrorCode.InvalidParams, `Invalid params: inputResponses ${describeIssue(parsed.issues[0])}`)
      inputResponses = parsed.output
    }
    const requestState = ctx.requestState // opened by the sealing boundary; params.requestState is the wire token
    // Object.assign, not `{ ...ctx, … }`: V8 takes a slow path for properties written after a spread.
    if (!item.plan)
      return item.handler(args as never, Object.assign({}, ctx, { toolName: target, inputResponses, requestState }))
    const handlerCtx: ToolContext = Object.assign({}, ctx, {
      toolName: target,
      inputResponses: undefined,
      requestState: undefined,
    })
    const resolution = await resolveRound({
      plan: item.plan,
      args,
      ctx: handlerCtx,
      inputResponses,
      requestState,
      note: (m) => this.server.logger.warn(m),
    })
    if (resolution.status === 'input_required') return resolution.result
    const out = await item.handler({ ...args, ...resolution.values } as never, handlerCtx)
    if (isInputRequired(out)) {
      throw new HandlerContractError(
        'the handler returned an InputRequiredResult but its parameters use resolvers; a call has one input_required channel, so the multi-round flow is driven either by resolvers or by the handler, not both',
      )
    }
    return out
  }
}

/** The argument names of an object schema, or undefined when they cannot be known (unions, intersections, …). */
function argumentNames(schema: v.GenericSchema): ReadonlySet<string> | undefined {
  const entries = (schema as { entries?: unknown }).entries
  return typeof entries === 'object' && entries !== null ? new Set(Object.keys(entries)) : undefined
}

/** A handler broke the one-channel rule (resolvers and its own `InputRequiredResult`): a server bug. */
class HandlerContractError extends ResolutionError {
  override readonly name: string = 'HandlerContractError'
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
      throw new McpError(
        ErrorCode.HeaderMismatch,
        `Header mismatch: Mcp-Param-${param.name} header does not match arguments.${param.path.join('.')}`,
      )
    }
  }
}

function objectSchema(input: ToolInput | undefined): v.GenericSchema<unknown, Record<string, unknown>> {
  return (input === undefined ? v.object({}) : isSchema(input) ? input : v.object(input)) as v.GenericSchema<
    unknown,
    Record<string, unknown>
  >
}

function jsonSchemaOf(schema: v.GenericSchema): Record<string, unknown> {
  const { $schema: _ignored, ...json } = toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode: 'input',
    errorMode: 'ignore',
  }) as Record<string, unknown>
  return json
}

/** Values a client sends under resolved names are dropped before validation: resolvers alone fill them. */
function withoutResolved(args: Record<string, unknown>, plan: ResolverPlan | undefined): Record<string, unknown> {
  if (!plan) return args
  const out: Record<string, unknown> = {}
  for (const [k, val] of Object.entries(args)) if (!plan.resolvedNames.has(k)) out[k] = val
  return out
}

function isSchema(input: ToolInput): input is v.GenericSchema<Record<string, unknown>, Record<string, unknown>> {
  return typeof input === 'object' && input !== null && (input as { kind?: unknown }).kind === 'schema'
}

function toolResult(isError: boolean, text: string): ResultObject {
  const result: CallToolResult = { content: [{ type: 'text', text }] }
  if (isError) result.isError = true
  return result
}
