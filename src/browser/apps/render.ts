/**
 * A browser host of MCP Apps (ext-apps apps.mdx, 2026-01-26): a tool's `ui://` App rendered through the
 * sandbox proxy page on another origin, and the host side of its `postMessage` JSON-RPC — the handshake,
 * the tool's input and result, and the App's requests checked and served on the same `Client`.
 * @module
 */
import type { Client } from '../../client/client.ts'
import { clientInfoOf } from '../../client/options.ts'
import { McpError } from '../../protocol/errors.ts'
import { APP_MIME_TYPE, APPS_PROTOCOL_VERSION, appAllow, cspProblem, toolVisibility } from '../../protocol/apps.ts'
import type { McpUiResourceMeta, McpUiToolMeta } from '../../protocol/apps.ts'
import type { CallToolResult, ContentBlock, Tool } from '../../protocol/schemas/index.ts'
import { DEFAULT_STRINGS, fill, type BrowserStrings } from '../strings.ts'
import { askConsent, type AppConsentQuestion } from './consent.ts'
import { parseAppMessage } from './messages.ts'

/** The `HostContext` fields a page may set (apps.mdx "Host Context in `McpUiInitializeResult`"). */
export interface AppHostContext {
  theme?: 'light' | 'dark'
  locale?: string
  timeZone?: string
  /** `{ height }` / `{ width }` fixed, or `{ maxHeight }` / `{ maxWidth }` in **CSS pixels**: the App sizes itself up to them. */
  containerDimensions?: { height?: number; maxHeight?: number; width?: number; maxWidth?: number }
  styles?: { variables?: Record<string, string | undefined>; css?: { fonts?: string } }
}

/** Options of {@link renderApp}. */
export interface AppHostOptions {
  /** The iframe is appended here. */
  container: HTMLElement
  /** Where `appSandboxResponse` (`edge-mcp/server`) answers, on an origin other than this page's. */
  sandboxUrl: string | URL
  /** The tool, from `client.listTools()`, whose `_meta.ui.resourceUri` names the App. */
  tool: Tool
  /** The tool call's arguments, sent as `ui/notifications/tool-input`. Default `{}`. */
  arguments?: Record<string, unknown>
  /** The call's result, sent as `ui/notifications/tool-result` (a rejection: `ui/notifications/tool-cancelled`). */
  result?: CallToolResult | Promise<CallToolResult>
  /** Receives a `ui/message` the user allowed. Absent: `ui/message` is refused. */
  onMessage?: (message: { role: 'user'; content: ContentBlock[] }) => void | Promise<void>
  /** Receives each `ui/update-model-context` (each replaces the previous one). */
  onModelContext?: (context: { content?: ContentBlock[]; structuredContent?: Record<string, unknown> }) => void
  /** Asks the user before a link is opened or a message sent. Default: the host's own modal `<dialog>`. */
  confirm?: (question: AppConsentQuestion) => Promise<boolean>
  /** Context the App is told of in `ui/initialize` (and by {@link AppView.setHostContext}). */
  hostContext?: AppHostContext
  /** Replacements for any of `DEFAULT_STRINGS` (the frame's name, the consent dialog). */
  strings?: Partial<BrowserStrings>
  /** The document of `container` by default. */
  document?: Document
  /** Aborting it tears the App down. */
  signal?: AbortSignal
}

/** A rendered App (see {@link renderApp}). */
export interface AppView {
  /** The outer (sandbox proxy) iframe. */
  iframe: HTMLIFrameElement
  /** Resolves once the App sent `ui/initialize` and `ui/notifications/initialized`; rejects if it is torn down first. */
  ready: Promise<void>
  /** Send the tool's result (`ui/notifications/tool-result`; queued until the App is initialized). */
  sendToolResult(result: CallToolResult): void
  /** Tell the App the tool call was cancelled (`ui/notifications/tool-cancelled`). */
  cancel(reason?: string): void
  /** Merge `context` into the host context and send it (`ui/notifications/host-context-changed`). */
  setHostContext(context: AppHostContext): void
  /** Send `ui/resource-teardown`, wait for the answer (at most 2 s), then remove the iframe and stop listening. */
  teardown(reason?: string): Promise<void>
}

/** Most warnings one App's ignored messages print (then it is silent). */
const MAX_WARNINGS = 20
/**
 * Most requests of one App the host serves at once (the rest are refused at once with -32000): a hostile
 * App cannot turn a loop of `tools/call` into as many server requests.
 */
const MAX_IN_FLIGHT = 8
/** The longest wait for the App's answer to `ui/resource-teardown`, in milliseconds. */
const TEARDOWN_WAIT_MS = 2_000
const POLICY = -32000
/**
 * The client whose Apps each sandbox origin shows now, and how many. Frames of one origin can script each
 * other wherever they sit on the page (`top.frames[i].document`), so an App of one server could post as
 * another server's App — and call its tools — if both shared a sandbox origin: one origin, one client.
 */
const tenants = new Map<string, { client: Client; frames: Set<HTMLIFrameElement> }>()
/**
 * How long after its frame loaded the sandbox page may take to say it is ready (ms); a page that does not
 * (a 404, `appSandboxResponse` refusing this host) fails the view's `ready`.
 */
const SANDBOX_GRACE_MS = 3_000

/**
 * Render `options.tool`'s App (apps.mdx "Host Behavior", "Sandbox proxy", "Lifecycle"). Reads the
 * `ui://` resource with `client.readResource`, loads `sandboxUrl?host=<this origin>&csp=<declared csp>` in an
 * `<iframe sandbox="allow-scripts allow-same-origin allow-forms">` (`allow` from the declared permissions,
 * class `mcp-app`, plus `mcp-app-border` when the resource prefers a border), sends the HTML once the proxy
 * is ready, answers `ui/initialize`, then sends tool-input and tool-result after `ui/notifications/initialized`.
 *
 * Served for the App, on `client` only: `tools/call` for a tool of `client.listTools()` whose visibility
 * includes `'app'` (else error -32000; the server is not asked), `resources/read`, `ping`,
 * `ui/open-link` (http/https, after consent, `window.open(url, '_blank', 'noopener,noreferrer')`),
 * `ui/message` (after consent, to `onMessage`), `ui/update-model-context`, `ui/request-display-mode`
 * (always `'inline'`), `notifications/message` (to the console), `ui/notifications/size-changed` (the
 * iframe's height, and width when `containerDimensions.maxWidth` is set, clamped to the maxima). Any other
 * request: -32601. At most 8 requests of the App are served at once; a ninth is refused at once (-32000).
 * A message not from the iframe's window and the sandbox origin, or not of its method's shape, is ignored
 * with a `console.warn`.
 * @throws TypeError when `sandboxUrl` is not http(s), has this page's origin or the origin of a live App of
 *   another client (each server needs its own sandbox origin: frames of one origin can script each other), or
 *   the tool has no `_meta.ui.resourceUri`; Error when the resource is not an App (`text/html;profile=mcp-app` text, or a
 *   blob of base64 UTF-8); whatever `readResource` throws.
 */
export async function renderApp(client: Client, options: AppHostOptions): Promise<AppView> {
  const { container, tool, signal } = options
  signal?.throwIfAborted()
  if (!container?.ownerDocument) throw new TypeError('renderApp: container must be an HTMLElement')
  const doc = options.document ?? container.ownerDocument
  const win = doc.defaultView!
  const strings = { ...DEFAULT_STRINGS, ...options.strings }
  const sandbox = new URL(options.sandboxUrl, doc.baseURI)
  const origin = win.location.origin
  if (!/^https?:$/.test(sandbox.protocol)) throw new TypeError(`sandboxUrl must be http(s), got ${sandbox.href}`)
  if (sandbox.origin === origin)
    throw new TypeError(
      `sandboxUrl (${String(options.sandboxUrl)}) must be an appSandboxResponse page on another origin than ${origin}`,
    )
  const uri = (tool?._meta?.ui as McpUiToolMeta | undefined)?.resourceUri
  if (typeof uri !== 'string' || !uri.startsWith('ui://'))
    throw new TypeError(
      `tool ${JSON.stringify(tool?.name ?? tool)} has no _meta.ui.resourceUri (a ui:// URI): pass a Tool of client.listTools()`,
    )

  let read
  try {
    read = await client.readResource(uri, signal ? { signal } : {})
  } catch (error) {
    if (signal?.aborted) throw error
    const why = error instanceof Error ? error.message : String(error)
    throw new Error(`tool ${tool.name}'s App ${uri} could not be read: ${why}`, { cause: error })
  }
  signal?.throwIfAborted() // aborted as the read answered: its listener below would never hear of it
  const content = read.contents.find((c) => c.mimeType === APP_MIME_TYPE)
  let html: unknown
  try {
    html =
      content && 'text' in content
        ? content.text
        : content && 'blob' in content
          ? new TextDecoder('utf-8', { fatal: true }).decode(
              Uint8Array.from(atob(content.blob), (ch) => ch.charCodeAt(0)),
            )
          : undefined
  } catch {
    throw new Error(`resource ${uri}: its blob is not base64 of UTF-8 HTML`)
  }
  if (html === undefined) throw new Error(`resource ${uri} has no ${APP_MIME_TYPE} content`)
  const ui = (content!._meta?.ui ?? {}) as McpUiResourceMeta
  const csp = cspProblem(ui.csp) === undefined ? ui.csp : undefined
  if (csp !== ui.csp) console.warn(`[edge-mcp] App ${uri}: ${cspProblem(ui.csp)}; the restrictive CSP applies`)
  const permissions = typeof ui.permissions === 'object' && ui.permissions !== null ? ui.permissions : undefined

  // checked and counted with no await before the iframe is on the page: two renders cannot both pass
  const tenant = tenants.get(sandbox.origin)
  // an App whose frame left the page without teardown() (a framework's re-render) holds its origin no more
  for (const frame of tenant?.frames ?? []) if (!frame.isConnected) tenant!.frames.delete(frame)
  if (tenant?.frames.size && tenant.client !== client)
    throw new TypeError(
      `sandbox origin ${sandbox.origin} shows another client's App: tear it down first (view.teardown()), or give each server its own sandbox origin`,
    )
  const iframe = doc.createElement('iframe')
  const frames = tenant?.frames.size ? tenant.frames : new Set<HTMLIFrameElement>()
  tenants.set(sandbox.origin, { client, frames: frames.add(iframe) })

  iframe.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms')
  const allow = appAllow(permissions)
  if (allow) iframe.setAttribute('allow', allow)
  iframe.className = ui.prefersBorder ? 'mcp-app mcp-app-border' : 'mcp-app'
  const appName = tool.title ?? tool.name
  iframe.title = fill(strings.appFrame, { name: appName })
  sandbox.searchParams.set('host', origin)
  if (csp) sandbox.searchParams.set('csp', JSON.stringify(csp))
  iframe.src = sandbox.href

  let context: Record<string, unknown> = {
    ...options.hostContext,
    toolInfo: { tool },
    displayMode: 'inline',
    availableDisplayModes: ['inline'],
    platform: 'web',
  }
  let proxyReady = false
  let initialized = false
  let closed = false
  let warnings = 0
  let nextId = 1
  const queue: unknown[] = []
  const pending = new Map<string | number, () => void>()
  const stop = new AbortController()
  /** The options of the requests made for the App: teardown aborts them. */
  const aborting = { signal: stop.signal }
  let consenting = false
  /** Requests of the App being served now (at most MAX_IN_FLIGHT). */
  let inFlight = 0
  let markReady!: () => void
  let failReady!: (reason: unknown) => void
  const ready = new Promise<void>((resolve, reject) => ((markReady = resolve), (failReady = reject)))
  ready.catch(() => undefined) // a view torn down before it was ready: only an awaiting caller hears of it

  const post = (message: object) => {
    if (!closed) iframe.contentWindow?.postMessage({ jsonrpc: '2.0', ...message }, sandbox.origin)
  }
  /** Host → App notifications wait for `initialized` (apps.mdx "Sandbox proxy" 6). */
  const notify = (method: string, params: object) => {
    if (initialized) post({ method, params })
    else queue.push({ method, params })
  }
  const warn = (why: string) => {
    if (++warnings <= MAX_WARNINGS) console.warn(`[edge-mcp] App ${uri}: ignored a message (${why})`)
  }
  const consent = (question: AppConsentQuestion) => {
    if (consenting) return Promise.resolve(false) // one question at a time: an App cannot stack dialogs
    consenting = true
    return (options.confirm ?? ((q) => askConsent(q, appName, doc, options.strings, stop.signal)))(question).finally(
      () => (consenting = false),
    )
  }
  const refuse = (message: string, code = POLICY) => {
    throw new McpError(code, message)
  }

  const serve = async (method: string, p: Record<string, unknown>): Promise<object> => {
    switch (method) {
      case 'ui/initialize':
        return {
          protocolVersion: APPS_PROTOCOL_VERSION,
          hostCapabilities: {
            openLinks: {},
            serverTools: {},
            serverResources: {},
            logging: {},
            sandbox: { ...(csp ? { csp } : {}), ...(permissions ? { permissions } : {}) },
          },
          hostInfo: clientInfoOf(client.options),
          hostContext: context,
        }
      case 'ping':
        return {}
      case 'tools/call': {
        const name = p.name as string
        const listed = (await client.listTools(aborting)).find((t) => t.name === name)
        if (!listed || !toolVisibility(listed).includes('app'))
          refuse(`Tool ${name} is not an app-visible tool of this App's server`)
        return client.callTool(name, (p.arguments ?? {}) as Record<string, unknown>, aborting)
      }
      case 'resources/read':
        return client.readResource(p.uri as string, aborting)
      case 'ui/open-link': {
        let url: URL | undefined
        try {
          url = new URL(p.url as string)
        } catch {
          url = undefined
        }
        if (!url || !/^https?:$/.test(url.protocol)) refuse('Invalid URL: only http and https links open')
        if (!(await consent({ kind: 'open-link', text: url!.href }))) refuse('Link opening denied by user')
        win.open(url!.href, '_blank', 'noopener,noreferrer')
        return {}
      }
      case 'ui/message': {
        const content = (Array.isArray(p.content) ? p.content : [p.content]) as ContentBlock[]
        if (!options.onMessage) refuse('Message sending denied: this host takes no messages')
        const text = content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n')
        if (!(await consent({ kind: 'message', text }))) refuse('Message sending denied by user')
        await options.onMessage!({ role: 'user', content })
        return {}
      }
      case 'ui/update-model-context':
        options.onModelContext?.({
          ...(p.content ? { content: p.content as ContentBlock[] } : {}),
          ...(p.structuredContent ? { structuredContent: p.structuredContent as Record<string, unknown> } : {}),
        })
        return {}
      case 'ui/request-display-mode':
        return { mode: 'inline' }
      default:
        return refuse(`Method not found: ${method}`, -32601)
    }
  }

  const clamp = (value: number, max: unknown) => Math.min(value, typeof max === 'number' ? max : 100_000)
  const onNotification = (method: string, p: Record<string, unknown>) => {
    const box = context.containerDimensions as AppHostContext['containerDimensions']
    switch (method) {
      case 'ui/notifications/initialized':
        if (initialized) return
        initialized = true
        post({ method: 'ui/notifications/tool-input', params: { arguments: options.arguments ?? {} } })
        for (const message of queue.splice(0)) post(message as object)
        return markReady()
      case 'ui/notifications/size-changed':
        if (typeof p.height === 'number' && box?.height === undefined)
          iframe.style.height = `${clamp(p.height, box?.maxHeight)}px`
        if (typeof p.width === 'number' && box?.maxWidth !== undefined)
          iframe.style.width = `${clamp(p.width, box.maxWidth)}px`
        return
      case 'notifications/message': {
        const level = p.level as string
        const log =
          level === 'debug' ? 'debug' : /^(info|notice)$/.test(level) ? 'info' : level === 'warning' ? 'warn' : 'error'
        return console[log](`[App ${uri}]`, p.data)
      }
      default:
        return warn(`unknown notification ${method}`)
    }
  }

  const onEvent = (event: MessageEvent) => {
    if (event.source !== iframe.contentWindow || closed) return // another frame's conversation
    if (event.origin !== sandbox.origin) return warn(`from origin ${event.origin}, not the sandbox's`)
    const message = parseAppMessage(event.data)
    if (typeof message === 'string') return warn(message)
    if (message.kind === 'response') {
      const settle = pending.get(message.id)
      return settle ? (pending.delete(message.id), settle()) : warn(`a response to no request (id ${message.id})`)
    }
    if (message.method === 'ui/notifications/sandbox-proxy-ready') {
      if (proxyReady) return warn('a second sandbox-proxy-ready')
      proxyReady = true
      return post({
        method: 'ui/notifications/sandbox-resource-ready',
        params: { html, ...(csp ? { csp } : {}), ...(permissions ? { permissions } : {}) },
      })
    }
    if (!proxyReady) return warn(`${message.method} before the sandbox proxy was ready`)
    if (message.kind === 'notification') return onNotification(message.method, message.params)
    const { id } = message
    if (inFlight >= MAX_IN_FLIGHT)
      return post({ id, error: { code: POLICY, message: `Too many requests in flight (at most ${MAX_IN_FLIGHT})` } })
    inFlight++
    serve(message.method, message.params)
      .finally(() => inFlight--)
      .then(
        (result) => post({ id, result }),
        (error: unknown) =>
          post({
            id,
            error:
              error instanceof McpError
                ? { code: error.code, message: error.message }
                : { code: -32603, message: error instanceof Error ? error.message : String(error) },
          }),
      )
  }

  const sendToolResult = (result: CallToolResult) => notify('ui/notifications/tool-result', result)
  const cancel = (reason = 'cancelled') => notify('ui/notifications/tool-cancelled', { reason })
  const teardown = async (reason = 'the host closed the App') => {
    if (closed) return
    if (initialized) {
      const id = `teardown-${nextId++}`
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, TEARDOWN_WAIT_MS)
        pending.set(id, () => (clearTimeout(timer), resolve()))
        post({ id, method: 'ui/resource-teardown', params: { reason } })
      })
    }
    if (closed) return // a second teardown() while the first waited
    closed = true
    const own = tenants.get(sandbox.origin)
    if (own?.frames.delete(iframe) && own.frames.size === 0) tenants.delete(sandbox.origin)
    stop.abort(new DOMException('the App was torn down', 'AbortError'))
    win.removeEventListener('message', onEvent)
    signal?.removeEventListener('abort', onAbort)
    iframe.remove()
    failReady(new Error(`the App was torn down before it was ready (${reason})`))
  }
  const onAbort = () => void teardown('aborted')

  win.addEventListener('message', onEvent)
  signal?.addEventListener('abort', onAbort, { once: true })
  container.append(iframe)
  iframe.addEventListener(
    'load',
    () =>
      setTimeout(() => {
        if (proxyReady || closed) return
        const error = new Error(
          `${sandbox.origin}${sandbox.pathname} is not the MCP Apps sandbox page, or refused ${origin} (check sandboxUrl and hostOrigins)`,
        )
        console.error(`[edge-mcp] App ${uri}: ${error.message}`)
        failReady(error)
      }, SANDBOX_GRACE_MS),
    { once: true },
  )
  if (options.result !== undefined)
    Promise.resolve(options.result).then(sendToolResult, (error: unknown) =>
      cancel(error instanceof Error ? error.message : String(error)),
    )
  return {
    iframe,
    ready,
    sendToolResult,
    cancel,
    setHostContext(update) {
      context = { ...context, ...update }
      notify('ui/notifications/host-context-changed', update)
    },
    teardown,
  }
}
