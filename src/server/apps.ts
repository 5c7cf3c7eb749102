/**
 * MCP Apps on the server (`io.modelcontextprotocol/ui`, ext-apps specification/2026-01-26/apps.mdx): an
 * App's HTML served as a `ui://` resource with the `_meta.ui` a host builds its sandbox from, and the
 * extension declared. A free function rather than an `McpServer` method, so a server without Apps bundles
 * none of it. Tools link to an App through their own `_meta.ui` (checked by `mcp.tool`).
 * @module
 */
import {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  cspProblem,
  UI_URI,
  type McpUiResourceCsp,
  type McpUiResourceMeta,
  type McpUiResourcePermissions,
} from '../protocol/apps.ts'
import { isPlainObject } from '../protocol/jsonrpc.ts'
import type { Tool } from '../protocol/schemas/index.ts'
import { declareExtension } from './capabilities.ts'
import type { McpServer } from './mcp-server.ts'
import type { HandlerContext } from './mcp/types.ts'

/** An App's registration (apps.mdx "UI Resource Format"): the resource's fields and its `_meta.ui`. */
export interface AppResourceConfig {
  /** The resource URI: `ui://` and at least one more character, no whitespace (e.g. `ui://bookshop/order-card`). */
  uri: string
  /** The resource's name (`Resource.name`). */
  name: string
  title?: string
  description?: string
  /**
   * The App's HTML document, or a function that makes it per `resources/read` (it gets the handler context:
   * `ctx.authInfo`, `ctx.signal`…). A function that throws or returns no string fails the read with
   * `-32603` (logged).
   */
  html: string | ((ctx: HandlerContext) => string | Promise<string>)
  /** The origins the App needs beyond its own document (none by default: the spec's restrictive CSP). */
  csp?: McpUiResourceCsp
  /** Browser features the App asks for, each `{}` (a host may grant them through the iframe's `allow`). */
  permissions?: McpUiResourcePermissions
  /** A dedicated sandbox origin; its format is the host's to define (apps.mdx `UIResourceMeta.domain`). */
  domain?: string
  /** `true`: the host draws a border and background; `false`: none; omitted: the host decides. */
  prefersBorder?: boolean
  icons?: Tool['icons']
}

/** The fields of {@link AppResourceConfig}: any other is a typo, refused rather than ignored. */
const FIELDS = new Set([
  'uri',
  'name',
  'title',
  'description',
  'html',
  'csp',
  'permissions',
  'domain',
  'prefersBorder',
  'icons',
])
const PERMISSIONS = new Set(['camera', 'microphone', 'geolocation', 'clipboardWrite'])

/**
 * Register an MCP App: a resource at `config.uri` with MIME type `text/html;profile=mcp-app`, listed by
 * `resources/list` with its `_meta.ui` (csp, permissions, domain, prefersBorder as declared; no `_meta`
 * when none is), whose `resources/read` answers `{ contents: [{ uri, mimeType, text: html, _meta: { ui } }] }`.
 * From then on the server declares `capabilities.extensions['io.modelcontextprotocol/ui']` (settings
 * `{ mimeTypes: ['text/html;profile=mcp-app'] }`) in `server/discover` and in the 2025-era `initialize`.
 * A tool names the App in its `_meta.ui.resourceUri`; whether that URI is registered is not checked (a tool
 * may be registered first, or its App served by a `resourceTemplate`). Tool results should carry text for
 * hosts without Apps and `structuredContent` for the App (apps.mdx "Data Passing").
 * @throws TypeError naming the field: `uri` not a `ui://` URI, `name` not a non-empty string, `html` neither a
 *   non-empty string nor a function, a malformed `csp` (origins such as `https://api.example.com` only: no
 *   path, keyword or `*`), a `permissions` key other than camera, microphone, geolocation, clipboardWrite or a
 *   value other than `{}`, a `domain` that is not a non-empty string, a `prefersBorder` that is not boolean,
 *   `title`, `description` or `icons` of the wrong type, or any other field.
 * @throws Error when a resource with this URI is already registered.
 * @example
 * registerAppResource(mcp, { uri: 'ui://bookshop/order-card', name: 'order_card', html: ORDER_CARD_HTML, prefersBorder: true })
 * mcp.tool('order_book', { input: { title: v.string() }, _meta: { ui: { resourceUri: 'ui://bookshop/order-card' } } },
 *   ({ title }) => ({ content: [{ type: 'text', text: `Ordered ${title}` }], structuredContent: { title, status: 'ordered' } }))
 */
export function registerAppResource(mcp: McpServer, config: AppResourceConfig): void {
  if (typeof (mcp as Partial<McpServer> | null)?.resource !== 'function')
    throw new TypeError('registerAppResource: mcp must be an McpServer')
  if (!isPlainObject(config)) throw new TypeError('registerAppResource: config must be an object')
  const { uri, name, html } = config
  if (typeof uri !== 'string' || !UI_URI.test(uri))
    throw new TypeError(`registerAppResource: uri must be a ui:// URI, not ${JSON.stringify(uri)}`)
  const fail = (problem: string): never => {
    throw new TypeError(`App resource '${uri}': ${problem}`)
  }
  for (const key of Object.keys(config)) if (!FIELDS.has(key)) fail(`${key} is not a field of AppResourceConfig`)
  if (typeof name !== 'string' || name === '') fail('name must be a non-empty string')
  if (!((typeof html === 'string' && html !== '') || typeof html === 'function'))
    fail('html must be a non-empty string or a function')
  for (const key of ['title', 'description'] as const)
    if (config[key] !== undefined && typeof config[key] !== 'string') fail(`${key} must be a string`)
  if (config.icons !== undefined && !Array.isArray(config.icons)) fail('icons must be an array of icons')
  const ui = uiMeta(config, fail)
  const _meta = Object.keys(ui).length > 0 ? { ui } : undefined

  const resource: Parameters<McpServer['resource']>[2] = { mimeType: APP_MIME_TYPE }
  if (config.title !== undefined) resource.title = config.title
  if (config.description !== undefined) resource.description = config.description
  if (config.icons !== undefined) resource.icons = config.icons
  if (_meta) resource._meta = _meta
  mcp.resource(name, uri, resource, async (ctx) => {
    const text: unknown = typeof html === 'string' ? html : await html(ctx)
    if (typeof text !== 'string')
      throw new TypeError(`App resource '${uri}': html() returned ${typeof text}, not a string`)
    const content = { uri: ctx.target, mimeType: APP_MIME_TYPE, text }
    return { contents: [_meta ? { ...content, _meta } : content] }
  })
  declareExtension(mcp.server, APPS_EXTENSION, { mimeTypes: [APP_MIME_TYPE] })
}

/**
 * The resource's `_meta.ui`: the declared `csp`, `permissions`, `domain` and `prefersBorder`, checked and
 * copied (a later change to the caller's objects changes nothing served).
 */
function uiMeta(config: Record<string, unknown>, fail: (problem: string) => never): McpUiResourceMeta {
  const { csp, permissions, domain, prefersBorder } = config
  const ui: McpUiResourceMeta = {}
  if (csp !== undefined) {
    // copied first, then the copy checked: what is served is what was checked (a getter may answer twice)
    const copy = isPlainObject(csp)
      ? Object.fromEntries(Object.entries(csp).map(([k, v]) => [k, Array.isArray(v) ? [...(v as unknown[])] : v]))
      : csp
    const problem = cspProblem(copy)
    if (problem) fail(problem)
    ui.csp = copy as McpUiResourceCsp
  }
  if (permissions !== undefined) {
    if (!isPlainObject(permissions)) fail('permissions must be an object')
    for (const [key, value] of Object.entries(permissions as object)) {
      if (!PERMISSIONS.has(key))
        fail(`permissions.${key} is not one of camera, microphone, geolocation, clipboardWrite`)
      if (!isPlainObject(value) || Object.keys(value).length > 0) fail(`permissions.${key} must be {}`)
    }
    ui.permissions = Object.fromEntries(Object.keys(permissions as object).map((key) => [key, {}]))
  }
  if (domain !== undefined) {
    if (typeof domain !== 'string' || domain === '') fail('domain must be a non-empty string')
    ui.domain = domain
  }
  if (prefersBorder !== undefined) {
    if (typeof prefersBorder !== 'boolean') fail('prefersBorder must be a boolean')
    ui.prefersBorder = prefersBorder
  }
  return ui
}
