/**
 * Where `notifications/tasks` (ext-tasks "Task Status Notifications") meet the task loop: `listen` hands
 * each one it receives on a stream with `taskIds` to {@link deliverTaskNotification}; a running task loop
 * (tasks.ts) watches its task id on the same transport and takes the notified state at once instead of
 * waiting for its next poll. Polling stays the baseline: a notification only comes earlier.
 * @module
 */
import type { DetailedTask, JSONRPCNotification } from '../protocol/schemas/index.ts'
import { readTask } from './task-result.ts'

type Watcher = (task: DetailedTask) => void

/** By transport (a Client and its listen streams share it), the watchers of each task id. */
const watching = new WeakMap<object, Map<string, Set<Watcher>>>()

/** Call `watcher` with each state of task `taskId` notified on `transport`. @returns the unwatch. */
export function watchTask(transport: object, taskId: string, watcher: Watcher): () => void {
  let byId = watching.get(transport)
  if (!byId) watching.set(transport, (byId = new Map<string, Set<Watcher>>()))
  const set = byId.get(taskId) ?? new Set()
  byId.set(taskId, set.add(watcher))
  return () => {
    set.delete(watcher)
    if (set.size === 0) byId.delete(taskId)
  }
}

/** Hand a `notifications/tasks` received on `transport` to the watchers of its task (a malformed one is ignored). */
export function deliverTaskNotification(transport: object, notification: JSONRPCNotification): void {
  if (notification.method !== 'notifications/tasks') return
  const params = notification.params ?? {}
  const watchers = typeof params.taskId === 'string' ? watching.get(transport)?.get(params.taskId) : undefined
  if (!watchers) return
  let task: DetailedTask
  try {
    task = readTask(params, 'notifications/tasks')
  } catch {
    return // polling finds the task's state anyway
  }
  for (const watcher of watchers) watcher(task)
}
