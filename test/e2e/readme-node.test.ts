/**
 * The README's Node examples run as written: the server and client blocks of "Hello world" and of "A tool
 * that asks" are copied into test-results/readme-node/, the server started with tsx (as the README says)
 * and the client run against it; the client's output must show what the README's comments say. The one
 * change is the port: 3000 becomes a free one. The package is reached as `edge-mcp/...` (self-reference
 * to dist/, as an installed package would be). Needs `npm run build` first (npm test does).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { readMarkdown, type CodeBlock } from '../markdown.ts'
import { freePort, ROOT, stopGroup } from '../workerd.ts'

const run = promisify(execFile)
const DIR = join(ROOT, 'test-results/readme-node')
const TSX = join(ROOT, 'node_modules/.bin/tsx')
const readme = readMarkdown(join(ROOT, 'README.md'), ROOT)

/** The ```ts blocks of the README section `## title`, in order. */
function tsBlocksOf(title: string): CodeBlock[] {
  const start = readme.headings.find((h) => h.depth === 2 && h.text === title)
  if (!start) throw new Error(`README.md has no "## ${title}"`)
  const end = readme.headings.find((h) => h.depth === 2 && h.line > start.line)?.line ?? Infinity
  return readme.blocks.filter((b) => b.lang === 'ts' && b.line > start.line && b.line < end)
}

/** Writes the server and client blocks with `port` for 3000; starts the server; resolves once it answers. */
async function startServer(name: string, server: CodeBlock, client: CodeBlock, port: number): Promise<ChildProcess> {
  expect(server.body).toContain('3000')
  expect(client.body).toContain('127.0.0.1:3000/mcp')
  writeFileSync(join(DIR, `${name}-server.ts`), server.body.replaceAll('3000', String(port)) + '\n')
  writeFileSync(join(DIR, `${name}-client.ts`), client.body.replaceAll('3000', String(port)) + '\n')
  const child = spawn(TSX, [`${name}-server.ts`], { cwd: DIR, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  child.stdout.on('data', (d) => (log += d))
  child.stderr.on('data', (d) => (log += d))
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name}-server.ts exited (${child.exitCode}):\n${log}`)
    if (Date.now() > deadline) throw new Error(`${name}-server.ts did not listen on ${port} within 60 s:\n${log}`)
    try {
      await fetch(`http://127.0.0.1:${port}/mcp`, { signal: AbortSignal.timeout(2000) })
      return child
    } catch {
      await new Promise((r) => setTimeout(r, 200))
    }
  }
}

async function runClient(name: string): Promise<string> {
  const { stdout } = await run(TSX, [`${name}-client.ts`], { cwd: DIR, timeout: 60_000 })
  return stdout
}

describe("the README's examples on Node", () => {
  let server: ChildProcess | undefined

  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist/server/index.js')))
      throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
    rmSync(DIR, { recursive: true, force: true })
    mkdirSync(DIR, { recursive: true })
  })

  afterEach(() => stopGroup(server))

  it('Hello world: the client lists and calls the tool', async () => {
    const [serverBlock, clientBlock] = tsBlocksOf('Hello world')
    server = await startServer('hello', serverBlock, clientBlock, await freePort())
    const out = await runClient('hello')
    expect(out).toBe("[ 'greet' ]\n[ { type: 'text', text: 'Hello, Ada!' } ]\n")
  }, 120_000)

  it('A tool that asks: the question reaches the client callback, and the answer the handler', async () => {
    const [serverBlock, clientBlock] = tsBlocksOf('A tool that asks')
    server = await startServer('asks', serverBlock, clientBlock, await freePort())
    const out = await runClient('asks')
    expect(out).toBe(
      "'Neuromancer' is out of stock (2-3 weeks). Order anyway?\n" +
        `[ { type: 'text', text: "Ordered 'Neuromancer'." } ]\n`,
    )
  }, 120_000)
})
