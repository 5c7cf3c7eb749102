// Node 20.6+: npx tsx client-node.ts   (launches `node --import tsx server.ts`, talks to it, shuts it down)
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { StdioClientTransport } from 'edge-mcp/client'
import { session } from './session.ts'

const server = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
  cwd: fileURLToPath(new URL('.', import.meta.url)), // import.meta.dirname needs Node 20.11
  stdio: ['pipe', 'pipe', 'inherit'], // the server's logs (stderr) show with ours
})
const exited = once(server, 'exit') as Promise<[number | null, string | null]>
const transport = new StdioClientTransport({
  input: Readable.toWeb(server.stdout) as ReadableStream<Uint8Array>,
  output: Writable.toWeb(server.stdin),
})
try {
  await session(transport)
} finally {
  // Clean shutdown: close the server's stdin (its cue to exit), wait 5 s, then SIGTERM, then SIGKILL.
  await transport.close()
  const late = (ms: number) => new Promise<'late'>((resolve) => setTimeout(resolve, ms, 'late').unref())
  if ((await Promise.race([exited, late(5_000)])) === 'late') {
    server.kill('SIGTERM')
    if ((await Promise.race([exited, late(2_000)])) === 'late') server.kill('SIGKILL')
  }
  const [code, signal] = await exited
  console.log(`server exited (${code ?? signal})`)
}
