/**
 * Dependencies, tutorial 1, in arktype: a resolver fills a parameter the model never sees.
 * Run it: `npx wrangler dev -c examples/wrangler.toml examples/dependencies/arktype/tutorial001.ts`, then call `reserve_book`.
 * The same as ../tutorial001.ts (valibot), with arktype schemas.
 */
import { type } from 'arktype'
import { McpServer, arg, createFetchHandler, resolver } from '../../../src/server/index.ts'
import { INVENTORY, type Stock } from '../inventory.ts'

export function createServer(inventory: ReadonlyMap<string, number> = INVENTORY): McpServer {
  const mcp = new McpServer({ name: 'Bookshop', version: '1.0.0' })

  // A resolver: its `title` is the tool's own (validated) `title` argument, matched by name.
  const checkStock = resolver({ title: arg<string>() }, function checkStock({ title }): Stock {
    return { title, copies: inventory.get(title) ?? 0 }
  })

  mcp.tool(
    'reserve_book',
    { description: 'Reserve a copy of a book.', input: type({ title: 'string' }), use: { stock: checkStock } },
    ({ title, stock }) =>
      stock.copies <= 0 ? `'${title}' is out of stock.` : `Reserved '${title}' (${stock.copies - 1} copies left).`,
  )
  return mcp
}

export default { fetch: createFetchHandler(createServer()) }
