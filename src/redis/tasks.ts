/**
 * Tasks across a fleet of Node, Deno or Bun instances sharing one Redis (ext-tasks
 * specification/2026-07-28/tasks.md). A task runs on the instance that started it, in a {@link TaskEngine}
 * as with `inMemoryTasks`; its record is written to Redis on every change, fenced by a lease the running
 * instance renews, so `tasks/get` from any instance reads it, and `tasks/update` / `tasks/cancel` reach the
 * running instance over pub/sub.
 *
 * Keys (every one with a TTL; `{…}` keeps a task's two keys in one cluster slot):
 * - `${prefix}task:{${taskId}}`: the task's record (JSON, at most 2 MiB (`MAX_RECORD_BYTES`)), until its TTL;
 * - `${prefix}task:{${taskId}}:lease`: the running instance's id, `leaseMs`, renewed every `leaseMs / 3`
 *   while the run lives and deleted by the terminal write.
 * Channels: `${prefix}tasks:${instanceId}` (commands to the instance running a task) and
 * `${prefix}tasks-reply:${instanceId}` (their answers).
 * @module
 */
import { ErrorCode, McpError } from '../protocol/errors.ts'
import type { DetailedTask } from '../protocol/schemas/index.ts'
import { consoleLogger, type Logger } from '../server/context.ts'
import { UpstreamError, messageOf } from '../server/errors.ts'
import { logError, logWarn } from '../server/log.ts'
import { MAX_TIMER_MS, onWorkers } from '../server/runtime.ts'
import {
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_TTL_MS,
  INTERRUPTED_MESSAGE,
  TaskEngine,
  newTaskId,
  newTaskRecord,
} from '../server/tasks/engine.ts'
import { defineTaskStore } from '../server/tasks/install.ts'
import type { TaskRecord, TaskStore, TaskTimingOptions } from '../server/tasks/types.ts'
import type { RedisConnection } from './connection.ts'
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_LEASE_MS,
  DEFAULT_MAX_TASKS,
  RELEASE,
  TASK_ID,
  TERMINAL,
  encode,
  WRITE,
  bounded,
  checked,
  short,
} from './task-parts.ts'

/** Options of {@link redisTasks}. */
export interface RedisTasksOptions extends TaskTimingOptions {
  /** Most tasks whose run is live on this instance; past it a call that would start one fails -32603. Default 1,000. */
  maxTasks?: number
  /**
   * How long a task's lease lasts without renewal, integer **milliseconds** (> 0; renewed every third of it).
   * When the running instance dies, its tasks show as `failed` (interrupted) at most this long after; so do
   * they when its event loop is blocked, or Redis unreachable from it, for this long. Default 15,000.
   */
  leaseMs?: number
  /** Prefix of every key and channel. Default `'edge-mcp:'`. */
  prefix?: string
  /** Longest wait for one Redis command, or for the running instance's answer, integer **milliseconds**. Default 5,000. */
  commandTimeoutMs?: number
  /** Where Redis failures are reported. Default: the console, each line prefixed `[edge-mcp]` (as the server's). */
  logger?: Logger
}

/** A task store on Redis: stop it with `close()` when the instance shuts down. */
export interface RedisTaskStore extends TaskStore {
  /**
   * Stop: abort the runs of this instance (their tasks show as interrupted), release their leases (best
   * effort), stop the timers and end the subscriptions. Resolves within about `commandTimeoutMs`; never
   * rejects. A task started afterwards fails -32603.
   */
  close(): Promise<void>
}

/** A task whose run this instance holds (or whose last write is still owed). */
interface Entry {
  engine: TaskEngine
  /** When the last confirmed lease renewal or write was sent, epoch ms: the lease holds until leaseMs after. */
  renewedAt: number
  /** The last write failed: retried at the next renewal. */
  dirty: boolean
  runDone: boolean
  ttlTimer: ReturnType<typeof setTimeout>
}

/** A command sent to the instance running a task. */
interface Command {
  id: string
  op: 'update' | 'cancel'
  taskId: string
  principal?: string
  inputResponses?: Record<string, unknown>
  replyTo: string
}

/**
 * Tasks on Redis, for a fleet of Node, Deno or Bun instances behind a load balancer (`redisFleet` builds
 * it; pass `fleet.tasks` as `McpServerOptions.tasks`). Each task runs on the instance that started it; any
 * instance answers `tasks/get` from Redis, and hands `tasks/update` / `tasks/cancel` to the running one.
 *
 * Outcomes: a task whose instance died (or lost Redis for longer than `leaseMs`) shows as `failed` -32603
 * "The task was interrupted (the server restarted); call the tool again" once its lease lapses; a result
 * whose record would pass 2 MiB (`MAX_RECORD_BYTES`) fails the task with -32603 naming both sizes. Redis
 * unreachable or an instance not answering within `commandTimeoutMs` fails the request with -32603 saying
 * to retry (logged); a failed write is logged and retried, never thrown at the run. An unknown, expired or
 * another principal's task is not found (-32602), as with `inMemoryTasks`. On Workers a call that would
 * start a task fails -32603 naming `durableObjectTasks`.
 * @param conn - the Redis connection (commands and subscriptions).
 * @throws RangeError unless `ttlMs` (≤ 2,147,483,647), `pollIntervalMs`, `maxTasks`, `leaseMs` and
 *   `commandTimeoutMs` are positive integers.
 */
export function redisTasks(conn: RedisConnection, options: RedisTasksOptions = {}): RedisTaskStore {
  const ttlMs = checked('ttlMs', options.ttlMs, DEFAULT_TTL_MS, MAX_TIMER_MS)
  const pollIntervalMs = checked('pollIntervalMs', options.pollIntervalMs, DEFAULT_POLL_INTERVAL_MS)
  const maxTasks = checked('maxTasks', options.maxTasks, DEFAULT_MAX_TASKS)
  const leaseMs = checked('leaseMs', options.leaseMs, DEFAULT_LEASE_MS, MAX_TIMER_MS)
  const timeoutMs = checked('commandTimeoutMs', options.commandTimeoutMs, DEFAULT_COMMAND_TIMEOUT_MS, MAX_TIMER_MS)
  const prefix = options.prefix ?? 'edge-mcp:'
  const logger = options.logger ?? consoleLogger
  const instanceId = newTaskId()
  const inbox = `${prefix}tasks:${instanceId}`
  const replies = `${prefix}tasks-reply:${instanceId}`
  const recordKey = (taskId: string): string => `${prefix}task:{${taskId}}`
  const leaseKey = (taskId: string): string => `${prefix}task:{${taskId}}:lease`
  const entries = new Map<string, Entry>()
  const waiting = new Map<string, { resolve: (found: boolean) => void; reject: (e: Error) => void }>()
  let inboxSub: Promise<() => Promise<void>> | undefined
  let replySub: Promise<() => Promise<void>> | undefined
  let renewer: ReturnType<typeof setInterval> | undefined
  let outage = false
  let closed = false

  /** One command, bounded by `commandTimeoutMs`. */
  const command = (args: string[]): Promise<unknown> =>
    bounded(
      Promise.resolve().then(() => conn.command(args)),
      timeoutMs,
      `Redis did not answer ${args[0]}`,
    )
  /**
   * The error a client gets when Redis (or the running instance) fails a request: -32603 "`what`; retry"
   * (the cause stays in the log, an UpstreamError).
   */
  const retry = (what: string, taskId: string, cause: unknown): McpError => {
    const error = new UpstreamError(`redisTasks: ${what.replace(taskId, short(taskId))}: ${messageOf(cause)}`, {
      cause,
    })
    logError(logger, 'tasks.redis', error.message, error)
    return new McpError(ErrorCode.InternalError, `${what}; retry`)
  }
  /** Subscribe once (again after a loss) to `channel`. */
  const listen = (channel: string, onMessage: (m: string) => void, onLost: () => void) => {
    const sub = conn.subscribe(channel, onMessage, (error) => {
      logError(logger, 'tasks.redis', `redisTasks: lost the Redis subscription to ${channel}`, error)
      onLost()
    })
    const live = bounded(sub, timeoutMs, 'Redis did not confirm a subscription')
    live.catch(() => {
      onLost()
      sub.then((stop) => stop()).catch(() => {}) // confirmed too late: end it
    })
    return live
  }
  const ensureInbox = (): Promise<unknown> =>
    (inboxSub ??= listen(
      inbox,
      (m) => void obey(m),
      () => (inboxSub = undefined),
    ))
  const ensureReplies = (): Promise<unknown> =>
    (replySub ??= listen(replies, answered, () => {
      replySub = undefined
      for (const w of waiting.values()) w.reject(new Error('lost the Redis subscription for answers'))
      waiting.clear()
    }))

  /** Forget a task here and abort its run: at its TTL, or (`why`, logged) when it lost its lease. */
  const forget = (taskId: string, why?: string): void => {
    const entry = entries.get(taskId)
    if (!entry) return
    entries.delete(taskId)
    clearTimeout(entry.ttlTimer)
    if (why !== undefined)
      logError(
        logger,
        'tasks.lease',
        `redisTasks: task ${short(taskId)} ${why}; its run is aborted and it is forgotten here`,
      )
    entry.engine.expire()
    stopIdle()
  }
  /** Write the record (fenced): never rejects; a failure is logged and retried at the next renewal. */
  const write = async (record: TaskRecord, mode: 'start' | 'write' = 'write'): Promise<boolean> => {
    const taskId = record.task.taskId
    let json = encode(record)
    if (typeof json !== 'string') {
      if (mode === 'start') throw json
      logWarn(logger, 'tasks.size', `redisTasks: task ${short(taskId)}: ${json.message}`)
      const error = { code: ErrorCode.InternalError, message: json.message }
      if (!TERMINAL.has(record.task.status)) {
        void entries.get(taskId)?.engine.finish({ error }) // fails it; that write comes next
        return false
      }
      delete record.result
      Object.assign(record, { error, pending: {} })
      Object.assign(record.task, { status: 'failed', statusMessage: json.message })
      json = JSON.stringify(record)
    }
    const ttl = record.expiresAt - Date.now()
    if (ttl <= 0) return false
    const final = TERMINAL.has(record.task.status)
    const entry = entries.get(taskId)
    const sent = Date.now() // the lease, if renewed, lasts at least leaseMs from now
    try {
      const args = [recordKey(taskId), leaseKey(taskId), instanceId, json, String(ttl), final ? 'final' : mode]
      const done = await command(['EVAL', WRITE, '2', ...args, String(leaseMs)])
      if (Number(done) !== 1) {
        if (mode === 'start') throw new Error('the new task id is taken')
        forget(taskId, 'lost its lease in Redis (a write was fenced off)')
        return false
      }
      if (entry) Object.assign(entry, { dirty: false, renewedAt: sent })
      if (entry?.runDone) settle(entry)
      return true
    } catch (error) {
      if (mode === 'start') throw error
      // once per outage of this task's writes (it is retried at every renewal until one succeeds)
      if (!entry?.dirty)
        logError(
          logger,
          'tasks.redis',
          `redisTasks: task ${short(taskId)} could not be saved to Redis (retried)`,
          error,
        )
      if (entry) entry.dirty = true
      return false
    }
  }
  /** A finished run whose last write is done: nothing more to hold here. */
  const settle = (entry: Entry): void => {
    if (entry.dirty || entries.get(entry.engine.taskId) !== entry) return
    entries.delete(entry.engine.taskId)
    clearTimeout(entry.ttlTimer)
    stopIdle()
  }
  const stopIdle = (): void => {
    if (entries.size > 0 || !renewer) return
    clearInterval(renewer)
    renewer = undefined
  }
  /** Every third of `leaseMs`: renew the live runs' leases, retry owed writes, keep the inbox subscribed. */
  const renew = async (): Promise<void> => {
    if (!inboxSub) void ensureInbox().catch(() => {})
    const now = Date.now()
    let failed = false
    await Promise.all(
      [...entries.values()].map(async (entry) => {
        const { engine } = entry
        const taskId = engine.taskId
        if (engine.terminal && !entry.dirty) return // its lease is deleted; the run is ending
        if (now - entry.renewedAt >= leaseMs) return forget(taskId, `could not renew its lease for ${leaseMs} ms`)
        if (entry.dirty) return void (await write(engine.record))
        const sent = Date.now()
        try {
          const ok = await command(['SET', leaseKey(taskId), instanceId, 'XX', 'PX', String(leaseMs)])
          if (ok === null) return forget(taskId, 'lost its lease in Redis (expired, or Redis restarted)')
          entry.renewedAt = sent
        } catch (error) {
          failed = true
          if (!outage) logError(logger, 'tasks.redis', `redisTasks: cannot renew task leases in Redis`, error)
        }
      }),
    )
    if (outage && !failed) logWarn(logger, 'tasks.redis', 'redisTasks: Redis answers again')
    outage = failed
  }

  /** A command from another instance for a task running here. */
  const obey = async (message: string): Promise<void> => {
    let cmd: Command
    try {
      cmd = JSON.parse(message) as Command
      if (typeof cmd.id !== 'string' || typeof cmd.replyTo !== 'string' || typeof cmd.taskId !== 'string')
        throw new TypeError('not a task command')
    } catch (error) {
      return logWarn(logger, 'tasks.redis', `redisTasks: ignored a bad message on ${inbox}: ${messageOf(error)}`)
    }
    const engine = entries.get(cmd.taskId)?.engine
    const found = engine !== undefined && !engine.expired() && engine.owns(cmd.principal)
    if (found && cmd.op === 'update') await engine.update(cmd.inputResponses ?? {})
    if (found && cmd.op === 'cancel') await engine.cancel()
    try {
      await command(['PUBLISH', cmd.replyTo, JSON.stringify({ id: cmd.id, found })])
    } catch (error) {
      logError(logger, 'tasks.redis', `redisTasks: could not answer a command for task ${short(cmd.taskId)}`, error)
    }
  }
  const answered = (message: string): void => {
    try {
      const { id, found } = JSON.parse(message) as { id: string; found: boolean }
      waiting.get(id)?.resolve(found === true)
    } catch {
      // not ours
    }
  }

  /** The caller's task record from Redis, with its lease holder; undefined when unknown, expired or another's. */
  const read = async (taskId: string, principal: string | undefined, op: string) => {
    if (!TASK_ID.test(taskId)) return undefined
    let reply: unknown
    try {
      reply = await command(['MGET', leaseKey(taskId), recordKey(taskId)])
    } catch (error) {
      throw retry(`${op} of task ${taskId} could not read Redis`, taskId, error)
    }
    const [lease, json] = reply as [string | null, string | null]
    if (typeof json !== 'string') return undefined
    let record: TaskRecord
    try {
      record = JSON.parse(json) as TaskRecord
    } catch (error) {
      logError(logger, 'tasks.redis', `redisTasks: task ${short(taskId)} has an unreadable record in Redis`, error)
      return undefined
    }
    if (record.principal !== principal || Date.now() >= record.expiresAt) return undefined
    return { record, owner: typeof lease === 'string' ? lease : undefined }
  }
  /** update/cancel: on this instance's engine, or sent to the running instance. */
  const act = async (op: 'update' | 'cancel', taskId: string, principal: string | undefined, answers?: object) => {
    const engine = entries.get(taskId)?.engine
    if (engine) {
      if (engine.expired() || !engine.owns(principal)) return false
      if (op === 'cancel') await engine.cancel()
      else await engine.update(answers as Record<string, unknown>)
      return true
    }
    const found = await read(taskId, principal, `tasks/${op}`)
    if (!found) return false
    if (TERMINAL.has(found.record.task.status) || found.owner === undefined) return true // nothing can change it
    const cmd: Command = { id: newTaskId(), op, taskId, replyTo: replies }
    if (principal !== undefined) cmd.principal = principal
    if (answers) cmd.inputResponses = answers as Record<string, unknown>
    let ok: boolean
    try {
      await ensureReplies()
      const reply = new Promise<boolean>((resolve, reject) => waiting.set(cmd.id, { resolve, reject }))
      const heard = Number(await command(['PUBLISH', `${prefix}tasks:${found.owner}`, JSON.stringify(cmd)]))
      if (heard === 0) throw new Error('no instance listens for it')
      ok = await bounded(reply, timeoutMs, 'no answer')
    } catch (error) {
      throw retry(`tasks/${op} of task ${taskId}: the instance running it could not be reached`, taskId, error)
    } finally {
      waiting.delete(cmd.id)
    }
    return ok || (await read(taskId, principal, `tasks/${op}`)) !== undefined // ended meanwhile: still found
  }

  const store = defineTaskStore<RedisTaskStore>({
    async start(job, host, info) {
      if (onWorkers())
        throw new McpError(
          ErrorCode.InternalError,
          'redisTasks cannot run a task on Cloudflare Workers: use durableObjectTasks from edge-mcp/cloudflare',
        )
      if (closed) throw new McpError(ErrorCode.InternalError, 'redisTasks is closed: this instance is shutting down')
      let live = 0
      for (const entry of entries.values()) if (!entry.runDone) live++
      if (live >= maxTasks)
        throw new McpError(ErrorCode.InternalError, `Too many tasks: this instance runs at most ${maxTasks} (maxTasks)`)
      const engine = new TaskEngine(newTaskRecord(job, { ttlMs, pollIntervalMs }), {
        persist: async (r) => void (await write(r)),
      })
      const taskId = engine.taskId
      try {
        await ensureInbox()
        await write(engine.record, 'start')
      } catch (error) {
        if (error instanceof McpError) throw error
        throw retry('a task could not be started in Redis', taskId, error)
      }
      const ttlTimer = setTimeout(() => forget(taskId), ttlMs)
      ;(ttlTimer as { unref?: () => void }).unref?.() // a kept task does not keep the process alive
      const entry: Entry = { engine, renewedAt: Date.now(), dirty: false, runDone: false, ttlTimer }
      entries.set(taskId, entry)
      if (!renewer) {
        renewer = setInterval(() => void renew(), Math.max(1, Math.floor(leaseMs / 3)))
        ;(renewer as { unref?: () => void }).unref?.()
      }
      const seed = engine.seed()
      const runInfo: typeof info = {}
      if (info.env !== undefined) runInfo.env = info.env
      if (info.executionCtx !== undefined) runInfo.executionCtx = info.executionCtx
      void engine
        .run(host, runInfo)
        .catch((error: unknown) => logError(logger, 'tasks.redis', `redisTasks: task ${short(taskId)} failed`, error))
        .finally(() => {
          entry.runDone = true
          settle(entry)
        })
      return seed
    },
    async get(taskId, principal): Promise<DetailedTask | undefined> {
      const found = await read(taskId, principal, 'tasks/get')
      if (!found) return undefined
      const { record, owner } = found
      if (!TERMINAL.has(record.task.status) && owner === undefined) {
        const error = { code: ErrorCode.InternalError, message: INTERRUPTED_MESSAGE }
        Object.assign(record, { error, pending: {} })
        Object.assign(record.task, { status: 'failed', statusMessage: INTERRUPTED_MESSAGE })
      }
      return new TaskEngine(record).view()
    },
    update: (taskId, principal, inputResponses) => act('update', taskId, principal, inputResponses),
    cancel: (taskId, principal) => act('cancel', taskId, principal),
    async close() {
      if (closed) return
      closed = true
      if (renewer) clearInterval(renewer)
      renewer = undefined
      const held = [...entries.values()]
      entries.clear()
      for (const { engine, ttlTimer } of held) {
        clearTimeout(ttlTimer)
        engine.expire()
      }
      for (const w of waiting.values()) w.reject(new Error('redisTasks closed'))
      waiting.clear()
      const subs = [inboxSub, replySub].map(
        (s) =>
          s &&
          bounded(
            s.then((stop) => stop()),
            timeoutMs,
            'unsubscribe',
          ),
      )
      inboxSub = replySub = undefined
      await Promise.allSettled([
        ...subs,
        ...held.map(({ engine }) => command(['EVAL', RELEASE, '1', leaseKey(engine.taskId), instanceId])),
      ])
    },
  })
  return store
}
