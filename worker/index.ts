/**
 * The demo Worker: the MCP endpoint at `/mcp` (Hono adapter); every other path is served from the web
 * demo's static assets (`web-demo/dist` through the `ASSETS` binding, see wrangler.toml `[assets]`), so
 * `/` is the SPA.
 *
 * Reads two optional bindings:
 * - `REQUEST_STATE_KEYS` (secret): comma-separated keys, newest first, each the unpadded base64url of at
 *   least 32 random bytes — so every instance can open every other instance's requestState; without it
 *   each isolate seals with its own ephemeral key.
 * - `ALLOWED_ORIGINS` (var): comma-separated origins (`https://app.example`) whose browser apps may call
 *   `/mcp` (CORS); the Worker's own origin is always allowed, any other gets 403.
 */
import { Hono } from 'hono'
import { mcpHandler } from '../src/hono/index.ts'
import { parseRequestStateKeys, type McpServer } from '../src/server/index.ts'
import { createDemoServer } from './server.ts'

interface Env {
  REQUEST_STATE_KEYS?: string
  ALLOWED_ORIGINS?: string
  /** The static assets (wrangler.toml `[assets] binding`); absent when run without them. */
  ASSETS?: { fetch(request: Request): Promise<Response> }
}

let cached: { keys: string; origins: string; handler: ReturnType<typeof mcpHandler> } | undefined

function handlerFor(env: Env): ReturnType<typeof mcpHandler> {
  const keys = env.REQUEST_STATE_KEYS?.trim() ?? ''
  const origins = env.ALLOWED_ORIGINS?.trim() ?? ''
  if (cached?.keys !== keys || cached.origins !== origins) {
    const requestStateKeys = keys ? parseRequestStateKeys(keys) : []
    const server: McpServer = createDemoServer({ requestStateKeys })
    const allowedOrigins = origins.split(',').map((o) => o.trim()).filter(Boolean)
    cached = { keys, origins, handler: mcpHandler(server, { allowedOrigins }) }
  }
  return cached.handler
}

const app = new Hono<{ Bindings: Env }>()
app.all('/mcp', (c, next) => handlerFor(c.env)(c, next))
app.all('*', (c) => (c.env.ASSETS ? c.env.ASSETS.fetch(c.req.raw) : c.notFound()))

export default app
