// The MCP server every instance of the fleet runs: a tool that asks a question, a resource worth listening
// to, and a tool that runs as a task. What instances must share goes through Redis (`fleet`).
import * as v from 'valibot'
import {
  McpServer,
  RequestStateSecurity,
  arg,
  createFetchHandler,
  elicit,
  formSchema,
  parseRequestStateKeys,
  resolver,
  type FetchHandlerOptions,
} from 'edge-mcp/server'
import type { RedisFleet } from 'edge-mcp/redis'

const STOCK = new Map([
  ['Dune', 3],
  ['Neuromancer', 0],
])
const ORDERS = 'bookshop://orders'

/** The question `order_book` asks when the book is out of stock, and the one `stock_take` asks midway. */
const Backorder = formSchema({ confirm: v.pipe(v.boolean(), v.description('Order anyway and wait?')) })
const Returns = formSchema({ returns: v.pipe(v.boolean(), v.description('Count the returns shelf too?')) })

/** Where the shop counts its orders: the same Redis (node-redis, ioredis and Bun's client all have these). */
export interface OrderCounter {
  incr(key: string): Promise<number>
  get(key: string): Promise<string | null>
}

/**
 * Build one instance's server. `requestStateKeys` (comma-separated, newest first) must be the same on every
 * instance: it seals requestState, 2025-era session ids and question ids, so any instance opens what another
 * sealed.
 */
export function createServer(fleet: RedisFleet, requestStateKeys: string, orders: OrderCounter): McpServer {
  const mcp = new McpServer(
    { name: 'bookshop', version: '1.0.0' },
    {
      requestStateSecurity: new RequestStateSecurity({ keys: parseRequestStateKeys(requestStateKeys) }),
      legacyQuestions: { mailbox: fleet.mailbox }, // a 2025-era client's answer may reach another instance
      notificationBus: fleet.notificationBus, // a change on one instance reaches listen streams on all
      tasks: fleet.tasks, // a task started on one instance is polled, answered and cancelled on any
    },
  )

  mcp.resource('orders', ORDERS, { mimeType: 'application/json' }, async () =>
    JSON.stringify({ orders: Number((await orders.get('bookshop:orders')) ?? 0) }),
  )

  // Asks the user (elicit) when the book is out of stock; the function's name keys the question on the wire.
  const confirmBackorder = resolver({ title: arg<string>() }, function confirmBackorder({ title }) {
    if ((STOCK.get(title) ?? 0) > 0) return { confirm: true }
    return elicit(`'${title}' is out of stock (2-3 weeks). Order anyway?`, Backorder)
  })
  mcp.tool(
    'order_book',
    {
      description: 'Order a book. Asks to confirm when it is out of stock.',
      input: { title: v.string() },
      use: { backorder: confirmBackorder },
    },
    async ({ title, backorder }) => {
      if (!backorder.confirm) return 'No order placed.'
      await orders.incr('bookshop:orders')
      await mcp.resourceUpdated(ORDERS) // every listen stream subscribed to it hears, on every instance
      return `Ordered '${title}'.`
    },
  )

  mcp.tool(
    'stock_take',
    { description: 'Count every shelf.', input: { shelves: v.optional(v.number(), 3) }, task: 'optional' },
    async ({ shelves }, ctx) => {
      for (let shelf = 1; shelf <= shelves; shelf++) {
        ctx.signal.throwIfAborted() // tasks/cancel, from any instance, aborts it
        await ctx.task?.progress(shelf, shelves, `Shelf ${shelf} of ${shelves}`)
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      const answer = ctx.task ? await ctx.task.ask(elicit('Count the returns shelf too?', Returns)) : undefined
      const returns = answer?.action === 'accept' && answer.value.returns
      return `Counted ${shelves} shelves${returns ? ' and the returns shelf' : ''}.`
    },
  )
  return mcp
}

/** A fetch handler that serves MCP on `/mcp` and answers 404 on any other path. */
export function mcpEndpoint(
  mcp: McpServer,
  options: FetchHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const handler = createFetchHandler(mcp, options)
  return async (request) =>
    new URL(request.url).pathname === '/mcp' ? handler(request) : new Response('Not found', { status: 404 })
}
