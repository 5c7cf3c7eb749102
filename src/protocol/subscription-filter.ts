/**
 * What a subscription filter (spec 2026-07-28: basic/patterns/subscriptions.mdx) means against a server's
 * capabilities: shared by the server's `subscriptions/listen` and the client's listen over a 2025-era session.
 * @module
 */
import type { ServerCapabilities, SubscriptionFilter } from './schemas/index.ts'

/**
 * The subset of `requested` the server honours (sent back in the acknowledgement): list changes of the
 * kinds whose capability advertises `listChanged`, resource subscriptions when `resources.subscribe`.
 * Unknown or false kinds are left out.
 */
export function honouredFilter(requested: SubscriptionFilter, capabilities: ServerCapabilities): SubscriptionFilter {
  const out: SubscriptionFilter = {}
  if (requested.toolsListChanged === true && capabilities.tools?.listChanged === true) out.toolsListChanged = true
  if (requested.promptsListChanged === true && capabilities.prompts?.listChanged === true) out.promptsListChanged = true
  if (requested.resourcesListChanged === true && capabilities.resources?.listChanged === true)
    out.resourcesListChanged = true
  if (requested.resourceSubscriptions !== undefined && capabilities.resources?.subscribe === true) {
    out.resourceSubscriptions = [...new Set(requested.resourceSubscriptions)]
  }
  return out
}
