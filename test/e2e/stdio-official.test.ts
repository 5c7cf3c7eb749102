/**
 * examples/stdio/server.ts launched by the official clients' stdio transports at their DEFAULT options —
 * `@modelcontextprotocol/sdk` 1.x and `@modelcontextprotocol/client` 2.4.0 — under Node (tsx), Deno and
 * Bun: list tools, call greet (no question), call order_book answered by the client's elicitation
 * handler; and each runtime exits by itself when its stdin closes. The example runs in a fresh app
 * (test-results/stdio/app) whose `node_modules/edge-mcp` links to this package, as test/e2e/runtimes.test.ts
 * does: its `import … from 'edge-mcp/server'` reaches dist/ as an installed package would. Needs
 * `npm run build` first (npm test does).
 */
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as V2Client } from '@modelcontextprotocol/client'
import { StdioClientTransport as V2StdioTransport } from '@modelcontextprotocol/client/stdio'
import { beforeAll, describe, expect, it } from 'vitest'
import { readMarkdown } from '../markdown.ts'
import { ensureTool } from '../tools.ts'

const ROOT = join(import.meta.dirname, '../..')
const APP = join(ROOT, 'test-results/stdio/app')
const TSX = join(ROOT, 'node_modules/.bin/tsx')
const QUESTION = "'Neuromancer' is out of stock (2-3 weeks). Order anyway?"

/** The command launching the example under each runtime, from the app directory. */
const RUNTIMES: Record<string, () => Promise<[string, string[]]>> = {
  'Node (tsx)': () => Promise.resolve([TSX, ['stdio/server.ts']]),
  Deno: async () => [await ensureTool('deno'), ['run', 'stdio/server.ts']],
  Bun: async () => [await ensureTool('bun'), ['stdio/server.ts']],
}

type Text = { content: Array<{ type: string; text: string }> }

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist/server/index.js')))
    throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
  rmSync(join(ROOT, 'test-results/stdio'), { recursive: true, force: true })
  mkdirSync(join(APP, 'node_modules'), { recursive: true })
  cpSync(join(ROOT, 'examples/stdio'), join(APP, 'stdio'), { recursive: true })
  cpSync(join(ROOT, 'examples/runtimes/server.ts'), join(APP, 'runtimes/server.ts'))
  writeFileSync(join(APP, 'package.json'), JSON.stringify({ name: 'stdio-app', private: true, type: 'module' }))
  // what `npm install edge-mcp valibot` puts there
  symlinkSync(ROOT, join(APP, 'node_modules/edge-mcp'), 'dir')
  symlinkSync(join(ROOT, 'node_modules/valibot'), join(APP, 'node_modules/valibot'), 'dir')
})

describe('docs/stdio.md', () => {
  it('shows examples/stdio/server.ts byte for byte', () => {
    const { blocks } = readMarkdown(join(ROOT, 'docs/stdio.md'), ROOT)
    const block = blocks.find((b) => b.attributes.file === 'examples/stdio/server.ts')
    expect(block && `${block.body}\n`).toBe(readFileSync(join(ROOT, 'examples/stdio/server.ts'), 'utf8'))
  })
})

/** What both official clients have in common here: `listTools` and `callTool` of the same shape. */
interface OfficialClient {
  listTools(): Promise<{ tools: Array<{ name: string }> }>
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>
}

/** The round trip every client makes: list the tools, `greet` (no question), `order_book` (its one question answered). */
async function listGreetOrder(client: OfficialClient, asked: string[]): Promise<void> {
  const { tools } = await client.listTools()
  expect(tools.map((t) => t.name)).toEqual(['greet', 'order_book'])
  const greeted = (await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })) as Text
  expect(greeted.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }])
  const ordered = (await client.callTool({ name: 'order_book', arguments: { title: 'Neuromancer' } })) as Text
  expect(ordered.content).toEqual([{ type: 'text', text: "Ordered 'Neuromancer'." }])
  expect(asked).toEqual([QUESTION])
}

describe.each(Object.keys(RUNTIMES))('examples/stdio/server.ts under %s', (runtime) => {
  it(
    '@modelcontextprotocol/sdk 1.x StdioClientTransport: list, greet, order_book with its question answered',
    { timeout: 120_000 },
    async () => {
      const [command, args] = await RUNTIMES[runtime]()
      const asked: string[] = []
      const client = new V1Client({ name: 'v1', version: '1.0.0' }, { capabilities: { elicitation: {} } })
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params.message)
        return { action: 'accept', content: { confirm: true } }
      })
      const transport = new V1StdioTransport({ command, args, cwd: APP, stderr: 'pipe' })
      let stderr = ''
      transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
      try {
        await client.connect(transport)
        expect(client.getServerVersion()).toEqual({ name: 'bookshop', version: '1.0.0' })
        await listGreetOrder(client, asked)
      } finally {
        await client.close()
      }
      expect(stderr).toBe('')
    },
  )

  it.each([
    ['default options: 2025-11-25, the question sent as elicitation/create', {}, '2025-11-25'],
    [
      'versionNegotiation auto: 2026-07-28, the question an MRTR round',
      { versionNegotiation: { mode: 'auto' } },
      '2026-07-28',
    ],
  ] as const)(
    '@modelcontextprotocol/client 2.4.0 StdioClientTransport, %s: list, greet, order_book answered',
    { timeout: 120_000 },
    async (_, options, version) => {
      const [command, args] = await RUNTIMES[runtime]()
      const asked: string[] = []
      const client = new V2Client(
        { name: 'v2', version: '2.4.0' },
        {
          capabilities: { elicitation: { form: {} } },
          ...options,
        },
      )
      client.setRequestHandler(
        'elicitation/create' as never,
        ((request: { params: { message: string } }) => {
          asked.push(request.params.message)
          return Promise.resolve({ action: 'accept', content: { confirm: true } })
        }) as never,
      )
      const transport = new V2StdioTransport({ command, args, cwd: APP, stderr: 'pipe' })
      let stderr = ''
      transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
      try {
        await client.connect(transport)
        expect(client.getNegotiatedProtocolVersion()).toBe(version)
        expect(client.getServerVersion()).toEqual({ name: 'bookshop', version: '1.0.0' })
        await listGreetOrder(client, asked)
      } finally {
        await client.close()
      }
      expect(stderr).toBe('')
    },
  )

  it('answers, then exits by itself (code 0) once its stdin closes', { timeout: 120_000 }, async () => {
    const [command, args] = await RUNTIMES[runtime]()
    const child = spawn(command, args, { cwd: APP, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    }
    child.stdin.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'greet', arguments: { name: 'Bo' }, _meta: meta },
      }) + '\n',
    )
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    const code = await exited
    clearTimeout(timer)
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    const lines = stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: number; result: Text })
    expect(lines).toHaveLength(1)
    expect(lines[0].result.content).toEqual([{ type: 'text', text: 'Hello, Bo!' }])
  })

  it(
    'stops cleanly, exit code 0, when the host stops reading its stdout (EPIPE) while stdin stays open',
    { timeout: 120_000 },
    async () => {
      const [command, args] = await RUNTIMES[runtime]()
      const child = spawn(command, args, { cwd: APP, stdio: ['pipe', 'pipe', 'pipe'] })
      let stderr = ''
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
      child.stdin.on('error', () => {}) // the child may be gone before the last write
      child.stdout.destroy() // the read end closes: the server's writes fail with EPIPE
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      }
      const params = { name: 'greet', arguments: { name: 'x'.repeat(100_000) }, _meta: meta }
      for (let id = 1; id <= 5; id++)
        child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }) + '\n')
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
      const code = await exited
      clearTimeout(timer)
      expect(code).toBe(0)
      expect(stderr.trimEnd().split('\n')).toEqual([
        expect.stringMatching(/^\[edge-mcp\] stdio: the output broke \(.*\); stopping$/),
      ])
    },
  )
})
