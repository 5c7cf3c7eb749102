/**
 * The shapes of `McpServer`'s registrations: what a tool, prompt or resource handler receives and may
 * return, and the options of each kind (spec: server/tools.mdx, server/prompts.mdx, server/resources.mdx).
 * @module
 */
import type { AppToolMeta } from '../../protocol/apps.ts'
import type { ImpliedScopes } from '../../protocol/auth.ts'
import type { HeaderParam } from '../../protocol/param-headers.ts'
import type {
  CallToolResult,
  GetPromptResult,
  InputRequiredResult,
  InputResponses,
  PromptMessage,
  ReadResourceResult,
  Resource,
  Tool,
} from '../../protocol/schemas/index.ts'
import type { TemplateArgs, TemplateVariables } from '../../protocol/uri-template.ts'
import type { RequestStateSecurity } from '../../request-state/security.ts'
import type { RequestStateValue } from '../../request-state/claims.ts'
import type { CacheHints } from '../cache.ts'
import type { RequestContext } from '../context.ts'
import type { ResolverPlan } from '../resolve/plan.ts'
import type { CheckedUses, Uses } from '../resolve/resolver.ts'
import type { ObjectOutput, ObjectSchemaInput, SchemaCheck, StandardSchemaV1 } from '../schema.ts'
import type { ServerOptions } from '../server.ts'
import type { TaskContext } from '../tasks/ask.ts'
import type { TaskStore } from '../tasks/types.ts'

/**
 * A tool's input: an object schema of any Standard Schema library (`z.object({…})`, `v.object({…})`,
 * `type({…})`), or its entries, each of any library (`{ title: z.string() }`).
 */
export type ToolInput = ObjectSchemaInput

/** The validated arguments type of a {@link ToolInput}. */
export type ToolArgs<I extends ToolInput | undefined> = ObjectOutput<I>

/**
 * A tool result with `structuredContent` and no `content`: the SDK adds one text block holding the JSON
 * of the structured content (spec: server/tools.mdx "Structured Content": such tools SHOULD also return
 * it as text).
 */
export type StructuredToolResult = Omit<CallToolResult, 'content'> & { content?: undefined; structuredContent: unknown }

/**
 * What a tool handler may return: a result, a result with only `structuredContent` (see
 * {@link StructuredToolResult}), an `InputRequiredResult`, or a string (one text block).
 */
export type ToolReturn = CallToolResult | StructuredToolResult | InputRequiredResult | string

/** The context of a tool, prompt or resource call: the request context plus this round's answers and state. */
export interface HandlerContext extends RequestContext {
  /** The tool or prompt name, or the resource URI. */
  target: string
  /**
   * The client's answers to the previous round's `inputRequests`, by key (undefined on the first round,
   * and always undefined for handlers that use resolvers: the SDK owns their questions).
   */
  inputResponses: InputResponses | undefined
  /**
   * The state your previous round returned (verified and unsealed): the same JSON value — a string stays a
   * string, an object comes back an equal object; undefined on the first round, and always undefined for
   * handlers that use resolvers (the SDK owns their state).
   */
  requestState: RequestStateValue | undefined
  /**
   * Set for a tool registered with `task` (undefined otherwise): its status, progress and questions while
   * it runs as a task, or inline in a synchronous run (`taskId` undefined). See {@link TaskContext}.
   */
  task?: TaskContext
}

/**
 * Whether a tool runs as a task (ext-tasks specification/2026-07-28/tasks.md): `'required'` — always, for a
 * request that declares the `io.modelcontextprotocol/tasks` extension; a 2026 request that does not gets
 * `-32021` naming it; `'optional'` — a task when the request declares the extension, else a synchronous
 * run; a function — the server decides per call (true: a task when the extension is declared). 2025-era
 * requests always run synchronously.
 */
export type TaskMode<Args = Record<string, unknown>> =
  'required' | 'optional' | ((args: Args, ctx: RequestContext) => boolean | Promise<boolean>)

/** A tool handler. Throw `McpError` for a JSON-RPC error; any other throw becomes an `isError` result. */
export type ToolHandler<Args, R = ToolReturn> = (args: Args, ctx: HandlerContext) => R | Promise<R>

/** Registration options of a tool (spec: server/tools.mdx `Tool`). */
export interface ToolConfig<I extends ToolInput | undefined, U extends Uses = Record<never, never>> {
  title?: string
  description?: string
  /**
   * Input arguments: an object schema or its entries, of any Standard Schema library; advertised as
   * `inputSchema` (JSON Schema 2020-12, from the library's own converter: see `withJsonSchema` for one without).
   */
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
  output?: StandardSchemaV1
  /**
   * Arguments mirrored into request headers: argument name → `{Name}` of `Mcp-Param-{Name}` (advertised as
   * `x-mcp-header`; string, integer or boolean arguments only). Over HTTP, a header that is missing or
   * differs from the body is `-32020` (HTTP 400).
   */
  headers?: { [K in keyof ToolArgs<I>]?: string }
  annotations?: Tool['annotations']
  icons?: Tool['icons']
  /**
   * The tool's `_meta`, listed as is. `ui` links it to an MCP App (ext-apps apps.mdx `McpUiToolMeta`):
   * `resourceUri` — the `ui://` resource (see `registerAppResource`) that renders its results;
   * `visibility` — who may call it, `['model', 'app']` by default (`['app']`: only its App, hidden from the
   * model). Checked at registration: a TypeError names the field of a `ui` of any other shape.
   */
  _meta?: AppToolMeta
  /**
   * OAuth scopes a caller's token must grant to call it (spec: basic/authorization "Scope Challenge
   * Handling"); hierarchies come from the server's `impliedScopes`. A token without them gets HTTP 403
   * `insufficient_scope` naming these scopes, so the client can step up. The item is still listed for
   * every caller: lists stay one shared, cacheable answer, and a client learns what to ask for by calling.
   */
  scopes?: readonly string[]
  /**
   * Run it as a task (see {@link TaskMode}); needs `McpServerOptions.tasks`. Its handler then gets
   * `ctx.task`. Absent: never a task.
   */
  task?: TaskMode<ToolArgs<I>>
}

/**
 * A prompt's arguments: an object schema of string fields, of any Standard Schema library (`z.object({…})`,
 * arktype's `type({ topic: 'string' })`, `v.object({…})`), or its entries (`z.string()`,
 * `v.optional(v.string())`, pipes); their descriptions (`.describe()`, `v.description`) are listed.
 */
export type PromptArguments =
  | Record<string, StandardSchemaV1<string | undefined, unknown>>
  | StandardSchemaV1<Record<string, string | undefined>, Record<string, unknown>>

/** What a prompt handler may return: a result, its messages, one user message as a string, or an `InputRequiredResult`. */
export type PromptReturn = GetPromptResult | PromptMessage[] | string | InputRequiredResult

/** Registration options of a prompt. */
export interface PromptConfig<A extends PromptArguments, U extends Uses = Record<never, never>> {
  title?: string
  description?: string
  /**
   * An object schema of string fields, or its entries: each a string schema (an optional one accepts
   * `undefined`: `v.optional`, `.optional()`); their descriptions are listed.
   */
  arguments?: A
  /** Resolved parameters, as for tools. */
  use?: U & CheckedUses<ObjectOutput<A>, U>
  /** Suggestions for argument values (`completion/complete`), by argument name. */
  complete?: { [K in keyof ObjectOutput<A>]?: Completer }
  icons?: Tool['icons']
  /**
   * OAuth scopes a caller's token must grant to call it (spec: basic/authorization "Scope Challenge
   * Handling"); hierarchies come from the server's `impliedScopes`. A token without them gets HTTP 403
   * `insufficient_scope` naming these scopes, so the client can step up. The item is still listed for
   * every caller: lists stay one shared, cacheable answer, and a client learns what to ask for by calling.
   */
  scopes?: readonly string[]
}

/**
 * Suggest values for an argument being typed: `value` is what the user typed so far, `context` the
 * other arguments already given. Return up to 100 values (more are cut, with `hasMore: true`).
 */
export type Completer = (value: string, context: Record<string, string>) => string[] | Promise<string[]>

/** What a resource-template handler may return: contents, a string (text of the URI), or an `InputRequiredResult`. */
export type ResourceReturn = ReadResourceResult | string | InputRequiredResult

/**
 * What a template's `list` callback may return: the resources, or `{ resources }` (the official SDK's
 * `ListResourcesResult` shape; its other fields — `nextCursor`, cache hints, `_meta` — are ignored).
 */
export type ResourceListReturn = Resource[] | { resources: Resource[] }

/** Registration options of a resource template. */
export interface ResourceTemplateConfig<T extends string = string, U extends Uses = Record<never, never>> {
  title?: string
  description?: string
  mimeType?: string
  /** Resolved parameters; their `arg()` needs name URI template variables. */
  use?: U & CheckedUses<TemplateArgs<T>, U>
  /** Suggestions for template variables (`completion/complete`), by variable name. */
  complete?: { [K in TemplateVariables<T>]?: Completer }
  /**
   * The template's instances, listed by `resources/list` after the static resources (templates in
   * registration order, each callback's entries in its order; spec: server/resources.mdx "Listing
   * Resources"). Each entry is a `Resource` (`uri` and `name` required) whose `uri` the template matches;
   * the template's `title`, `description`, `mimeType` and `icons` fill the fields an entry leaves unset.
   * Pages are cut from the whole list by offset, and the callback is called again for each page that
   * reaches its entries or ends where they begin (to learn whether a next page follows), so return them
   * in a stable order; earlier pages do not call it.
   * An entry that is not a valid `Resource` or that the template does not match, a return of another
   * shape, or a throw fails the request with `-32603 Internal error` (logged; an `McpError` thrown is
   * answered as is). The entries are listed for every caller, like the template itself, whatever its `scopes`
   * (filter by `ctx.authInfo` in the callback to list less), and an entry whose URI a static resource
   * also has is listed twice. The list keeps the server's cache hints for `resources/list`: a callback
   * whose entries depend on the caller wants `cache.methods['resources/list']` private.
   */
  list?: (ctx: RequestContext) => ResourceListReturn | Promise<ResourceListReturn>
  icons?: Tool['icons']
  /**
   * Cache hints of its `resources/read` results (`ttlMs` in milliseconds, integer ≥ 0; `cacheScope`).
   * Fields the handler's result sets win; unset ones come from the server's `cache` for `resources/read`.
   * Results reached through input-required rounds are always `{ ttlMs: 0, cacheScope: 'private' }`.
   */
  cache?: Partial<CacheHints>
  /**
   * OAuth scopes a caller's token must grant to call it (spec: basic/authorization "Scope Challenge
   * Handling"); hierarchies come from the server's `impliedScopes`. A token without them gets HTTP 403
   * `insufficient_scope` naming these scopes, so the client can step up. The item is still listed for
   * every caller: lists stay one shared, cacheable answer, and a client learns what to ask for by calling.
   */
  scopes?: readonly string[]
}

/** Registration options of a static resource: a template's, but `use` and `list`, and its `_meta` (listed as is). */
export type ResourceConfig = Omit<ResourceTemplateConfig, 'use' | 'list'> & { _meta?: Record<string, unknown> }

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
  /**
   * Where tasks live (the Tasks extension, `io.modelcontextprotocol/tasks`): `inMemoryTasks()` on Node,
   * Deno and Bun, `durableObjectTasks()` (`edge-mcp/cloudflare`) on Workers. With it the server advertises
   * the extension, serves `tasks/get`, `tasks/update` and `tasks/cancel`, and runs tools registered with
   * `task` as tasks. A task's run is not a request: middleware runs around the request that creates the task
   * (request middleware, and invocation middleware around the check before creation, its `next()` resolving
   * once the task may be created), never around the run itself.
   */
  tasks?: TaskStore
}

// ---- what McpServer keeps of each registration (internal)

/** A registered handler and its resolver plan (undefined: it uses no resolvers). */
export interface Registered {
  plan: ResolverPlan | undefined
  handler: (args: never, ctx: HandlerContext) => unknown
  /** The scopes a caller needs (registration `scopes`), checked before anything else. */
  scopes?: readonly string[] | undefined
}
/** A tool: its argument schema, its `tools/list` entry, its output schema, its `x-mcp-header` arguments. */
export interface RegisteredTool extends Registered {
  schema: SchemaCheck<Record<string, unknown>>['check']
  definition: Tool
  output: StandardSchemaV1 | undefined
  headerParams: HeaderParam[]
  /** Its registration `task`, when it may run as a task. */
  task?: TaskMode<never> | undefined
}
/** A prompt: its argument schema, its `prompts/list` entry, its completers. */
export interface RegisteredPrompt extends Registered {
  schema: SchemaCheck<Record<string, unknown>>['check']
  definition: Record<string, unknown>
  complete?: Record<string, Completer | undefined> | undefined
}
/** A resource template (or a static resource: it matches its one URI), with its list entry and cache hints. */
export interface RegisteredTemplate extends Registered {
  definition: Record<string, unknown>
  cache?: Partial<CacheHints> | undefined
  /** The variables of a URI it serves, or undefined for a URI it does not. */
  match: (uri: string) => Record<string, unknown> | undefined
  complete?: Record<string, Completer | undefined> | undefined
  /** Its `resources/list` entries (validated, the template's fields filled in), when it has a `list` callback. */
  list?: ((ctx: RequestContext) => Promise<Record<string, unknown>[]>) | undefined
}

/** Everything registered on one `McpServer`, by name (static resources: by `normalizeUri` of their URI). Lists are in registration order. */
export interface Registry {
  readonly tools: Map<string, RegisteredTool>
  readonly prompts: Map<string, RegisteredPrompt>
  readonly templates: Map<string, RegisteredTemplate>
  readonly resources: Map<string, RegisteredTemplate>
  /** The server's scope hierarchies (`ServerOptions.impliedScopes`). */
  readonly impliedScopes?: ImpliedScopes | undefined
  /** With `McpServerOptions.tasks`: what `tools/call` runs first for a tool with `task`. */
  tasks?: TaskHook | undefined
}

/**
 * The tasks value's `tools/call` hook: undefined to run the tool synchronously (it set `ctx.task`), or the
 * result to send (a `CreateTaskResult`, an MRTR `InputRequiredResult`, a tool error).
 */
export type TaskHook = ((
  tool: RegisteredTool,
  args: Record<string, unknown>,
  params: Record<string, unknown>,
  ctx: RequestContext,
) => Promise<Record<string, unknown> | undefined>) & {
  /** A registration's `task`, checked. @throws TypeError naming the tool for a value that is no {@link TaskMode}. */
  mode(name: string, task: unknown): TaskMode<never>
}
