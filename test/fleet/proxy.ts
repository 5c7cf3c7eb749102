/**
 * A round-robin reverse proxy on loopback for the fleet test, as a load balancer without session affinity
 * would be: each request goes to the next live instance — an answer (to a server's question, or a
 * `tasks/update`) to the next one other than the instance that asked, so that every answer crosses — and
 * its response is STREAMED back as it arrives (an SSE stream flows through unbuffered: a question on a
 * POST's stream reaches the client while the POST is still open). It records, for each request, which
 * instance served it, the JSON-RPC messages of its body (method, id, whether it is a response), and the
 * questions (server-to-client requests) and the task its response carried, so a test can tell on which
 * instance each question was asked and each answer landed. When an instance dies mid-response the
 * client's response is cut too (never completed by the proxy).
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse, type Server } from 'node:http'

/** One JSON-RPC message of a request body, as far as the fleet test reads it. */
export interface WireMessage {
  /** The request's or notification's method; undefined for a response (an answer to a server question). */
  method?: string | undefined
  id?: string | number | undefined
  /** A JSON-RPC response (result or error): the client answering a server-to-client request. */
  response: boolean
  /** `params.name` (tools/call, prompts/get) or `params.uri` (resources/read). */
  target?: string | undefined
  /** A 2026-07-28 retry carrying answers (`params.inputResponses`). */
  inputResponses: boolean
  /** `params.taskId` (tasks/get, tasks/update, tasks/cancel). */
  taskId?: string | undefined
}

/** One request through the proxy. */
export interface Served {
  seq: number
  /** The instance it was sent to. */
  instance: string
  /** The `x-fleet-client` header: which test client sent it. */
  client: string | undefined
  httpMethod: string
  messages: WireMessage[]
  /** Server-to-client requests (`elicitation/create`, `sampling/createMessage`, …) its response stream carried. */
  asked: Array<{ id: string | number; method: string }>
  /** The task its response started (a `CreateTaskResult`'s taskId). */
  startedTask?: string | undefined
  status?: number | undefined
  /** The instance's own name for itself (its `x-instance` response header). */
  servedBy?: string | undefined
  /** The response was cut (the instance died or the connection broke) before it ended. */
  cut?: boolean
}

/** A round-robin reverse proxy over named loopback instances. */
export class FleetProxy {
  /** The instances in rotation: name → port. */
  readonly live = new Map<string, number>()
  readonly served: Served[] = []
  /** Send a request to a chosen instance (a test's pin) instead of the next one in rotation. */
  pin: ((messages: WireMessage[]) => string | undefined) | undefined
  #n = 0
  #server: Server | undefined
  readonly #open = new Set<ServerResponse>()
  url = ''

  async start(): Promise<void> {
    this.#server = createServer((req, res) => void this.#forward(req, res))
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.#server.address() as { port: number }).port}/mcp`
  }

  /** Take an instance out of rotation (as a load balancer's failed health check does). */
  remove(name: string): void {
    this.live.delete(name)
  }

  async stop(): Promise<void> {
    for (const res of this.#open) res.destroy()
    await new Promise((resolve) => this.#server?.close(resolve) ?? resolve(undefined))
  }

  /** The requests sent by test client `client`, in order. */
  by(client: string): Served[] {
    return this.served.filter((s) => s.client === client)
  }

  #choose(messages: WireMessage[]): string {
    const pinned = this.pin?.(messages)
    if (pinned && this.live.has(pinned)) return pinned
    const names = [...this.live.keys()]
    if (names.length === 0) throw new Error('no live instance')
    // an answer goes round the others: plain rotation would bring the third answer of a three-question flow
    // back to the instance that asked (its stream stays open while it asks), or a task's answer to its own
    const asker = this.#asker(messages)
    const others = names.filter((name) => name !== asker)
    return (others.length > 0 ? others : names)[this.#n++ % (others.length || names.length)]
  }

  /**
   * For an answer, the instance that asked: the one whose response stream carried the question (a 2025-era
   * answer, a JSON-RPC response), or the one that started the task (`tasks/update`).
   */
  #asker(messages: WireMessage[]): string | undefined {
    const [first] = messages
    if (!first) return undefined
    const asked = messages.every((m) => m.response)
      ? (s: Served) => s.asked.some((q) => q.id === first.id)
      : first.method === 'tasks/update' && first.taskId
        ? (s: Served) => s.startedTask === first.taskId
        : undefined
    return asked ? this.served.findLast(asked)?.instance : undefined
  }

  /** Note what a response message says: a question (server-to-client request), or a task it started. */
  #read(entry: Served, data: string): void {
    if (!data) return
    let message: { id?: string | number; method?: string; result?: { resultType?: string; taskId?: string } }
    try {
      message = JSON.parse(data) as typeof message
    } catch {
      return // not JSON: not ours to read
    }
    if (message.method !== undefined && message.id !== undefined)
      entry.asked.push({ id: message.id, method: message.method })
    if (message.result?.resultType === 'task' && message.result.taskId) entry.startedTask = message.result.taskId
  }

  async #forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    const messages = req.method === 'POST' ? wireMessages(body) : []
    let instance: string
    try {
      instance = this.#choose(messages)
    } catch (error) {
      res.writeHead(503).end(String(error))
      return
    }
    const header = req.headers['x-fleet-client']
    const entry: Served = {
      seq: this.served.length,
      instance,
      client: typeof header === 'string' ? header : undefined,
      httpMethod: req.method ?? 'GET',
      messages,
      asked: [],
    }
    this.served.push(entry)
    const port = this.live.get(instance)!
    this.#open.add(res)
    res.on('close', () => {
      this.#open.delete(res)
      if (!res.writableFinished) upstream.destroy() // the client went away: so does the upstream request
    })
    const upstream = httpRequest({
      host: '127.0.0.1',
      port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: `127.0.0.1:${port}` },
      agent: false,
    })
    upstream.on('response', (up) => {
      entry.status = up.statusCode
      const self = up.headers['x-instance']
      entry.servedBy = typeof self === 'string' ? self : undefined
      res.writeHead(up.statusCode ?? 502, up.headers)
      res.flushHeaders()
      const sse = (up.headers['content-type'] ?? '').startsWith('text/event-stream')
      let pending = ''
      up.on('data', (chunk: Buffer) => {
        res.write(chunk)
        pending += chunk.toString('utf8')
        if (!sse) return
        const events = pending.split(/\r?\n\r?\n/)
        pending = events.pop()!
        for (const event of events)
          this.#read(
            entry,
            event
              .split(/\r?\n/)
              .filter((line) => line.startsWith('data:'))
              .map((line) => line.slice(5).trimStart())
              .join('\n'),
          )
      })
      up.on('end', () => {
        if (!sse) this.#read(entry, pending)
      })
      up.on('end', () => res.end())
      up.on('close', () => {
        if (!up.complete) {
          entry.cut = true
          res.destroy()
        }
      })
    })
    upstream.on('error', (error) => {
      entry.cut = true
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(String(error))
      else res.destroy()
    })
    upstream.end(body)
  }
}

/** The JSON-RPC messages of a POST body (one, or a batch); none when it is not JSON. */
function wireMessages(body: Buffer): WireMessage[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(body.toString('utf8'))
  } catch {
    return []
  }
  return (Array.isArray(parsed) ? parsed : [parsed]).map((m) => {
    const message = (m ?? {}) as {
      method?: string
      id?: string | number
      result?: unknown
      error?: unknown
      params?: { name?: string; uri?: string; inputResponses?: unknown; taskId?: string }
    }
    const params = message.params ?? {}
    return {
      method: message.method,
      id: message.id,
      response: message.method === undefined && ('result' in message || 'error' in message),
      target: params.name ?? params.uri,
      inputResponses: params.inputResponses !== undefined,
      taskId: params.taskId,
    }
  })
}
