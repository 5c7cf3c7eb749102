/**
 * Reading what the fuzzed server answered, within a deadline, and the invariants every answer keeps:
 * no 5xx, a well-formed JSON-RPC message (or none for 202 / 204), an error code from the expected set
 * with the HTTP status the server uses for it elsewhere, the request's id echoed (an error to a request
 * whose id could not be read has none: MCP's schema has no null id).
 */

/** A JSON-RPC message as read off the wire. */
export type Message = Record<string, unknown>

/** What one HTTP answer held. */
export interface Wire {
  status: number
  contentType: string
  /** The body text of a JSON answer (SSE answers: the raw stream text read). */
  text: string
  /** Every JSON-RPC message in the body (one for JSON; the events of an SSE stream). */
  messages: Message[]
  /** The JSON-RPC response (result or error) in it, if any. */
  final: Message | undefined
  /** A listen stream left open after its acknowledgement (cancelled by the reader). */
  openListen: boolean
}

/** Rejections nobody handled, since {@link watchUnhandled} was first called. */
const unhandled: unknown[] = []
let listening = false
/** Record unhandled rejections from now on (once per process). */
export function watchUnhandled(): void {
  if (listening) return
  listening = true
  process.on('unhandledRejection', (reason) => unhandled.push(reason))
}

/** @throws Error naming the rejections that went unhandled since the last call (after letting two ticks pass). */
export async function checkUnhandled(): Promise<void> {
  await new Promise((r) => setImmediate(r)) // an unhandled rejection is reported after the tick it happened in
  await new Promise((r) => setImmediate(r))
  if (unhandled.length === 0) return
  const reasons = unhandled.splice(0).map((r) => (r instanceof Error ? r.stack : String(r)))
  throw new Error(`unhandled rejection: ${reasons.join('\n')}`)
}

/** Thrown when the server did not answer (or finish its stream) within the deadline. */
export class Hang extends Error {}

/** Resolve `promise`, or throw `Hang` after `ms` milliseconds. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Hang(`no answer within ${ms} ms: ${what}`)), ms)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

const isResponse = (m: Message) => !('method' in m) && ('result' in m || 'error' in m)

/**
 * Read a response within `deadlineMs`. SSE events are parsed as they come; `onRequest` gets each
 * server-to-client request (a 2025 question) while the stream is read on. A `subscriptions/listen` stream
 * is cancelled once its acknowledgement came (it is meant to stay open).
 * @throws Hang when the body does not end within the deadline; Error for an SSE event that is not JSON.
 */
export async function readWire(
  res: Response,
  deadlineMs: number,
  onRequest?: (request: Message) => void | Promise<void>,
): Promise<Wire> {
  const contentType = res.headers.get('content-type') ?? ''
  const wire: Wire = { status: res.status, contentType, text: '', messages: [], final: undefined, openListen: false }
  if (!contentType.startsWith('text/event-stream')) {
    wire.text = await within(res.text(), deadlineMs, `body of a ${res.status}`)
    if (wire.text !== '') {
      let parsed: unknown
      try {
        parsed = JSON.parse(wire.text)
      } catch {
        throw new Error(`a ${res.status} body that is not JSON: ${wire.text.slice(0, 200)}`)
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error(`a ${res.status} body that is not one JSON-RPC object: ${wire.text.slice(0, 200)}`)
      wire.messages.push(parsed as Message)
      wire.final = parsed as Message
    }
    return wire
  }
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  const read = async () => {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      const text = decoder.decode(value, { stream: true })
      wire.text += text
      buffer += text
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const event = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = event
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).replace(/^ /, ''))
          .join('\n')
        if (data === '') continue
        const message = JSON.parse(data) as Message
        wire.messages.push(message)
        if (isResponse(message)) wire.final ??= message
        else if ('id' in message && onRequest) await onRequest(message)
        else if (message.method === 'notifications/subscriptions/acknowledged') {
          wire.openListen = true
          return
        }
      }
    }
  }
  try {
    await within(read(), deadlineMs, 'an SSE stream that did not end')
  } finally {
    await reader.cancel().catch(() => {})
  }
  return wire
}

/** What was sent, as far as the checks need it. */
export interface Sent {
  /** The HTTP method. */
  http: string
  /** The parsed body, or undefined when it was no JSON. */
  body: unknown
  /** Whether the server takes it as 2026-07-28 (its params carry an `io.modelcontextprotocol/` `_meta` key). */
  modern: boolean
}

/** The error codes a client mistake may get, with the HTTP statuses the server answers each with. */
const MODERN_STATUS: Record<number, number[]> = {
  [-32700]: [400],
  [-32600]: [400, 403, 405, 406, 413, 415],
  [-32601]: [404],
  [-32602]: [200, 400],
  [-32020]: [400],
  [-32021]: [400],
  [-32022]: [400],
}
/** The 2025 lane: its in-band errors are 200; a session id that does not open is 404 (-32001). */
const LEGACY_STATUS: Record<number, number[]> = {
  ...MODERN_STATUS,
  [-32601]: [200],
  [-32021]: [200],
  [-32001]: [404],
}

/** Whether params carry the 2026 envelope claim (as the server decides the era). */
export function isModern(body: unknown): boolean {
  const params = isObject(body) ? body.params : undefined
  const meta = isObject(params) ? params._meta : undefined
  return typeof meta === 'object' && meta !== null && Object.hasOwn(meta, 'io.modelcontextprotocol/protocolVersion')
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const validId = (id: unknown) => typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))

/**
 * The invariants of one answer.
 * @throws Error naming the first one broken.
 */
export function checkWire(sent: Sent, wire: Wire): void {
  const fail = (why: string): never => {
    throw new Error(`${why} (HTTP ${wire.status} ${wire.contentType}: ${wire.text.slice(0, 300)})`)
  }
  if (wire.status >= 500) fail('a 5xx for a client request')
  if (wire.status === 204) {
    if (sent.http !== 'OPTIONS') fail('204 for something other than OPTIONS')
    if (wire.text !== '') fail('a 204 with a body')
    return
  }
  if (wire.status === 202) {
    if (wire.text !== '') fail('a 202 with a body')
    return
  }
  if (sent.http === 'HEAD') return // no body can come back (the status is checked above)
  if (wire.openListen) return
  const final = wire.final
  if (!final) return fail('no JSON-RPC response in the answer')
  if (!wire.contentType.startsWith('application/json') && !wire.contentType.startsWith('text/event-stream'))
    fail(`content-type ${wire.contentType}`)
  for (const m of wire.messages) {
    if (m.jsonrpc !== '2.0') fail('a message whose jsonrpc is not "2.0"')
    if (m !== final && typeof m.method !== 'string')
      fail('a message on the stream that is neither the response nor a notification / request')
  }
  if (wire.messages.at(-1) !== final) fail('messages after the response')
  if ('result' in final === 'error' in final) fail('not exactly one of result and error')
  const body = isObject(sent.body) ? sent.body : undefined
  const requestId = body && validId(body.id) ? body.id : undefined
  if ('result' in final) {
    if (wire.status !== 200) fail('a result with a status other than 200')
    if (requestId === undefined || final.id !== requestId) fail('a result whose id is not the request id')
    if (!isObject(final.result)) fail('a result that is not an object')
    const resultType = (final.result as Message).resultType
    if (sent.modern && resultType !== 'complete' && resultType !== 'input_required')
      fail(`resultType ${String(resultType)}`)
    if (!sent.modern && resultType !== undefined) fail('a 2025 result with resultType')
    return
  }
  const error = final.error
  if (!isObject(error)) return fail('error is not an object')
  if (!Number.isInteger(error.code)) fail('error.code is not an integer')
  if (typeof error.message !== 'string') fail('error.message is not a string')
  // MCP's schema types an error's id `id?: RequestId` (no null): absent when the request's id could not be read
  if ('id' in final && final.id !== requestId) fail(`error id ${JSON.stringify(final.id)} is not the request id`)
  // documented (legacy-questions.ts): a 2025 prompts/get or resources/read whose question went unanswered is
  // -32603, as the 2025 lane has no other code for it (tools/call gets a tool error)
  const unanswered =
    !sent.modern &&
    error.code === -32603 &&
    /needed an answer from the client and did not get one/.test(error.message as string)
  const statuses = unanswered ? [200] : (sent.modern ? MODERN_STATUS : LEGACY_STATUS)[error.code as number]
  if (!statuses) fail(`error code ${String(error.code)} is not one a client mistake gets`)
  if (!statuses.includes(wire.status)) fail(`status ${wire.status} does not go with code ${String(error.code)}`)
}
