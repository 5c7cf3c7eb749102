import {
  McpServer,
  Server,
  createFetchHandler,
  type FetchHandler,
  type FetchHandlerOptions,
} from '../src/server/index.ts'
import { mcpHandler } from '../src/hono/index.ts'
import { Hono } from 'hono'

export const V = '2026-07-28'

/** The request envelope used by the HTTP cases (`ENV` in shared/cases/http-transport.md). */
export function env(caps: Record<string, unknown> = { elicitation: { form: {} } }): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': V,
    'io.modelcontextprotocol/clientInfo': { name: 't', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': caps,
  }
}

/** The standard headers `STD(method[, name])`. */
export function std(method: string, name?: string): Record<string, string> {
  const h: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': V,
    'mcp-method': method,
  }
  if (name !== undefined) h['mcp-name'] = name
  return h
}

let nextId = 1
/** A complete, well-formed request body. */
export function req(
  method: string,
  params: Record<string, unknown> = {},
  caps?: Record<string, unknown>,
): Record<string, unknown> {
  return { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: env(caps) } }
}

export interface Posted {
  status: number
  headers: Headers
  body: any
  text: string
}

/** POST a body (object → JSON, string → as is) to a fetch handler. */
export async function post(
  handler: FetchHandler,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Posted> {
  const res = await handler(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  )
  const text = await res.text()
  let parsed: unknown
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  return { status: res.status, headers: res.headers, body: parsed, text }
}

/** POST a well-formed request with matching standard headers. */
export function call(
  handler: FetchHandler,
  method: string,
  params: Record<string, unknown> = {},
  caps?: Record<string, unknown>,
): Promise<Posted> {
  const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined
  return post(handler, req(method, params, caps), std(method, name))
}

/** The two ways we serve HTTP: the plain fetch handler and the Hono adapter. */
export function adapters(server: Server | McpServer, options: FetchHandlerOptions = {}): Array<[string, FetchHandler]> {
  const app = new Hono()
  app.all('/mcp', mcpHandler(server, options))
  return [
    ['fetch handler', createFetchHandler(server, options)],
    ['hono adapter', async (request) => app.fetch(request)],
  ]
}

/** A one-field form schema for elicitation requests whose answer the test does not read. */
export const ASK = { type: 'object' as const, properties: { v: { type: 'string' as const } } }

/** A logger that records lines instead of printing them. */
export function recordingLogger(): {
  warn: string[]
  error: string[]
  logger: { warn(m: string): void; error(m: string, e?: unknown): void }
} {
  const warn: string[] = []
  const error: string[] = []
  return {
    warn,
    error,
    logger: {
      warn: (m) => warn.push(m),
      error: (m, e) => error.push(`${m} ${e instanceof Error ? e.message : String(e ?? '')}`),
    },
  }
}
