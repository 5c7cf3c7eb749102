/**
 * Run by Bun (test/e2e/redis-bun.test.ts): a fleet on Bun's own `RedisClient`, reporting on stdout, one line per
 * thing that happens, and taking orders on stdin ('listen': subscribe the bus again). Argument: the Redis URL.
 */
import { redisFleet } from '../../src/redis/index.ts'

type BunRedisClient = { connect(): Promise<void> }
const { RedisClient } = (globalThis as unknown as { Bun: { RedisClient: new (url: string) => BunRedisClient } }).Bun
const client = new RedisClient(process.argv[2])
await client.connect()
const fleet = redisFleet(client, { commandTimeoutMs: 1_000 })
const say = (line: string) => console.log(line)

async function listen(): Promise<void> {
  await fleet.notificationBus.subscribe(
    (event) => say(`event ${event.kind}`),
    () => {
      say('dropped')
      // the mailbox meanwhile: a wait fails promptly, saying what to do
      fleet.mailbox.wait('after-drop', 10_000).then(
        () => say('answer after-drop'),
        (error: Error) => say(`wait-failed ${error.name}: ${error.message}`),
      )
    },
  )
  say('listening')
}

await listen()
fleet.mailbox.wait('from-node', 5_000).then(
  (answer) => say(`answer ${JSON.stringify(answer)}`),
  (error: Error) => say(`wait-failed ${error.name}: ${error.message}`),
)
say('waiting')
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk: string) => {
  for (const order of chunk.split('\n')) {
    if (order === 'listen') listen().catch((error: Error) => say(`listen-failed ${error.message}`))
    if (order === 'quit') void fleet.close().then(() => process.exit(0))
  }
})
