/**
 * The two servers every in-process benchmark drives, configured alike: edge-mcp's `McpServer` behind
 * `createFetchHandler`, and the official SDK 2.4.0's `McpServer` behind `createMcpHandler` (its
 * documented per-request factory, `legacy: 'reject'` so both serve 2026-07-28 only, default JSON-or-SSE
 * response mode; the 2025 wire bench uses their `legacy: 'stateless'` default instead). Each has the same two tools:
 * - `echo {text: string}` → one text block with `text` (arguments validated: valibot / zod);
 * - `deploy {env: string}` → round 1: an `InputRequiredResult` with one form elicitation
 *   (`confirm: boolean`) and a `requestState`; round 2 (answer + state echoed): `deployed to <env>`.
 * requestState: ours is sealed (AES-256-GCM, the default); theirs uses the SDK's own opt-in codec,
 * `createRequestStateCodec` (HMAC-SHA256: signed, not encrypted), bound to the method as in its docs.
 */
import {
  McpServer as OfficialServer,
  acceptedContent as officialAccepted,
  createMcpHandler,
  createRequestStateCodec,
  inputRequired as officialInputRequired,
} from '@modelcontextprotocol/server'
import * as v from 'valibot'
import * as z from 'zod'
import { server as edgeMcp } from './edge-mcp.ts'
import { toolCall, type Handler } from './wire.ts'

export { toolCall, type Handler }
const { McpServer, acceptedContent, createFetchHandler, elicitForm, inputRequired } = edgeMcp

const STATE = 'deploy-v1'

/**
 * edge-mcp: one `McpServer`, one fetch handler (sealing on, ephemeral key). Warnings (the refused
 * tampered token the MRTR bench sends on purpose) are not printed; errors are.
 */
export function ourHandler(): Handler {
  const logger = {
    warn: () => {},
    error: (message: string, error?: unknown) => console.error(`[edge-mcp] ${message}`, error ?? ''),
  }
  const mcp = new McpServer({ name: 'bench', version: '1.0.0' }, { logger })
  mcp.tool('echo', { input: { text: v.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }))
  mcp.tool('deploy', { input: { env: v.string() } }, ({ env }, ctx) => {
    const answer = ctx.requestState === STATE ? acceptedContent(ctx.inputResponses?.confirm) : undefined
    if (answer?.confirm !== true) {
      return inputRequired(
        {
          confirm: elicitForm(`Deploy to ${env}?`, {
            type: 'object',
            properties: { confirm: { type: 'boolean' } },
            required: ['confirm'],
          }),
        },
        STATE,
      )
    }
    return { content: [{ type: 'text', text: `deployed to ${env}` }] }
  })
  return createFetchHandler(mcp)
}

/**
 * The official SDK: `createMcpHandler` with a factory building a fresh `McpServer` per request (its
 * serving model); schemas and the codec are built once, outside the factory.
 * @param protectState - false: their default, `requestState` passed through unprotected (info only).
 * @param legacy - `'reject'` (default here): 2026-07-28 only; `'stateless'` (theirs): 2025-era requests are
 *   served too, each by a fresh server over their stateless streamable HTTP transport (the 2025 wire bench).
 */
export function officialHandler({
  protectState = true,
  legacy = 'reject',
}: { protectState?: boolean; legacy?: 'reject' | 'stateless' } = {}): Handler {
  const codec = createRequestStateCodec<string>({
    key: crypto.getRandomValues(new Uint8Array(32)),
    bind: (ctx) => ctx.mcpReq.method,
  })
  const Echo = z.object({ text: z.string() })
  const Deploy = z.object({ env: z.string() })
  const Confirm = z.object({ confirm: z.boolean() })
  const handler = createMcpHandler(
    () => {
      const server = new OfficialServer(
        { name: 'bench', version: '1.0.0' },
        // eslint-disable-next-line @typescript-eslint/unbound-method -- the SDK's codec is an object of closures: verify uses no `this`
        protectState ? { requestState: { verify: codec.verify } } : {},
      )
      // eslint-disable-next-line @typescript-eslint/require-await -- written as the SDK's docs write a tool, so the throughput bench measures that
      server.registerTool('echo', { inputSchema: Echo }, async ({ text }) => ({ content: [{ type: 'text', text }] }))
      server.registerTool('deploy', { inputSchema: Deploy }, async ({ env }, ctx) => {
        const answer =
          ctx.mcpReq.requestState<string>() === STATE
            ? officialAccepted(ctx.mcpReq.inputResponses, 'confirm', Confirm)
            : undefined
        if (answer?.confirm !== true) {
          const requestState = protectState ? await codec.mint(STATE, ctx) : STATE
          return officialInputRequired({
            inputRequests: {
              confirm: officialInputRequired.elicit({ message: `Deploy to ${env}?`, requestedSchema: Confirm }),
            },
            requestState,
          })
        }
        return { content: [{ type: 'text', text: `deployed to ${env}` }] }
      })
      return server
    },
    { legacy },
  )
  return (request) => handler.fetch(request)
}
