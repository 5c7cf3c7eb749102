/**
 * Tasks on Cloudflare Workers (ext-tasks specification/2026-07-28/tasks.md): one Durable Object per task,
 * named by the task id, that holds the task's record in its storage and runs the task's work itself, so
 * the task outlives the request that started it and answers `tasks/get`, `tasks/update` and `tasks/cancel`
 * from whichever isolate receives them. An alarm at the task's TTL aborts the work and deletes the task.
 *
 * The Worker talks to the object over an internal HTTP exchange (never exposed to clients): `POST /start`
 * with the new task's record, then `POST /get`, `/update`, `/cancel` with the task id and the caller's
 * principal; an unknown task, an expired one and another principal's all answer 404.
 * @module
 */
import type { McpServer } from '../server/mcp-server.ts'
import type { RequestInfo } from '../server/context.ts'
import { UpstreamError, messageOf } from '../server/errors.ts'
import { DEFAULT_POLL_INTERVAL_MS, DEFAULT_TTL_MS, TaskEngine, newTaskRecord } from '../server/tasks/engine.ts'
import { defineTaskStore, taskHostOf } from '../server/tasks/install.ts'
import type { TaskHost, TaskRecord, TaskStore, TaskTimingOptions } from '../server/tasks/types.ts'
import type { DetailedTask, Task } from '../protocol/schemas/index.ts'

/**
 * The binding name the README and the demo use.
 * @internal not in the public API: the `binding` default
 */
export const DEFAULT_TASKS_BINDING = 'MCP_TASKS'

/**
 * While a task's work runs, the object sets its alarm at most this far ahead (milliseconds), so that it
 * is never idle long enough to be evicted; once the work has ended, the alarm is the task's expiry.
 * @internal not in the public API: a timing of the Durable Object task
 */
export const HEARTBEAT_MS = 30_000

/** What the task store needs of a Durable Object namespace binding (`DurableObjectNamespace` fits). */
export interface TaskNamespace {
  idFromName(name: string): unknown
  get(id: never): { fetch(input: string, init?: RequestInit): Promise<Response> }
}

/** What a task object needs of its `DurableObjectState` (the first constructor argument; it fits). */
export interface TaskObjectState {
  readonly storage: {
    get(key: string): Promise<unknown>
    put(key: string, value: unknown): Promise<void>
    deleteAll(): Promise<unknown>
    setAlarm(scheduledTime: number): Promise<void>
    deleteAlarm(): Promise<void>
  }
}

/** The Durable Object class {@link taskObject} returns: construct with the object's state and the Worker's `env`. */
export interface TaskObjectClass<Env> {
  new (
    state: TaskObjectState,
    env: Env,
  ): {
    fetch(request: Request): Promise<Response>
    alarm(): Promise<void>
  }
}

/** The internal HTTP exchange with the object (never exposed to clients). */
const ORIGIN = 'https://tasks.edge-mcp.internal'
const RECORD_KEY = 'record'
/** What a task id looks like (the SDK's are 22 characters); anything else is unknown without asking an object. */
const TASK_ID = /^[\w-]{16,128}$/
const NOT_FOUND = 404

/**
 * The Durable Object class of tasks, running each task's work through the `McpServer` that `factory`
 * returns for the Worker's `env` (built once per object; its tools are the tasks' tools, so build it as the
 * Worker does, with `tasks: durableObjectTasks(…)`). Export it from the Worker's main module and bind it:
 *
 * ```toml
 * [[durable_objects.bindings]]
 * name = "MCP_TASKS"
 * class_name = "McpTasks"
 *
 * [[migrations]]
 * tag = "v3" # the next tag of your migrations
 * new_sqlite_classes = ["McpTasks"]
 * ```
 *
 * One object per task, named by its id. It stores the task's record (status, outstanding questions,
 * result or error; JSON) on every change, runs the work in memory, and keeps an alarm: every
 * {@link HEARTBEAT_MS} while the work runs, at the task's expiry once it has ended. At expiry the work is
 * aborted (`ctx.signal`) and the task deleted (then: not found). If the object restarts while the work runs
 * (a deploy, an eviction), the work is lost: the task is then `failed` with -32603 "The task was
 * interrupted (the server restarted); call the tool again".
 * @param factory - the server whose tools the tasks run, for the Worker's `env`; called once per object.
 * @example export const McpTasks = taskObject((env: Env) => createServer(env))
 */
export function taskObject<Env>(factory: (env: Env) => McpServer): TaskObjectClass<Env> {
  return class McpTasks {
    readonly #state: TaskObjectState
    readonly #env: Env
    #host: TaskHost | undefined
    /** The task, once loaded or started in this instance (undefined: none, or deleted). */
    #engine: TaskEngine | undefined
    #loading: Promise<TaskEngine | undefined> | undefined
    /** Whether the task's work runs in this instance. */
    #running = false

    constructor(state: TaskObjectState, env: Env) {
      this.#state = state
      this.#env = env
    }

    async fetch(request: Request): Promise<Response> {
      if (request.method !== 'POST') return new Response('method not allowed', { status: 405 })
      let body: { taskId?: unknown; principal?: unknown; inputResponses?: unknown; record?: unknown }
      try {
        body = (await request.json()) as typeof body
      } catch {
        return new Response('bad body', { status: 400 })
      }
      const path = new URL(request.url).pathname
      if (path === '/start') return this.#start(body.record)
      const { taskId, principal, inputResponses } = body
      if (typeof taskId !== 'string' || (principal !== undefined && typeof principal !== 'string')) {
        return new Response('bad task id or principal', { status: 400 })
      }
      const engine = await this.#task(taskId, principal)
      if (!engine) return new Response('not found', { status: NOT_FOUND })
      if (path === '/get') return Response.json(engine.view())
      if (path === '/cancel') {
        await engine.cancel()
        return new Response(null, { status: 204 })
      }
      if (path === '/update' && typeof inputResponses === 'object' && inputResponses !== null) {
        await engine.update(inputResponses as Record<string, unknown>)
        return new Response(null, { status: 204 })
      }
      return new Response('not found', { status: 404 })
    }

    /** The alarm: the task expires, or (while its work runs) the next heartbeat is set. */
    async alarm(): Promise<void> {
      const engine = await this.#load()
      if (!engine || engine.expired()) return this.#delete()
      await this.#schedule(engine)
    }

    async #start(value: unknown): Promise<Response> {
      const record = value as TaskRecord | undefined
      if (typeof record?.task?.taskId !== 'string' || typeof record.job !== 'object' || record.job === null) {
        return new Response('bad record', { status: 400 })
      }
      if (this.#engine || (await this.#state.storage.get(RECORD_KEY)) !== undefined) {
        return new Response('task exists', { status: 409 })
      }
      let host: TaskHost | undefined
      try {
        host = this.#host ??= taskHostOf(factory(this.#env))
      } catch (error) {
        return new Response(`the task object's server could not be built: ${messageOf(error)}`, { status: 500 })
      }
      if (!host) return new Response("the task object's McpServer has no `tasks` option", { status: 500 })
      const storage = this.#state.storage
      const engine = new TaskEngine(record, { persist: (r) => storage.put(RECORD_KEY, r) })
      await storage.put(RECORD_KEY, record)
      this.#engine = engine
      this.#running = true
      await this.#schedule(engine)
      void engine.run(host, { env: this.#env }).finally(() => {
        this.#running = false
        if (this.#engine === engine) return this.#schedule(engine).catch(() => {})
      })
      return Response.json(engine.seed(), { status: 201 })
    }

    /** The task if it is `taskId`'s, live and the caller's; an expired one is deleted. */
    async #task(taskId: string, principal: string | undefined): Promise<TaskEngine | undefined> {
      const engine = await this.#load()
      if (!engine || engine.taskId !== taskId) return undefined
      if (engine.expired()) {
        await this.#delete()
        return undefined
      }
      return engine.owns(principal) ? engine : undefined
    }

    /**
     * The task: in memory, or rebuilt from storage. Rebuilt, its work is not running here (the object
     * restarted): a task still working or waiting is failed as interrupted.
     */
    #load(): Promise<TaskEngine | undefined> {
      if (this.#engine) return Promise.resolve(this.#engine)
      this.#loading ??= (async () => {
        const storage = this.#state.storage
        const record = (await storage.get(RECORD_KEY)) as TaskRecord | undefined
        if (!record || this.#engine) return this.#engine
        const engine = new TaskEngine(record, { persist: (r) => storage.put(RECORD_KEY, r) })
        this.#engine = engine
        if (!engine.terminal && !engine.expired()) await engine.interrupted()
        return engine
      })().finally(() => {
        this.#loading = undefined
      })
      return this.#loading
    }

    /** The next alarm: the heartbeat while the work runs (never past expiry), else the expiry. */
    #schedule(engine: TaskEngine): Promise<void> {
      const expiresAt = engine.record.expiresAt
      const at = this.#running ? Math.min(Date.now() + HEARTBEAT_MS, expiresAt) : expiresAt
      return this.#state.storage.setAlarm(at)
    }

    /** Expire the task: abort its work, forget it, delete its storage. */
    async #delete(): Promise<void> {
      this.#engine?.expire()
      this.#engine = undefined
      await this.#state.storage.deleteAlarm()
      await this.#state.storage.deleteAll()
    }
  }
}

/** Check a timing option: an integer number of milliseconds > 0. */
function checkedMs(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive integer number of milliseconds, got ${value}`)
  }
  return value
}

/**
 * Tasks in Durable Objects (of the class {@link taskObject} returns), for the server option `tasks`: each
 * task is one object named by its id, which stores it and runs its work (in the object, through the
 * object's own server, not the one that received the `tools/call`). `start` resolves once the object has
 * stored the task, so `tasks/get` from any isolate finds it.
 *
 * A missing binding fails each task request (-32603, logged) with an error naming the binding and how to
 * add it; an object that cannot be reached or answers badly fails it with an `UpstreamError`.
 * @param binding - the binding's name in the Worker's `env` (default `"MCP_TASKS"`), the namespace, or a
 *   function of each request's info returning it.
 * @param options - `ttlMs` (default 3,600,000: 1 h) and `pollIntervalMs` (default 1,000), integer
 *   milliseconds.
 * @throws RangeError for a `ttlMs` or `pollIntervalMs` that is not a positive integer.
 * @example new McpServer(info, { tasks: durableObjectTasks() })
 */
export function durableObjectTasks(
  binding: string | TaskNamespace | ((info: RequestInfo) => TaskNamespace) = DEFAULT_TASKS_BINDING,
  options: TaskTimingOptions = {},
): TaskStore {
  const timing = {
    ttlMs: checkedMs('ttlMs', options.ttlMs, DEFAULT_TTL_MS),
    pollIntervalMs: checkedMs('pollIntervalMs', options.pollIntervalMs, DEFAULT_POLL_INTERVAL_MS),
  }
  const namespaceOf = (info: RequestInfo): TaskNamespace => {
    const namespace =
      typeof binding === 'string'
        ? ((info.env as Record<string, unknown> | undefined)?.[binding] as TaskNamespace | undefined)
        : typeof binding === 'function'
          ? binding(info)
          : binding
    if (typeof namespace?.idFromName !== 'function' || typeof namespace.get !== 'function') {
      const name = typeof binding === 'string' ? `env.${binding}` : 'The tasks binding'
      throw new Error(
        `${name} is not bound to a Durable Object namespace: bind it in wrangler.toml ` +
          `([[durable_objects.bindings]] name = "${typeof binding === 'string' ? binding : DEFAULT_TASKS_BINDING}", ` +
          `class_name = "McpTasks", with a migration) and export McpTasks = taskObject(…) from 'edge-mcp/cloudflare' in the Worker`,
      )
    }
    return namespace
  }
  const post = async (info: RequestInfo, taskId: string, path: string, body: unknown): Promise<Response> => {
    const namespace = namespaceOf(info)
    try {
      return await namespace.get(namespace.idFromName(taskId) as never).fetch(ORIGIN + path, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      })
    } catch (cause) {
      throw new UpstreamError(`the task object could not be reached: ${messageOf(cause)}`, { cause })
    }
  }
  /** `true` for a 204, `false` for a 404; otherwise an UpstreamError. */
  const ack = async (res: Response): Promise<boolean> => {
    const text = res.status === 204 ? '' : await res.text()
    if (res.status === 204) return true
    if (res.status === NOT_FOUND) return false
    throw new UpstreamError(`the task object answered ${res.status}: ${text.slice(0, 200)}`)
  }
  return defineTaskStore({
    async start(job, _host, info): Promise<Task> {
      const record = newTaskRecord(job, timing)
      const res = await post(info, record.task.taskId, '/start', { record })
      if (res.status !== 201) {
        const text = await res.text()
        throw new UpstreamError(`the task object answered ${res.status} to a start: ${text.slice(0, 200)}`)
      }
      return (await res.json()) as Task
    },
    async get(taskId, principal, info): Promise<DetailedTask | undefined> {
      if (!TASK_ID.test(taskId)) return undefined
      const res = await post(info, taskId, '/get', { taskId, principal })
      if (res.status === 200) return (await res.json()) as DetailedTask
      await ack(res)
      return undefined
    },
    async update(taskId, principal, inputResponses, info): Promise<boolean> {
      if (!TASK_ID.test(taskId)) return false
      return ack(await post(info, taskId, '/update', { taskId, principal, inputResponses }))
    },
    async cancel(taskId, principal, info): Promise<boolean> {
      if (!TASK_ID.test(taskId)) return false
      return ack(await post(info, taskId, '/cancel', { taskId, principal }))
    },
  })
}
