/**
 * The parts of the Redis task store that are not its state: the Lua scripts of its fenced writes, its record
 * size limit, and the checks of its options.
 * @module
 */
import { ErrorCode, McpError } from '../protocol/errors.ts'
import { UpstreamError, messageOf } from '../server/errors.ts'
import type { TaskRecord } from '../server/tasks/types.ts'
import { within } from './connection.ts'

/** The largest task record, JSON bytes (UTF-8): 2 MiB, a Durable Object's SQLite value limit. */
export const MAX_RECORD_BYTES = 2 * 1024 * 1024
export const DEFAULT_LEASE_MS = 15_000
export const DEFAULT_MAX_TASKS = 1_000
export const DEFAULT_COMMAND_TIMEOUT_MS = 5_000
/** What a task id looks like (the SDK's are 22 characters); anything else is unknown without asking Redis. */
export const TASK_ID = /^[\w-]{16,128}$/
export const TERMINAL = new Set(['completed', 'failed', 'cancelled'])

/**
 * The fenced write (KEYS: record, lease; ARGV: instance id, record JSON, record TTL ms, mode, lease ms).
 * `start` takes the lease (it must be free); `write` and `final` write only while the lease holds the
 * instance's id, `write` renewing it and `final` deleting it. Returns 1 when written, 0 when fenced off.
 */
export const WRITE = `local holder = redis.call('GET', KEYS[2])
if ARGV[4] == 'start' then
  if holder then return 0 end
elseif holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
if ARGV[4] == 'final' then redis.call('DEL', KEYS[2]) else redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[5]) end
return 1`
/** Delete the lease (KEYS[1]) if it holds ARGV[1]. */
export const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`

/**
 * The record as JSON, or the McpError -32603 that fails its task: over {@link MAX_RECORD_BYTES} (naming its
 * size and the limit), or not JSON at all (a BigInt, a cycle).
 */
export function encode(record: TaskRecord): string | McpError {
  let json: string
  try {
    json = JSON.stringify(record)
  } catch (error) {
    return new McpError(
      ErrorCode.InternalError,
      `The task's result cannot be stored: it is not JSON (${messageOf(error)})`,
    )
  }
  const size = new TextEncoder().encode(json).byteLength
  if (size <= MAX_RECORD_BYTES) return json
  return new McpError(
    ErrorCode.InternalError,
    `The task's record is ${size} bytes of JSON, over the limit of ${MAX_RECORD_BYTES} bytes (2 MiB) of a task in Redis`,
  )
}

/** A timing or count option: a positive integer (at most `max`), or `fallback` when undefined. */
export function checked(
  name: string,
  value: number | undefined,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback
  if (!(Number.isInteger(value) && value > 0 && value <= max))
    throw new RangeError(`redisTasks: ${name} must be a positive integer, got ${String(value)}`)
  return value
}

/**
 * `work`, or an UpstreamError "`what` within `ms` ms" once `ms` milliseconds have passed without it settling.
 */
export function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return within(work, ms, () => new UpstreamError(`${what} within ${ms} ms`))
}

/** A task id as logs show it: its first 6 characters (the whole id is what protects a task without auth). */
export function short(taskId: string): string {
  return `${taskId.slice(0, 6)}…`
}
