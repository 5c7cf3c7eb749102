/**
 * The conformance fixture server on Cloudflare Workers (workerd, under `wrangler dev` in run.mjs):
 * `createConformanceServer()` (test/conformance/fixture.ts) behind `createFetchHandler`, with the question
 * mailbox on the `MCP_MAILBOX` Durable Object (test/conformance/wrangler.toml), so a 2025-era client's
 * answer to a server-to-client request reaches the request that asked it, whichever isolate receives it.
 * Request state is sealed with each isolate's ephemeral key (no `requestStateKeys`): `wrangler dev` runs
 * one isolate.
 *
 * Run: `npx wrangler dev --config test/conformance/wrangler.toml`; MCP is served at `/mcp` (any path).
 */
import { durableObjectMailbox, McpQuestionMailbox } from '../../src/cloudflare/index.ts'
import { createFetchHandler, type FetchHandler } from '../../src/server/index.ts'
import { createConformanceServer } from './fixture.ts'

let handler: FetchHandler | undefined

export default {
  /** Made on the first request (no crypto or timers at module scope on workerd). */
  fetch(request: Request, env: unknown, executionCtx: unknown): Promise<Response> {
    handler ??= createFetchHandler(
      createConformanceServer({ legacyQuestions: { mailbox: durableObjectMailbox('MCP_MAILBOX') } }),
      // a server on loopback names its hosts: a DNS-rebound request (Host: evil.example) gets 403
      { allowedHosts: ['127.0.0.1', 'localhost', '[::1]'] },
    )
    return handler(request, env, executionCtx)
  },
}

/** The Durable Object class behind the `MCP_MAILBOX` binding. */
export { McpQuestionMailbox }
