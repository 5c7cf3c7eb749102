import {
  McpServer,
  Server,
  createFetchHandler,
  type FetchHandler,
  type FetchHandlerOptions,
} from '../src/server/index.ts'
import type { ClientTransport } from '../src/client/index.ts'
import { createHonoHandler } from '../src/hono/index.ts'
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
  /** The parsed JSON body, typed as the response a test reads (at run time undefined when there is none or it is not JSON). */
  body: WireResponse
  text: string
}

/** A JSON-RPC request as a test reads it off the wire (what its fields hold is for the assertions to check). */
export interface WireRequest {
  jsonrpc: string
  id: number
  method: string
  params: { _meta: Record<string, unknown>; [key: string]: unknown }
}

/**
 * A JSON-RPC response as a test reads it. `result` and `error` are both declared so a test can read the one it
 * expects without narrowing first; what they hold is for the assertions to check.
 */
export interface WireResponse {
  jsonrpc: string
  id?: number | string | null
  result: WireResult
  error: { code: number; message: string; data?: unknown }
}
export interface WireResult {
  resultType?: string
  requestState: string
  inputRequests: Record<string, { method: string; params?: Record<string, unknown> }>
  content: Array<{ type: string; text: string }>
  messages: Array<{ role: string; content: { type: string; text: string } }>
  contents: Array<{ uri: string; text?: string; mimeType?: string }>
  tools: Array<{ name: string; [key: string]: unknown }>
  nextCursor?: string
  _meta: Record<string, { name?: string; [key: string]: unknown }>
  [key: string]: unknown
}

/** The JSON-RPC response of a `Server.handleRequest` call, as a test reads it. */
export function wireResponse(handled: { response?: unknown }): WireResponse {
  return handled.response as WireResponse
}

/** The claims of a requestState token sealed by a pass-through codec (`p.` + base64url of the claims JSON). */
export interface WireClaims {
  v: number
  iat: number
  exp: number
  m: string
  t: string
  a: string
  /** The handler's state: any JSON value (a resolver's state is an object). */
  s: unknown
  aud?: string
  p?: string
  [key: string]: unknown
}

/** A request or response body parsed as JSON, typed as the caller expects it to be. */
export async function json<T = unknown>(body: Request | Response): Promise<T> {
  return (await body.json()) as T
}

/** The id of the JSON-RPC request in this HTTP request's body. */
export async function requestId(request: Request): Promise<number> {
  return (await json<{ id: number }>(request)).id
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
  return { status: res.status, headers: res.headers, body: parsed as WireResponse, text }
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

/** A ClientTransport whose server is a function that answers each message at once. */
export function scriptedTransport(
  answer: (
    message: Parameters<ClientTransport['send']>[0],
    options?: Parameters<ClientTransport['send']>[1],
  ) => unknown,
): ClientTransport {
  return { send: (message, options) => Promise.resolve(answer(message, options)) }
}

/** The two ways we serve HTTP: the plain fetch handler and the Hono adapter. */
export function adapters(server: Server | McpServer, options: FetchHandlerOptions = {}): Array<[string, FetchHandler]> {
  const app = new Hono()
  app.all('/mcp', createHonoHandler(server, options))
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
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- records whatever it is given, as String() prints it
      error: (m, e) => error.push(`${m} ${e instanceof Error ? e.message : String(e ?? '')}`),
    },
  }
}
