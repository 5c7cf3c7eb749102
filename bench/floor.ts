/**
 * The hand-written "floor" of the in-process benchmarks: the least code that does the same observable work
 * as the two SDKs' fetch handlers for the two bench tools (`echo`, `deploy`), so the summary shows how much
 * of the gap to it is work the SDKs do that the job does not need. No SDK, no schema library: Web APIs only.
 *
 * What it checks, per request (a reviewer's "equivalent", not less): `POST`; `content-type` is JSON;
 * `mcp-protocol-version` is `2026-07-28`; the body parses as a JSON-RPC 2.0 request (`jsonrpc`, an `id`
 * that is a string or number, `method: 'tools/call'`, `params.name` a known tool, `params.arguments` an
 * object); the one argument is a string. Anything else: a JSON-RPC error (HTTP 400). The answer is the
 * same JSON as the SDKs' (`_meta.serverInfo`, `resultType`, `content`), `content-type: application/json`.
 *
 * MRTR (`deploy {env}`): round 1 answers an `InputRequiredResult` with one form elicitation and a
 * `requestState` sealed with raw Web Crypto AES-256-GCM: the state and an expiry (unix seconds, +5 min)
 * as JSON, a random 96-bit IV, bound the minimal way — the method, tool name and the arguments' JSON as
 * the AAD, so a token minted for other arguments or another tool does not open — and base64url'ed.
 * Round 2 opens it (wrong key, tampering, other arguments or an expired token: `Invalid or expired
 * requestState`, `-32602`), checks the state, and that the answer is `accept` with `confirm: true`.
 */

const SERVER_META = { 'io.modelcontextprotocol/serverInfo': { name: 'bench', version: '1.0.0' } }
const HEADERS = { 'content-type': 'application/json' }
const STATE = 'deploy-v1'
const TTL_SECONDS = 300
const utf8 = new TextEncoder()
const utf8d = new TextDecoder()

interface Call {
  id: string | number
  name: string
  args: Record<string, unknown>
  params: Record<string, unknown>
}

const json = (body: unknown, status = 200): Response => new Response(JSON.stringify(body), { status, headers: HEADERS })
const error = (id: unknown, code: number, message: string): Response =>
  json({ jsonrpc: '2.0', id: id ?? undefined, error: { code, message } }, 400)
const complete = (id: string | number, text: string): Response =>
  json({
    jsonrpc: '2.0',
    id,
    result: { _meta: SERVER_META, resultType: 'complete', content: [{ type: 'text', text }] },
  })

/** Parse and check one `tools/call` request; a `Response` is the error answer. */
async function parse(request: Request, tools: readonly string[]): Promise<Call | Response> {
  if (request.method !== 'POST') return new Response(null, { status: 405 })
  if (!request.headers.get('content-type')?.startsWith('application/json')) return error(null, -32700, 'Not JSON')
  if (request.headers.get('mcp-protocol-version') !== '2026-07-28') return error(null, -32600, 'Bad protocol version')
  let body: { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: Record<string, unknown> }
  try {
    body = (await request.json()) as typeof body
  } catch {
    return error(null, -32700, 'Parse error')
  }
  const { id, params } = body
  if (body.jsonrpc !== '2.0' || (typeof id !== 'string' && typeof id !== 'number') || body.method !== 'tools/call')
    return error(id, -32600, 'Invalid request')
  const args = params?.arguments
  if (typeof params?.name !== 'string' || !tools.includes(params.name) || typeof args !== 'object' || args === null)
    return error(id, -32602, 'Invalid params')
  return { id, name: params.name, args: args as Record<string, unknown>, params }
}

/** The floor of the one-tool Worker: `echo {text: string}` only (what `bench/workers/floor.ts` serves). */
export async function floorEcho(request: Request): Promise<Response> {
  const call = await parse(request, ['echo'])
  if (call instanceof Response) return call
  const { text } = call.args
  if (typeof text !== 'string') return error(call.id, -32602, 'text must be a string')
  return complete(call.id, text)
}

const b64url = (bytes: Uint8Array): string => {
  let s = ''
  for (const b of bytes) s += String.fromCharCode(b)
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}
const unb64url = (text: string): Uint8Array<ArrayBuffer> =>
  Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0))

/** Seal `state` with an expiry under `key`, bound to `aad`: base64url(IV ‖ ciphertext ‖ tag). */
export async function floorSeal(key: CryptoKey, state: string, aad: Uint8Array<ArrayBuffer>): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12))
  const plain = utf8.encode(JSON.stringify({ s: state, exp: Math.floor(Date.now() / 1000) + TTL_SECONDS }))
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: aad }, key, plain))
  const out = new Uint8Array(12 + sealed.length)
  out.set(iv)
  out.set(sealed, 12)
  return b64url(out)
}

/** Open a token of {@link floorSeal}; undefined when it is not ours, was changed, is bound elsewhere or expired. */
export async function floorOpen(key: CryptoKey, token: unknown, aad: Uint8Array<ArrayBuffer>): Promise<unknown> {
  if (typeof token !== 'string' || token.length < 40) return undefined
  try {
    const bytes = unb64url(token)
    const iv = bytes.subarray(0, 12)
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData: aad }, key, bytes.subarray(12))
    const claims = JSON.parse(utf8d.decode(plain)) as { s?: unknown; exp?: unknown }
    return typeof claims.exp === 'number' && claims.exp >= Date.now() / 1000 ? claims.s : undefined
  } catch {
    return undefined
  }
}

const ASK = {
  confirm: {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    },
  },
}

/** The floor's fetch handler for both bench tools, with an ephemeral AES-256-GCM key for `requestState`. */
export function floorHandler(): (request: Request) => Promise<Response> {
  const keyPromise = crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt'])
  return async (request) => {
    const call = await parse(request, ['echo', 'deploy'])
    if (call instanceof Response) return call
    const { id, args, params } = call
    if (call.name === 'echo') {
      if (typeof args.text !== 'string') return error(id, -32602, 'text must be a string')
      return complete(id, args.text)
    }
    const { env } = args
    if (typeof env !== 'string') return error(id, -32602, 'env must be a string')
    const key = await keyPromise
    const aad = utf8.encode(`tools/call\0deploy\0${JSON.stringify(args)}`)
    if (params.requestState !== undefined) {
      const state = await floorOpen(key, params.requestState, aad)
      if (state !== STATE) return error(id, -32602, 'Invalid or expired requestState')
      const answer = (params.inputResponses as { confirm?: { action?: unknown; content?: { confirm?: unknown } } })
        ?.confirm
      if (answer?.action === 'accept' && answer.content?.confirm === true) return complete(id, `deployed to ${env}`)
    }
    const requestState = await floorSeal(key, STATE, aad)
    const inputRequests = {
      confirm: { ...ASK.confirm, params: { ...ASK.confirm.params, message: `Deploy to ${env}?` } },
    }
    return json({
      jsonrpc: '2.0',
      id,
      result: { _meta: SERVER_META, requestState, resultType: 'input_required', inputRequests },
    })
  }
}
