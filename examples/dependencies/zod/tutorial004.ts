/**
 * Dependencies, tutorial 4, in zod: ask the client's model. `suggestTitle` returns `sample(...)`; the client
 * runs one LLM call (its `sampling` callback) and the tool receives the `CreateMessageResult`.
 * Run it: `npx wrangler dev -c examples/wrangler.toml examples/dependencies/zod/tutorial004.ts`, then call `recommend_book`.
 * The same as ../tutorial004.ts (valibot), with zod schemas.
 */
import { z } from 'zod'
import { McpServer, arg, createFetchHandler, resolver, sample } from '../../../src/server/index.ts'

export function createServer(): McpServer {
  const mcp = new McpServer({ name: 'Bookshop', version: '1.0.0' })

  const suggestTitle = resolver({ genre: arg<string>() }, function suggestTitle({ genre }) {
    return sample(`Suggest one ${genre} book title. Answer with the title only.`, { maxTokens: 50 })
  })

  mcp.tool(
    'recommend_book',
    {
      description: 'Recommend a book in the given genre.',
      input: { genre: z.string() },
      use: { suggestion: suggestTitle },
    },
    ({ genre, suggestion }) => {
      const content = Array.isArray(suggestion.content) ? suggestion.content[0] : suggestion.content
      const title = content?.type === 'text' ? content.text : 'the classics'
      return `Today's ${genre} pick: ${title}`
    },
  )
  return mcp
}

export default { fetch: createFetchHandler(createServer()) }
