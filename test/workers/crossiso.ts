/**
 * The demo Worker (worker/index.ts) for the cross-isolate tests (test/e2e/crossiso.test.ts,
 * test/e2e/crossiso-bus.test.ts), plus one route, `GET /isolate`, that tells which Worker and which isolate
 * answered: `WORKER_NAME` (a var the test sets per Worker) and an id drawn at random once per isolate
 * (module memory; drawn on the first request, since workerd forbids randomness at start-up), and
 * `GET /bus-connections`: the bus object's open listen connections (`{ connections }`). `/mcp` is
 * the demo's MCP server (`durableObjectMailbox()` on `env.MCP_MAILBOX`, `durableObjectNotificationBus(env)`
 * on `env.MCP_NOTIFICATIONS`), with two test-only additions:
 * - `authorizeSubscription` refuses every URI under `secret:`;
 * - tool `publish_event` `{ kind, uri? }` publishes a server event (`resourceUpdated` through
 *   `mcp.resourceUpdated(uri)`, the others through `mcp.server.publish`), and tool `add_tool` `{ name }`
 *   registers a tool, which announces `toolsListChanged` by itself;
 * - tool `shelf_task` `{ ms, ask? }` always runs as a task (`env.MCP_TASKS`): it reports progress, asks
 *   "Count the returns shelf too?" when `ask` is set, waits `ms` milliseconds (ending early when the task is
 *   cancelled), and returns the answer and the id of the isolate that ran it;
 * - tasks started on the Worker named `short` live 1.5 s (`ttlMs`);
 * - `authenticate`: a request with `x-test-user: <name>` is that caller (`authInfo.clientId`), so tasks
 *   are bound to it; without the header the caller is anonymous.
 * - tool `slow` `{ ms }` waits `ms` milliseconds, ending early when its `ctx.signal` aborts, and says which
 *   (`{ aborted, isolate }`); `GET /slow-calls` counts this isolate's (`{ started, aborted, completed }`);
 * - `GET /` answers 200 (`wrangler dev`'s start-up probe, test/workerd.ts);
 * - the demo's `env.MCP_MAILBOX` is handed to it through a recorder of the keys each isolate's requests
 *   wait on (`POST /wait` to the object): `GET /mailbox-waits` lists them (`{ keys }`), and
 *   `POST /mailbox-probe` `{ key, ms }` waits on one itself for `ms` ms and answers with the object's
 *   status (`{ status }`: 504 nobody else waits and nothing is kept for it; 499 another wait holds it,
 *   "already waited on"; 200 it took what was kept for it).
 * It exports the three Durable Object classes (`McpTasks` running tasks through this same server).
 *
 * Bundled by `wrangler deploy --dry-run` with test/workers/crossiso.toml, then run by Miniflare as several
 * Workers (several isolates) that do or do not share the Durable Object namespaces.
 */
import * as v from 'valibot'
import type { MailboxNamespace, NotificationNamespace } from '../../src/cloudflare/index.ts'
import { elicit, formSchema } from '../../src/server/index.ts'
import { createDemoTasks, createDemoWorker, McpNotificationBus, McpQuestionMailbox } from '../../worker/index.ts'

interface Env {
  WORKER_NAME?: string
  MCP_NOTIFICATIONS?: NotificationNamespace
  MCP_MAILBOX?: MailboxNamespace
}

/** This isolate's calls of tool `slow`. */
const slowCalls = { started: 0, aborted: 0, completed: 0 }
/** The keys this isolate's requests waited on in the question mailbox, in order. */
const waited: string[] = []
let recorder: { of: MailboxNamespace; as: MailboxNamespace } | undefined
/** `namespace`, recording the key of each wait on it (one recorder per namespace, as the demo sees one). */
function recording(namespace: MailboxNamespace): MailboxNamespace {
  if (recorder?.of === namespace) return recorder.as
  const as: MailboxNamespace = {
    idFromName: (name) => namespace.idFromName(name),
    get(id) {
      const stub = namespace.get(id)
      return {
        fetch(input, init) {
          if (input.endsWith('/wait')) waited.push((JSON.parse(init?.body as string) as { qid: string }).qid)
          return stub.fetch(input, init)
        },
      }
    },
  }
  recorder = { of: namespace, as }
  return as
}

const ReturnsShelf = formSchema({ returns: v.optional(v.pipe(v.boolean(), v.title('Count returns')), false) })

let isolate: string | undefined
const isolateId = () => (isolate ??= crypto.randomUUID())

const hooks: Parameters<typeof createDemoWorker>[0] = {
  options: { authorizeSubscription: (uri) => !uri.startsWith('secret:') },
  taskTiming: (env) => ((env as Env).WORKER_NAME === 'short' ? { ttlMs: 1500 } : undefined),
  authenticate: (request) => {
    const user = request.headers.get('x-test-user')
    return user ? { clientId: user } : undefined
  },
  extend(mcp) {
    mcp.tool(
      'shelf_task',
      {
        description: 'Test only: a task that may ask a question and then waits.',
        input: { ms: v.number(), ask: v.optional(v.boolean()) },
        task: 'required',
      },
      async ({ ms, ask }, ctx) => {
        await ctx.task?.progress(1, 3, 'Shelf 1 of 3')
        let returns = 'not asked'
        if (ask) {
          const answer = await ctx.task!.ask(elicit('Count the returns shelf too?', ReturnsShelf))
          returns = answer.action === 'accept' ? String(answer.value.returns) : answer.action
        }
        await ctx.task?.progress(2, 3, 'Shelf 2 of 3')
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms)
          ctx.signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
        })
        return JSON.stringify({ returns, isolate: isolateId(), cancelled: ctx.signal?.aborted ?? false })
      },
    )
    mcp.tool(
      'publish_event',
      {
        description: 'Test only: publish a server event.',
        input: {
          kind: v.picklist(['toolsListChanged', 'promptsListChanged', 'resourcesListChanged', 'resourceUpdated']),
          uri: v.optional(v.string()),
        },
      },
      async ({ kind, uri }) => {
        if (kind === 'resourceUpdated') await mcp.resourceUpdated(uri ?? '')
        else await mcp.server.publish({ kind })
        return `published ${kind}`
      },
    )
    mcp.tool(
      'slow',
      { description: 'Test only: waits, ending early when cancelled.', input: { ms: v.number() } },
      async ({ ms }, ctx) => {
        slowCalls.started++
        const aborted = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), ms)
          ctx.signal.addEventListener('abort', () => (clearTimeout(timer), resolve(true)), { once: true })
        })
        slowCalls[aborted ? 'aborted' : 'completed']++ // counted at once: the answer of a cancelled call may go nowhere
        return JSON.stringify({ aborted, isolate: isolateId() })
      },
    )
    mcp.tool('add_tool', { description: 'Test only: register a tool.', input: { name: v.string() } }, ({ name }) => {
      mcp.tool(name, {}, () => name)
      return `added ${name}`
    })
  },
}
const demo = createDemoWorker(hooks)

export default {
  async fetch(request: Request, env: Env, ctx: Parameters<typeof demo.fetch>[2]): Promise<Response> {
    if (new URL(request.url).pathname === '/isolate') {
      return Response.json({ worker: env.WORKER_NAME ?? null, isolate: isolateId() })
    }
    if (new URL(request.url).pathname === '/bus-connections' && env.MCP_NOTIFICATIONS) {
      const bus = env.MCP_NOTIFICATIONS
      return bus.get(bus.idFromName('edge-mcp/notifications') as never).fetch('https://bus/connections')
    }
    if (new URL(request.url).pathname === '/') return new Response('crossiso')
    if (new URL(request.url).pathname === '/slow-calls') return Response.json(slowCalls)
    if (new URL(request.url).pathname === '/mailbox-waits') return Response.json({ keys: waited })
    if (new URL(request.url).pathname === '/mailbox-probe' && env.MCP_MAILBOX) {
      const { key, ms } = (await request.json()) as { key: string; ms: number }
      const box = env.MCP_MAILBOX
      const res = await box.get(box.idFromName(key) as never).fetch('https://mailbox/wait', {
        method: 'POST',
        body: JSON.stringify({ qid: key, timeoutMs: ms }),
      })
      await res.body?.cancel()
      return Response.json({ status: res.status })
    }
    const mailbox = env.MCP_MAILBOX && recording(env.MCP_MAILBOX)
    return demo.fetch(request, mailbox ? { ...env, MCP_MAILBOX: mailbox } : env, ctx)
  },
}
export { McpNotificationBus, McpQuestionMailbox }
export const McpTasks = createDemoTasks(hooks)
