/**
 * Benchmark: the size of the `requestState` token a client sees for a 1 KiB JSON-object state, through
 * each SDK's real server path: a tool asks one question and returns the state; round 1's `requestState`
 * string length is measured, and round 2 (the token echoed) must hand the handler the same object back.
 * edge-mcp: sealed by the default policy (AES-256-GCM, bound to method, tool, arguments, audience, time).
 * Official SDK 2.4.0: `createRequestStateCodec` bound to the method, as its docs use it (signed, not
 * encrypted). Floor: the bare AES-GCM layer (`AesGcmKeyRing.sealBound`) of the same JSON bytes, no times.
 * Target: edge-mcp ≤ 1.0× the official token.
 */
import {
  McpServer as OfficialServer,
  createMcpHandler,
  createRequestStateCodec,
  inputRequired as officialInputRequired,
} from '@modelcontextprotocol/server'
import * as v from 'valibot'
import * as z from 'zod'
import { codec, server } from './edge-mcp.ts'
import type { RequestStateValue } from '../src/request-state/claims.ts'
import { check, fmt, met, x } from './measure.ts'
import { toolCall, type Handler } from './servers.ts'

const { McpServer, createFetchHandler, elicitForm, inputRequired } = server

/** A JSON object whose `JSON.stringify` is exactly `bytes` long: a small cart, padded by its note. */
export function stateObject(bytes = 1024): Record<string, unknown> {
  const base = {
    user: 'u-4821',
    step: 2,
    items: Array.from({ length: 12 }, (_, i) => ({ sku: `SKU-${1000 + i}`, qty: (i % 3) + 1, price: 9.5 + i })),
    note: '',
  }
  const pad = bytes - JSON.stringify(base).length
  if (pad < 0) throw new Error(`stateObject: ${bytes} bytes is too small`)
  return { ...base, note: 'n'.repeat(pad) }
}

/** The 1 KiB JSON object every requestState benchmark seals. */
export const STATE_OBJECT = stateObject()

/** What edge-mcp's handler API takes as a state: any JSON value, so the object itself (serialised once, in the token). */
export const asHandlerState = (value: Record<string, unknown>): RequestStateValue => value as RequestStateValue
/** The inverse of {@link asHandlerState} for what a handler reads back (the object; a string is parsed). */
export const fromHandlerState = (state: unknown): unknown => (typeof state === 'string' ? JSON.parse(state) : state)

const ASK = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } }, required: ['ok'] }
const ANSWER = { ok: { action: 'accept', content: { ok: true } } }
const same = (a: unknown) => JSON.stringify(a) === JSON.stringify(STATE_OBJECT)

function ourServer(): Handler {
  const mcp = new McpServer({ name: 'bench', version: '1.0.0' })
  mcp.tool('remember', { input: { id: v.string() } }, ({ id }, ctx) => {
    if (ctx.requestState !== undefined && same(fromHandlerState(ctx.requestState)))
      return { content: [{ type: 'text', text: `state back for ${id}` }] }
    return inputRequired({ ok: elicitForm('OK?', ASK) }, asHandlerState(STATE_OBJECT))
  })
  return createFetchHandler(mcp)
}

function officialServer(): Handler {
  const codec = createRequestStateCodec<Record<string, unknown>>({
    key: crypto.getRandomValues(new Uint8Array(32)),
    bind: (ctx) => ctx.mcpReq.method,
  })
  const Input = z.object({ id: z.string() })
  const Ok = z.object({ ok: z.boolean() })
  const handler = createMcpHandler(
    () => {
      // eslint-disable-next-line @typescript-eslint/unbound-method -- the SDK's codec is an object of closures
      const server = new OfficialServer({ name: 'bench', version: '1.0.0' }, { requestState: { verify: codec.verify } })
      server.registerTool('remember', { inputSchema: Input }, async ({ id }, ctx) => {
        if (same(ctx.mcpReq.requestState())) return { content: [{ type: 'text', text: `state back for ${id}` }] }
        const requestState = await codec.mint(STATE_OBJECT, ctx)
        return officialInputRequired({
          inputRequests: { ok: officialInputRequired.elicit({ message: 'OK?', requestedSchema: Ok }) },
          requestState,
        })
      })
      return server
    },
    { legacy: 'reject' },
  )
  return (request) => handler.fetch(request)
}

/** Round 1's token length; throws unless round 2 with it gives the handler the same state back. */
async function tokenLength(side: string, handler: Handler): Promise<number> {
  const args = { arguments: { id: 'a1' } }
  const first = await (await handler(toolCall(1, 'remember', args))).text()
  const token = (JSON.parse(first) as { result?: { requestState?: unknown } }).result?.requestState
  check(typeof token === 'string', side, 'round 1 returned no requestState', first)
  const second = await (
    await handler(toolCall(2, 'remember', { ...args, inputResponses: ANSWER, requestState: token }))
  ).text()
  check(second.includes('state back for a1'), side, 'round 2 did not get the same state back', second)
  return token.length
}

/** Token sizes (bytes: every token is ASCII) and the table lines. */
export async function benchStateSize(): Promise<{ theirs: number; ours: number; floor: number; lines: string[] }> {
  const ours = await tokenLength('edge-mcp', ourServer())
  const theirs = await tokenLength('official SDK 2.4.0', officialServer())
  const json = new TextEncoder().encode(JSON.stringify(STATE_OBJECT))
  const ring = new codec.AesGcmKeyRing([crypto.getRandomValues(new Uint8Array(32))])
  const floor = (await ring.sealBound(json, '', 'bench')).length
  const unbound = (await createRequestStateCodec({ key: new Uint8Array(32) }).mint(STATE_OBJECT)).length
  const lines = [
    '### Sealed size of a 1 KiB state',
    '',
    `| \`requestState\` a client sees for a ${fmt(json.length)}-byte JSON object state (round 1 of a real flow) | bytes |`,
    '| --- | ---: |',
    `| official SDK 2.4.0 (\`createRequestStateCodec\`, bound to the method; signed, readable) | ${fmt(theirs)} |`,
    `| official SDK 2.4.0, no \`bind\` (info) | ${fmt(unbound)} |`,
    `| edge-mcp (sealed: AES-256-GCM + claims, the default policy) | ${fmt(ours)} |`,
    `| floor: bare AES-GCM layer of the JSON bytes (\`AesGcmKeyRing.sealBound\`, no times) | ${fmt(floor)} |`,
    `| **ratio** edge-mcp ÷ official (target ≤ 1.0×) | **${x(ours / theirs)}** ${met(ours <= theirs)} |`,
  ]
  return { theirs, ours, floor, lines }
}
