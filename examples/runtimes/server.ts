// The MCP server every recipe serves: two tools, one of which asks the user a question when it must.
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

const STOCK = new Map([
  ['Dune', 3],
  ['Neuromancer', 0],
])

/** The question `order_book` asks when the book is out of stock. */
const Backorder = formSchema({ confirm: v.pipe(v.boolean(), v.description('Order anyway and wait?')) })

/**
 * Build the server. `requestStateKeys` (the comma-separated secret) lets several instances share the
 * key that seals requestState; without it each process uses its own random key, fine for one process.
 */
export function createServer(options: { requestStateKeys?: string } = {}): McpServer {
  const keys = options.requestStateKeys?.trim()
  const mcp = new McpServer(
    { name: 'bookshop', version: '1.0.0' },
    keys ? { requestStateSecurity: new RequestStateSecurity({ keys: parseRequestStateKeys(keys) }) } : {},
  )

  mcp.tool('greet', { description: 'Say hello.', input: { name: v.string() } }, ({ name }) => `Hello, ${name}!`)

  // A resolver fills `backorder` before the tool runs: it answers by itself when the book is in stock,
  // and asks the user (elicit) when it is not; the client's answer comes back validated.
  // The function's name keys its question on the wire, so it must be a named function.
  const confirmBackorder = resolver({ title: arg<string>() }, function confirmBackorder({ title }) {
    if ((STOCK.get(title) ?? 0) > 0) return { confirm: true } // in stock: nothing to ask
    return elicit(`'${title}' is out of stock (2-3 weeks). Order anyway?`, Backorder)
  })
  mcp.tool(
    'order_book',
    {
      description: 'Order a book. Asks to confirm when it is out of stock.',
      input: { title: v.string() },
      use: { backorder: confirmBackorder },
    },
    ({ title, backorder }) => (backorder.confirm ? `Ordered '${title}'.` : 'No order placed.'),
  )
  return mcp
}

/** A fetch handler that serves MCP on `/mcp` only and answers 404 on any other path. */
export function mcpEndpoint(
  mcp: McpServer,
  options: FetchHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const handler = createFetchHandler(mcp, options)
  return async (request) =>
    new URL(request.url).pathname === '/mcp' ? handler(request) : new Response('Not found', { status: 404 })
}
