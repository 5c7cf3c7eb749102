/**
 * The demo Worker (worker/index.ts) for the cross-isolate tests (test/e2e/crossiso.test.ts,
 * test/e2e/crossiso-bus.test.ts), plus one route, `GET /isolate`, that tells which Worker and which isolate
 * answered: `WORKER_NAME` (a var the test sets per Worker) and an id drawn at random once per isolate
 * (module memory; drawn on the first request, since workerd forbids randomness at start-up), and
 * `GET /bus-connections`: the bus object's open listen connections (`{ connections }`). `/mcp` is
 * the demo's MCP server (`durableObjectMailbox()` on `env.MCP_MAILBOX`, `durableObjectNotificationBus(env)`
 * on `env.MCP_NOTIFICATIONS`), with two test-only additions:
 * - `authorizeSubscription` refuses every URI under `secret:`;
 * - tool `publish_event` `{ kind, uri? }` publishes a server event (`resourceUpdated` through
 *   `mcp.resourceUpdated(uri)`, the others through `mcp.server.publish`), and tool `add_tool` `{ name }`
 *   registers a tool, which announces `toolsListChanged` by itself.
 * It exports both Durable Object classes.
 *
 * Bundled by `wrangler deploy --dry-run` with test/workers/crossiso.toml, then run by Miniflare as several
 * Workers (several isolates) that do or do not share the Durable Object namespaces.
 */
import * as v from 'valibot'
import type { NotificationNamespace } from '../../src/cloudflare/index.ts'
import { createDemoWorker, McpNotificationBus, McpQuestionMailbox } from '../../worker/index.ts'

interface Env {
  WORKER_NAME?: string
  MCP_NOTIFICATIONS?: NotificationNamespace
}

const demo = createDemoWorker({
  options: { authorizeSubscription: (uri) => !uri.startsWith('secret:') },
  extend(mcp) {
    mcp.tool(
      'publish_event',
      {
        description: 'Test only: publish a server event.',
        input: {
          kind: v.picklist(['toolsListChanged', 'promptsListChanged', 'resourcesListChanged', 'resourceUpdated']),
          uri: v.optional(v.string()),
        },
      },
      async ({ kind, uri }) => {
        if (kind === 'resourceUpdated') await mcp.resourceUpdated(uri ?? '')
        else await mcp.server.publish({ kind })
        return `published ${kind}`
      },
    )
    mcp.tool('add_tool', { description: 'Test only: register a tool.', input: { name: v.string() } }, ({ name }) => {
      mcp.tool(name, {}, () => name)
      return `added ${name}`
    })
  },
})

let isolate: string | undefined

export default {
  fetch(request: Request, env: Env, ctx: Parameters<typeof demo.fetch>[2]): Response | Promise<Response> {
    if (new URL(request.url).pathname === '/isolate') {
      isolate ??= crypto.randomUUID()
      return Response.json({ worker: env.WORKER_NAME ?? null, isolate })
    }
    if (new URL(request.url).pathname === '/bus-connections' && env.MCP_NOTIFICATIONS) {
      const bus = env.MCP_NOTIFICATIONS
      return bus.get(bus.idFromName('edge-mcp/notifications') as never).fetch('https://bus/connections')
    }
    return demo.fetch(request, env, ctx)
  },
}
export { McpNotificationBus, McpQuestionMailbox }
