/**
 * `edge-mcp/redis`: the meeting points of a fleet of Node, Deno or Bun instances — question mailbox,
 * notification bus, task store — on the user's Redis client. Nothing here is bundled by an app that does
 * not import this entry point.
 * @module
 */
export type { RedisConnection } from './connection.ts'
export { redisFleet, type RedisFleet, type RedisFleetOptions } from './fleet.ts'
