/**
 * DPoP proofs across a fleet (RFC 9449 §11.1): two instances, each a fetch handler with `jwtVerifier` and
 * `dpopProofChecker({ replayStore: fleet.dpopReplayStore })` on its own client of one real Redis (node-redis and
 * ioredis). A proof accepted by one is refused as a replay by the other; its key expires with the proof's
 * window; Redis down is a 503, never an unchecked proof.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dpopProofChecker, jwtVerifier, protectedResource } from '../../src/oauth/index.ts'
import { redisFleet, type RedisFleet } from '../../src/redis/index.ts'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'
import { MCP, call, proof, proofKey } from '../dpop-proofs.ts'
import { startOAuthServer, type TestAuthorizationServer } from '../oauth-server.ts'
import { startRedis, type RunningRedis } from '../redis-server.ts'
import { CLIENT_KINDS } from './clients.ts'

let redis: RunningRedis
let as: TestAuthorizationServer
beforeAll(async () => {
  redis = await startRedis()
  as = await startOAuthServer({ alg: 'ES256' })
})
afterAll(async () => {
  await as?.close()
  await redis?.close()
})

/** One instance of the fleet: its own Redis client, its fleet, its handler. */
function instance(fleet: RedisFleet, iatWindowSeconds = 300) {
  const mcp = new McpServer({ name: 'dpop-fleet', version: '1' })
  mcp.tool('whoami', {}, (_a, ctx) => `hello ${ctx.authInfo?.subject}`)
  const replayStore = fleet.dpopReplayStore
  return createFetchHandler(mcp, {
    allowedHosts: ['mcp.test'],
    oauth: protectedResource({
      authorizationServers: [as.issuer],
      verifyToken: jwtVerifier({ issuer: as.issuer, dpop: dpopProofChecker({ replayStore, iatWindowSeconds }) }),
    }),
  })
}

/** Send a raw command through a test client (node-redis: sendCommand; ioredis: call). */
function send(client: object, args: string[]): Promise<unknown> {
  const c = client as { sendCommand?: (a: string[]) => Promise<unknown>; call?: (...a: string[]) => Promise<unknown> }
  return c.call ? c.call(...args) : c.sendCommand!(args)
}

describe.each(CLIENT_KINDS)('the DPoP replay store of redisFleet over $name', (kind) => {
  it('a proof accepted by one instance is a replay on the other; another proof passes; the key expires with the window', async () => {
    const one = await kind.open(redis.url)
    const two = await kind.open(redis.url)
    const fleetA = redisFleet(one.client, { prefix: `dpop-${kind.name}:`, commandTimeoutMs: 2_000 })
    const fleetB = redisFleet(two.client, { prefix: `dpop-${kind.name}:`, commandTimeoutMs: 2_000 })
    try {
      const [a, b] = [instance(fleetA, 60), instance(fleetB, 60)]
      const key = await proofKey()
      const token = await as.mint({ aud: MCP, sub: 'dora', cnf: { jkt: key.jkt } })
      const once = await proof(key, { token })
      expect((await a(call(`DPoP ${token}`, [once]))).status).toBe(200)
      const replayed = await b(call(`DPoP ${token}`, [once]))
      expect(replayed.status).toBe(401)
      expect(replayed.headers.get('www-authenticate')).toMatch(/DPoP .*error="invalid_dpop_proof"/)
      expect((await b(call(`DPoP ${token}`, [await proof(key, { token })]))).status).toBe(200)
      // one key per accepted proof, under the fleet's prefix, expiring with the window (iat + 60 s)
      const keys = (await send(one.client, ['KEYS', `dpop-${kind.name}:dpop:*`])) as string[]
      expect(keys).toHaveLength(2)
      const ttl = Number(await send(one.client, ['TTL', keys[0]]))
      expect(ttl).toBeGreaterThan(50)
      expect(ttl).toBeLessThanOrEqual(61)
    } finally {
      await fleetA.close()
      await fleetB.close()
      await one.close()
      await two.close()
    }
  })
})

describe('Redis unreachable', () => {
  it('a proof that cannot be checked is refused with 503, not accepted', async () => {
    const down = await CLIENT_KINDS[0].open('redis://127.0.0.1:1', { connected: false })
    const fleet = redisFleet(down.client, { commandTimeoutMs: 300 })
    try {
      const key = await proofKey()
      const token = await as.mint({ aud: MCP, sub: 'dora', cnf: { jkt: key.jkt } })
      const res = await instance(fleet)(call(`DPoP ${token}`, [await proof(key, { token })]))
      expect(res.status).toBe(503)
    } finally {
      await fleet.close()
      await down.close()
    }
  })
})
