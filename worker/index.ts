/**
 * The demo Worker: the MCP endpoint at `/mcp` (Hono adapter). Reads the optional secret
 * `REQUEST_STATE_KEYS` — comma-separated keys, newest first, each the unpadded base64url of at least 32
 * random bytes — so every instance can open every other instance's requestState; without it each
 * isolate seals with its own ephemeral key.
 */
import { Hono } from 'hono'
import { mcpHandler } from '../src/hono/index.ts'
import { parseRequestStateKeys, type McpServer } from '../src/server/index.ts'
import { createDemoServer } from './server.ts'

interface Env {
  REQUEST_STATE_KEYS?: string
}

let cached: { keys: string; handler: ReturnType<typeof mcpHandler> } | undefined

function handlerFor(env: Env): ReturnType<typeof mcpHandler> {
  const keys = env.REQUEST_STATE_KEYS?.trim() ?? ''
  if (cached?.keys !== keys) {
    const requestStateKeys = keys ? parseRequestStateKeys(keys) : []
    const server: McpServer = createDemoServer({ requestStateKeys })
    cached = { keys, handler: mcpHandler(server) }
  }
  return cached.handler
}

const app = new Hono<{ Bindings: Env }>()
app.all('/mcp', (c, next) => handlerFor(c.env)(c, next))
app.get('/', (c) =>
  c.text('edge-mcp demo Worker. The MCP endpoint is POST /mcp (Streamable HTTP, MCP 2026-07-28).\n'),
)

export default app
