/**
 * The seam between the Redis meeting points and the user's Redis client: a structural interface (no Redis
 * library is imported here), and the adapter that fits the clients people use to it.
 * @module
 */

/**
 * What the meeting points need of a Redis client: commands, and subscriptions to channels. Implement it to
 * bring a client `redisFleet` does not recognise; node-redis 5, ioredis 5 and Bun's `RedisClient` are fitted
 * by `redisFleet` itself.
 */
export interface RedisConnection {
  /**
   * Send one command, e.g. `['SET', key, value, 'PX', '30000']`.
   * @returns its reply as RESP2 gives it: a string, a number, null, or an array of these.
   * @throws what the client throws when Redis refuses the command or cannot be reached.
   */
  command(args: readonly string[]): Promise<unknown>
  /**
   * Receive the messages published on `channel` until the returned function is called. Resolves once Redis
   * has confirmed the subscription. `lost` is called once if the subscription ends on its own (the connection
   * dropped, Redis restarted): messages published meanwhile may have been missed, and nothing more arrives
   * through this subscription (subscribe again).
   */
  subscribe(
    channel: string,
    onMessage: (message: string) => void,
    lost: (error: Error) => void,
  ): Promise<() => Promise<void>>
  /** End what the connection opened itself (a subscriber connection); never the user's own client. */
  close?(): Promise<void>
}
