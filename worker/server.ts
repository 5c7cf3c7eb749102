/**
 * The demo MCP server: a provisioner and a bookshop (the tools of the seed articles), written by hand
 * with `InputRequiredResult` — a tool that needs the user's answer returns the question, and reads the
 * answer (and its own plaintext state) on the retry.
 */
import * as v from 'valibot'
import {
  McpServer,
  RequestStateSecurity,
  acceptedContent,
  elicitForm,
  inputRequired,
  toolError,
  type RequestedSchema,
} from '../src/server/index.ts'

/** Stock levels of the demo shop. */
export const INVENTORY: Readonly<Record<string, number>> = Object.freeze({ Dune: 7, Neuromancer: 0 })

const REGION_SCHEMA: RequestedSchema = {
  type: 'object',
  properties: { region: { type: 'string', title: 'Region', description: 'Where the database should live, e.g. eu-west-1' } },
  required: ['region'],
}

const BACKORDER_SCHEMA: RequestedSchema = {
  type: 'object',
  properties: { confirm: { type: 'boolean', title: 'Order anyway and wait?' } },
  required: ['confirm'],
}

/** Copies in stock (0 for unknown titles; never reads the prototype, so `constructor` is just unknown). */
export function stockOf(title: string): number {
  return Object.hasOwn(INVENTORY, title) ? INVENTORY[title]! : 0
}

/** Options of {@link createDemoServer}. */
export interface DemoServerOptions {
  /** Shared request-state keys (newest first); without them each isolate uses its own ephemeral key. */
  requestStateKeys?: readonly (string | Uint8Array)[]
}

/** Build the demo server. */
export function createDemoServer(options: DemoServerOptions = {}): McpServer {
  const security = options.requestStateKeys?.length ? new RequestStateSecurity({ keys: options.requestStateKeys }) : undefined
  const mcp = new McpServer(
    { name: 'edge-mcp-demo', version: '0.1.0', title: 'edge-mcp demo: provisioner and bookshop' },
    {
      instructions: 'A demo server: provision databases, reserve and order books.',
      cache: { ttlMs: 60_000, cacheScope: 'public' },
      ...(security ? { requestStateSecurity: security } : {}),
    },
  )

  mcp.tool(
    'provision',
    { description: 'Provision a database. Asks which region to put it in.', input: { name: v.pipe(v.string(), v.minLength(1)) } },
    ({ name }, ctx) => {
      // Only trust an answer to the question we asked: our own (sealed) state says we asked it.
      const response = ctx.requestState === 'provision-v1' ? ctx.inputResponses?.region : undefined
      if (response && 'action' in response && response.action !== 'accept') {
        return toolError(`No database provisioned: the region question was ${response.action === 'decline' ? 'declined' : 'cancelled'}.`)
      }
      const answer = acceptedContent(response)
      const region = typeof answer?.region === 'string' ? answer.region.trim() : ''
      if (!region) {
        ctx.requireCapabilities('elicitation.form')
        return inputRequired({ region: elicitForm('Which region should the database live in?', REGION_SCHEMA) }, 'provision-v1')
      }
      return `Provisioned '${name}' in ${region}.`
    },
  )

  mcp.tool(
    'reserve_book',
    { description: 'Reserve a copy of a book.', input: { title: v.pipe(v.string(), v.minLength(1)) } },
    ({ title }) => {
      const copies = stockOf(title)
      if (copies <= 0) return `'${title}' is out of stock.`
      return `Reserved '${title}' (${copies - 1} copies left).`
    },
  )

  mcp.tool(
    'order_book',
    {
      description: 'Order a book from the shop. Asks to confirm a backorder when the book is out of stock.',
      input: { title: v.pipe(v.string(), v.minLength(1)) },
    },
    ({ title }, ctx) => {
      const copies = stockOf(title)
      if (copies > 0) return `Ordered '${title}'; it arrives tomorrow.`
      const asked = ctx.requestState === 'order-v1:backorder'
      const response = asked ? ctx.inputResponses?.backorder : undefined
      if (response && 'action' in response && response.action !== 'accept') {
        return toolError(`No order placed: the backorder confirmation was ${response.action === 'decline' ? 'declined' : 'cancelled'}.`)
      }
      const answer = acceptedContent(response)
      if (typeof answer?.confirm !== 'boolean') {
        ctx.requireCapabilities('elicitation.form')
        return inputRequired(
          { backorder: elicitForm(`"${title}" is out of stock (2-3 weeks). Order anyway?`, BACKORDER_SCHEMA) },
          'order-v1:backorder',
        )
      }
      if (!answer.confirm) return 'No order placed.'
      return `Backordered '${title}'; it ships in 2-3 weeks.`
    },
  )

  return mcp
}
