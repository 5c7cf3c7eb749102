/**
 * The DPoP replay store of a fleet (RFC 9449 §11.1): the `jti`s of the proofs every instance accepted, in
 * Redis, so that a proof replayed to another instance is refused too. It fits `dpopProofChecker`'s
 * `replayStore` (edge-mcp/oauth) by shape; nothing of edge-mcp/oauth is imported here.
 * @module
 */
import type { RedisConnection } from './connection.ts'

/** What `dpopProofChecker({ replayStore })` takes: `seen(key, expiresAt)` (seconds since the epoch). */
interface RedisReplayStore {
  seen(key: string, expiresAt: number): Promise<boolean>
}

/**
 * One key per proof, `<prefix>dpop:<key>` (the proof key's thumbprint and the `jti`, ≤ 300 characters),
 * recorded and tested in one atomic `SET … NX EXAT <expiresAt>` (Redis ≥ 6.2): seen when it already existed.
 * The key expires with the proof's window, so Redis holds only proofs still acceptable.
 * @throws (from `seen`) what the guarded connection throws when Redis fails or is slow (an UpstreamError):
 *   the checker answers 503, never accepting a proof it could not check.
 */
export function redisReplayStore(conn: RedisConnection, options: { prefix: string }): RedisReplayStore {
  return {
    async seen(key, expiresAt) {
      const at = Math.ceil(expiresAt)
      // past its window already: the checker refuses such a proof before asking, so nothing is kept for it
      if (at <= Date.now() / 1000) return false
      const reply = await conn.command(['SET', `${options.prefix}dpop:${key}`, '1', 'NX', 'EXAT', String(at)])
      return reply !== 'OK'
    },
  }
}
