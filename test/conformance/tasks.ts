/**
 * Fixture tools of the tasks extension's server scenarios (`io.modelcontextprotocol/tasks`, ext-tasks
 * specification/2026-07-28/tasks.md; the conformance suite's `tasks-*` scenarios), written with the SDK's
 * public API the way a user would: `task: 'required' | 'optional'` at registration, `ctx.task.ask(elicit(…))`
 * for questions inside a task, `ctx.signal` for `tasks/cancel`, a resolver for a question asked over MRTR
 * before the task exists. The server needs `McpServerOptions.tasks` (the fixture passes `inMemoryTasks()`).
 *
 * - `greet`: never a task; `Hello, {name}!`.
 * - `slow_compute`: a task when the request declares the extension (else synchronous); sleeps `seconds`
 *   (0: at once), and stops when the task is cancelled (the task then settles `cancelled`).
 * - `failing_job`: always a task; after about a second, a tool error (`completed`, `result.isError`).
 * - `protocol_error_job`: a task that throws McpError -32603 (`failed`, its `error` inlined).
 * - `confirm_delete`: a task that asks one confirmation (`input_required` until `tasks/update` answers it).
 * - `multi_input`: a task that asks two questions at once (two `inputRequests` keys pending together).
 * - `test_tool_with_task`: always a task, after a `user_name` question asked over MRTR first; its result
 *   names the user.
 */
import * as v from 'valibot'
import { ErrorCode, McpError } from '../../src/index.ts'
import { elicit, formSchema, resolver, type McpServer } from '../../src/server/index.ts'

const Name = formSchema({ name: v.string() })
const Confirm = formSchema({ confirm: v.boolean() })

/** The MRTR question of `test_tool_with_task`, answered before the task is created. */
const user_name = resolver({}, function user_name() {
  return elicit('What is your name?', Name)
})

/**
 * Wait `ms`, or until `signal` aborts (then resolve at once: the task is already cancelled, its result unused).
 */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
  })
}

/** Register the tasks scenarios' fixture tools on `mcp` (which must have `McpServerOptions.tasks`). */
export function addTaskTools(mcp: McpServer): void {
  mcp.tool(
    'greet',
    { description: 'Greets by name (never a task)', input: { name: v.string() } },
    ({ name }) => `Hello, ${name}!`,
  )
  mcp.tool(
    'slow_compute',
    {
      description: 'Sleeps for `seconds` then answers; a task when the client declares the tasks extension',
      input: {
        seconds: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(3600))),
        label: v.optional(v.string()),
      },
      task: 'optional',
    },
    async ({ seconds = 1, label = 'unlabelled' }, ctx) => {
      await ctx.task?.status(`Computing ${label} for ${seconds} s`)
      await sleep(seconds * 1000, ctx.signal)
      if (ctx.signal.aborted) return `Cancelled ${label}`
      return `Computed ${label} after ${seconds} s`
    },
  )
  mcp.tool(
    'failing_job',
    { description: 'Always a task; fails with a tool error after about a second', task: 'required' },
    async (_args, ctx) => {
      await sleep(1000, ctx.signal)
      return { content: [{ type: 'text', text: 'failing_job failed (a tool execution error)' }], isError: true }
    },
  )
  mcp.tool(
    'protocol_error_job',
    { description: 'A task that ends in a protocol error (failed)', task: 'optional' },
    () => {
      throw new McpError(ErrorCode.InternalError, 'protocol_error_job: internal failure', { fixture: true })
    },
  )
  mcp.tool(
    'confirm_delete',
    {
      description: 'A task that asks for one confirmation before it deletes',
      input: { filename: v.optional(v.string()) },
      task: 'optional',
    },
    async ({ filename = 'the file' }, ctx) => {
      const answer = await ctx.task!.ask(elicit(`Delete ${filename}?`, Confirm))
      return answer.action === 'accept' && answer.value.confirm ? `Deleted ${filename}` : `Kept ${filename}`
    },
  )
  mcp.tool(
    'multi_input',
    { description: 'A task that asks two questions at once', task: 'optional' },
    async (_args, ctx) => {
      const [who, ok] = await Promise.all([
        ctx.task!.ask(elicit('What is your name?', Name)),
        ctx.task!.ask(elicit('Go ahead?', Confirm)),
      ])
      const name = who.action === 'accept' ? who.value.name : '(declined)'
      const confirmed = ok.action === 'accept' && ok.value.confirm
      return `multi_input: name ${name}, confirmed ${confirmed}`
    },
  )
  mcp.tool(
    'test_tool_with_task',
    {
      description: 'Asks for user_name over MRTR, then runs as a task whose result names the user',
      use: { who: user_name },
      task: 'required',
    },
    ({ who }) => `Hello, ${who.name}! (from a task)`,
  )
}
