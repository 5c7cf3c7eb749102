/**
 * The web demo's view of a task (the Tasks extension): a call the server runs as a task shows its status
 * text, a `<progress>` bar and a Cancel button; its id is kept in `sessionStorage` while it runs, so that a
 * reload of the page resumes it (`Client.resumeTask`). Every server-provided string goes through `textContent`.
 * @module
 */
import type { DetailedTask } from '../../src/index.ts'

/** The `sessionStorage` key of the running task. */
const STORAGE_KEY = 'edge-mcp-demo.task'
/** The `_meta` key of a task's progress (`{ progress, total? }`), as the edge-mcp server sends it. */
const PROGRESS_META = 'edge-mcp/progress'

/** A running task as saved for a reload: its id, the endpoint it lives on, and the call's label. */
export interface SavedTask {
  taskId: string
  endpoint: string
  label: string
}

/** The task panel's elements (index.html `#task`). */
export interface TaskView {
  section: HTMLElement
  status: HTMLElement
  id: HTMLElement
  progress: HTMLProgressElement
  cancel: HTMLButtonElement
}

const WORDS: Record<DetailedTask['status'], string> = {
  working: 'Working',
  input_required: 'Waiting for your answer',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
}

/** Whether a task status is final. */
export const isTerminal = (status: DetailedTask['status']): boolean =>
  status === 'completed' || status === 'failed' || status === 'cancelled'

/** Show `task`: its status in words with its `statusMessage`, its progress (indeterminate without a total). */
export function showTask(view: TaskView, task: DetailedTask): void {
  view.section.hidden = false
  view.id.textContent = `Task ${task.taskId}`
  view.status.textContent = task.statusMessage ? `${WORDS[task.status]}: ${task.statusMessage}` : WORDS[task.status]
  view.section.dataset.status = task.status
  const meta = task._meta?.[PROGRESS_META] as { progress?: unknown; total?: unknown } | undefined
  const progress = typeof meta?.progress === 'number' && Number.isFinite(meta.progress) ? meta.progress : undefined
  const total = typeof meta?.total === 'number' && meta.total > 0 ? meta.total : undefined
  if (task.status === 'completed') {
    view.progress.max = 1
    view.progress.value = 1
  } else if (progress !== undefined && total !== undefined) {
    view.progress.max = total
    view.progress.value = Math.min(progress, total)
  } else if (!isTerminal(task.status)) view.progress.removeAttribute('value') // indeterminate
  view.cancel.disabled = isTerminal(task.status)
}

/** The task ended without a result the server reported (cancelled here, or the call gave up): say so. */
export function showEnded(view: TaskView, status: 'cancelled' | 'failed', message: string): void {
  view.status.textContent = `${WORDS[status]}: ${message}`
  view.section.dataset.status = status
  view.cancel.disabled = true
}

/** Hide the panel (a new call, a new connection). */
export function hideTask(view: TaskView): void {
  view.section.hidden = true
  view.status.textContent = view.id.textContent = ''
  delete view.section.dataset.status
  view.progress.value = 0
  view.cancel.disabled = false
}

/** Keep the running task's id for a reload (nothing when storage is unavailable). */
export function saveTask(saved: SavedTask): void {
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(saved))
  } catch {
    // private mode or storage disabled: no resume after a reload
  }
}

/** The task saved for `endpoint`, if any. */
export function savedTask(endpoint: string): SavedTask | undefined {
  let saved: Partial<SavedTask> | null
  try {
    saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Partial<SavedTask> | null
  } catch {
    return undefined
  }
  if (typeof saved?.taskId !== 'string' || saved.endpoint !== endpoint || typeof saved.label !== 'string')
    return undefined
  return { taskId: saved.taskId, endpoint: saved.endpoint, label: saved.label }
}

/** Forget the saved task (it ended, or was cancelled). */
export function forgetTask(): void {
  try {
    sessionStorage.removeItem(STORAGE_KEY)
  } catch {
    // nothing saved
  }
}
