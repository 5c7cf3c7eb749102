/**
 * Our Client launching stdio servers as child processes (`child_process.spawn`, its pipes as Web Streams
 * through `Readable.toWeb` / `Writable.toWeb`): a server built with the official v1 SDK (2025-era
 * only), one built with the official v2 server package 2.4.0 (`serveStdio`: both eras, the opening message
 * picks), and one built with edge-mcp (`serveStdio`, both eras). In every era each speaks — pinned
 * `'legacy'`, pinned `'modern'`, and `'auto'` finding the right one — list tools, a call with no question, and
 * a call whose question is answered through the `elicitation` callback (an `elicitation/create` request on
 * the pipe in 2025, an InputRequiredResult round in 2026); then `transport.close()` ends the server's stdin
 * and the server exits by itself.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { Client, ConnectionClosedError, StdioClientTransport } from '../../src/client/index.ts'
import type { Era } from '../../src/client/era.ts'

const ROOT = join(import.meta.dirname, '../..')
const TSX = join(ROOT, 'node_modules/.bin/tsx')
const FIXTURES = join(ROOT, 'test/fixtures/stdio')

/** Launch `script` under tsx; stderr is kept for failure messages. */
function launch(script: string) {
  const child = spawn(TSX, [join(FIXTURES, script)], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  const warnings: string[] = []
  child.stderr.on('data', (d) => (stderr += String(d)))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const transport = new StdioClientTransport({
    input: Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    output: Writable.toWeb(child.stdin),
    // tsx compiles the server first: on a busy machine that can outlast the 5 s default, and 'auto' would
    // then take a slow modern server for a silent 2025 one
    probeTimeoutMs: 30_000,
    onWarning: (w) => warnings.push(w),
  })
  return {
    transport,
    warnings,
    stderr: () => stderr,
    /** Close the transport (the server's stdin), then wait for the exit: killed after 10 s. */
    async shutdown(): Promise<number | null | 'killed'> {
      await transport.close()
      let timer: ReturnType<typeof setTimeout> | undefined
      const late = new Promise<'killed'>((resolve) => (timer = setTimeout(() => resolve('killed'), 10_000)))
      const code = await Promise.race([exited, late])
      clearTimeout(timer)
      if (code === 'killed') child.kill('SIGKILL')
      return code
    },
  }
}

const text = (result: { content: unknown[] }) => result.content.map((c) => (c as { text?: string }).text).join('\n')

/** Each server and the eras it speaks over stdio. */
const SERVERS: Array<{ name: string; script: string; eras: Era[] }> = [
  { name: 'official v1 SDK (@modelcontextprotocol/sdk 1.x)', script: 'v1-server.ts', eras: ['legacy'] },
  {
    name: 'official v2 server (@modelcontextprotocol/server 2.4.0)',
    script: 'v2-server.ts',
    eras: ['legacy', 'modern'],
  },
  { name: 'edge-mcp serveStdio', script: 'edge-server.ts', eras: ['legacy', 'modern'] },
]

describe.each(SERVERS)('our Client launching a stdio server: $name', ({ script, eras }) => {
  const runs: Array<{ negotiation: 'legacy' | 'modern' | 'auto'; era: Era }> = [
    ...eras.map((era) => ({ negotiation: era, era })),
    { negotiation: 'auto', era: eras.includes('modern') ? 'modern' : 'legacy' },
  ]
  it.each(runs)(
    'versionNegotiation $negotiation ($era): lists, calls, answers a question through the callback; the server exits when its stdin closes',
    { timeout: 60_000 },
    async ({ negotiation, era }) => {
      const server = launch(script)
      const asked: string[] = []
      const client = new Client({
        transport: server.transport,
        versionNegotiation: negotiation,
        elicitation: (params) => {
          asked.push(params.message)
          return { action: 'accept', content: { region: 'eu-west-1' } }
        },
      })
      try {
        expect((await client.listTools()).map((t) => t.name).sort()).toEqual(['echo', 'provision'])
        expect(client.era).toBe(era)
        expect(client.protocolVersion).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25')
        const echoed = await client.callTool('echo', { text: 'hi' })
        expect(text(echoed)).toBe('echo: hi')
        expect(asked).toEqual([])
        const provisioned = await client.callTool('provision', { name: 'db' })
        expect(text(provisioned)).toBe('provisioned db in eu-west-1')
        expect(asked).toEqual(['Which region for db?'])
        await client.close()
        expect(server.warnings).toEqual([]) // nothing but MCP messages on the server's stdout
      } catch (error) {
        throw new Error(`${String(error)}\nserver stderr:\n${server.stderr()}`, { cause: error })
      } finally {
        const code = await server.shutdown()
        expect(code, server.stderr()).toBe(0)
      }
    },
  )
})

describe('a stdio server process that dies mid-request', () => {
  it('the pending call fails with ConnectionClosedError, and so does the next', { timeout: 30_000 }, async () => {
    // reads one line, then exits without answering
    const script = "process.stdin.once('data', () => process.exit(3))"
    const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    const transport = new StdioClientTransport({
      input: Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      output: Writable.toWeb(child.stdin),
    })
    const client = new Client({ transport, versionNegotiation: 'modern' })
    const error = await client.listTools().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectionClosedError)
    expect((error as Error).message).toBe(
      'The stdio server closed its output (it exited?) before the answer to tools/list',
    )
    expect(await exited).toBe(3)
    await expect(client.callTool('echo')).rejects.toThrow(ConnectionClosedError)
    await transport.close()
  })
})
