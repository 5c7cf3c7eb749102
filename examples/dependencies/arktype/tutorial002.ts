/**
 * Dependencies, tutorial 2, in arktype: resolvers depend on resolvers. `estimateDelivery` needs `checkStock`; the
 * tool needs both; `checkStock` still runs once per call.
 * Run it: `npx wrangler dev -c examples/wrangler.toml examples/dependencies/arktype/tutorial002.ts`, then call `order_book`.
 * The same as ../tutorial002.ts (valibot), with arktype schemas.
 */
import { type } from 'arktype'
import { McpServer, arg, createFetchHandler, resolver } from '../../../src/server/index.ts'
import { INVENTORY, type Stock } from '../inventory.ts'

export function createServer(inventory: ReadonlyMap<string, number> = INVENTORY): McpServer {
  const mcp = new McpServer({ name: 'Bookshop', version: '1.0.0' })

  const checkStock = resolver({ title: arg<string>() }, function checkStock({ title }): Stock {
    return { title, copies: inventory.get(title) ?? 0 }
  })
  const estimateDelivery = resolver({ stock: checkStock }, function estimateDelivery({ stock }) {
    return stock.copies > 0 ? 'tomorrow' : 'in 2-3 weeks'
  })

  mcp.tool(
    'order_book',
    {
      description: 'Order a book from the shop.',
      input: type({ title: 'string' }),
      use: { stock: checkStock, delivery: estimateDelivery },
    },
    ({ title, stock, delivery }) =>
      stock.copies <= 0
        ? `'${title}' is on backorder; it would arrive ${delivery}.`
        : `Ordered '${title}'; it arrives ${delivery}.`,
  )
  return mcp
}

export default { fetch: createFetchHandler(createServer()) }
