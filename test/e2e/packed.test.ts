/**
 * The package as a user gets it. `npm pack` runs in a copy of the repository (its prepack builds dist/ and
 * makes the README's links absolute, its postpack restores them; a copy, so the working tree's README.md
 * and dist/ are never half-written while other test files read them). The tarball is checked, installed
 * into a fresh `"type": "module"` app with its peers (`npm install <tarball> valibot hono`), and that app
 * runs a plain-JavaScript server (node:http → fetch handler, with and without edge-mcp/hono) and client:
 * list tools, call one, and call one that asks the user (elicitation answered by the client's callback).
 * A TypeScript consumer in the same app is type-checked against the published declarations. Without the
 * optional peer @opentelemetry/api, edge-mcp/server and edge-mcp/client load; edge-mcp/opentelemetry needs it.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { npm, OFFLINE, packTarball, pkg, type Manifest } from '../packing.ts'
import { ROOT } from '../workerd.ts'

const run = promisify(execFile)

/** Link targets in Markdown outside code: inline links and images, reference definitions, HTML href/src. */
function linkTargets(markdown: string): string[] {
  const prose = markdown
    .replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?^ {0,3}\1[^\n]*$/gm, '') // fenced code
    .replace(/(`+)[^`][\s\S]*?\1/g, '') // code spans
  return [
    ...[...prose.matchAll(/\]\(\s*<?([^\s)>]+)/g)].map((m) => m[1]),
    ...[...prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)/gm)].map((m) => m[1]),
    ...[...prose.matchAll(/\s(?:href|src)=["']([^"']+)["']/g)].map((m) => m[1]),
  ]
}

const work = mkdtempSync(join(tmpdir(), 'edge-mcp-packed-'))
const APP = join(work, 'app')
let tarball: string
let STAGE: string
let packedFiles: string[]
let unpacked: string
let server: ChildProcess | undefined

beforeAll(async () => {
  ;({ tarball, files: packedFiles, stage: STAGE } = await packTarball(work))
  unpacked = join(work, 'unpacked')
  mkdirSync(unpacked)
  await run('tar', ['-xzf', tarball, '-C', unpacked])
}, 180_000)

afterAll(() => {
  server?.kill()
  rmSync(work, { recursive: true, force: true })
})

describe('the packed tarball', () => {
  it('holds package.json, README.md, LICENSE and dist/ only (nothing from src/ or test/)', () => {
    expect(packedFiles).toContain('package.json')
    expect(packedFiles).toContain('README.md')
    expect(packedFiles).toContain('LICENSE')
    expect(packedFiles).toContain('dist/index.js')
    expect(packedFiles).toContain('dist/server/index.d.ts')
    expect(
      packedFiles.filter((f) => !['package.json', 'README.md', 'LICENSE'].includes(f) && !f.startsWith('dist/')),
    ).toEqual([])
    const license = readFileSync(join(unpacked, 'package/LICENSE'), 'utf8')
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) 2026 edge-mcp contributors\n/)
  })

  it('declares hono and @opentelemetry/api as optional peers; valibot (its protocol validator), its JSON Schema converter, the Standard Schema types and jose as dependencies', () => {
    const packed = JSON.parse(readFileSync(join(unpacked, 'package/package.json'), 'utf8')) as Manifest
    expect(Object.keys(packed.peerDependencies ?? {}).sort()).toEqual(['@opentelemetry/api', 'hono'])
    expect(packed.peerDependenciesMeta).toEqual({ hono: { optional: true }, '@opentelemetry/api': { optional: true } })
    expect(Object.keys(packed.dependencies ?? {}).sort()).toEqual([
      '@standard-schema/spec',
      '@valibot/to-json-schema',
      'jose',
      'valibot',
    ])
    // a caret range whose major is the one the repository develops and tests against
    for (const [name, range] of Object.entries({ ...packed.peerDependencies, ...packed.dependencies })) {
      const [, major] = /^\^(\d+)\.\d+\.\d+$/.exec(range) ?? []
      const tested = pkg.devDependencies[name] ?? /^\^(.*)$/.exec(pkg.dependencies?.[name] ?? '')?.[1]
      expect(major, `${name}@${range}`).toBe(tested?.split('.')[0])
    }
  })

  it("has a README whose links all work from the npm page (absolute), and leaves the repository's README as it was", () => {
    const original = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const packed = readFileSync(join(unpacked, 'package/README.md'), 'utf8')
    const targets = linkTargets(packed)
    expect(targets.length).toBeGreaterThan(0)
    expect(targets.filter((t) => !/^(https?:|mailto:|#)/.test(t))).toEqual([])
    // each relative link of the repository's README is there, absolute (a file → blob, a folder → tree, an image → raw)
    const base = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '')
    for (const target of linkTargets(original).filter((t) => !/^(https?:|mailto:|#)/.test(t))) {
      const [path, anchor = ''] = target.replace(/^\.?\//, '').split(/(?=#)/)
      const forms = ['blob', 'tree', 'raw'].map((kind) => `${base}/${kind}/main/${path.replace(/\/$/, '')}${anchor}`)
      expect(
        forms.some((url) => targets.includes(url)),
        target,
      ).toBe(true)
    }
    expect(packed.split('\n').length).toBe(original.split('\n').length)
    expect(readFileSync(join(STAGE, 'README.md'), 'utf8')).toBe(original) // postpack put it back
    expect(existsSync(join(STAGE, '.readme-links-backup.md'))).toBe(false)
  })
})

/** The app's server: a hello-world tool and a tool that asks, served by a tiny node:http → fetch adapter. */
const SERVER_MJS = `
import { createServer } from 'node:http'
import * as v from 'valibot'
import { Hono } from 'hono'
import { McpServer, arg, createFetchHandler, elicit, formSchema, resolver } from 'edge-mcp/server'
import { createHonoHandler } from 'edge-mcp/hono'

const mcp = new McpServer({ name: 'shop', version: '1.0.0' })
mcp.tool('hello', { description: 'Say hello.', input: { name: v.string() } }, ({ name }) => \`Hello, \${name}!\`)

const Confirm = formSchema({ confirm: v.pipe(v.boolean(), v.description('Order anyway?')) })
const confirmOrder = resolver({ title: arg() }, function confirmOrder({ title }) {
  return elicit(\`'\${title}' ships in 3 weeks. Order anyway?\`, Confirm)
})
mcp.tool(
  'order_book',
  { description: 'Order a book.', input: { title: v.string() }, use: { answer: confirmOrder } },
  ({ title, answer }) => (answer.confirm ? \`Ordered '\${title}'.\` : 'No order placed.'),
)

const plain = createFetchHandler(mcp)
const app = new Hono()
app.all('/hono/mcp', createHonoHandler(mcp))

createServer(async (req, res) => {
  const chunks = []
  for await (const chunk of req) chunks.push(chunk)
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    for (const one of [value].flat()) if (one !== undefined) headers.append(name, one)
  }
  const body = chunks.length ? Buffer.concat(chunks) : undefined
  const request = new Request(new URL(req.url, \`http://\${req.headers.host}\`), { method: req.method, headers, body })
  const response = await (request.url.includes('/hono/') ? app.fetch(request) : plain(request))
  res.writeHead(response.status, [...response.headers].flat())
  if (response.body) for await (const chunk of response.body) res.write(chunk)
  res.end()
}).listen(0, '127.0.0.1', function () {
  console.log(JSON.stringify({ port: this.address().port }))
})
`

/** The app's client: lists, calls, and answers the question; prints what it saw as JSON. */
const CLIENT_MJS = `
import { Client, StreamableHttpClientTransport } from 'edge-mcp/client'

const asked = []
const client = new Client({
  transport: new StreamableHttpClientTransport(process.argv[2]),
  elicitation: (params) => {
    asked.push(params.message)
    return { action: 'accept', content: { confirm: true } }
  },
})
const tools = (await client.listTools()).map((tool) => tool.name)
const text = (result) => result.content.map((c) => c.text).join('\\n')
const hello = text(await client.callTool('hello', { name: 'Ada' }))
const order = text(await client.callTool('order_book', { title: 'Dune' }))
console.log(JSON.stringify({ tools, hello, order, asked }))
`

/** A TypeScript consumer: compiles against the published declarations, and the types are precise (not any). */
const CONSUMER_TS = `
import * as v from 'valibot'
import { Hono } from 'hono'
import type { CallToolResult } from 'edge-mcp'
import { McpServer, arg, createFetchHandler, elicit, formSchema, resolver, type FetchHandler } from 'edge-mcp/server'
import { Client, StreamableHttpClientTransport } from 'edge-mcp/client'
import { createHonoHandler } from 'edge-mcp/hono'

const mcp = new McpServer({ name: 'shop', version: '1.0.0' })
const Confirm = formSchema({ confirm: v.boolean() })
const confirmOrder = resolver({ title: arg<string>() }, function confirmOrder({ title }) {
  return elicit(\`Order \${title}?\`, Confirm)
})
mcp.tool('order_book', { input: { title: v.string() }, use: { answer: confirmOrder } }, ({ title, answer }) => {
  const yes: boolean = answer.confirm
  // @ts-expect-error -- title is a string
  const wrong: number = title
  return yes ? title : String(wrong)
})
const handler: FetchHandler = createFetchHandler(mcp)
new Hono().all('/mcp', createHonoHandler(mcp))

const client = new Client({
  transport: new StreamableHttpClientTransport('http://127.0.0.1:8787/mcp'),
  elicitation: () => ({ action: 'accept', content: { confirm: true } }),
})
export async function main(): Promise<CallToolResult> {
  const [tool] = await client.listTools()
  // @ts-expect-error -- a tool is an object, not a string
  const name: string = tool
  void name
  void handler
  return client.callTool('order_book', { title: 'Dune' })
}
`

describe('the tarball installed into a fresh "type": "module" app with its peers', () => {
  beforeAll(async () => {
    mkdirSync(APP)
    writeFileSync(join(APP, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }))
    const peers = ['valibot', 'hono'].map((name) => `${name}@${pkg.devDependencies[name]}`)
    await npm(['install', tarball, ...peers, ...OFFLINE], APP)
    writeFileSync(join(APP, 'server.mjs'), SERVER_MJS)
    writeFileSync(join(APP, 'client.mjs'), CLIENT_MJS)
    writeFileSync(join(APP, 'consumer.ts'), CONSUMER_TS)
  }, 180_000)

  it('installs cleanly (npm ls) with one copy of valibot', async () => {
    await npm(['ls', '--all'], APP) // exits non-zero on a missing or invalid peer
    const { stdout } = await npm(['ls', 'valibot', '--all', '--parseable'], APP)
    expect(stdout.trim().split('\n')).toEqual([join(APP, 'node_modules/valibot')])
  })

  it('runs a server and a client in plain JavaScript: list tools, call one, and answer a question', async () => {
    server = spawn(process.execPath, ['server.mjs'], { cwd: APP, stdio: ['ignore', 'pipe', 'inherit'] })
    const port = await new Promise<number>((resolve, reject) => {
      server!.stdout!.once('data', (line: Buffer) => resolve((JSON.parse(line.toString()) as { port: number }).port))
      server!.once('exit', (code) => reject(new Error(`server.mjs exited with ${code}`)))
    })
    for (const path of ['/mcp', '/hono/mcp']) {
      const { stdout } = await run(process.execPath, ['client.mjs', `http://127.0.0.1:${port}${path}`], {
        cwd: APP,
        timeout: 30_000,
      })
      expect(JSON.parse(stdout), path).toEqual({
        tools: ['hello', 'order_book'],
        hello: 'Hello, Ada!',
        order: "Ordered 'Dune'.",
        asked: ["'Dune' ships in 3 weeks. Order anyway?"],
      })
    }
  })

  it('type-checks a TypeScript consumer against the published declarations (NodeNext, strict)', async () => {
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        types: [],
        strict: true,
        skipLibCheck: true,
        noEmit: true,
      },
      files: ['consumer.ts'],
    }
    writeFileSync(join(APP, 'tsconfig.json'), JSON.stringify(tsconfig))
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc')
    const result = await run(process.execPath, [tsc, '-p', APP, '--pretty', 'false']).catch(
      (e: { stdout: string }) => e,
    )
    expect(result.stdout).toBe('')
  })

  it('loads edge-mcp/server and edge-mcp/client without @opentelemetry/api (an optional peer); edge-mcp/opentelemetry loads once it is installed', async () => {
    const node = (code: string) =>
      run(process.execPath, ['--input-type=module', '-e', code], { cwd: APP, timeout: 30_000 })
    expect(existsSync(join(APP, 'node_modules/@opentelemetry'))).toBe(false)
    await node(`await import('edge-mcp/server'); await import('edge-mcp/client')`)
    const missing = await node(`await import('edge-mcp/opentelemetry')`).catch((e: { stderr: string }) => e)
    expect(missing.stderr).toMatch(/Cannot find package '@opentelemetry\/api'/)
    await npm(['install', `@opentelemetry/api@${pkg.devDependencies['@opentelemetry/api']}`, ...OFFLINE], APP)
    const { stdout } = await node(
      `const { serverTracing, clientTracing } = await import('edge-mcp/opentelemetry')
      console.log(Object.keys(serverTracing()).join(), Object.keys(clientTracing()).join())`,
    )
    expect(stdout.trim()).toBe('request,invocation,resolver,question call,request,answer')
  })
})
