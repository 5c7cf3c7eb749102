/**
 * The demo as an MCP Apps host (ext-apps apps.mdx): a tool whose `_meta.ui.resourceUri` names an App gets
 * it rendered under its result by `renderApp` (`edge-mcp/browser`), in the sandbox page the demo Worker
 * serves at `/mcp-app-sandbox` on another origin; tools the model may not call (visibility without
 * `'model'`) are left out of the page's tool list.
 * @module
 */
import type { Client } from '../../src/client/index.ts'
import { renderApp, type AppView } from '../../src/browser/index.ts'
import { toolVisibility, type CallToolResult, type McpUiToolMeta, type Tool } from '../../src/index.ts'
import { el } from './view.ts'

/** Whether the page offers `tool` (its visibility includes `'model'`: apps.mdx "Visibility"). */
export function offered(tool: Tool): boolean {
  return toolVisibility(tool).includes('model')
}

/**
 * Where the sandbox page is: `VITE_APP_SANDBOX_URL` when the demo was built with it (a deploy), else the
 * Worker's own `/mcp-app-sandbox` under the other loopback name (`127.0.0.1` ↔ `localhost`, same port), so
 * it is another origin than the page's; undefined when neither applies (then Apps are not shown).
 */
export function sandboxUrl(page: Location = location): string | undefined {
  const built = (import.meta as { env?: Record<string, string | undefined> }).env?.VITE_APP_SANDBOX_URL
  if (built) return built
  const other = { '127.0.0.1': 'localhost', localhost: '127.0.0.1' }[page.hostname]
  if (!other) return undefined
  return `${page.protocol}//${other}${page.port ? `:${page.port}` : ''}/mcp-app-sandbox`
}

/** The App shown now (one at a time), and its teardown once started. */
let current: { view?: AppView; closing?: Promise<void> } | undefined

/** Tear the shown App down (`ui/resource-teardown`, then its frame goes); resolves when it is gone. */
export function closeApp(reason = 'The page moved on.'): Promise<void> {
  const shown = current
  current = undefined
  if (!shown) return Promise.resolve()
  shown.closing ??= shown.view?.teardown(reason) ?? Promise.resolve()
  return shown.closing
}

/**
 * Show `tool`'s App for a finished call under `container` (after the previous App is torn down), or a line
 * saying why not. Errors of the App's rendering are shown, never thrown.
 */
export async function showApp(
  client: Client,
  tool: Tool,
  args: Record<string, unknown>,
  result: CallToolResult,
  container: HTMLElement,
): Promise<void> {
  await closeApp()
  const ui = tool._meta?.ui as McpUiToolMeta | undefined
  if (!ui?.resourceUri || result.isError) return
  const url = sandboxUrl()
  if (!url) {
    container.append(el('p', 'note', 'This tool has an App; build the demo with VITE_APP_SANDBOX_URL to show it.'))
    return
  }
  const box = el('div', 'app')
  container.append(box)
  const entry: NonNullable<typeof current> = {}
  current = entry
  try {
    entry.view = await renderApp(client, {
      container: box,
      sandboxUrl: url,
      tool,
      arguments: args,
      result,
      hostContext: {
        theme: matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
        containerDimensions: { maxHeight: 480 },
      },
    })
    // replaced while it loaded: this one goes at once
    if (current !== entry) await entry.view.teardown('The page moved on.')
  } catch (error) {
    if (current === entry) current = undefined
    box.replaceChildren(
      el('p', 'error', `Could not show the App: ${error instanceof Error ? error.message : String(error)}`),
    )
  }
}
