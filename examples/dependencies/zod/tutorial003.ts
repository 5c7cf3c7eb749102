/**
 * Dependencies, tutorial 3, in zod: ask the user only when the answer matters. `confirmBackorder` answers by
 * itself when the book is in stock, and returns `elicit(...)` when it is not; the SDK asks, validates the
 * answer against `Backorder`, and injects it. A decline or cancel ends the call as a tool error.
 * Run it: `npx wrangler dev -c examples/wrangler.toml examples/dependencies/zod/tutorial003.ts`, then call `order_book` for Neuromancer.
 * The same as ../tutorial003.ts (valibot), with zod schemas.
 */
import { z } from 'zod'
import { McpServer, arg, createFetchHandler, elicit, formSchema, resolver } from '../../../src/server/index.ts'
import { INVENTORY, type Stock } from '../inventory.ts'

/** The question's form: checked against the spec's form subset when this module loads. */
export const Backorder = formSchema({ confirm: z.boolean().describe('Order anyway and wait?') })

export function createServer(inventory: ReadonlyMap<string, number> = INVENTORY): McpServer {
  const mcp = new McpServer({ name: 'Bookshop', version: '1.0.0' })

  const checkStock = resolver({ title: arg<string>() }, function checkStock({ title }): Stock {
    return { title, copies: inventory.get(title) ?? 0 }
  })
  const confirmBackorder = resolver(
    { title: arg<string>(), stock: checkStock },
    function confirmBackorder({ title, stock }) {
      if (stock.copies > 0) return { confirm: true } // in stock: nothing to ask
      return elicit(`'${title}' is out of stock (2-3 weeks). Order anyway?`, Backorder)
    },
  )

  mcp.tool(
    'order_book',
    {
      description: 'Order a book from the shop.',
      input: { title: z.string() },
      use: { stock: checkStock, backorder: confirmBackorder },
    },
    ({ title, stock, backorder }) => {
      if (!backorder.confirm) return 'No order placed.'
      if (stock.copies <= 0) return `Backordered '${title}'; it ships in 2-3 weeks.`
      return `Ordered '${title}'.`
    },
  )
  return mcp
}

export default { fetch: createFetchHandler(createServer()) }
