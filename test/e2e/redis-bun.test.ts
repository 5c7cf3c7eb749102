/**
 * The fleet on Bun's own `RedisClient` (`send`, `duplicate`, `subscribe`), against a real redis-server and a
 * Node instance on node-redis: an answer delivered by Node reaches Bun's wait, an event published by Node
 * reaches Bun's listener; Redis stopped: Bun's listener is dropped (Bun 1.4 calls no `onclose` then: the
 * adapter watches `connected`) and a wait fails promptly saying to call the tool again; Redis back: Bun
 * listens again and hears.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { redisFleet, type RedisFleet } from '../../src/redis/index.ts'
import { startRedis, type RunningRedis } from '../redis-server.ts'
import { ensureTool } from '../tools.ts'
import { CLIENT_KINDS, until, type TestClient } from '../redis/clients.ts'

let redis: RunningRedis
let bun: ChildProcessWithoutNullStreams
let node: { client: TestClient; fleet: RedisFleet }
const lines: string[] = []
const saw = (line: string | RegExp) => lines.some((l) => (typeof line === 'string' ? l === line : line.test(l)))

beforeAll(async () => {
  redis = await startRedis()
  const client = await CLIENT_KINDS[0].open(redis.url)
  node = { client, fleet: redisFleet(client.client, { commandTimeoutMs: 1_000 }) }
  bun = spawn(await ensureTool('bun'), [join(import.meta.dirname, 'redis-bun-probe.ts'), redis.url])
  let out = ''
  bun.stdout.on('data', (d: Buffer) => {
    out += d.toString()
    const parts = out.split('\n')
    out = parts.pop()!
    lines.push(...parts)
  })
  bun.stderr.on('data', (d: Buffer) => lines.push(`stderr ${d.toString()}`))
  await until('Bun listening and waiting', () => saw('waiting'), 20_000)
}, 60_000)
afterAll(async () => {
  bun?.kill()
  await node?.fleet.close()
  await node?.client.close()
  await redis?.close()
})

it('Bun and Node meet on one Redis; Redis stopped drops Bun’s listener and fails its wait promptly; back, Bun listens again', async () => {
  await node.fleet.mailbox.deliver('from-node', { result: { from: 'node' } })
  await node.fleet.notificationBus.publish({ kind: 'toolsListChanged' })
  await until('Bun heard both', () => saw('answer {"result":{"from":"node"}}') && saw('event toolsListChanged'))
  await redis.stop()
  await until('dropped', () => saw('dropped'), 3_000)
  await until('the wait failed', () => saw(/^wait-failed/), 4_000)
  expect(lines.find((l) => l.startsWith('wait-failed'))).toMatch(/UpstreamError: .*call the tool again/)
  await redis.start()
  lines.length = 0
  for (let i = 0; i < 20 && !saw('listening'); i++) {
    bun.stdin.write('listen\n')
    await until('an answer', () => saw('listening') || saw(/^listen-failed/), 3_000)
    if (!saw('listening')) lines.length = 0
  }
  await node.fleet.notificationBus.publish({ kind: 'promptsListChanged' })
  await until('Bun heard it', () => saw('event promptsListChanged'))
}, 20_000)
