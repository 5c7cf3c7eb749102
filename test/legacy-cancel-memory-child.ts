/**
 * The child process of e2e/legacy-cancel-bounds.test.ts, run with `--expose-gc`: a 2025-11-25 session
 * (capabilities `{}`) sends `count` `notifications/cancelled`, each naming a distinct request id of
 * `idChars` characters that no request has, then prints the heap (`heapUsed`, `arrayBuffers`) after a
 * forced GC before and after them, as one JSON line on stdout.
 *
 * argv[2], where the cancellations go:
 * - `http`: the fetch handler of an `McpServer` with its default (in-memory) mailbox;
 * - `hop`: the same with a mailbox behind an async hop (a shared mailbox of another process, in memory here);
 * - `durable`: the same with `durableObjectMailbox` over a namespace of `McpQuestionMailbox` objects kept
 *   in this process (what Cloudflare would hold for it);
 * - `stdio`: `serveStdio` of an `McpServer` with its default mailbox, the notifications as lines.
 * argv[3]: count; argv[4]: idChars.
 */
import { McpQuestionMailbox, durableObjectMailbox, type MailboxNamespace } from '../src/cloudflare/index.ts'
import {
  InMemoryQuestionMailbox,
  McpServer,
  createFetchHandler,
  serveStdio,
  type QuestionMailbox,
} from '../src/server/index.ts'

const [where = 'http', countArg = '200', charsArg = String(3 * 1024 * 1024)] = process.argv.slice(2)
const count = Number(countArg)
const idChars = Number(charsArg)
const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with --expose-gc')

/** The mailbox of each scenario; `objects` the Durable Objects it made. */
function mailboxOf(scenario: string): { mailbox?: QuestionMailbox; objects?: Map<unknown, McpQuestionMailbox> } {
  if (scenario === 'hop') {
    const inner = new InMemoryQuestionMailbox()
    const mailbox: QuestionMailbox = {
      wait: async (qid, timeoutMs, signal) => {
        await Promise.resolve()
        return inner.wait(qid, timeoutMs, signal)
      },
      deliver: async (qid, answer) => {
        await Promise.resolve()
        return inner.deliver(qid, answer)
      },
    }
    return { mailbox }
  }
  if (scenario === 'durable') {
    const objects = new Map<unknown, McpQuestionMailbox>()
    const namespace: MailboxNamespace = {
      idFromName: (name) => name,
      get: (id: unknown) => {
        let object = objects.get(id)
        if (!object) objects.set(id, (object = new McpQuestionMailbox()))
        return { fetch: (input, init) => object.fetch(new Request(input, init)) }
      },
    }
    return { mailbox: durableObjectMailbox(namespace)({}), objects }
  }
  return {}
}

const { mailbox, objects } = mailboxOf(where)
const mcp = new McpServer({ name: 'r15', version: '1' }, mailbox ? { legacyQuestions: { mailbox } } : {})
mcp.tool('noop', { description: 'does nothing' }, () => 'ok')

const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'r15', version: '1' } },
}
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' }
const filler = 'x'.repeat(idChars - 8)
/** The i-th cancellation: a distinct string id of `idChars` characters. */
const cancelLine = (i: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId: `0${String(i).padStart(7, '0')}${filler}`, reason: 'r15' },
  })

function heap() {
  gc!()
  gc!()
  const { heapUsed, arrayBuffers } = process.memoryUsage()
  return { heapUsed, arrayBuffers }
}

async function overHttp(): Promise<number[]> {
  const handler = createFetchHandler(mcp)
  const post = (body: string, headers: Record<string, string> = {}) =>
    handler(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body,
      }),
    )
  const init = await post(JSON.stringify(initialize))
  await init.body?.cancel()
  const session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' }
  await (await post(JSON.stringify(initialized), session)).body?.cancel()
  await settle()
  const before = heap()
  const statuses: number[] = []
  for (let i = 0; i < count; i++) {
    const res = await post(cancelLine(i), session)
    statuses.push(res.status)
    await res.body?.cancel()
  }
  await settle()
  report(before, heap(), statuses)
  return statuses
}

async function overStdio(): Promise<void> {
  const input = new TransformStream<Uint8Array, Uint8Array>()
  const connection = serveStdio(mcp, { input: input.readable, output: new WritableStream() })
  const writer = input.writable.getWriter()
  const encoder = new TextEncoder()
  await writer.write(encoder.encode(JSON.stringify(initialize) + '\n' + JSON.stringify(initialized) + '\n'))
  await settle()
  const before = heap()
  for (let i = 0; i < count; i++) await writer.write(encoder.encode(cancelLine(i) + '\n'))
  await writer.close()
  await connection.closed
  await settle()
  report(before, heap(), [])
}

/** Let the tasks the last messages started (deliveries, Durable Object fetches) finish. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 10))
}

function report(before: ReturnType<typeof heap>, after: ReturnType<typeof heap>, statuses: number[]): void {
  const line = { where, count, idChars, before, after, statuses: [...new Set(statuses)], objects: objects?.size }
  console.log(JSON.stringify(line))
}

if (where === 'stdio') await overStdio()
else await overHttp()
process.exit(0)
