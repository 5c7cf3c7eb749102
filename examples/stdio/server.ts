// The bookshop (../runtimes/server.ts) over stdio, for a host that launches it as a subprocess:
//   deno run examples/stdio/server.ts    bun examples/stdio/server.ts    npx tsx examples/stdio/server.ts
// stdout carries only MCP messages: log with console.error (stderr), never console.log.
import { serveStdio } from 'edge-mcp/server'
import { createServer } from '../runtimes/server.ts'

/** The process's stdin and stdout as Web Streams, per runtime. */
async function standardStreams(): Promise<{ input: ReadableStream<Uint8Array>; output: WritableStream<Uint8Array> }> {
  const { Deno } = globalThis as {
    Deno?: { stdin: { readable: ReadableStream<Uint8Array> }; stdout: { writable: WritableStream<Uint8Array> } }
  }
  if (Deno) return { input: Deno.stdin.readable, output: Deno.stdout.writable }
  // Node and Bun (Bun implements these node:stream adapters too)
  const { Readable, Writable } = await import('node:stream')
  return {
    input: Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
    output: Writable.toWeb(process.stdout),
  }
}

const connection = serveStdio(createServer(), await standardStreams())
// resolves once stdin has ended and the requests in flight are answered; then nothing keeps the process alive
await connection.closed
