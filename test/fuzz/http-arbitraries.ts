/**
 * fast-check arbitraries for the server's HTTP surface: HTTP methods, the standard headers (mostly
 * consistent with the body, sometimes not), bodies (random bytes, random JSON, valid-ish JSON-RPC with
 * mutated fields, batches, huge and deep values), the 2026 `_meta` envelope, `inputResponses`.
 */
import fc from 'fast-check'
import { encodeHeaderValue } from '../../src/protocol/headers.ts'
import { FUZZ_MAX_BODY_BYTES } from './target.ts'

export const V = '2026-07-28'
const P = 'io.modelcontextprotocol/'

/** Any JSON value, kept small. */
export const json = fc.jsonValue({ maxDepth: 3, depthSize: 'small' })

/** A string that is a valid header value (Latin-1, no CR / LF / NUL), odd ones included. */
export const headerValue = fc.oneof(
  fc.string({
    unit: fc.constantFrom('a', 'Z', '0', ' ', '\t', '=', '?', ';', ',', '/', '*', '"', 'é', '\x7f', '\x01'),
    maxLength: 12,
  }),
  fc.string({ unit: 'binary-ascii', maxLength: 20 }).map((s) => s.replace(/[\r\n\0]/g, '')),
  fc.constantFrom('', ' ', '=?base64?Zm9v?=', '=?base64?!!?=', '=?base64??=', '2026-07-28', '2025-11-25', 'tools/call'),
)

/** Valid answers to the fuzz server's questions, and odd ones. */
const inputResponse = fc.oneof(
  fc.constant({ action: 'accept', content: { ok: true } }),
  fc.constantFrom(
    { action: 'decline' },
    { action: 'cancel' },
    { action: 'accept' },
    { action: 'accept', content: null },
  ),
  fc.constant({ role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' }),
  fc.constant({ roots: [{ uri: 'file:///r' }] }),
  fc.record({ action: fc.oneof(fc.string(), json), content: json }, { requiredKeys: [] }),
  json,
)
export const inputResponses = fc.oneof(
  fc.dictionary(fc.constantFrom('confirm', 'again', 's', 'c', 'x', '__proto__', 'constructor'), inputResponse, {
    maxKeys: 3,
  }),
  json,
)

/** The 2026 envelope, its fields sometimes missing or of the wrong type. */
export const fuzzedEnvelope = fc.record(
  {
    [`${P}protocolVersion`]: fc.oneof(
      { weight: 6, arbitrary: fc.constant(V) },
      fc.constantFrom('2025-11-25', '', '2026-07-29'),
      json,
    ),
    [`${P}clientCapabilities`]: fc.oneof(
      {
        weight: 4,
        arbitrary: fc.constantFrom({}, { elicitation: { form: {} } }, { elicitation: {}, sampling: {}, roots: {} }),
      },
      fc.constantFrom(
        { elicitation: { form: true } },
        { elicitation: 1 },
        { sampling: { tools: null } },
        { extensions: { x: 1 } },
        [],
      ),
      json,
    ),
    [`${P}clientInfo`]: fc.oneof(
      fc.constant({ name: 'fuzz', version: '1' }),
      json,
      fc.record({ name: json, version: json }, { requiredKeys: [] }),
    ),
    [`${P}logLevel`]: fc.oneof(fc.constantFrom('debug', 'info', 'emergency', 'loud'), json),
    [`${P}other`]: json,
    progressToken: fc.oneof(fc.string(), fc.integer(), json),
    traceparent: fc.string(),
  },
  { requiredKeys: [] },
)

/** The 2026 envelope: mostly valid, else fuzzed. */
export const envelope = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        [`${P}protocolVersion`]: fc.constant(V),
        [`${P}clientCapabilities`]: fc.constantFrom(
          {},
          { elicitation: { form: {} } },
          { elicitation: {}, sampling: {}, roots: {} },
        ),
        [`${P}clientInfo`]: fc.constant({ name: 'fuzz', version: '1' }),
        [`${P}logLevel`]: fc.constantFrom('debug', 'error'),
        progressToken: fc.oneof(fc.string({ maxLength: 4 }), fc.integer()),
      },
      { requiredKeys: [`${P}protocolVersion`, `${P}clientCapabilities`, `${P}clientInfo`] },
    ),
  },
  fuzzedEnvelope,
)

const methods = [
  'server/discover',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
  'subscriptions/listen',
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'notifications/initialized',
  'notifications/cancelled',
] as const

/** Params that a method would take when well formed. */
function validParams(method: string): fc.Arbitrary<Record<string, unknown>> {
  switch (method) {
    case 'tools/call':
      return fc.oneof(
        fc.constant({ name: 'echo', arguments: { text: 'hi' } }),
        fc.record({ name: fc.constant('find'), arguments: fc.record({ city: fc.string() }) }),
        fc.constantFrom(
          { name: 'ask', arguments: {} },
          { name: 'ask2', arguments: { n: 1 } },
          { name: 'sample' },
          { name: 'shed' },
          { name: 'nope' },
          { name: 'chatty', arguments: { n: 1 } },
        ),
      )
    case 'prompts/get':
      return fc.record({
        name: fc.constantFrom('greet', 'nope'),
        arguments: fc.record({ who: fc.constantFrom('x', 'ask') }),
      })
    case 'resources/read':
      return fc.record({ uri: fc.constantFrom('file:///a.txt', 'user://7', 'user://%zz', 'nope://x', '') })
    case 'completion/complete':
      return fc.constant({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'a' } })
    case 'subscriptions/listen':
      return fc.constant({ notifications: { toolsListChanged: true } })
    case 'initialize':
      return fc.record({
        protocolVersion: fc.constantFrom('2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', V),
        capabilities: fc.constantFrom({}, { elicitation: {} }),
        clientInfo: fc.constant({ name: 'c', version: '1' }),
      })
    case 'logging/setLevel':
      return fc.record({ level: fc.constantFrom('info', 'loud') })
    case 'resources/subscribe':
      return fc.record({ uri: fc.constantFrom('file:///a.txt', 1) })
    case 'notifications/cancelled':
      return fc.record({ requestId: fc.oneof(fc.integer(), fc.string()) })
    default:
      return fc.constant({})
  }
}

/** A JSON-RPC request (or notification) for a known or random method, with or without the envelope, then mutated. */
export const rpc = fc
  .record({
    method: fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...methods) }, fc.string(), json),
    modern: fc.boolean(),
    id: fc.oneof(
      { weight: 30, arbitrary: fc.integer() },
      fc.string({ maxLength: 5 }),
      fc.constant(null),
      fc.double(),
      json,
    ),
    hasId: fc.nat(19).map((n) => n > 0),
  })
  .chain(({ method, modern, id, hasId }) =>
    fc
      .record({
        base: typeof method === 'string' ? validParams(method) : fc.constant({}),
        meta: modern ? envelope : fc.option(fc.dictionary(fc.string(), json, { maxKeys: 2 }), { nil: undefined }),
        extra: fc.record(
          {
            inputResponses,
            requestState: fc.oneof(fc.string(), fc.constant('p.e30'), fc.constant(null), json),
            cursor: fc.oneof(fc.string(), json),
            name: json,
            arguments: json,
            uri: json,
          },
          { requiredKeys: [] },
        ),
        mutate: fc.nat(40),
        replacement: json,
        jsonrpc: fc.oneof({ weight: 40, arbitrary: fc.constant('2.0') }, json),
      })
      .map(({ base, meta, extra, mutate, replacement, jsonrpc }) => {
        const params: Record<string, unknown> = { ...base, ...(mutate < 6 ? extra : {}) }
        if (meta !== undefined) params._meta = meta
        const message: Record<string, unknown> = { jsonrpc, method }
        if (hasId) message.id = id
        message.params = params
        // one field of the message replaced, or removed
        if (mutate === 18) message.params = replacement
        if (mutate === 19) delete message.params
        if (mutate === 20) delete message.jsonrpc
        if (mutate === 17) message.result = replacement
        return message
      }),
  )

/** A value nested `depth` levels deep (arrays or objects). */
export const deep = fc
  .record({ depth: fc.constantFrom(50, 1000, 5000, 20000), arrays: fc.boolean() })
  .map(({ depth, arrays }) => {
    const open = arrays ? '[' : '{"a":'
    const close = arrays ? ']' : '}'
    return open.repeat(depth) + '1' + close.repeat(depth)
  })

/** Where a deep value is put in a request. */
const DEEP_PATHS: ReadonlyArray<readonly string[]> = [
  ['params', 'arguments'],
  ['params', 'arguments', 'text'],
  ['params', 'inputResponses', 'confirm'],
  ['params', 'requestState'],
  ['params', 'cursor'],
  ['params', '_meta', `${P}clientCapabilities`, 'experimental'],
  ['params', '_meta', `${P}clientCapabilities`, 'elicitation'],
  ['params', '_meta', `${P}clientInfo`],
  ['params', '_meta', 'progressToken'],
  ['id'],
]

/** The JSON text of `message` with the value at `path` replaced by the JSON text `deepText` (too deep to build as a value). */
function deepAt(message: Record<string, unknown>, path: readonly string[], deepText: string): string {
  const copy = structuredClone(message)
  let node: Record<string, unknown> = copy
  for (const key of path.slice(0, -1)) {
    const next = node[key]
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {}
    node = node[key] as Record<string, unknown>
  }
  node[path.at(-1)!] = '\u0000DEEP\u0000'
  return JSON.stringify(copy).replace('"\\u0000DEEP\\u0000"', deepText)
}

/** Body texts: random bytes, random JSON, JSON-RPC (single, batch, deep, huge). */
export const body: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  { weight: 30, arbitrary: rpc.map((m) => JSON.stringify(m)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }) },
  { weight: 1, arbitrary: json.map((j) => JSON.stringify(j)) },
  { weight: 1, arbitrary: fc.array(rpc, { maxLength: 3 }).map((b) => JSON.stringify(b)) },
  { weight: 1, arbitrary: fc.tuple(rpc, deep).map(([m, d]) => JSON.stringify(m).replace(/^\{/, `{"deep":${d},`)) },
  {
    weight: 2,
    arbitrary: fc.tuple(rpc, deep, fc.nat(DEEP_PATHS.length - 1)).map(([m, d, at]) => deepAt(m, DEEP_PATHS[at], d)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(rpc, fc.constantFrom(1000, FUZZ_MAX_BODY_BYTES - 200, FUZZ_MAX_BODY_BYTES + 1))
      .map(([m, n]) => JSON.stringify({ ...m, pad: 'x'.repeat(n) })),
  },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', 'null', '[]', '{}', '"x"', '1', '\ufeff{}', '{"jsonrpc":"2.0"') },
)

/** The standard headers of a body (as a client sends them), each then kept, dropped or replaced. */
export const headersFor = (text: string | Uint8Array) =>
  fc
    .record({
      contentType: fc.oneof(
        { weight: 40, arbitrary: fc.constant('application/json') },
        fc.constantFrom(
          'application/json; charset=utf-8',
          'Application/JSON;charset="UTF-8"',
          'application/json; charset=latin1',
          'text/plain',
          '',
        ),
        headerValue,
      ),
      accept: fc.oneof(
        { weight: 40, arbitrary: fc.constant('application/json, text/event-stream') },
        fc.constantFrom(
          'application/json',
          'text/event-stream',
          '*/*',
          'text/html',
          'application/json;q=0, text/event-stream;q=0.5',
          'text/*;q=0',
        ),
        headerValue,
      ),
      version: fc.nat(29),
      method: fc.nat(29),
      name: fc.nat(29),
      odd: fc.dictionary(
        fc.constantFrom(
          'mcp-param-city',
          'mcp-session-id',
          'origin',
          'authorization',
          'last-event-id',
          'mcp-name',
          'mcp-method',
          'mcp-protocol-version',
        ),
        fc.oneof(headerValue, fc.constantFrom('http://localhost', 'https://evil.example', 'null', 'Bearer x')),
        { maxKeys: 2 },
      ),
      withOdd: fc.nat(3).map((n) => n === 0),
    })
    .map(({ contentType, accept, version, method, name, odd, withOdd }) => {
      const h: Record<string, string> = {}
      if (contentType !== '') h['content-type'] = contentType
      if (accept !== '') h.accept = accept
      let parsed: Record<string, unknown> = {}
      try {
        parsed = JSON.parse(typeof text === 'string' ? text : '') as Record<string, unknown>
      } catch {
        // no JSON: the standard headers are left out
      }
      const params = (typeof parsed === 'object' && parsed !== null ? parsed.params : undefined) as
        Record<string, unknown> | undefined
      const meta =
        params && typeof params === 'object' ? (params._meta as Record<string, unknown> | undefined) : undefined
      const bodyVersion = meta && typeof meta === 'object' ? meta[`${P}protocolVersion`] : undefined
      // a 2025-style body (no envelope) goes with a 2025 version, sometimes with none or the 2026 one
      if (version > 1)
        h['mcp-protocol-version'] = typeof bodyVersion === 'string' ? bodyVersion : version > 3 ? '2025-11-25' : V
      if (method > 1 && typeof parsed?.method === 'string') h['mcp-method'] = parsed.method
      const target = params && typeof params === 'object' ? (params.name ?? params.uri) : undefined
      if (name > 1 && typeof target === 'string') h['mcp-name'] = encodeHeaderValue(target)
      if (name > 20)
        h['mcp-param-city'] = encodeHeaderValue(String((params?.arguments as Record<string, unknown>)?.city))
      if (withOdd) for (const [k, val] of Object.entries(odd)) h[k] = val
      return h
    })

/** One whole HTTP request: method, body and headers. */
export const httpRequest = fc
  .record({
    http: fc.oneof(
      { weight: 30, arbitrary: fc.constant('POST') },
      fc.constantFrom('GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD'),
    ),
    body,
  })
  .chain(({ http, body: text }) => headersFor(text).map((headers) => ({ http, body: text, headers })))
