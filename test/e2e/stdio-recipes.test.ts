/**
 * The stdio client recipes (docs/stdio.md "Launching a stdio server from a client") as a user copies them:
 * every code block naming one of them is that file of examples/stdio/ byte for byte; copied into a fresh app
 * whose `node_modules/edge-mcp` is this package (dist/, as installed), they type-check with the app's
 * tsconfig.json; and each — Node (`child_process.spawn`), Deno (`Deno.Command`), Bun (`Bun.spawn`) — launches
 * examples/stdio/server.ts under its own runtime, lists, calls greet and order_book (its question answered),
 * then shuts the server down cleanly: its stdin closed, and it exits by itself with 0 (no kill). Needs
 * `npm run build` first (npm test does).
 */
import { execFile } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { typecheckApp } from '../app-typecheck.ts'
import { beforeAll, describe, expect, it } from 'vitest'
import { readMarkdown } from '../markdown.ts'
import { ensureTool } from '../tools.ts'

const run = promisify(execFile)
const ROOT = join(import.meta.dirname, '../..')
const APP = join(ROOT, 'test-results/stdio-client/app')
const DOC = join(ROOT, 'docs/stdio.md')
const TSX = join(ROOT, 'node_modules/.bin/tsx')
/** The client recipes (server.ts is the server side's). */
const RECIPES = ['client-node.ts', 'client-deno.ts', 'client-bun.ts', 'session.ts', 'globals.d.ts']

/** What every client prints (docs/stdio.md shows it too). */
const EXPECTED = [
  'tools: greet, order_book',
  'Hello, Ada!',
  "asked: 'Neuromancer' is out of stock (2-3 weeks). Order anyway?",
  "Ordered 'Neuromancer'.",
  'server exited (0)',
  '',
].join('\n')

describe('docs/stdio.md: launching a stdio server from a client', () => {
  const { blocks } = readMarkdown(DOC, ROOT)

  it('shows every client recipe, each block byte-equal to its file', () => {
    const named = blocks.flatMap(({ attributes, body }) => {
      const file = attributes.file?.replace(/^examples\/stdio\//, '')
      return file && RECIPES.includes(file) ? [{ file, body }] : []
    })
    expect(named.map((b) => b.file).sort()).toEqual([...RECIPES].sort())
    for (const { file, body } of named)
      expect(`${body}\n`, file).toBe(readFileSync(join(ROOT, 'examples/stdio', file), 'utf8'))
  })

  it("shows the clients' output exactly as the tests see it", () => {
    expect(blocks.filter((b) => b.info === 'text').map((b) => `${b.body}\n`)).toContain(EXPECTED)
  })
})

describe('the stdio client recipes in a fresh app', () => {
  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist/client/index.js')))
      throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
    rmSync(join(ROOT, 'test-results/stdio-client'), { recursive: true, force: true })
    mkdirSync(join(APP, 'node_modules'), { recursive: true })
    cpSync(join(ROOT, 'examples/stdio'), join(APP, 'stdio'), { recursive: true })
    cpSync(join(ROOT, 'examples/runtimes/server.ts'), join(APP, 'runtimes/server.ts'))
    cpSync(join(ROOT, 'examples/runtimes/package.json'), join(APP, 'package.json'))
    cpSync(join(ROOT, 'examples/runtimes/tsconfig.json'), join(APP, 'tsconfig.json'))
    // what `npm install edge-mcp valibot` and the dev dependencies (tsx, @types/node) put there
    symlinkSync(ROOT, join(APP, 'node_modules/edge-mcp'), 'dir')
    for (const name of ['valibot', 'tsx', '@types'])
      symlinkSync(join(ROOT, 'node_modules', name), join(APP, 'node_modules', name), 'dir')
  })

  it("type-check against the published declarations with the app's tsconfig.json", () => {
    const { files: names, program, diagnostics } = typecheckApp(APP)
    for (const file of RECIPES) expect(names).toContain(`stdio/${file}`)
    expect(diagnostics).toBe('')
    expect(program.getSourceFiles().some((f) => f.fileName.endsWith('/dist/client/index.d.ts'))).toBe(true)
  })

  /** Run a client recipe; its stdout must be EXPECTED, and its stderr hold no warning. */
  async function client(command: string, args: string[]) {
    const { stdout, stderr } = await run(command, args, {
      cwd: APP,
      timeout: 90_000,
      env: { ...process.env, NO_COLOR: '1' },
    })
    expect(stdout).toBe(EXPECTED)
    expect(stderr).not.toMatch(/warn|error/i)
  }

  it('Node: npx tsx client-node.ts (child_process.spawn)', { timeout: 120_000 }, async () => {
    await client(TSX, ['stdio/client-node.ts'])
  })

  it('Deno: deno run --allow-run --allow-read client-deno.ts (Deno.Command)', { timeout: 180_000 }, async () => {
    const deno = await ensureTool('deno')
    await client(deno, ['run', '--allow-run', '--allow-read', 'stdio/client-deno.ts'])
  })

  it('Bun: bun client-bun.ts (Bun.spawn)', { timeout: 180_000 }, async () => {
    const bun = await ensureTool('bun')
    await client(bun, ['stdio/client-bun.ts'])
  })
})
