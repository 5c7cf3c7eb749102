/**
 * Registration: a tool, prompt, resource template or static resource config becomes the entry
 * `McpServer` keeps — its list definition (JSON Schema 2020-12 for arguments), its argument schema, its
 * resolver plan. Every mistake in a config is thrown here, at start-up.
 * @module
 */
import { isPlainObject } from '../../protocol/jsonrpc.ts'
import { headerParamsOf } from '../../protocol/param-headers.ts'
import type { Tool } from '../../protocol/schemas/index.ts'
import { normalizeUri } from '../../protocol/uri-literal.ts'
import type { UriTemplate } from '../../protocol/uri-template.ts'
import { checkCacheHints } from '../cache.ts'
import { jsonSchemaOf, objectSchemaOf } from '../schema.ts'
import type { ResolverPlan } from '../resolve/plan.ts'
import { InvalidSignatureError } from '../errors.ts'
import { kindOf, PLANNER, type OutcomeNeed } from '../resolve/needs.ts'
import { templateLister } from './lists.ts'
import { checkScopes } from '../../protocol/auth.ts'
import type { Uses } from '../resolve/resolver.ts'
import type {
  PromptArguments,
  PromptConfig,
  Registered,
  RegisteredPrompt,
  RegisteredTemplate,
  RegisteredTool,
  ResourceConfig,
  ResourceTemplateConfig,
  ToolConfig,
  ToolInput,
} from './types.ts'

/** A tool name within the spec's guidance: 1–128 characters of `A–Z a–z 0–9 _ - .` (server/tools.mdx "Tool Names"). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/

/**
 * Check a tool name against the spec's guidance (server/tools.mdx "Tool Names": SHOULD be 1–128
 * characters of `A–Z a–z 0–9 _ - .`). A name outside it is allowed, with one warning to `warn`.
 * @throws Error for the empty name (no client could call it).
 */
export function checkToolName(name: string, warn: (message: string) => void): void {
  if (typeof name !== 'string' || name === '') throw new Error('A tool name must be a non-empty string')
  if (TOOL_NAME.test(name)) return
  const why = name.length > 128 ? `${name.length} characters, over 128` : 'characters outside A-Z a-z 0-9 _ - .'
  warn(`tool name ${JSON.stringify(name)} is outside the spec's guidance (${why}); some clients may reject it`)
}

/** A `_meta.ui.visibility` as JSON: one or both of "model" and "app", each once. */
const VISIBILITY = /^\["(model|app)"(,"(?!\1")(model|app)")?\]$/

/**
 * A tool's `_meta.ui` (ext-apps apps.mdx `McpUiToolMeta`): an object whose `resourceUri` is a `ui://` URI
 * and whose `visibility` is a non-empty array of distinct `'model'` and `'app'`. Other keys pass (later
 * revisions may add some). A host reading a malformed one could hide a model tool or expose an app-only
 * one, so it is refused here rather than listed. (Terse: every Worker bundles it, Apps or not.)
 * @throws TypeError naming the field.
 */
function checkToolUi(name: string, ui: unknown): void {
  // the resourceUri pattern is protocol/apps.ts UI_URI, written out: importing it costs every Worker bytes
  const wrong = !isPlainObject(ui)
    ? ['', 'an object']
    : ui.resourceUri !== undefined && !(typeof ui.resourceUri === 'string' && /^ui:\/\/\S+$/.test(ui.resourceUri))
      ? ['.resourceUri', 'a ui:// URI']
      : ui.visibility !== undefined && !VISIBILITY.test(JSON.stringify(ui.visibility))
        ? ['.visibility', "['model'], ['app'] or both"]
        : undefined
  if (wrong) throw new TypeError(`Tool '${name}': _meta.ui${wrong[0]} must be ${wrong[1]}`)
}

/**
 * A tool's entry: `inputSchema` from its input (resolved parameters left out), `outputSchema`,
 * `x-mcp-header` marks, and the optional fields of `Tool`.
 * @throws InvalidSignatureError for a resolver graph that cannot work; Error for a `headers` entry that
 *   names no argument or an argument that cannot be mirrored into a header.
 */
export function toolEntry<I extends ToolInput | undefined, U extends Uses>(
  name: string,
  config: ToolConfig<I, U>,
  handler: Registered['handler'],
): RegisteredTool {
  const input = objectSchemaOf(config.input, `Tool '${name}' input`)
  const plan = config.use ? planOf(`tool '${name}'`, input.names, config.use) : undefined
  const definition: Tool = { name, inputSchema: { type: 'object', ...input.jsonSchema } }
  if (config.output !== undefined)
    definition.outputSchema = jsonSchemaOf(config.output, `Tool '${name}' output`, 'input')
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
  if (config._meta?.ui !== undefined) checkToolUi(name, config._meta.ui)
  if (config._meta !== undefined) definition._meta = config._meta
  const scopes = checkScopes(`Tool '${name}'`, config.scopes)
  return { definition, schema: input.check, plan, handler, output: config.output, headerParams: found.params, scopes }
}

/**
 * A prompt's entry: its `prompts/list` definition (arguments with title, description, `required`) and
 * its argument schema.
 * @throws InvalidSignatureError for a resolver graph that cannot work.
 */
export function promptEntry<A extends PromptArguments, U extends Uses>(
  name: string,
  config: PromptConfig<A, U>,
  handler: Registered['handler'],
): RegisteredPrompt {
  const args = objectSchemaOf(config.arguments, `Prompt '${name}' arguments`)
  const json = args.jsonSchema
  const required = new Set((json.required as string[] | undefined) ?? [])
  const props = (json.properties ?? {}) as Record<string, { description?: string; title?: string }>
  // the entries' names, a valibot object's, or the properties the object schema's JSON Schema declares
  const names = [...(args.names ?? Object.keys(props))]
  const definition: Record<string, unknown> = { name }
  if (config.title !== undefined) definition.title = config.title
  if (config.description !== undefined) definition.description = config.description
  if (names.length > 0) {
    definition.arguments = names.map((arg) => {
      const out: Record<string, unknown> = { name: arg }
      if (props[arg]?.title) out.title = props[arg].title
      if (props[arg]?.description) out.description = props[arg].description
      if (required.has(arg)) out.required = true
      return out
    })
  }
  if (config.icons !== undefined) definition.icons = config.icons
  const plan = config.use ? planOf(`prompt '${name}'`, new Set(names), config.use) : undefined
  const scopes = checkScopes(`Prompt '${name}'`, config.scopes)
  return { definition, schema: args.check, plan, handler, complete: config.complete, scopes }
}

/**
 * A resource template's entry: its `resources/templates/list` definition, its matcher and, with a `list`
 * callback, its `resources/list` lister. The template comes parsed (`new UriTemplate(…)`), so a server
 * without templates bundles no RFC 6570 parser.
 * @throws TypeError when `template` is not a `UriTemplate` (e.g. the template's text) or `list` is given
 *   and not a function; RangeError for
 *   invalid `cache` hints; Error for a `complete` entry that names no variable; InvalidSignatureError for
 *   a resolver graph that cannot work.
 */
export function templateEntry<T extends string, U extends Uses>(
  name: string,
  template: UriTemplate<T>,
  config: ResourceTemplateConfig<T, U>,
  handler: Registered['handler'],
): RegisteredTemplate {
  // a string has a `match` method too: only an object with the parsed template's `match` and `variables` will do
  if (
    typeof template !== 'object' ||
    template === null ||
    typeof template.match !== 'function' ||
    !template.variables
  ) {
    const got = typeof template === 'string' ? `the string ${JSON.stringify(template)}` : String(template)
    throw new TypeError(`Resource template '${name}': pass new UriTemplate(…) (from edge-mcp), not ${got}`)
  }
  checkCacheHints(`Resource template '${name}': cache`, config.cache)
  if (config.list !== undefined && typeof config.list !== 'function')
    throw new TypeError(`Resource template '${name}': list must be a function`)
  const uriTemplate = template.template
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
  const plan = config.use ? planOf(`resource template '${name}'`, new Set(variables), config.use) : undefined
  const match = (uri: string) => template.match(uri)
  return {
    definition,
    plan,
    handler,
    match,
    list: config.list && templateLister(name, definition, match, config.list),
    complete: config.complete,
    cache: config.cache,
    scopes: checkScopes(`Resource template '${name}'`, config.scopes),
  }
}

/**
 * A static resource's entry: its `resources/list` definition; it matches its URI in every
 * percent-encoding-equivalent form (RFC 3986 section 6.2.2.2, IRI characters raw or encoded: `normalizeUri`).
 * @throws RangeError for invalid `cache` hints.
 */
export function resourceEntry(
  name: string,
  uri: string,
  config: ResourceConfig,
  handler: Registered['handler'],
): RegisteredTemplate {
  checkCacheHints(`Resource '${uri}': cache`, config.cache)
  const normal = normalizeUri(uri)
  const definition: Record<string, unknown> = { uri, name }
  if (config.title !== undefined) definition.title = config.title
  if (config.description !== undefined) definition.description = config.description
  if (config.mimeType !== undefined) definition.mimeType = config.mimeType
  if (config.icons !== undefined) definition.icons = config.icons
  if (config._meta !== undefined) definition._meta = config._meta
  return {
    definition,
    plan: undefined,
    handler,
    match: (candidate) => (normalizeUri(candidate) === normal ? {} : undefined),
    cache: config.cache,
    scopes: checkScopes(`Resource '${uri}'`, config.scopes),
  }
}

/**
 * A handler's resolver plan, by the planner its resolvers carry (`planResolvers`: a server without
 * resolvers bundles no planner and no round runner). Without any resolver in `use`: an empty plan for an
 * empty `use`, else the error `planResolvers` gives for its first entry.
 * @throws InvalidSignatureError as `planResolvers`: an unknown argument, a need of the wrong kind, a
 *   cycle, a resolved name that collides with an argument.
 */
function planOf(owner: string, argNames: ReadonlySet<string> | undefined, use: Uses): ResolverPlan {
  for (const need of Object.values(use)) {
    const made = kindOf(need) === 'outcome' ? (need as OutcomeNeed).resolver : need
    const planner = (made as { [PLANNER]?: unknown } | null)?.[PLANNER]
    if (kindOf(made) === 'resolver' && typeof planner === 'function')
      return (planner as (...a: unknown[]) => ResolverPlan)(owner, argNames, use)
  }
  for (const param of Object.keys(use)) {
    if (argNames?.has(param))
      throw new InvalidSignatureError(`${owner}: '${param}' is both an argument and a resolved parameter`)
    throw new InvalidSignatureError(`${owner}: use.${param} must be a resolver or outcome(resolver)`)
  }
  return {
    uses: [],
    keys: new Map(),
    resolvedNames: new Set(),
    run: () => Promise.resolve({ status: 'ready', values: {} }),
  }
}
