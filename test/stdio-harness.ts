/** An in-process stdio connection for the tests: `serveStdio` over TransformStreams, the client's end scripted. */
import { expect } from 'vitest'
import type { StdioConnection } from '../src/server/stdio.ts'
import { serveStdio, type McpServer, type Server } from '../src/server/index.ts'
import { Client, StdioClientTransport, type ClientOptions } from '../src/client/index.ts'

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/**
 * One message the server wrote, parsed, typed loosely as the tests read it: a member a message lacks is
 * undefined at run time (and the test's expectation fails), whatever this type says.
 */
export interface Out {
  jsonrpc: string
  id?: string | number
  method?: string
  params: {
    message: string
    requestId: string | number
    progressToken: string | number
    progress: number
    _meta: Record<string, unknown>
    [key: string]: unknown
  }
  result: {
    tools: Array<{ name: string }>
    content: Array<{ type: string; text: string }>
    isError?: boolean
    resultType: string
    inputRequests: Record<string, { method: string }>
    requestState: string
    protocolVersion: string
    _meta: Record<string, unknown>
    [key: string]: unknown
  }
  error: { code: number; message: string; data?: unknown }
}

/** The client's end of a served connection. */
export interface Pipe {
  connection: StdioConnection
  /** Write raw bytes (or text) to the server's input. */
  raw(chunk: string | Uint8Array): Promise<void>
  /** Write one message as a line. */
  send(message: unknown): Promise<void>
  /** End the server's input. */
  end(): Promise<void>
  /** Every line the server wrote so far, parsed. */
  out: Out[]
  /** The raw text the server wrote so far. */
  text(): string
  /** Wait for the first message written (from index `from`) matching `pred`. */
  next(pred: (m: Out) => boolean, timeoutMs?: number): Promise<Out>
  /** Resolves when the server closed its output. */
  outputClosed: Promise<void>
}

/** Serve `target` over a fresh pair of in-memory streams; the output is read eagerly unless `output` is given. */
export function pipe(
  target: Server | McpServer,
  options: { maxLineBytes?: number; output?: WritableStream<Uint8Array>; env?: unknown } = {},
): Pipe {
  const input = new TransformStream<Uint8Array, Uint8Array>()
  const output = new TransformStream<Uint8Array, Uint8Array>()
  const connection = serveStdio(target, {
    input: input.readable,
    output: options.output ?? output.writable,
    ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
  })
  const writer = input.writable.getWriter()
  let buffer = ''
  const out: Out[] = []
  const waiters = new Set<() => void>()
  const outputClosed = (async () => {
    if (options.output) return
    const reader = output.readable.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      const lines = buffer.split('\n')
      for (const line of lines.slice(out.length, -1)) out.push(JSON.parse(line) as Out)
      for (const wake of [...waiters]) wake()
    }
  })()
  return {
    connection,
    out,
    outputClosed,
    text: () => buffer,
    raw: (chunk) => writer.write(typeof chunk === 'string' ? encoder.encode(chunk) : chunk),
    send: (message) => writer.write(encoder.encode(JSON.stringify(message) + '\n')),
    end: () => writer.close(),
    next: (pred, timeoutMs = 5000) =>
      new Promise<Out>((resolve, reject) => {
        const check = () => {
          const found = out.find(pred)
          if (!found) return
          waiters.delete(check)
          clearTimeout(timer)
          resolve(found)
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`no matching message; got ${JSON.stringify(out)}`))
        }, timeoutMs)
        waiters.add(check)
        check()
      }),
  }
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A 2025-era client's `initialize` (id 0), declaring form elicitation. */
export const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: { elicitation: { form: {} } },
    clientInfo: { name: 'legacy', version: '1' },
  },
}

/** An output that takes nothing: every write waits forever (a peer that stopped reading). */
export const stuck = () => new WritableStream<Uint8Array>({ write: () => new Promise<void>(() => {}) })

/** Runs `body`, failing the test on any unhandled rejection it causes. */
export async function noUnhandled(body: () => Promise<void>): Promise<void> {
  const unhandled: unknown[] = []
  const on = (reason: unknown) => unhandled.push(reason)
  process.on('unhandledRejection', on)
  try {
    await body()
    await sleep(20)
    expect(unhandled).toEqual([])
  } finally {
    process.off('unhandledRejection', on)
  }
}

/**
 * Our Client over stdio to `server`, served in-process (`serveStdio` on TransformStreams), with `options`
 * besides the transport: end it with `transport.close()` (the server's input ends, `connection.closed`
 * resolves) or `client.close()` and `connection.close()`.
 */
export function stdioClient(
  server: Server | McpServer,
  options: Omit<ClientOptions, 'transport'> = {},
): { client: Client; connection: StdioConnection; transport: StdioClientTransport } {
  const toServer = new TransformStream<Uint8Array, Uint8Array>()
  const toClient = new TransformStream<Uint8Array, Uint8Array>()
  const connection = serveStdio(server, { input: toServer.readable, output: toClient.writable })
  const transport = new StdioClientTransport({ input: toClient.readable, output: toServer.writable })
  return { client: new Client({ ...options, transport }), connection, transport }
}
