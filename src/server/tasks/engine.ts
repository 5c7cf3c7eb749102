/**
 * One task's state machine (ext-tasks specification/2026-07-28/tasks.md "Task Status"): its JSON record,
 * the run's side of it ({@link TaskRunContext}: status, progress, questions, the abort signal) and the
 * client's (`tasks/get`, `tasks/update`, `tasks/cancel`). Both the in-memory store and the Durable Object
 * keep their tasks in it; every change is handed to `persist`.
 * @module
 */
import { ErrorCode } from '../../protocol/errors.ts'
import type { DetailedTask, InputRequest, Task } from '../../protocol/schemas/index.ts'
import type { RequestInfo } from '../context.ts'
import {
  PROGRESS_META,
  type TaskHost,
  type TaskJob,
  type PendingRequest,
  type TaskOutcome,
  type TaskRecord,
  type TaskRunContext,
} from './types.ts'

/** Default time to live of a task: 1 hour, in milliseconds. */
export const DEFAULT_TTL_MS = 3_600_000
/** Default suggested polling interval, in milliseconds. */
export const DEFAULT_POLL_INTERVAL_MS = 1_000

/** The message of a task whose run was lost (its server restarted), `failed` with -32603. */
export const INTERRUPTED_MESSAGE = 'The task was interrupted (the server restarted); call the tool again'

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled'])

/** Options of a {@link TaskEngine}. */
export interface TaskEngineOptions {
  /** Called with the record after every change (in memory: nothing; a Durable Object: `storage.put`). */
  persist?: (record: TaskRecord) => void | Promise<void>
  /** Called after every change the client may see (e.g. to send `notifications/tasks`). */
  onChange?: (engine: TaskEngine) => void
}

/**
 * A new task's record: an unguessable id (22 characters of base64url: 16 random bytes), status `working`,
 * `createdAt` now.
 * @param timing - `ttlMs` and `pollIntervalMs`, integer milliseconds (checked by the store).
 */
export function newTaskRecord(
  job: TaskJob,
  timing: { ttlMs: number; pollIntervalMs: number },
  now: number = Date.now(),
): TaskRecord {
  const at = new Date(now).toISOString()
  const task: Task = {
    taskId: newTaskId(),
    status: 'working',
    createdAt: at,
    lastUpdatedAt: at,
    ttlMs: timing.ttlMs,
    pollIntervalMs: timing.pollIntervalMs,
  }
  const record: TaskRecord = { task, job, pending: {}, counter: 0, expiresAt: now + timing.ttlMs }
  if (job.principal !== undefined) record.principal = job.principal
  return record
}

/** 16 random bytes as 22 characters of base64url. */
export function newTaskId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '')
}

/** A batch of requests one `ask` is waiting on. */
interface Waiting {
  resolve: (answers: Record<string, unknown>) => void
  reject: (reason: unknown) => void
}

/**
 * One task: its record and, while its run is live in this isolate, the run's side. Terminal states are
 * sticky: after `completed`, `failed` or `cancelled` nothing changes the task (a run finishing after a
 * cancel is ignored).
 */
export class TaskEngine implements TaskRunContext {
  readonly record: TaskRecord
  readonly #controller = new AbortController()
  readonly #persist: TaskEngineOptions['persist']
  readonly #onChange: TaskEngineOptions['onChange']
  /** The live asks by batch number (empty once the run is gone). */
  readonly #waiting = new Map<number, Waiting>()
  /** Deleted (expired): nothing is persisted any more. */
  #gone = false
  /** Changes are persisted one after another, in order. */
  #saving: Promise<void> = Promise.resolve()

  constructor(record: TaskRecord, options: TaskEngineOptions = {}) {
    this.record = record
    this.#persist = options.persist
    this.#onChange = options.onChange
  }

  get taskId(): string {
    return this.record.task.taskId
  }

  /** Aborts on cancel and at expiry. */
  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /** Whether the task is completed, failed or cancelled. */
  get terminal(): boolean {
    return TERMINAL.has(this.record.task.status)
  }

  /** Whether a task bound to `principal` (undefined: none) is this caller's. */
  owns(principal: string | undefined): boolean {
    return this.record.principal === principal
  }

  /** Whether the task has outlived its TTL at `now` (epoch ms). */
  expired(now: number = Date.now()): boolean {
    return now >= this.record.expiresAt
  }

  /**
   * Start the run: `host.run(job, this)`; its outcome completes or fails the task (unless it is terminal
   * already). Resolves when the run has ended.
   */
  async run(host: TaskHost, info?: RequestInfo): Promise<void> {
    let outcome: TaskOutcome
    try {
      outcome = await host.run(this.record.job, this, info)
    } catch {
      outcome = { error: { code: ErrorCode.InternalError, message: 'Internal error' } }
    }
    await this.finish(outcome)
  }

  /** End the task with its run's outcome (ignored when terminal). */
  async finish(outcome: TaskOutcome): Promise<void> {
    if (this.terminal || this.#gone) return
    const record = this.record
    this.#dropWaiting(new Error('the task ended'))
    record.pending = {}
    if ('result' in outcome) {
      record.result = outcome.result
      this.#set('completed')
    } else {
      record.error = outcome.error
      record.task.statusMessage = outcome.error.message
      this.#set('failed')
    }
    await this.#changed()
  }

  /** @inheritdoc */
  async status(message: string): Promise<void> {
    if (this.terminal || this.#gone) return
    this.record.task.statusMessage = message
    this.#touch()
    await this.#changed()
  }

  /** @inheritdoc */
  async progress(progress: number, total?: number, message?: string): Promise<void> {
    if (this.terminal || this.#gone) return
    const task = this.record.task
    const value: Record<string, number> = { progress }
    if (total !== undefined) value.total = total
    task._meta = { ...task._meta, [PROGRESS_META]: value }
    if (message !== undefined) task.statusMessage = message
    this.#touch()
    await this.#changed()
  }

  /** @inheritdoc */
  ask(requests: Record<string, InputRequest>): Promise<Record<string, unknown>> {
    if (this.signal.aborted) return Promise.reject(this.signal.reason as Error)
    if (this.terminal || this.#gone) return Promise.reject(new Error('the task has ended'))
    const entries = Object.entries(requests)
    if (entries.length === 0) return Promise.resolve({})
    const record = this.record
    const batch = ++record.counter
    for (const [originalKey, request] of entries) {
      const key = `${originalKey}.${++record.counter}` // unique over the task's life: the number only grows
      record.pending[key] = { request, originalKey, batch }
    }
    const answers = new Promise<Record<string, unknown>>((resolve, reject) =>
      this.#waiting.set(batch, { resolve, reject }),
    )
    this.#set('input_required')
    this.#changed().catch(() => {}) // the run waits for the answers; tasks/get reads the record in memory
    return answers
  }

  /**
   * `tasks/update`: take the answers to outstanding keys (others are ignored); an `ask` whose keys are
   * all answered resolves, and the task is `working` again once none is outstanding.
   */
  async update(inputResponses: Record<string, unknown>): Promise<void> {
    if (this.terminal || this.#gone) return
    const pending = this.record.pending
    let took = false
    for (const [key, answer] of Object.entries(inputResponses)) {
      const entry = Object.hasOwn(pending, key) ? pending[key] : undefined
      if (!entry || Object.hasOwn(entry, 'answer')) continue
      entry.answer = answer
      took = true
    }
    if (!took) return
    const byBatch = new Map<number, [string, PendingRequest][]>()
    for (const [key, p] of Object.entries(pending)) byBatch.set(p.batch, [...(byBatch.get(p.batch) ?? []), [key, p]])
    for (const [batch, members] of byBatch) {
      if (!members.every(([, p]) => Object.hasOwn(p, 'answer'))) continue
      const answers: Record<string, unknown> = {}
      for (const [key, p] of members) {
        answers[p.originalKey] = p.answer
        delete pending[key]
      }
      const waiting = this.#waiting.get(batch)
      this.#waiting.delete(batch)
      waiting?.resolve(answers)
    }
    if (!Object.values(pending).some((p) => !Object.hasOwn(p, 'answer'))) this.#set('working')
    else this.#touch()
    await this.#changed()
  }

  /** `tasks/cancel`: `cancelled` at once and the run's signal aborted; a terminal task stays as it is. */
  async cancel(): Promise<void> {
    if (this.terminal || this.#gone) return
    this.record.pending = {}
    this.#set('cancelled')
    this.#abort(new Error('The task was cancelled'))
    await this.#changed()
  }

  /**
   * The task's run was lost (a Durable Object restarted mid-run): a task still working or waiting is
   * `failed` -32603 {@link INTERRUPTED_MESSAGE}.
   */
  async interrupted(): Promise<void> {
    await this.finish({ error: { code: ErrorCode.InternalError, message: INTERRUPTED_MESSAGE } })
  }

  /** The TTL passed: the run is aborted and nothing is persisted any more (the store deletes the task). */
  expire(): void {
    this.#gone = true
    this.#abort(new Error('The task expired'))
  }

  /** The task as `tasks/get` returns it (without `resultType`): outstanding requests, result or error inlined. */
  view(): DetailedTask {
    const record = this.record
    const out: Record<string, unknown> = { ...record.task }
    if (out._meta) out._meta = { ...record.task._meta }
    const status = record.task.status
    if (status === 'input_required') {
      const inputRequests: Record<string, InputRequest> = {}
      for (const [key, p] of Object.entries(record.pending))
        if (!Object.hasOwn(p, 'answer')) inputRequests[key] = p.request
      out.inputRequests = inputRequests
    } else if (status === 'completed') out.result = record.result
    else if (status === 'failed') out.error = record.error
    return out as DetailedTask
  }

  /** The task without its payload (a `CreateTaskResult` without `resultType`). */
  seed(): Task {
    const task = { ...this.record.task }
    if (task._meta) task._meta = { ...task._meta }
    return task
  }

  #set(status: Task['status']): void {
    this.record.task.status = status
    this.#touch()
  }

  #touch(): void {
    this.record.task.lastUpdatedAt = new Date().toISOString()
  }

  #abort(reason: Error): void {
    this.#dropWaiting(reason)
    this.#controller.abort(reason)
  }

  #dropWaiting(reason: unknown): void {
    for (const waiting of this.#waiting.values()) waiting.reject(reason)
    this.#waiting.clear()
  }

  /** Persist (in order; rejects when this save fails) and tell the listener. */
  #changed(): Promise<void> {
    const persist = this.#persist
    let saved: Promise<void> = Promise.resolve()
    if (persist && !this.#gone) {
      const record = this.record
      saved = this.#saving.then(() => persist(record))
      this.#saving = saved.catch(() => {}) // a failed save does not stop the next one
    }
    this.#onChange?.(this)
    return saved
  }
}
