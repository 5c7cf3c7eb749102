/**
 * `redisFleet`: the three meeting points of a fleet — question mailbox, notification bus, task store — on
 * one Redis, through the user's own client.
 * @module
 */
import type { Logger } from '../server/context.ts'
import type { QuestionMailbox } from '../server/mailbox.ts'
import type { NotificationBus } from '../server/notifications.ts'
import { MAX_TIMER_MS } from '../server/runtime.ts'
import type { TaskStore } from '../server/tasks/types.ts'
import { guardedConnection, redisConnection, type RedisConnection } from './connection.ts'
import { redisMailbox } from './mailbox.ts'
import { redisNotificationBus } from './notifications.ts'
import { redisReplayStore } from './replay.ts'
import { redisTasks } from './tasks.ts'

/** Options of {@link redisFleet}. */
export interface RedisFleetOptions {
  /**
   * Prefix of every key and channel the fleet uses (namespace one app, or one environment, per prefix).
   * Default `'edge-mcp:'`.
   */
  prefix?: string
  /**
   * Longest wait for one Redis command or subscription, integer **milliseconds**; past it the request fails
   * with an error saying to retry (node-redis holds commands while disconnected: without this they would
   * wait for Redis to come back). Default 5,000.
   */
  commandTimeoutMs?: number
  /**
   * How long an answer to a 2025-era client's question is kept for a wait still on its way, integer
   * **milliseconds** (the key's TTL). Default 30,000, as the Durable Object mailbox.
   */
  earlyAnswerMs?: number
  /**
   * Largest answer to a question, in **bytes** of its JSON (UTF-8); a larger one is refused with HTTP 413 and
   * its question fails at once saying so. Default 8,388,608 (8 MiB).
   */
  maxAnswerBytes?: number
  /** Options of the task store (each an integer, > 0). */
  tasks?: {
    /** How long a task is kept from its creation, **milliseconds** (≤ 2,147,483,647). Default 3,600,000 (1 h). */
    ttlMs?: number
    /** The polling interval suggested to clients, **milliseconds**. Default 1,000. */
    pollIntervalMs?: number
    /** Most tasks running on this instance at once; past it a call that would start one fails -32603. Default 1,000. */
    maxTasks?: number
    /**
     * How long a task's lease lasts without renewal, **milliseconds** (renewed every third of it): a task whose
     * instance died shows as failed (interrupted) at most this long after. Default 15,000.
     */
    leaseMs?: number
  }
  /** Where the task store reports Redis failures (the server logs the others). Default: the console, each line prefixed `[edge-mcp]` (as the server's). */
  logger?: Logger
}

/** The meeting points of one instance of a fleet, for `McpServer`'s options; `close()` on shutdown. */
export interface RedisFleet {
  /** For `legacyQuestions.mailbox`. */
  mailbox: QuestionMailbox
  /** For `notificationBus`. */
  notificationBus: NotificationBus
  /** For `tasks`. */
  tasks: TaskStore
  /**
   * For `dpopProofChecker({ replayStore })` of edge-mcp/oauth: a DPoP proof accepted by one instance is a
   * replay on every other (keys `dpop:<thumbprint>:<jti>`, each expiring with its proof's window).
   */
  dpopReplayStore: { seen(key: string, expiresAt: number): Promise<boolean> }
  /**
   * End this instance's part: stop its task runs (their tasks show as interrupted) and close the subscriber
   * connection the fleet opened. The user's client stays open (it is theirs to close). Never rejects.
   */
  close(): Promise<void>
}

const DEFAULT_PREFIX = 'edge-mcp:'

/**
 * The meeting points of a fleet of Node, Deno or Bun instances on one Redis: an answer to a question asked
 * on one instance may reach any other, a listen stream on one hears events published on any other, a task
 * started on one is seen, answered and cancelled from any other, and a DPoP proof accepted by one is a replay
 * on any other.
 *
 * Keys (all under `prefix`, each with a TTL): `q:<qid>` (an answer, `earlyAnswerMs`), `task:{<id>}` (a
 * task's record, until its TTL), `task:{<id>}:lease` (its running instance, `leaseMs`) and `dpop:<key>` (a
 * DPoP proof's `jti`, until its window ends); channels
 * `answers`, `events`, `tasks:<instance>` and `tasks-reply:<instance>`. Every command is bounded by
 * `commandTimeoutMs`: Redis unreachable, stopped or restarted fails what needs it with an error saying to
 * retry (a tool error, or -32603, or HTTP 503 for an answer), logged by the server; a listen stream whose
 * subscription is lost ends with -32603, and the client listens again.
 * @param client - a connected node-redis 5 client (`await createClient({ url }).connect()`), an ioredis 5
 *   client (`new Redis(url)`), Bun's `RedisClient` (`new RedisClient(url)` or `Bun.redis`), or a
 *   `RedisConnection` of your own (its `close` is called by the fleet's). Subscriptions go through one connection the fleet opens with the
 *   client's `duplicate()` when first needed.
 * @throws TypeError for a client of none of these shapes, a `prefix` that is not a string, `tasks` that is
 *   not an object, a `logger` without `warn` and `error`; RangeError (naming the option) unless
 *   `commandTimeoutMs`, `earlyAnswerMs` (both ≤ 2,147,483,647), `maxAnswerBytes` and the `tasks` numbers are
 *   positive integers.
 * @example
 * const fleet = redisFleet(await createClient({ url: process.env.REDIS_URL }).connect(), { prefix: 'shop:' })
 * new McpServer(info, { legacyQuestions: { mailbox: fleet.mailbox }, notificationBus: fleet.notificationBus, tasks: fleet.tasks })
 */
export function redisFleet(client: object, options: RedisFleetOptions = {}): RedisFleet {
  const prefix = options.prefix ?? DEFAULT_PREFIX
  if (typeof prefix !== 'string') throw new TypeError(`redisFleet: prefix must be a string, got ${typeof prefix}`)
  const commandTimeoutMs = positive('commandTimeoutMs', options.commandTimeoutMs, 5_000, MAX_TIMER_MS)
  const earlyAnswerMs = positive('earlyAnswerMs', options.earlyAnswerMs, 30_000, MAX_TIMER_MS)
  const maxAnswerBytes = positive('maxAnswerBytes', options.maxAnswerBytes, 8 * 1024 * 1024)
  const tasks = options.tasks ?? {}
  if (typeof tasks !== 'object' || tasks === null)
    throw new TypeError(`redisFleet: tasks must be an object of task options, got ${String(tasks)}`)
  const logger = options.logger
  if (logger !== undefined && (typeof logger?.warn !== 'function' || typeof logger.error !== 'function'))
    throw new TypeError('redisFleet: logger must have warn and error methods (console fits)')
  const raw = redisConnection(client, commandTimeoutMs)
  const conn = guardedConnection(raw, { timeoutMs: commandTimeoutMs, address: raw.address })
  // a RedisConnection used as is (the adapter leaves its close alone): the fleet's close ends what it opened
  const given = raw.close === undefined ? (client as Partial<RedisConnection>) : undefined
  const closeConn = given?.close ? () => given.close!() : () => conn.close?.()
  const store = redisTasks(conn, {
    ...tasks,
    prefix,
    commandTimeoutMs,
    ...(logger !== undefined && { logger }),
  })
  return {
    mailbox: redisMailbox(conn, { prefix, earlyAnswerMs, maxAnswerBytes }),
    notificationBus: redisNotificationBus(conn, { prefix }),
    tasks: store,
    dpopReplayStore: redisReplayStore(conn, { prefix }),
    async close() {
      await store.close().catch(() => {})
      await Promise.resolve()
        .then(closeConn)
        .catch(() => {})
    },
  }
}

function positive(name: string, value: number | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback
  if (!(Number.isInteger(value) && value > 0 && value <= max))
    throw new RangeError(`redisFleet: ${name} must be a positive integer of at most ${max}, got ${String(value)}`)
  return value
}
