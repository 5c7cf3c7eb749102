/**
 * fast-check arbitraries for the client side: valid results of each method and mutations of them, JSON-RPC
 * envelopes with odd ids, and SSE streams (noise events, comments, CR / LF variants, random chunking).
 */
import fc from 'fast-check'

const V = '2026-07-28'
const json = fc.jsonValue({ maxDepth: 3, depthSize: 'small' })

export const DISCOVER = {
  resultType: 'complete',
  supportedVersions: [V],
  capabilities: { tools: {}, prompts: {}, resources: {} },
  ttlMs: 0,
  cacheScope: 'private',
}
const FORM = {
  mode: 'form',
  message: 'm',
  requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
}
export const INPUT_REQUIRED = {
  resultType: 'input_required',
  inputRequests: {
    e: { method: 'elicitation/create', params: FORM },
    s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
    r: { method: 'roots/list' },
  },
  requestState: 'state-1',
}

/** The calls a property makes, each with a valid complete result of its method. */
export const CALLS = {
  listTools: {
    method: 'tools/list',
    result: {
      resultType: 'complete',
      tools: [{ name: 'a', inputSchema: { type: 'object' } }],
      ttlMs: 0,
      cacheScope: 'private',
    },
  },
  callTool: {
    method: 'tools/call',
    result: { resultType: 'complete', content: [{ type: 'text', text: 'héllo ☃ 😀' }] },
  },
  discover: { method: 'server/discover', result: DISCOVER },
  getPrompt: {
    method: 'prompts/get',
    result: { resultType: 'complete', messages: [{ role: 'user', content: { type: 'text', text: 'x' } }] },
  },
  readResource: {
    method: 'resources/read',
    result: { resultType: 'complete', contents: [{ uri: 'x://r', text: 'hi' }], ttlMs: 0, cacheScope: 'private' },
  },
  listPrompts: {
    method: 'prompts/list',
    result: { resultType: 'complete', prompts: [{ name: 'p' }], ttlMs: 0, cacheScope: 'private' },
  },
  listResources: {
    method: 'resources/list',
    result: { resultType: 'complete', resources: [{ uri: 'x://r', name: 'r' }], ttlMs: 0, cacheScope: 'private' },
  },
  complete: { method: 'completion/complete', result: { resultType: 'complete', completion: { values: ['a'] } } },
} as const
export type CallName = keyof typeof CALLS
export const callName = fc.constantFrom(...(Object.keys(CALLS) as CallName[]))

/** One change to a JSON value: at the `at`-th node (depth first), delete it, replace it, or wrap it. */
export interface Op {
  at: number
  kind: 'delete' | 'replace' | 'wrap' | 'null' | 'stringify' | 'deep'
  value: unknown
}
export const op: fc.Arbitrary<Op> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('delete', 'replace', 'wrap', 'null', 'stringify', 'deep'),
  value: json,
})

/** `{"a":{"a":…}}` 3,000 levels deep (deeper than any recursion without a bound survives). */
function deepValue(): unknown {
  let v: unknown = 1
  for (let i = 0; i < 3000; i++) v = { a: v }
  return v
}

/** `value` with `ops` applied (a copy); later ops reach no node deeper than 20 levels. */
export function mutateJson(value: unknown, ops: readonly Op[]): unknown {
  let root: unknown = structuredClone(value)
  for (const o of ops) {
    const slots: Array<[Record<string, unknown> | unknown[] | undefined, string | number]> = [[undefined, '']]
    const walk = (v: unknown, depth = 0) => {
      if (typeof v !== 'object' || v === null || depth > 20) return
      for (const k of Object.keys(v)) {
        const key = Array.isArray(v) ? Number(k) : k
        slots.push([v as Record<string, unknown>, key])
        walk((v as Record<string, unknown>)[k], depth + 1)
      }
    }
    walk(root)
    const [parent, key] = slots[o.at % slots.length]
    const current = parent === undefined ? root : (parent as Record<string | number, unknown>)[key]
    const next =
      o.kind === 'deep'
        ? deepValue()
        : o.kind === 'replace'
          ? o.value
          : o.kind === 'wrap'
            ? [current]
            : o.kind === 'null'
              ? null
              : o.kind === 'stringify'
                ? JSON.stringify(current)
                : undefined
    if (parent === undefined) root = o.kind === 'delete' ? {} : next
    else if (o.kind === 'delete') {
      if (Array.isArray(parent)) parent.splice(key as number, 1)
      else delete parent[key]
    } else (parent as Record<string | number, unknown>)[key] = next
  }
  return root
}

/** How the JSON-RPC response around a result is changed. */
export const envelopeChange = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'none' as const }) },
  fc.record({ kind: fc.constant('id' as const), id: fc.oneof(fc.constantFrom(null, 0, -1, '1', 1.5), json) }),
  fc.record({ kind: fc.constantFrom('no-id' as const, 'no-jsonrpc' as const, 'both' as const, 'no-result' as const) }),
  fc.record({
    kind: fc.constant('error' as const),
    error: fc.oneof(
      json,
      fc.record(
        { code: fc.oneof(fc.integer(), json), message: fc.oneof(fc.string(), json), data: json },
        { requiredKeys: [] },
      ),
    ),
  }),
)
export type EnvelopeChange = typeof envelopeChange extends fc.Arbitrary<infer T> ? T : never

/** The JSON-RPC response carrying `result` for request `id`, changed as `change` says. */
export function responseOf(id: unknown, result: unknown, change: EnvelopeChange): Record<string, unknown> {
  const m: Record<string, unknown> = { jsonrpc: '2.0', id, result }
  switch (change.kind) {
    case 'id':
      m.id = change.id
      break
    case 'no-id':
      delete m.id
      break
    case 'no-jsonrpc':
      delete m.jsonrpc
      break
    case 'both':
      m.error = { code: -32603, message: 'x' }
      break
    case 'no-result':
      delete m.result
      break
    case 'error':
      delete m.result
      m.error = change.error
      break
  }
  return m
}

/** How a body reaches the client: JSON with some status and type, or an SSE stream. */
export const delivery = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ sse: fc.constant(false), status: fc.constant(200), type: fc.constant('application/json') }),
  },
  fc.record({
    sse: fc.constant(false),
    status: fc.constantFrom(200, 201, 202, 204, 400, 401, 403, 404, 405, 406, 413, 429, 500, 502, 503),
    type: fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'text/html',
      '',
      'text/event-stream',
    ),
  }),
  {
    weight: 3,
    arbitrary: fc.record({
      sse: fc.constant(true),
      status: fc.constantFrom(200, 200, 200, 400, 500),
      type: fc.constant('text/event-stream'),
    }),
  },
)

/** A line ending: LF, CRLF or CR. */
const eol = fc.constantFrom('\n', '\r\n', '\r')

/** An SSE event that carries no response: a comment, a bare field, a notification, another id's response. */
const noiseEvent = fc.oneof(
  fc.string({ maxLength: 10 }).map((s) => [`:${s.replace(/[\r\n]/g, '')}`]),
  fc.constantFrom(
    ['event: ping', 'data:'],
    ['id: 7'],
    ['retry: 10'],
    ['retry: x'],
    ['foo: bar'],
    ['data'],
    ['event: message', 'data: '],
    [':'],
  ),
  fc.constant([
    'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"progress-1","progress":1}}',
  ]),
  fc.constant(['data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}']),
  fc.constant(['data: {"jsonrpc":"2.0","id":999999,"result":{"resultType":"complete"}}']),
)

/** The lines of the SSE event carrying `message`: one `data:` line, or one per line of its indented JSON. */
function eventLines(message: unknown, split: boolean, space: boolean): readonly string[] {
  const flat = JSON.stringify(message)
  // indenting a deep value grows quadratically: only small messages are split over lines
  const text = split && flat.length < 10_000 ? JSON.stringify(message, null, 1) : flat
  return [...(space ? ['event: message'] : []), ...text.split('\n').map((l) => `data:${space ? ' ' : ''}${l}`)]
}

/** How the events of a stream are written: noise before and after, line endings, BOM, chunk sizes. */
export const framing = fc.record({
  before: fc.array(noiseEvent, { maxLength: 4 }),
  after: fc.array(noiseEvent, { maxLength: 2 }),
  split: fc.boolean(),
  space: fc.boolean(),
  eols: fc.array(eol, { minLength: 1, maxLength: 6 }),
  bom: fc.boolean(),
  finalBlank: fc.nat(4).map((n) => n > 0),
  chunks: fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 12 }),
})
export type Framing = typeof framing extends fc.Arbitrary<infer T> ? T : never

/** The SSE text of noise events, then `message`'s event, then more noise. */
export function sseText(message: unknown, f: Framing): string {
  let n = 0
  let previous = ''
  // a CR then an LF would read as one CRLF line ending: an LF after a CR is written as another CR
  const end = () =>
    (previous = previous === '\r' && f.eols[n % f.eols.length] === '\n' ? (n++, '\r') : f.eols[n++ % f.eols.length])
  const write = (lines: readonly string[], blank = true) => lines.map((l) => l + end()).join('') + (blank ? end() : '')
  const last = f.after.length === 0 && !f.finalBlank // the stream ends right after the message's event
  const text = [
    ...f.before.map((e) => write(e)),
    write(eventLines(message, f.split, f.space), !last),
    ...f.after.map((e) => write(e)),
  ]
  return (f.bom ? '\ufeff' : '') + text.join('')
}

/**
 * `bytes` as a stream of chunks of the given sizes (cycled), split anywhere (inside UTF-8 sequences too);
 * a `stall`ed stream never closes after them.
 */
export function chunked(bytes: Uint8Array, sizes: readonly number[], stall = false): ReadableStream<Uint8Array> {
  const parts: Uint8Array[] = []
  // at most about 2,000 chunks: a big body in 1-byte chunks tests nothing more, only slower
  const scale = Math.max(1, Math.ceil(bytes.length / 2000 / (sizes.reduce((a, b) => a + b, 0) / sizes.length)))
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length] * scale
    parts.push(bytes.slice(at, at + size))
    at += size
  }
  let next = 0
  return new ReadableStream({
    pull(controller) {
      const part = parts[next++]
      if (part) controller.enqueue(part)
      else if (stall)
        return new Promise<void>(() => {}) // no more data, and no end
      else controller.close()
    },
  })
}

/** Random SSE lines: fields, comments, JSON and not, odd line endings. */
export const garbageSse = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.string({ maxLength: 20 }),
        fc.constantFrom(
          'data: {',
          'data: }',
          'data: null',
          'data: 1',
          'data: []',
          'data: "x"',
          'data: {"jsonrpc":"2.0"}',
          'data: {"id":1}',
          'id: \0',
          'retry: 99999999999999999999',
          '',
        ),
        json.map((j) => `data: ${JSON.stringify(j)}`),
        fc.string({ unit: 'grapheme', maxLength: 8 }),
      ),
      eol,
    ),
    { maxLength: 12 },
  )
  .map((lines) => lines.map(([l, e]) => l + e).join(''))
