/**
 * The wire of a 2025-era client, for the legacy-lane tests: POSTs with the SSE `Accept`, `initialize` and
 * its session headers, and a reader of the JSON-RPC messages of a response (SSE events one at a time, or
 * a single JSON body).
 */
import { expect } from 'vitest'
import type { FetchHandler } from '../src/server/index.ts'
import { post, type Posted } from './helpers.ts'
import { schemaErrors2025 } from './spec-schema.ts'

export const SSE_ACCEPT = 'application/json, text/event-stream'
/** The headers of a 2025-era client's POST before `initialize` (no session, no version). */
export const LEGACY_HEADERS = { 'content-type': 'application/json', accept: SSE_ACCEPT }

/** A JSON-RPC message as a test reads it off a stream. */
export type Message = Record<string, unknown> & { id?: unknown; method?: string; params?: Record<string, unknown> }

/** POST `body` as a 2025-era client does (JSON, accepting SSE), with extra `headers`. */
export function legacyPost(
  handler: FetchHandler,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return handler(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: SSE_ACCEPT, ...headers },
      body: JSON.stringify(body),
    }),
  )
}

/** `initialize` at 2025-11-25 declaring `capabilities`; the session headers (a sealed "s1." id) for later requests. */
export async function initializeLegacy(
  handler: FetchHandler,
  capabilities: Record<string, unknown>,
): Promise<Record<string, string>> {
  const res = await legacyPost(handler, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 't', version: '1' } },
  })
  expect(res.status).toBe(200)
  await res.body?.cancel()
  const sid = res.headers.get('mcp-session-id')
  expect(sid).toMatch(/^s1\./)
  return { 'mcp-session-id': sid!, 'mcp-protocol-version': '2025-11-25' }
}

/** A {@link FetchHandler} that sends each request over HTTP to `url` (a Worker under Miniflare or `wrangler dev`). */
export function remote(url: string | URL): FetchHandler {
  return async (request) => fetch(url, { method: request.method, headers: request.headers, body: await request.text() })
}

/**
 * The JSON-RPC messages of a response, one per `next()`: SSE events (keep-alive comments skipped), or
 * the single JSON body. `next()` rejects with "stream ended" once there is no more; `cancel()` closes it.
 */
export function messages(res: Response): { next(): Promise<Message>; cancel(): Promise<void> } {
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    let read = false
    return {
      next: () => (read ? Promise.reject(new Error('stream ended')) : ((read = true), res.json() as Promise<Message>)),
      cancel: async () => {},
    }
  }
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  return {
    async next(): Promise<Message> {
      for (;;) {
        const end = buffer.indexOf('\n\n')
        if (end >= 0) {
          const data = buffer
            .slice(0, end)
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n')
          buffer = buffer.slice(end + 2)
          if (data) return JSON.parse(data) as Message
          continue // a keep-alive comment
        }
        const { done, value } = await reader.read()
        if (done) throw new Error('stream ended')
        buffer += decoder.decode(value, { stream: true })
      }
    },
    cancel: () => reader.cancel().catch(() => {}),
  }
}

/** The messages of a response that must be an SSE stream (the questions of a 2025-era request go there). */
export function sseReader(res: Response): ReturnType<typeof messages> {
  expect(res.headers.get('content-type')).toBe('text/event-stream')
  return messages(res)
}

/** A client's answer to the server's request `id`. */
export const answer = (id: unknown, result: unknown) => ({ jsonrpc: '2.0', id, result })

/** The fields a 2025-era client has no schema for. */
export const MODERN_ONLY = ['resultType', 'inputRequests', 'requestState', 'ttlMs', 'cacheScope']

let nextId = 1
/** A 2025-era request: no envelope; `MCP-Protocol-Version` as a 2025 client sends it after `initialize`. */
export function legacyCall(
  handler: FetchHandler,
  method: string,
  params?: Record<string, unknown>,
  version: string | null = '2025-11-25',
): Promise<Posted> {
  const headers: Record<string, string> = { ...LEGACY_HEADERS }
  if (version !== null) headers['mcp-protocol-version'] = version
  const body: Record<string, unknown> = { jsonrpc: '2.0', id: nextId++, method }
  if (params !== undefined) body.params = params
  return post(handler, body, headers)
}

/** `initialize` at `protocolVersion` with no capabilities, as `legacy-client` 1.0.0 (no version header). */
export function initializeAt(handler: FetchHandler, protocolVersion: string): Promise<Posted> {
  return legacyCall(
    handler,
    'initialize',
    { protocolVersion, capabilities: {}, clientInfo: { name: 'legacy-client', version: '1.0.0' } },
    null,
  )
}

/** A legacy result as the assertions read it (what its fields hold is for them to check). */
export interface LegacyResult {
  protocolVersion?: string
  serverInfo?: unknown
  capabilities?: unknown
  instructions?: string
  tools: Array<{ name: string }>
  prompts: unknown[]
  resources: unknown[]
  resourceTemplates: unknown[]
  messages: unknown[]
  completion: { values: string[] }
  content: Array<{ type: string; text: string }>
  isError?: boolean
  _meta?: unknown
}

/** Assert a legacy success: HTTP 200, a valid 2025 response whose result is a valid `def`, no 2026-only field. */
export function expectLegacyResult(res: Posted, def: string): LegacyResult {
  expect(res.status, res.text).toBe(200)
  expect(schemaErrors2025('JSONRPCResultResponse', res.body), res.text).toEqual([])
  const result = res.body.result as unknown as LegacyResult
  expect(schemaErrors2025(def, result), res.text).toEqual([])
  for (const key of MODERN_ONLY) expect(result, `${def} carries ${key}`).not.toHaveProperty(key)
  expect(JSON.stringify(result)).not.toContain('io.modelcontextprotocol/serverInfo')
  return result
}
