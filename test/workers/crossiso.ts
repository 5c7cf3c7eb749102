/**
 * The demo Worker (worker/index.ts) for the cross-isolate question test (test/crossiso.test.ts), plus one
 * route, `GET /isolate`, that tells which Worker and which isolate answered: `WORKER_NAME` (a var the test
 * sets per Worker) and an id drawn at random once per isolate (module memory; drawn on the first request,
 * since workerd forbids randomness at start-up). Everything else is the demo Worker, unchanged: `/mcp` is
 * MCP with `durableObjectMailbox()` on `env.MCP_MAILBOX`, and it exports the `McpQuestionMailbox` class.
 *
 * Bundled by `wrangler deploy --dry-run` with test/workers/crossiso.toml, then run by Miniflare as several
 * Workers (several isolates) that do or do not share the Durable Object namespace.
 */
import demo, { McpQuestionMailbox } from '../../worker/index.ts'

interface Env {
  WORKER_NAME?: string
}

let isolate: string | undefined

export default {
  fetch(request: Request, env: Env, ctx: Parameters<typeof demo.fetch>[2]): Response | Promise<Response> {
    if (new URL(request.url).pathname === '/isolate') {
      isolate ??= crypto.randomUUID()
      return Response.json({ worker: env.WORKER_NAME ?? null, isolate })
    }
    return demo.fetch(request, env, ctx)
  },
}
export { McpQuestionMailbox }
