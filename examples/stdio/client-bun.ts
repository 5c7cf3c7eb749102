// Bun: bun client-bun.ts   (launches `bun server.ts`, talks to it, shuts it down)
import { StdioClientTransport } from 'edge-mcp/client'
import { session } from './session.ts'

const server = Bun.spawn([process.execPath, 'server.ts'], {
  cwd: import.meta.dirname,
  stdin: 'pipe',
  stdout: 'pipe',
  stderr: 'inherit', // the server's logs show with ours
})
const transport = new StdioClientTransport({
  input: server.stdout,
  // Bun hands out the child's stdin as a FileSink: wrap it in a WritableStream
  output: new WritableStream<Uint8Array>({
    async write(chunk) {
      server.stdin.write(chunk)
      await server.stdin.flush()
    },
    async close() {
      await server.stdin.end()
    },
  }),
})
try {
  await session(transport)
} finally {
  // Clean shutdown: close the server's stdin (its cue to exit), wait 5 s, then SIGTERM, then SIGKILL.
  await transport.close()
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = (ms: number) => new Promise<'late'>((resolve) => (timer = setTimeout(resolve, ms, 'late')))
  if ((await Promise.race([server.exited, late(5_000)])) === 'late') {
    server.kill('SIGTERM')
    if ((await Promise.race([server.exited, late(2_000)])) === 'late') server.kill('SIGKILL')
  }
  clearTimeout(timer)
  console.log(`server exited (${server.signalCode ?? (await server.exited)})`)
}
