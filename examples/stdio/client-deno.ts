// Deno: deno run --allow-run --allow-read client-deno.ts   (launches `deno run server.ts`, talks, shuts it down)
import { StdioClientTransport } from 'edge-mcp/client'
import { session } from './session.ts'

const server = new Deno.Command(Deno.execPath(), {
  args: ['run', 'server.ts'],
  cwd: import.meta.dirname,
  stdin: 'piped',
  stdout: 'piped',
  stderr: 'inherit', // the server's logs show with ours
}).spawn()
const transport = new StdioClientTransport({ input: server.stdout, output: server.stdin })
try {
  await session(transport)
} finally {
  // Clean shutdown: close the server's stdin (its cue to exit), wait 5 s, then SIGTERM, then SIGKILL.
  await transport.close()
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = (ms: number) => new Promise<'late'>((resolve) => (timer = setTimeout(resolve, ms, 'late')))
  if ((await Promise.race([server.status, late(5_000)])) === 'late') {
    server.kill('SIGTERM')
    if ((await Promise.race([server.status, late(2_000)])) === 'late') server.kill('SIGKILL')
  }
  clearTimeout(timer)
  const { code, signal } = await server.status
  console.log(`server exited (${signal ?? code})`)
}
