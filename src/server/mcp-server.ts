/**
 * The high-level server: tools, prompts and resource templates with schemas of any Standard Schema library and resolved
 * parameters; `requestState` sealed by default. This file is the registration API and its wiring to the
 * low-level `Server`; `mcp/` holds the rest: `types.ts` (the shapes of registrations), `definitions.ts`
 * (configs → list entries), `requests.ts` (the request handlers), `invoke.ts` (resolvers, then the
 * handler), `lists.ts` (paged lists).
 * @module
 */
import type { RequestMiddleware, ServerMiddleware } from './middleware.ts'
import type { ObjectOutput } from './schema.ts'
import type {
  CallToolResult,
  Implementation,
  InputRequiredResult,
  ReadResourceResult,
} from '../protocol/schemas/index.ts'
import type { TemplateArgs, UriTemplate } from '../protocol/uri-template.ts'
import { normalizeUri } from '../protocol/uri-literal.ts'
import { RequestStateSecurity } from '../request-state/security.ts'
import type { RequestContext, RequestParams } from './context.ts'
import { checkToolName, promptEntry, resourceEntry, templateEntry, toolEntry } from './mcp/definitions.ts'
import { DEFAULT_PAGE_SIZE, listPage, resourcesPage } from './mcp/lists.ts'
import { checkScopes, missingScopes } from '../protocol/auth.ts'
import { callTool, complete, getPrompt, readResource } from './mcp/requests.ts'
import type {
  McpServerOptions,
  PromptArguments,
  PromptConfig,
  PromptReturn,
  Registered,
  Registry,
  ResourceConfig,
  ResourceReturn,
  ResourceTemplateConfig,
  StructuredToolResult,
  ToolArgs,
  ToolConfig,
  HandlerContext,
  ToolHandler,
  ToolInput,
  ToolReturn,
  TaskHook,
} from './mcp/types.ts'
import { isAbsoluteUri, type ServerEvent } from './notifications.ts'
import type { NeedValues, Uses } from './resolve/resolver.ts'
import { Server } from './server.ts'
import { logWarn } from './log.ts'
import { INSTALL_TASKS } from './tasks/types.ts'

/** A tasks value: it installs itself on the server (its `tasks/*` handlers) and gives the `tools/call` hook. */
type Installable = {
  [INSTALL_TASKS]: (mcp: McpServer, registry: Registry, note: (message: string) => void) => TaskHook
}

/** A list-changed event kind. */
type ListChanged = Exclude<ServerEvent['kind'], 'resourceUpdated'>

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
  readonly #registry: Registry
  #resourcesEnabled = false
  /** Log-only notes of a round (a discarded stale answer) go to the server's logger. */
  readonly #note = (message: string): void => logWarn(this.server.logger, 'answer.discarded', message)

  /**
   * @throws RangeError unless `options.pageSize` is a positive integer (see also {@link Server}'s constructor).
   * @throws TypeError when `options.tasks` is not a tasks value made by `inMemoryTasks()` or `durableObjectTasks()`
   *   (a hand-written `TaskStore` is not one yet).
   */
  constructor(info: Implementation, options: McpServerOptions = {}) {
    const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE
    if (!(Number.isInteger(pageSize) && pageSize > 0))
      throw new RangeError(`pageSize must be a positive integer, got ${String(options.pageSize)}`)
    this.#pageSize = pageSize
    for (const [scope, narrower] of Object.entries(options.impliedScopes ?? {}))
      checkScopes(`impliedScopes.${scope}`, narrower)
    const impliedScopes = options.impliedScopes
    this.#registry = { tools: new Map(), prompts: new Map(), templates: new Map(), resources: new Map(), impliedScopes }
    // a subscription to a resource the token may not read is left out, as `authorizeSubscription` would
    const user = options.authorizeSubscription
    const authorizeSubscription = (uri: string, ctx: RequestContext) =>
      this.#mayRead(uri, ctx) && (user ? user(uri, ctx) : true)
    this.server = new Server(info, { ...options, authorizeSubscription })
    this.server.useRequestStateSecurity(options.requestStateSecurity ?? RequestStateSecurity.ephemeral())
    this.server.setRequestHandler('tools/list', (params) => this.#list(params, 'tools', this.#registry.tools))
    this.server.setRequestHandler('tools/call', (params, ctx) => callTool(this.#registry, params, ctx, this.#note))
    const install = (options.tasks as Installable | undefined)?.[INSTALL_TASKS]
    if (options.tasks && !install) throw new TypeError('options.tasks: use inMemoryTasks() or durableObjectTasks()')
    if (install) this.#registry.tasks = install.call(options.tasks, this, this.#registry, this.#note)
  }

  /**
   * Register a tool. Tools are listed in registration order. Once the server is serving, listen streams
   * that asked for `toolsListChanged` are told (likewise for prompts, resources and templates).
   * A name outside the spec's guidance (1–128 characters of `A–Z a–z 0–9 _ - .`; server/tools.mdx
   * "Tool Names") registers with one warning through the server's logger.
   * @throws Error when a tool with this name is already registered, or the name is empty, or it has
   *   `task` on a server without `options.tasks`; TypeError for a `task` that is not `'required'`,
   *   `'optional'` or a function.
   * @throws InvalidSignatureError when its resolver graph cannot work (unknown argument, cycle, collision).
   */
  tool<I extends ToolInput | undefined = undefined, U extends Uses = Record<never, never>>(
    name: string,
    config: ToolConfig<I, U>,
    handler: ToolHandler<
      ToolArgs<I> & NeedValues<U>,
      [keyof U] extends [never] ? ToolReturn : CallToolResult | StructuredToolResult | string
    >,
  ): this {
    checkToolName(name, (message) => logWarn(this.server.logger, 'tool.nameWarning', message))
    if (this.#registry.tools.has(name)) throw new Error(`Tool '${name}' is already registered`)
    const entry = toolEntry(name, config, handler as Registered['handler'])
    if (config.task !== undefined) {
      if (!this.#registry.tasks) throw new Error(`Tool '${name}': task needs options.tasks`)
      entry.task = this.#registry.tasks.mode(name, config.task)
    }
    this.#registry.tools.set(name, entry)
    this.#changed('toolsListChanged')
    return this
  }

  /**
   * Register a prompt (`prompts/list`, `prompts/get`). Its handler may return an `InputRequiredResult`
   * or use resolvers, exactly like a tool.
   * @throws Error when a prompt with this name is already registered; InvalidSignatureError for a bad resolver graph.
   */
  prompt<A extends PromptArguments = Record<never, never>, U extends Uses = Record<never, never>>(
    name: string,
    config: PromptConfig<A, U>,
    handler: ToolHandler<
      ObjectOutput<A> & NeedValues<U>,
      [keyof U] extends [never] ? PromptReturn : Exclude<PromptReturn, InputRequiredResult>
    >,
  ): this {
    const prompts = this.#registry.prompts
    if (prompts.has(name)) throw new Error(`Prompt '${name}' is already registered`)
    const entry = promptEntry(name, config, handler as Registered['handler'])
    if (prompts.size === 0) {
      this.server.setRequestHandler('prompts/list', (params) => this.#list(params, 'prompts', prompts))
      this.server.setRequestHandler('prompts/get', (params, ctx) => getPrompt(this.#registry, params, ctx, this.#note))
    }
    prompts.set(name, entry)
    if (config.complete) this.#enableCompletions()
    this.#changed('promptsListChanged')
    return this
  }

  /**
   * Register a resource template (`resources/templates/list`, and `resources/read` for URIs it matches;
   * spec: server/resources.mdx "Resource Templates"). `uriTemplate` is a parsed RFC 6570 template, levels
   * 1–4 (`new UriTemplate('file:///{+path}')`, `docs://{/segments*}`, `search://{?q,lang}`; parsed by you, so
   * a server without templates bundles no template parser). `resources/read` routes a URI to the first
   * template (in registration order) whose `UriTemplate.match` accepts it, and the handler gets the
   * percent-decoded variables: a `string` for the lone variable of `{x}` or `{+x}`, a `string[]` for an
   * exploded `{x*}`, an optional `string` otherwise (see `uri-template.ts` for the matching rule).
   * `config.list(ctx)` returns the template's instances (`Resource[]` or `{ resources }`), listed by
   * `resources/list` after the static resources; an invalid entry is `-32603` (see `ResourceTemplateConfig`).
   * @throws TypeError when `uriTemplate` is not a `UriTemplate` (e.g. the template's text) or `list` is
   *   not a function; Error for a
   *   duplicate name or a `complete` entry that names no variable; InvalidSignatureError for a bad
   *   resolver graph; RangeError for invalid `cache` hints. (`new UriTemplate` throws UriTemplateError
   *   for an invalid template.)
   */
  resourceTemplate<const T extends string, U extends Uses = Record<never, never>>(
    name: string,
    uriTemplate: UriTemplate<T>,
    config: ResourceTemplateConfig<T, U>,
    handler: ToolHandler<
      TemplateArgs<T> & NeedValues<U>,
      [keyof U] extends [never] ? ResourceReturn : Exclude<ResourceReturn, InputRequiredResult>
    >,
  ): this {
    if (this.#registry.templates.has(name)) throw new Error(`Resource template '${name}' is already registered`)
    const entry = templateEntry(name, uriTemplate, config, handler as Registered['handler'])
    this.#enableResources()
    this.#registry.templates.set(name, entry)
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
    config: ResourceConfig,
    handler: (ctx: HandlerContext) => ReadResourceResult | string | Promise<ReadResourceResult | string>,
  ): this {
    if (this.#registry.resources.has(normalizeUri(uri))) throw new Error(`Resource '${uri}' is already registered`)
    const entry = resourceEntry(name, uri, config, (_args: never, ctx: HandlerContext) => handler(ctx))
    this.#enableResources()
    this.#registry.resources.set(normalizeUri(uri), entry) // keyed by normal form: equivalent URIs are one resource
    this.#changed('resourcesListChanged')
    return this
  }

  /**
   * Add middleware around every request, and around each tool, prompt and resource handler run, resolver
   * and question (see `Server.use`; the first registered runs outermost).
   * @throws TypeError for anything but a function or an object of middleware functions.
   * @example
   * mcp.use({ invocation: async (call, next) => (call.principal ? next() : toolError('sign in first')) })
   */
  use(middleware: ServerMiddleware | RequestMiddleware): this {
    this.server.use(middleware)
    return this
  }

  /**
   * Remove a tool; once the server is serving, listen streams that asked for `toolsListChanged` are told.
   * @returns whether a tool of that name was registered.
   */
  removeTool(name: string): boolean {
    return this.#remove(this.#registry.tools, name, 'toolsListChanged')
  }

  /** Remove a prompt (announced like {@link McpServer.removeTool}). @returns whether it was registered. */
  removePrompt(name: string): boolean {
    return this.#remove(this.#registry.prompts, name, 'promptsListChanged')
  }

  /** Remove a static resource by URI (announced as `resourcesListChanged`). @returns whether it was registered. */
  removeResource(uri: string): boolean {
    return this.#remove(this.#registry.resources, normalizeUri(uri), 'resourcesListChanged')
  }

  /** Remove a resource template by name (announced as `resourcesListChanged`). @returns whether it was registered. */
  removeResourceTemplate(name: string): boolean {
    return this.#remove(this.#registry.templates, name, 'resourcesListChanged')
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

  /** Whether the caller's scopes cover the resource `uri` serves from (the one `resources/read` would use). */
  #mayRead(uri: string, ctx: RequestContext): boolean {
    const { resources, templates, impliedScopes } = this.#registry
    const exact = resources.get(normalizeUri(uri))
    const item = exact ?? [...templates.values()].find((t) => t.match(uri) !== undefined)
    return !item?.scopes?.length || missingScopes(item.scopes, ctx.authInfo?.scopes, impliedScopes).length === 0
  }

  /** A list changed: announce it once the server is serving (registrations at start-up are not news). */
  #changed(kind: ListChanged): void {
    if (this.server.serving) void this.server.publish({ kind })
  }

  #remove(items: Map<string, unknown>, key: string, kind: ListChanged): boolean {
    if (!items.delete(key)) return false
    this.#changed(kind)
    return true
  }

  #list(params: RequestParams, field: string, items: Map<string, { definition: unknown }>) {
    return listPage(params, field, items, this.#pageSize)
  }

  #enableCompletions(): void {
    this.server.setRequestHandler('completion/complete', (params, ctx) => complete(this.#registry, params, ctx))
  }

  #enableResources(): void {
    if (this.#resourcesEnabled) return
    this.#resourcesEnabled = true
    const { templates } = this.#registry
    this.server.setRequestHandler('resources/list', (params, ctx) =>
      resourcesPage(params, this.#registry, ctx, this.#pageSize),
    )
    this.server.setRequestHandler('resources/templates/list', (params) =>
      this.#list(params, 'resourceTemplates', templates),
    )
    this.server.setRequestHandler('resources/read', (params, ctx) =>
      readResource(this.#registry, params, ctx, this.#note),
    )
  }
}
