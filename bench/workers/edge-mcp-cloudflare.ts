/**
 * The one-tool Worker of `bench/workers/edge-mcp.ts` with what `edge-mcp/cloudflare` adds: the Durable
 * Object mailbox that carries 2025-era clients' answers and the Durable Object notification bus (both
 * classes exported), to measure what they add to the bundle.
 */
import * as v from 'valibot'
import {
  McpNotificationBus,
  McpQuestionMailbox,
  durableObjectMailbox,
  durableObjectNotificationBus,
} from '../../src/cloudflare/index.ts'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'

let handler: ((request: Request) => Promise<Response>) | undefined

export default {
  fetch(request: Request, env: object): Promise<Response> {
    if (!handler) {
      const mcp = new McpServer(
        { name: 'bench', version: '1.0.0' },
        { legacyQuestions: { mailbox: durableObjectMailbox() }, notificationBus: durableObjectNotificationBus(env) },
      )
      mcp.tool('echo', { input: { text: v.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }))
      handler = createFetchHandler(mcp)
    }
    return handler(request)
  },
}

export { McpNotificationBus, McpQuestionMailbox }
