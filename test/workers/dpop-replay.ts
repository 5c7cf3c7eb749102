/**
 * A Worker for test/e2e/dpop-replay-workers.test.ts: `POST /seen` `{ key, expiresAt }` asks the DPoP replay store
 * on `env.MCP_DPOP_REPLAY` (`durableObjectReplayStore`) and answers `{ seen, isolate }`, or 503 with the error.
 * Run as two Workers (two isolates) sharing one namespace of `McpDPoPReplay`.
 */
import { durableObjectReplayStore } from '../../src/cloudflare/index.ts'

export { McpDPoPReplay } from '../../src/cloudflare/index.ts'

interface Env {
  MCP_DPOP_REPLAY: Parameters<typeof durableObjectReplayStore>[0]
  WORKER_NAME: string
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { key, expiresAt } = (await request.json()) as { key: string; expiresAt: number }
    try {
      const seen = await durableObjectReplayStore(env.MCP_DPOP_REPLAY).seen(key, expiresAt)
      return Response.json({ seen, isolate: env.WORKER_NAME })
    } catch (error) {
      return new Response(String(error), { status: 503 })
    }
  },
}
