/**
 * The question mailbox on Cloudflare Workers: a Durable Object that a 2025-era client's answer reaches
 * from whichever isolate received it, and that the isolate holding the question's stream waits on. One
 * object per key: a question's random id, or for a request's cancellation a fixed-size digest of its
 * session and id (a client chooses the id; the key stays short whatever its length). An object keeps
 * nothing in storage, only the waiting request and, for up to 30 s, an answer that came before its
 * waiter: whatever one session sends, it lands in objects of its own, never evicting another's.
 * @module
 */
import type { RequestInfo } from '../server/context.ts'
import { QuestionTimeoutError, UpstreamError, messageOf } from '../server/errors.ts'
import { InMemoryQuestionMailbox, type QuestionAnswer, type QuestionMailbox } from '../server/mailbox.ts'

/**
 * The binding name the README and the demo use.
 * @internal not in the public API: the `binding` default
 */
export const DEFAULT_MAILBOX_BINDING = 'MCP_MAILBOX'

/** What the mailbox needs of a Durable Object namespace binding (`DurableObjectNamespace` fits). */
export interface MailboxNamespace {
  idFromName(name: string): unknown
  get(id: never): { fetch(input: string, init?: RequestInit): Promise<Response> }
}

/** The internal HTTP exchange with the object (never exposed to clients). */
const ORIGIN = 'https://mailbox.edge-mcp.internal'
const TIMEOUT_STATUS = 504
/** The longest key an object accepts, in characters (the SDK's are 22 or 30). */
const MAX_KEY_CHARS = 256

/**
 * The Durable Object class of the question mailbox. Export it from your Worker's main module and bind it:
 *
 * ```toml
 * [[durable_objects.bindings]]
 * name = "MCP_MAILBOX"
 * class_name = "McpQuestionMailbox"
 *
 * [[migrations]]
 * tag = "v1"
 * new_sqlite_classes = ["McpQuestionMailbox"]
 * ```
 *
 * It answers `POST /wait` `{ qid, timeoutMs }` with the answer (200, JSON) or 504 after `timeoutMs` ms,
 * and `POST /deliver` `{ qid, answer }` with 202; a `qid` that is not a string of at most 256 characters
 * with 400. Nothing is stored.
 */
export class McpQuestionMailbox {
  readonly #mailbox = new InMemoryQuestionMailbox({ earlyAnswerMs: 30_000 })

  async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname
    let body: { qid?: unknown; timeoutMs?: unknown; answer?: unknown }
    try {
      body = (await request.json()) as typeof body
    } catch {
      return new Response('bad body', { status: 400 })
    }
    const { qid, timeoutMs, answer } = body
    if (typeof qid !== 'string' || qid.length > MAX_KEY_CHARS) return new Response('bad qid', { status: 400 })
    if (path === '/wait' && typeof timeoutMs === 'number' && timeoutMs > 0) {
      try {
        return Response.json(await this.#mailbox.wait(qid, timeoutMs, request.signal))
      } catch (error) {
        return new Response(String(error), { status: error instanceof QuestionTimeoutError ? TIMEOUT_STATUS : 499 })
      }
    }
    if (path === '/deliver' && typeof answer === 'object' && answer !== null) {
      await this.#mailbox.deliver(qid, answer as QuestionAnswer)
      return new Response(null, { status: 202 })
    }
    return new Response('not found', { status: 404 })
  }
}

/**
 * A mailbox on a Durable Object namespace (of {@link McpQuestionMailbox}), for
 * `legacyQuestions.mailbox`.
 * @param binding - the binding's name in the Worker's `env` (default `"MCP_MAILBOX"`), or the namespace.
 * @returns a function of each request's info; it throws, naming the binding and how to add it, when
 *   `env` has no such binding (the question then fails at once, with that message).
 * @example new McpServer(info, { legacyQuestions: { mailbox: durableObjectMailbox() } })
 */
export function durableObjectMailbox(
  binding: string | MailboxNamespace = DEFAULT_MAILBOX_BINDING,
): (info: RequestInfo) => QuestionMailbox {
  if (typeof binding !== 'string') {
    const mailbox = namespaceMailbox(binding)
    return () => mailbox
  }
  let last: { namespace: MailboxNamespace; mailbox: QuestionMailbox } | undefined
  return (info) => {
    const namespace = (info.env as Record<string, unknown> | undefined)?.[binding] as MailboxNamespace | undefined
    if (typeof namespace?.idFromName !== 'function')
      throw new Error(
        `env.${binding} is not bound to a Durable Object namespace: bind it in wrangler.toml ` +
          `([[durable_objects.bindings]] name = "${binding}", class_name = "McpQuestionMailbox", with a migration) ` +
          `and export { McpQuestionMailbox } from 'edge-mcp/cloudflare' in the Worker`,
      )
    if (last?.namespace !== namespace) last = { namespace, mailbox: namespaceMailbox(namespace) }
    return last.mailbox
  }
}

function namespaceMailbox(namespace: MailboxNamespace): QuestionMailbox {
  const stub = (qid: string) => namespace.get(namespace.idFromName(qid) as never)
  const post = (qid: string, path: string, body: unknown, signal?: AbortSignal) => {
    const init: RequestInit = {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    }
    if (signal) init.signal = signal
    return stub(qid)
      .fetch(ORIGIN + path, init)
      .catch((cause: unknown) => {
        if (signal?.aborted) throw cause // the caller's abort, not the object's failure
        throw new UpstreamError(`the question mailbox could not be reached: ${messageOf(cause)}`, { cause })
      })
  }
  return {
    async wait(qid, timeoutMs, signal) {
      const res = await post(qid, '/wait', { qid, timeoutMs }, signal)
      if (res.status === TIMEOUT_STATUS) throw new QuestionTimeoutError(timeoutMs)
      if (!res.ok) throw new UpstreamError(`the question mailbox answered ${res.status}`)
      return (await res.json().catch((cause: unknown) => {
        if (signal?.aborted) throw cause
        throw new UpstreamError('the question mailbox answered with a body that is not JSON', { cause })
      })) as QuestionAnswer
    },
    async deliver(qid, answer) {
      const res = await post(qid, '/deliver', { qid, answer })
      if (!res.ok) throw new UpstreamError(`the question mailbox answered ${res.status}`)
    },
  }
}
