/**
 * The Client in `'legacy'` mode and its streams (spec 2025-11-25 basic/transports.mdx "Listening
 * for Messages from the Server", "Resumability and Redelivery", SEP-1699): the standalone GET stream that
 * carries the server's requests not tied to one of ours (the official v1 SDK's `elicitInput` without
 * `relatedRequestId`) and its notifications; a POST stream the server closes early, resumed with GET +
 * `Last-Event-ID` after `retry`; a 405 on GET is no stream and no error; the bounds of resumption.
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { McpServer as V1Server } from '@modelcontextprotocol/sdk/server/mcp.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { spawn } from 'node:child_process'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Client, HttpError, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { LegacyConnection } from '../../src/client/legacy.ts'
import type { ClientOptions } from '../../src/client/options.ts'

/** A v1 event store with ordered ids (`<stream>_<n>`), replaying one stream's events after an id. */
function eventStore(): EventStore {
  const events: { id: string; streamId: string; message: unknown }[] = []
  return {
    storeEvent: (streamId, message) => {
      const id = `${streamId}_${String(events.length).padStart(6, '0')}`
      events.push({ id, streamId, message })
      return Promise.resolve(id)
    },
    getStreamIdForEventId: (id) => Promise.resolve(events.find((e) => e.id === id)?.streamId),
    replayEventsAfter: async (lastEventId, { send }) => {
      const at = events.findIndex((e) => e.id === lastEventId)
      const streamId = events[at].streamId
      for (const e of events.slice(at + 1))
        if (e.streamId === streamId) await send(e.id, e.message as Parameters<typeof send>[1])
      return streamId
    },
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** What the test fetch saw: each request, and whether a GET stream's body was cancelled by the client. */
interface Seen {
  method: string
  lastEventId: string | null
  at: number
  cancelled?: boolean
}

/**
 * The official v1 SDK server (stateful) in-process: `ask` asks on the standalone stream (no
 * `relatedRequestId`); `slow` closes its POST stream at once (`closeSSEStream`), then sends progress and its
 * result, which the client gets by resuming. `resumable` turns on the event store with `retry: 100`.
 */
async function v1Server(resumable = false) {
  const server = new V1Server({ name: 'v1-server', version: '1.0.0' })
  let closedAt = 0
  server.registerTool('ask', { inputSchema: {} }, async () => {
    const answer = await server.server.elicitInput({
      message: 'Which region?',
      requestedSchema: { type: 'object', properties: { region: { type: 'string' } }, required: ['region'] },
    })
    return { content: [{ type: 'text', text: `${answer.action} ${String(answer.content?.region)}` }] }
  })
  server.registerTool('slow', { inputSchema: {} }, async (_args, extra) => {
    extra.closeSSEStream?.()
    closedAt = performance.now()
    await sleep(20)
    const progressToken = extra._meta?.progressToken
    if (progressToken !== undefined)
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 1 } })
    return { content: [{ type: 'text', text: 'done after the reconnection' }] }
  })
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    ...(resumable ? { eventStore: eventStore(), retryInterval: 100 } : {}),
  })
  await server.connect(transport)
  const seen: Seen[] = []
  const fetch = async (request: Request) => {
    const entry: Seen = {
      method: request.method,
      lastEventId: request.headers.get('last-event-id'),
      at: performance.now(),
    }
    seen.push(entry)
    const response = await transport.handleRequest(request)
    if (request.method !== 'GET' || !response.body) return response
    const reader = response.body.getReader() // watch the client cancel the stream
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const { done, value } = await reader.read()
        if (done) controller.close()
        else controller.enqueue(value)
      },
      cancel: async (reason) => {
        entry.cancelled = true
        await reader.cancel(reason)
      },
    })
    return new Response(body, { status: response.status, headers: response.headers })
  }
  return { server, transport, fetch, seen, closedAt: () => closedAt }
}

describe('legacy standalone GET stream', () => {
  it("the v1 server's elicitInput without relatedRequestId reaches the callback on the GET stream; close() cancels it", async () => {
    const { fetch, seen } = await v1Server()
    const asked: string[] = []
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'legacy',
      elicitation: (params, ctx) => {
        asked.push(`${params.message} (${ctx.method || 'no call'})`)
        return { action: 'accept', content: { region: 'eu-west-1' } }
      },
    })
    const result = await client.callTool('ask', {})
    expect(result.content).toEqual([{ type: 'text', text: 'accept eu-west-1' }])
    expect(asked).toEqual(['Which region? (no call)'])
    expect(seen.map((s) => s.method)).toEqual(['POST', 'POST', 'GET', 'POST', 'POST'])
    const get = seen[2]
    expect(get.cancelled).toBeUndefined()
    await client.close()
    expect(get.cancelled).toBe(true)
    expect(seen.at(-1)!.method).toBe('DELETE')
  })

  it('notifications on the GET stream reach onStreamNotification listeners', async () => {
    const { server, fetch } = await v1Server()
    const options: ClientOptions = {
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      onWarning: (m) => expect.fail(m),
    }
    const legacy = new LegacyConnection({
      options,
      capabilities: {},
      nextId: () => 1,
      timeoutMs: 5000,
    })
    await legacy.start()
    expect(legacy.streaming).toBe(true)
    const got: string[] = []
    const remove = legacy.onStreamNotification((n) => got.push(n.method))
    server.sendToolListChanged()
    await sleep(20)
    expect(got).toEqual(['notifications/tools/list_changed'])
    remove()
    server.sendToolListChanged()
    await sleep(20)
    expect(got).toHaveLength(1)
    await legacy.close()
    expect(legacy.streaming).toBe(false)
  })

  it('a GET answered 405 is no stream: no warning, no retry, requests go on', async () => {
    const warnings: string[] = []
    const methods: string[] = []
    const fetch = async (request: Request) => {
      methods.push(request.method)
      if (request.method === 'GET') return new Response(null, { status: 405 })
      return fakeAnswer(request)
    }
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'legacy',
      onWarning: (m) => warnings.push(m),
    })
    expect(await client.listTools()).toEqual([])
    expect(await client.listTools()).toEqual([])
    expect(methods).toEqual(['POST', 'POST', 'GET', 'POST', 'POST'])
    expect(warnings).toEqual([])
  })

  it('a GET that fails otherwise is a warning, not a failed request', async () => {
    const warnings: string[] = []
    const fetch = async (request: Request) =>
      request.method === 'GET' ? new Response('nope', { status: 500 }) : fakeAnswer(request)
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'legacy',
      onWarning: (m) => warnings.push(m),
    })
    expect(await client.listTools()).toEqual([])
    expect(warnings).toEqual([expect.stringMatching(/GET stream not opened: HttpError: HTTP 500/)])
  })
})

/** A minimal 2025-era server's answer to a POST: initialize with a session, 202 for the rest, `{ tools: [] }`. */
async function fakeAnswer(request: Request, sse?: (id: unknown) => string): Promise<Response> {
  const body = (await request.json()) as { id?: unknown; method?: string }
  if (body.method === 'initialize')
    return Response.json(
      { jsonrpc: '2.0', id: body.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: {} } },
      { headers: { 'mcp-session-id': 'sid-1' } },
    )
  if (body.id === undefined || body.method === undefined) return new Response(null, { status: 202 })
  if (sse) return new Response(sse(body.id), { headers: { 'content-type': 'text/event-stream' } })
  return Response.json({ jsonrpc: '2.0', id: body.id, result: { tools: [] } })
}

/**
 * A real HTTP server (2025-era, session `sid-1`) whose GET stream stays open, and the child process
 * (test/legacy-stream-child.ts) run against it: resolves with whether the child exited by itself within
 * `ms`, and whether the server saw the GET stream closed by then.
 */
async function childAgainstHeldStream(mode: 'close' | 'keep', ms: number) {
  const streams: ServerResponse[] = []
  let streamClosed = false
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('id: g-1\nretry: 50\ndata: \n\n')
      req.on('close', () => (streamClosed = true))
      streams.push(res)
      return
    }
    if (req.method === 'DELETE') return void res.writeHead(200).end()
    let text = ''
    req.on('data', (chunk: Buffer) => (text += chunk.toString()))
    req.on('end', () => {
      const request = new Request('http://localhost/mcp', { method: 'POST', body: text })
      void fakeAnswer(request).then(async (answer) => {
        res.writeHead(answer.status, Object.fromEntries(answer.headers))
        res.end(await answer.text())
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
  const tsx = join(import.meta.dirname, '../../node_modules/tsx/dist/cli.mjs')
  const child = spawn(process.execPath, [tsx, join(import.meta.dirname, '../legacy-stream-child.ts'), url, mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  const exited = await new Promise<boolean>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    child.stdout.on('data', () => {
      if (out.includes('done') && !timer) timer = setTimeout(() => resolve(false), ms) // from the end of its work
    })
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve(code === 0)
    })
  })
  child.kill()
  for (const res of streams) res.end()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  return { exited, out, streamClosed }
}

describe('legacy standalone stream and the process', () => {
  it('after close() nothing keeps a Node process alive; without it, the open GET does', async () => {
    const closed = await childAgainstHeldStream('close', 3000)
    expect(closed).toEqual({ exited: true, out: 'done\n', streamClosed: true })
    const kept = await childAgainstHeldStream('keep', 1000)
    expect(kept.exited).toBe(false) // the control: the test can tell
  }, 30_000)
})

describe('legacy SSE resumption (retry, Last-Event-ID)', () => {
  it('v1 server with an event store: a POST stream closed early is resumed by GET + Last-Event-ID after retry', async () => {
    const { fetch, seen, closedAt } = await v1Server(true)
    const progress: number[] = []
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'legacy',
      onWarning: (m) => expect.fail(m),
    })
    const result = await client.callTool('slow', {}, { onProgress: (p) => progress.push(p.progress) })
    expect(result.content).toEqual([{ type: 'text', text: 'done after the reconnection' }])
    expect(progress).toEqual([1]) // sent while the client was away, replayed on the resumed stream
    const resumed = seen.filter((s) => s.method === 'GET' && s.lastEventId !== null)
    expect(resumed).toHaveLength(1)
    expect(resumed[0].lastEventId).toMatch(/_\d{6}$/)
    expect(resumed[0].at - closedAt()).toBeGreaterThanOrEqual(90) // retry: 100 (timer slack)
    await client.close()
  })

  it('a fake server: ids and retry on the POST stream, the response on the GET that resumes it', async () => {
    const gets: (string | null)[] = []
    let closedAt = 0
    let resumedAt = 0
    let pending: unknown
    const fetch = async (request: Request) => {
      if (request.method === 'GET') {
        const last = request.headers.get('last-event-id')
        gets.push(last)
        if (last === null) return new Response(null, { status: 405 })
        resumedAt = performance.now()
        return sseResponse(
          `id: e-3\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: pending, result: { tools: [] } })}\n\n`,
        )
      }
      return fakeAnswer(request, (id) => {
        pending = id
        closedAt = performance.now()
        return 'id: e-1\nretry: 60\ndata: \n\nid: e-2\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n'
      })
    }
    const seenNotifications: string[] = []
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'legacy',
    })
    expect(await client.listTools({ onNotification: (n) => seenNotifications.push(n.method) })).toEqual([])
    expect(gets).toEqual([null, 'e-2'])
    expect(resumedAt - closedAt).toBeGreaterThanOrEqual(55)
    expect(seenNotifications).toEqual(['notifications/message'])
  })

  it('a stream that closes without ids and without the response is an error, with no reconnection', async () => {
    const gets: (string | null)[] = []
    const fetch = async (request: Request) => {
      if (request.method === 'GET') {
        gets.push(request.headers.get('last-event-id'))
        return new Response(null, { status: 405 })
      }
      return fakeAnswer(
        request,
        () => 'retry: 10\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n',
      )
    }
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'legacy',
    })
    await expect(client.listTools()).rejects.toThrow('The SSE stream ended before the response arrived')
    expect(gets).toEqual([null])
  })

  it('resumption is bounded: 5 reconnections in a row that bring nothing, then an error', async () => {
    const gets: (string | null)[] = []
    const fetch = async (request: Request) => {
      if (request.method === 'GET') {
        const last = request.headers.get('last-event-id')
        gets.push(last)
        return last === null ? new Response(null, { status: 405 }) : sseResponse('') // closes at once, nothing new
      }
      return fakeAnswer(request, () => 'id: e-1\nretry: 1\ndata: \n\n')
    }
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'legacy',
    })
    await expect(client.listTools()).rejects.toThrow(/resumed 5 times in a row without a message/)
    expect(gets).toEqual([null, 'e-1', 'e-1', 'e-1', 'e-1', 'e-1'])
  })

  it('a transient failure (503) of a resuming GET is tried again; a 4xx is thrown at once', async () => {
    for (const status of [503, 409]) {
      const gets: number[] = []
      let pending: unknown
      const fetch = async (request: Request) => {
        if (request.method === 'GET') {
          if (request.headers.get('last-event-id') === null) return new Response(null, { status: 405 })
          gets.push(gets.length)
          if (gets.length === 1) return new Response('busy', { status })
          return sseResponse(`data: ${JSON.stringify({ jsonrpc: '2.0', id: pending, result: { tools: [] } })}\n\n`)
        }
        return fakeAnswer(request, (id) => ((pending = id), 'id: e-1\nretry: 5\ndata: \n\n'))
      }
      const client = new Client({
        transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
        versionNegotiation: 'legacy',
      })
      if (status === 503) {
        expect(await client.listTools()).toEqual([])
        expect(gets).toEqual([0, 1])
      } else {
        const error: unknown = await client.listTools().catch((e: unknown) => e)
        expect(error).toBeInstanceOf(HttpError)
        expect((error as HttpError).status).toBe(409)
        expect(gets).toEqual([0])
      }
    }
  })

  it('a 404 when resuming a stream the server already took is thrown: the request is not sent again', async () => {
    const posts: string[] = []
    const fetch = async (request: Request) => {
      if (request.method === 'GET')
        return request.headers.get('last-event-id') === null
          ? new Response(null, { status: 405 })
          : new Response('session gone', { status: 404 })
      posts.push(((await request.clone().json()) as { method?: string }).method ?? '(answer)')
      return fakeAnswer(request, () => 'id: e-1\nretry: 1\ndata: \n\n')
    }
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'legacy',
    })
    const error: unknown = await client.callTool('charge_card', { amount: 5 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HttpError)
    expect((error as HttpError).status).toBe(404)
    expect(posts).toEqual(['initialize', 'notifications/initialized', 'tools/call'])
    // the session is forgotten: the next request starts a new one
    await client.listTools().catch(() => undefined)
    expect(posts.slice(3, 5)).toEqual(['initialize', 'notifications/initialized'])
  })
})

function sseResponse(text: string): Response {
  return new Response(text, { headers: { 'content-type': 'text/event-stream' } })
}
