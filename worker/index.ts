/**
 * The demo Worker: the MCP endpoint at `/mcp` (Hono adapter); every other path is served from the web
 * demo's static assets (`web-demo/dist` through the `ASSETS` binding, see wrangler.toml `[assets]`), so
 * `/` is the SPA.
 *
 * Binds three Durable Objects (wrangler.toml): `MCP_MAILBOX`, so that a 2025-era client's answer to a
 * question reaches the isolate waiting for it, whichever isolate receives it; `MCP_NOTIFICATIONS`, so
 * that a server event (a resource updated, a list changed) published on any isolate reaches every
 * `subscriptions/listen` stream, whichever isolate holds it; and `MCP_TASKS` (class `McpTasks`), one
 * object per task, which holds the task and runs its work, so a task outlives the request that started it
 * and any isolate answers `tasks/get`. Reads these optional bindings:
 * - `REQUEST_STATE_KEYS` (secret): comma-separated keys, newest first, each the unpadded base64url of at
 *   least 32 random bytes — so every instance can open every other instance's requestState; without it
 *   each isolate seals with its own ephemeral key.
 * - `ALLOWED_ORIGINS` (var): comma-separated origins (`https://app.example`) whose browser apps may call
 *   `/mcp` (CORS); the Worker's own origin is always allowed, any other gets 403.
 * - `ALLOWED_HOSTS` (var): comma-separated host names `/mcp` answers under (DNS-rebinding protection,
 *   `allowedHosts` of the fetch handler); `*` for any. wrangler.toml sets the loopback names, so a deploy
 *   must name its own host: `npx wrangler deploy --var ALLOWED_HOSTS:<name>.<subdomain>.workers.dev`;
 *   while it names only loopback hosts, a request for any other host gets 403 with that command.
 * - `OAUTH_ISSUER` (var): an OAuth authorization server's issuer URL (`https://…`; `http://` only for a
 *   loopback issuer). With it, `/mcp` is a protected resource: bearer JWTs from that issuer, for this
 *   Worker's `/mcp` URL (derived from the request, so `ALLOWED_HOSTS` must name the hosts, not `*`),
 *   verified against the issuer's JWKS; the metadata at
 *   `/.well-known/oauth-protected-resource/mcp`; every request needs the scope `books:read`, and
 *   `order_book` also `books:order` (403 `insufficient_scope` without it: the client steps up). Without it
 *   `/mcp` is open.
 * - `APP_HOST_ORIGINS` (var): comma-separated origins of the pages allowed to frame `/mcp-app-sandbox`, the
 *   MCP Apps sandbox page (`frame-ancestors`; e.g. `https://demo.example.com`); without it any page may.
 *
 * `/mcp-app-sandbox` is the sandbox page the web demo renders the order card App in. A host must load it
 * from an origin other than its own: under `wrangler dev` the page at `http://127.0.0.1:8787` uses
 * `http://localhost:8787/mcp-app-sandbox` and the other way round; a deploy gives the Worker a second
 * hostname (a custom domain or route) for it and builds the web demo with
 * `VITE_APP_SANDBOX_URL=https://<that host>/mcp-app-sandbox` (see docs/apps.md).
 */
import { Hono, type Context, type Next } from 'hono'
import {
  durableObjectMailbox,
  durableObjectNotificationBus,
  durableObjectTasks,
  McpNotificationBus,
  McpQuestionMailbox,
  taskObject,
  type MailboxNamespace,
  type NotificationNamespace,
  type TaskNamespace,
} from '../src/cloudflare/index.ts'
import { createHonoHandler } from '../src/hono/index.ts'
import {
  appSandboxResponse,
  parseRequestStateKeys,
  type FetchHandlerOptions,
  type McpServer,
} from '../src/server/index.ts'
import { jwtVerifier, protectedResource } from '../src/oauth/index.ts'
import { createDemoServer, type DemoServerOptions } from './server.ts'

interface Env {
  REQUEST_STATE_KEYS?: string
  ALLOWED_ORIGINS?: string
  ALLOWED_HOSTS?: string
  /** An authorization server's issuer URL: `/mcp` then needs its bearer tokens (see the module comment). */
  OAUTH_ISSUER?: string
  /** The question mailbox (wrangler.toml `[[durable_objects.bindings]]`): 2025-era clients' answers meet their questions. */
  MCP_MAILBOX?: MailboxNamespace
  /** The notification bus (wrangler.toml): server events meet the listen streams of every isolate. */
  MCP_NOTIFICATIONS?: NotificationNamespace
  /** The task objects (wrangler.toml): one per task, holding it and running its work. */
  MCP_TASKS?: TaskNamespace
  /** Origins of the pages that may frame `/mcp-app-sandbox` (comma-separated; default any). */
  APP_HOST_ORIGINS?: string
  /** The static assets (wrangler.toml `[assets] binding`); absent when run without them. */
  ASSETS?: { fetch(request: Request): Promise<Response> }
}

const list = (value: string) =>
  value
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)

/** The host names wrangler.toml's `ALLOWED_HOSTS` holds for local use. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])
/** A host entry's name without its port (`localhost:8787` → `localhost`, `[::1]:9` → `[::1]`), lowercased. */
const nameOf = (host: string) => host.toLowerCase().replace(/:\d+$/, '')

/**
 * The demo's own 403 for a deploy that kept wrangler.toml's loopback `ALLOWED_HOSTS`: when every name it
 * lists is a loopback name and the request came for another host, say how to deploy (the SDK's check
 * would refuse it too, but it cannot know this Worker's variables). Undefined to go on.
 */
function loopbackOnly(hosts: string, request: Request): Response | undefined {
  const listed = list(hosts)
  if (hosts === '*' || listed.length === 0 || !listed.every((h) => LOOPBACK.has(nameOf(h)))) return undefined
  const { host, hostname } = new URL(request.url)
  if (LOOPBACK.has(hostname)) return undefined
  const message =
    `Forbidden: host ${host} is not served: this Worker's ALLOWED_HOSTS names only loopback hosts, for ` +
    'local use; deploy with `npx wrangler deploy --var ALLOWED_HOSTS:<your host>`'
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message } }) // no id, as the SDK's own 403
  return new Response(body, { status: 403, headers: { 'content-type': 'application/json' } })
}

/** What a test Worker adds to the demo (test/workers/crossiso.ts): server options, and tools. */
export interface DemoWorkerHooks {
  options?: Pick<DemoServerOptions, 'authorizeSubscription'>
  /** Runs on each server built (once per isolate and configuration, and once per task object). */
  extend?: (mcp: McpServer) => void
  /** Who the caller is (the fetch handler's `authenticate`); not together with `OAUTH_ISSUER`. */
  authenticate?: FetchHandlerOptions['authenticate']
  /** The tasks' `ttlMs` and `pollIntervalMs` for this `env` (default: the SDK's). */
  taskTiming?: (env: object) => Parameters<typeof durableObjectTasks>[1]
}

/** The demo's McpServer for this `env`: the Worker's, and each task object's (which runs the task's tool). */
function demoServer(env: Env, hooks: DemoWorkerHooks): McpServer {
  const keys = env.REQUEST_STATE_KEYS?.trim() ?? ''
  const issuer = env.OAUTH_ISSUER?.trim() ?? ''
  const server = createDemoServer({
    ...hooks.options,
    requestStateKeys: keys ? parseRequestStateKeys(keys) : [],
    legacyQuestions: { mailbox: durableObjectMailbox() },
    notificationBus: durableObjectNotificationBus(env),
    tasks: durableObjectTasks(undefined, hooks.taskTiming?.(env)),
    ...(issuer ? { orderScopes: ['books:order'] } : {}),
  })
  hooks.extend?.(server)
  return server
}

/** The demo's task object class (the `McpTasks` export), running tasks through the demo server with `hooks`. */
export function createDemoTasks(hooks: DemoWorkerHooks = {}): ReturnType<typeof taskObject<Env>> {
  return taskObject((env: Env) => demoServer(env, hooks))
}

/** The demo Worker's app (the default export is `createDemoWorker()`). */
export function createDemoWorker(hooks: DemoWorkerHooks = {}): Hono<{ Bindings: Env }> {
  let cached: { config: string; handler: ReturnType<typeof createHonoHandler> } | undefined

  function handlerFor(env: Env): ReturnType<typeof createHonoHandler> {
    const keys = env.REQUEST_STATE_KEYS?.trim() ?? ''
    const origins = env.ALLOWED_ORIGINS?.trim() ?? ''
    const hosts = env.ALLOWED_HOSTS?.trim() ?? '*'
    const issuer = env.OAUTH_ISSUER?.trim() ?? ''
    const config = JSON.stringify([keys, origins, hosts, issuer])
    if (cached?.config !== config) {
      const server = demoServer(env, hooks)
      const options: FetchHandlerOptions = { allowedOrigins: list(origins) }
      if (hosts !== '*') options.allowedHosts = list(hosts)
      if (hooks.authenticate) options.authenticate = hooks.authenticate
      if (issuer) {
        // the resource is this Worker's /mcp under the host it was called by (allowedHosts decide which)
        options.oauth = protectedResource({
          authorizationServers: [issuer],
          verifyToken: jwtVerifier({ issuer }),
          requiredScopes: ['books:read'],
          scopesSupported: ['books:read', 'books:order'],
          resourceName: 'edge-mcp demo bookshop',
        })
      }
      cached = { config, handler: createHonoHandler(server, options) }
    }
    return cached.handler
  }

  const app = new Hono<{ Bindings: Env }>()
  const mcp = (c: Context<{ Bindings: Env }>, next: Next): Response | Promise<Response> =>
    loopbackOnly(c.env.ALLOWED_HOSTS?.trim() ?? '*', c.req.raw) ?? (handlerFor(c.env)(c, next) as Promise<Response>)
  app.all('/mcp', mcp)
  // the protected resource metadata (RFC 9728): answered when OAUTH_ISSUER is set, else 404
  app.all('/.well-known/oauth-protected-resource/mcp', (c, next) =>
    c.env.OAUTH_ISSUER?.trim() ? mcp(c, next) : c.notFound(),
  )
  // the MCP Apps sandbox page (another origin than the page's: see the module comment)
  app.on(['GET', 'HEAD'], '/mcp-app-sandbox', (c) => {
    const hostOrigins = list(c.env.APP_HOST_ORIGINS?.trim() ?? '')
    return appSandboxResponse(c.req.raw, hostOrigins.length ? { hostOrigins } : {})
  })
  // the SPA's files answer GET and HEAD; any other method there is 405 (its body never reaches the assets
  // binding: under wrangler dev a POST body handed to it can restart workerd, and the next request gets 503)
  app.on(['GET', 'HEAD'], '*', (c) => (c.env.ASSETS ? c.env.ASSETS.fetch(c.req.raw) : c.notFound()))
  app.all('*', (c) =>
    c.text('Method Not Allowed: this path serves the web demo (GET); MCP is at /mcp', 405, { allow: 'GET, HEAD' }),
  )
  return app
}

export default createDemoWorker()
/** The Durable Object classes behind the `MCP_MAILBOX` and `MCP_NOTIFICATIONS` bindings. */
export { McpNotificationBus, McpQuestionMailbox }
/** The Durable Object class behind the `MCP_TASKS` binding: one object per task. */
export const McpTasks = createDemoTasks()
