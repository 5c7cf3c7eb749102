/**
 * A server's capabilities: what it declares, plus what its registered handlers imply.
 * @module
 */
import { TASKS_EXTENSION } from '../protocol/constants.ts'
import type { ServerCapabilities } from '../protocol/schemas/index.ts'

/** Capabilities implied by a registered handler; list changes and resource updates come through `subscriptions/listen`. */
const METHOD_CAPABILITY: Record<string, [keyof ServerCapabilities, Record<string, unknown>]> = {
  'tools/list': ['tools', { listChanged: true }],
  'prompts/list': ['prompts', { listChanged: true }],
  'resources/list': ['resources', { subscribe: true, listChanged: true }],
  'completion/complete': ['completions', {}],
}

/**
 * `declared`, plus the capabilities implied by the handlers registered in `handlers` (where not declared).
 */
export function capabilitiesOf(
  declared: ServerCapabilities | undefined,
  handlers: ReadonlyMap<string, unknown>,
): ServerCapabilities {
  const capabilities: ServerCapabilities = { ...declared }
  for (const [method, [cap, value]] of Object.entries(METHOD_CAPABILITY)) {
    if (handlers.has(method) && capabilities[cap] === undefined)
      (capabilities as Record<string, unknown>)[cap] = { ...value }
  }
  // the Tasks extension, once its methods are served (ext-tasks: "Capability Negotiation")
  if (handlers.has('tasks/get')) capabilities.extensions = { ...capabilities.extensions, [TASKS_EXTENSION]: {} }
  return capabilities
}

/**
 * Declare the extension `id` (SEP-1724) with `settings` in the capabilities `mcp` answers in `server/discover`
 * and `initialize`, unless the server's own `capabilities.extensions` already names it. The declaration
 * lives in the low-level server's options, which `McpServer` made for itself (never the caller's object):
 * a server that declares no extension carries no code for this.
 */
export function declareExtension(
  server: { readonly options: { capabilities?: ServerCapabilities } },
  id: string,
  settings: Record<string, unknown>,
): void {
  const declared = server.options.capabilities
  server.options.capabilities = { ...declared, extensions: { [id]: settings, ...declared?.extensions } }
}
