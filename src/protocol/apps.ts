/**
 * MCP Apps (`io.modelcontextprotocol/ui`, ext-apps specification/2026-01-26/apps.mdx): the extension's
 * names, the `_meta.ui` shapes of UI resources and tools, and the Content Security Policy a host builds
 * from a resource's declared domains — one definition for the server (registration checks), the sandbox
 * page (its CSP header) and the browser host.
 * @module
 */

/** The extension's id, declared in `capabilities.extensions` (apps.mdx "Capability Negotiation"). */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui'

/** The MIME type of an App's HTML document (apps.mdx "UI Resource Format"). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app'

/** The MCP Apps revision the host speaks in `ui/initialize` (apps.mdx "Transport Layer"). */
export const APPS_PROTOCOL_VERSION = '2026-01-26'

/**
 * Origins a UI resource needs (apps.mdx `McpUiResourceCsp`). Each entry is an origin such as
 * `https://api.example.com`, `wss://rt.example.com` or `https://*.example.com` (a leading `*.` wildcard
 * subdomain, an optional port); empty or omitted means none.
 */
export interface McpUiResourceCsp {
  /** Origins for `fetch`, XHR and WebSocket (`connect-src`). */
  connectDomains?: string[]
  /** Origins for scripts, styles, images, fonts and media (`script-src`, `style-src`, `img-src`, `font-src`, `media-src`). */
  resourceDomains?: string[]
  /** Origins for nested iframes (`frame-src`; default `'none'`). */
  frameDomains?: string[]
  /** Origins allowed as the document's base URI (`base-uri`; default `'self'`). */
  baseUriDomains?: string[]
}

/** Browser features a UI resource asks for (apps.mdx `UIResourceMeta.permissions`); each maps to the iframe's `allow`. */
export interface McpUiResourcePermissions {
  camera?: Record<string, never>
  microphone?: Record<string, never>
  geolocation?: Record<string, never>
  clipboardWrite?: Record<string, never>
}

/** A UI resource's `_meta.ui` (apps.mdx `UIResourceMeta`). */
export interface McpUiResourceMeta {
  csp?: McpUiResourceCsp
  permissions?: McpUiResourcePermissions
  /** A dedicated sandbox origin for the view; its format is the host's to define. */
  domain?: string
  /** `true`: the host draws a border and background; `false`: none; omitted: the host decides. */
  prefersBorder?: boolean
}

/** Who may call a tool (apps.mdx "Visibility"): `model` — the agent; `app` — an App of the same server. */
export type McpUiVisibility = 'model' | 'app'

/** A tool's `_meta.ui` (apps.mdx `McpUiToolMeta`). */
export interface McpUiToolMeta {
  /** The `ui://` resource that renders this tool's results. */
  resourceUri?: string
  /** Default `['model', 'app']`. */
  visibility?: McpUiVisibility[]
}

/** The `_meta` of a tool that may carry `ui` (other keys pass through). */
export interface AppToolMeta {
  ui?: McpUiToolMeta
  [key: string]: unknown
}

/** A `ui://` URI as MCP Apps names UI resources: the scheme and at least one more character, no whitespace. */
export const UI_URI = /^ui:\/\/\S+$/

/** Who may call `tool` (its `_meta.ui.visibility`, default both). */
export function toolVisibility(tool: { _meta?: { [key: string]: unknown } | undefined }): readonly McpUiVisibility[] {
  const ui = tool._meta?.ui as McpUiToolMeta | undefined
  return Array.isArray(ui?.visibility) ? ui.visibility : ['model', 'app']
}

/**
 * A CSP source expression this SDK accepts in `McpUiResourceCsp`: `http`, `https`, `ws` or `wss`, a host
 * (optionally `*.` first), an optional port (`:443`, `:*`), nothing after. Anything else — paths,
 * keywords such as `'unsafe-eval'`, `*`, whitespace, `;` — could loosen the policy, and is refused.
 */
const SOURCE =
  /^(?:https?|wss?):\/\/(?:\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::(?:\d{1,5}|\*))?$/i

/** Whether `origin` is a CSP source {@link SOURCE} accepts. */
export function isCspOrigin(origin: unknown): origin is string {
  return typeof origin === 'string' && SOURCE.test(origin)
}

const CSP_FIELDS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const

/**
 * What is wrong with a declared `csp` (a sentence naming the field), or undefined when it is well formed:
 * an object whose fields are arrays of {@link isCspOrigin} origins.
 */
export function cspProblem(csp: unknown): string | undefined {
  if (csp === undefined) return undefined
  if (typeof csp !== 'object' || csp === null || Array.isArray(csp)) return 'csp must be an object'
  for (const [key, value] of Object.entries(csp as Record<string, unknown>)) {
    if (!(CSP_FIELDS as readonly string[]).includes(key)) return `csp.${key} is not a field of McpUiResourceCsp`
    if (!Array.isArray(value)) return `csp.${key} must be an array of origins`
    const bad: unknown = (value as unknown[]).find((origin) => !isCspOrigin(origin))
    if (bad !== undefined)
      return `csp.${key} holds ${JSON.stringify(bad)}, not an origin such as https://api.example.com`
  }
  return undefined
}

/**
 * The Content Security Policy for an App's document, from its declared `csp` (apps.mdx "Security
 * Implications" and "Host Behavior"). With nothing declared it is the spec's restrictive default; each
 * declared list adds its origins to its directives and nothing else. Stricter than the spec's example
 * where that costs an App nothing: `connect-src` never includes `'self'` (the sandbox origin may be the MCP
 * server's own), and `form-action 'none'`. Entries that are not {@link isCspOrigin} origins are dropped,
 * so a malformed declaration can only make the policy stricter.
 */
export function appCsp(csp?: McpUiResourceCsp): string {
  const list = (field: (typeof CSP_FIELDS)[number]) => {
    const value = csp?.[field]
    return Array.isArray(value) ? value.filter(isCspOrigin) : []
  }
  const resources = list('resourceDomains')
  const sources = (base: string, extra: string[]) => [base, ...extra].join(' ')
  const orNone = (extra: string[], fallback: string) => (extra.length ? extra.join(' ') : fallback)
  return [
    "default-src 'none'",
    sources("script-src 'self' 'unsafe-inline'", resources),
    sources("style-src 'self' 'unsafe-inline'", resources),
    sources("img-src 'self' data:", resources),
    sources("font-src 'self'", resources),
    sources("media-src 'self' data:", resources),
    `connect-src ${orNone(list('connectDomains'), "'none'")}`,
    `frame-src ${orNone(list('frameDomains'), "'none'")}`,
    "object-src 'none'",
    `base-uri ${orNone(list('baseUriDomains'), "'self'")}`,
    "form-action 'none'",
  ].join('; ')
}

/** The Permissions Policy features of `permissions` (apps.mdx "Security Implications"), for an iframe's `allow`. */
export function appAllow(permissions?: McpUiResourcePermissions): string {
  const features: string[] = []
  if (permissions?.camera) features.push('camera')
  if (permissions?.microphone) features.push('microphone')
  if (permissions?.geolocation) features.push('geolocation')
  if (permissions?.clipboardWrite) features.push('clipboard-write')
  return features.join('; ')
}
