/**
 * The server the HTTP fuzz properties attack: an `McpServer` with sealed requestState (fixed keys), tools
 * that count their runs (so a property can tell whether a handler ran on a rejected requestState), tools
 * that ask (2026 `InputRequiredResult`, and 2025 questions in a session), a header-mirrored argument, a
 * prompt, a static resource, a template, completions; served by the plain fetch handler and by Hono.
 * Legacy questions time out after 30 ms, so no request of the fuzz waits long for an answer it never gets.
 */
import { UriTemplate } from '../../src/index.ts'
import { Hono } from 'hono'
import * as v from 'valibot'
import { createHonoHandler } from '../../src/hono/index.ts'
import {
  McpServer,
  RequestStateSecurity,
  createFetchHandler,
  elicitForm,
  inputRequired,
  type FetchHandler,
} from '../../src/server/index.ts'
import type { RequestedSchema } from '../../src/index.ts'

const KEY = 'f'.repeat(32)
/** The body cap of the fuzz endpoints, in bytes: small, so that "huge" bodies stay cheap to generate. */
export const FUZZ_MAX_BODY_BYTES = 64 * 1024
/** How long a 2025 question waits for its answer here, in ms. */
export const LEGACY_QUESTION_TIMEOUT_MS = 30

const form: RequestedSchema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }

/** Handler runs by tool / prompt / resource name, and what the server logged as errors. */
export interface FuzzTarget {
  runs: Map<string, number>
  errors: string[]
  /** The fetch handler and the Hono app over the same server. */
  handlers: { fetch: FetchHandler; hono: FetchHandler }
}

/** The runs of every handler together. */
export function totalRuns(target: FuzzTarget): number {
  let n = 0
  for (const c of target.runs.values()) n += c
  return n
}

/** Build the fuzz server and its two HTTP front ends. */
export function fuzzTarget(): FuzzTarget {
  const runs = new Map<string, number>()
  const errors: string[] = []
  const count = (name: string) => runs.set(name, (runs.get(name) ?? 0) + 1)
  const mcp = new McpServer(
    { name: 'fuzz', version: '1' },
    {
      requestStateSecurity: new RequestStateSecurity({ keys: [KEY] }),
      legacyQuestions: { timeoutMs: LEGACY_QUESTION_TIMEOUT_MS, maxRounds: 3 },
      logger: {
        warn: () => {},
        error: (message, error) => errors.push(`${message}: ${error instanceof Error ? error.stack : String(error)}`),
      },
    },
  )
  mcp.tool('echo', { input: { text: v.string() } }, ({ text }) => (count('echo'), text))
  mcp.tool('find', { input: { city: v.string() }, headers: { city: 'City' } }, ({ city }) => (count('find'), city))
  mcp.tool('ask', { description: 'asks once, then answers' }, (_args, ctx) => {
    count('ask')
    const got = ctx.inputResponses?.confirm
    if (ctx.requestState !== 'asked' || got === undefined)
      return inputRequired({ confirm: elicitForm('Sure?', form) }, 'asked')
    return `answered ${JSON.stringify(got)}`
  })
  mcp.tool('ask2', { input: { n: v.number() } }, ({ n }, ctx) => {
    count('ask2')
    if (ctx.requestState === undefined) return inputRequired({ again: elicitForm('Again?', form) }, `n=${n}`)
    return `state ${ctx.requestState as string}`
  })
  mcp.tool('sample', {}, (_args, ctx) => {
    count('sample')
    if (ctx.inputResponses?.s) return 'sampled'
    return inputRequired({ s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } } }, 's')
  })
  mcp.tool(
    'shed',
    {},
    (_args, ctx) => (count('shed'), ctx.requestState ? 'after shedding' : inputRequired(undefined, 'wait')),
  )
  mcp.tool('chatty', { input: { n: v.optional(v.number()) } }, async ({ n }, ctx) => {
    count('chatty')
    ctx.sendProgress(1, 2, 'half')
    ctx.log('info', { n })
    await new Promise((r) => setTimeout(r, 1))
    ctx.sendProgress(2, 2)
    return 'done'
  })
  mcp.prompt('greet', { arguments: { who: v.string() }, complete: { who: () => ['ann', 'bob'] } }, ({ who }, ctx) => {
    count('greet')
    if (ctx.requestState === undefined && who === 'ask') return inputRequired({ c: elicitForm('Who?', form) }, 'p')
    return `Hello ${who}`
  })
  mcp.resource('a', 'file:///a.txt', {}, () => (count('a'), 'A'))
  mcp.resourceTemplate('user', new UriTemplate('user://{id}'), {}, ({ id }) => (count('user'), `user ${id}`))
  const app = new Hono()
  app.all('/mcp', createHonoHandler(mcp, { maxBodyBytes: FUZZ_MAX_BODY_BYTES }))
  return {
    runs,
    errors,
    handlers: {
      fetch: createFetchHandler(mcp, { maxBodyBytes: FUZZ_MAX_BODY_BYTES }),
      hono: async (request) => app.fetch(request),
    },
  }
}
