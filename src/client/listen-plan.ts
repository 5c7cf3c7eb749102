/**
 * What `Client` hands to `listen` (listen.ts) — the plan of a subscription, asked for through the
 * `Client` method keyed by {@link PLAN_LISTEN} — in a module of its own, so that neither imports the
 * other in a cycle and an app that never listens does not bundle listen.ts.
 * @module
 */
import type { JSONRPCNotification, JSONRPCRequest } from '../protocol/schemas/index.ts'
import type { ClientTransport } from './transport.ts'
import type { LegacyConnection } from './legacy.ts'

/**
 * How `listen` opens a subscription on a client: the era found first, then the request to
 * send (the 2026 envelope, the client's next id) and where: the client's transport, or (2025 era) its
 * session. @internal
 */
export interface ListenPlan {
  transport?: ClientTransport
  session?: LegacyConnection
  message: JSONRPCRequest
  timeoutMs: number
  warn: (message: string) => void
  before?: (notification: JSONRPCNotification) => Promise<unknown>
}

/**
 * The key of `Client`'s method that plans a subscription (`listen` calls it): a symbol, so the method is
 * no name in the client's API. @internal
 */
export const PLAN_LISTEN: unique symbol = Symbol('edge-mcp.planListen')
