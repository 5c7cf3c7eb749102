/**
 * Bring your own schemas, as a user does: for each of zod 4, arktype and valibot, a fresh `"type": "module"`
 * app installs the packed tarball with that schema library only (and the official v1 SDK, for its client),
 * registers a tool, a prompt and a tool whose resolver elicits, all with that library's schemas, and serves
 * them over node:http. The official v1 client (2025-11-25: the question comes as `elicitation/create`) and
 * edge-mcp's Client (2026-07-28: input required) each list the tools, call them (valid and invalid
 * arguments), get the prompt and answer the question. A TypeScript consumer in the same app, typed from the
 * library's schemas, is type-checked with TypeScript 5 (the repository's) and TypeScript 7 (the native
 * compiler, test/tools.ts), strict with NodeNext, including the package's declarations (no skipLibCheck).
 * The three apps install in parallel from the one tarball.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { npm, OFFLINE, packTarball, pkg } from '../packing.ts'
import { ensureTool, TOOL_VERSIONS } from '../tools.ts'
import { ROOT } from '../workerd.ts'

const run = promisify(execFile)

/**
 * Each library's schemas, as module code defining `Order` (tool input: an object schema), `Blurb` (prompt
 * arguments: entries, or an object schema for arktype) and `Confirm` (a form: entries, or an object schema).
 */
const LIBRARIES = {
  zod: {
    imports: `import { z } from 'zod'`,
    schemas: `
const Order = z.object({ title: z.string().describe('The title'), copies: z.number().int().min(1).optional() })
const Blurb = { title: z.string(), tone: z.enum(['warm', 'dry']).optional() }
const Confirm = formSchema({ confirm: z.boolean().describe('Order anyway?') })`,
    // zod writes the largest safe integer as the bound of .int()
    copies: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  },
  arktype: {
    imports: `import { type } from 'arktype'`,
    schemas: `
const Order = type({ title: type.string.describe('The title'), 'copies?': 'number.integer >= 1' })
const Blurb = type({ title: 'string', 'tone?': "'warm' | 'dry'" })
const Confirm = formSchema(type({ confirm: type.boolean.describe('Order anyway?') }))`,
    copies: { type: 'integer', minimum: 1 },
  },
  valibot: {
    imports: `import * as v from 'valibot'`,
    schemas: `
const Order = v.object({
  title: v.pipe(v.string(), v.description('The title')),
  copies: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
})
const Blurb = { title: v.string(), tone: v.optional(v.picklist(['warm', 'dry'])) }
const Confirm = formSchema({ confirm: v.pipe(v.boolean(), v.description('Order anyway?')) })`,
    copies: { type: 'integer', minimum: 1 },
  },
}
type Library = keyof typeof LIBRARIES
const QUESTION = "'Dune' ships in 3 weeks. Order anyway?"

/** The app's server: the library's schemas in a tool, a prompt and a resolver's form, served by node:http → fetch. */
const serverMjs = (library: Library) => `
import { createServer } from 'node:http'
${LIBRARIES[library].imports}
import { McpServer, arg, createFetchHandler, elicit, formSchema, resolver } from 'edge-mcp/server'
${LIBRARIES[library].schemas}

const mcp = new McpServer({ name: 'shop', version: '1.0.0' })
mcp.tool('order_book', { description: 'Order a book.', input: Order }, ({ title, copies }) =>
  \`Ordered \${copies ?? 1} of '\${title}'.\`,
)
mcp.prompt('blurb', { description: 'Write a blurb.', arguments: Blurb }, ({ title, tone }) =>
  \`Write a \${tone ?? 'warm'} blurb for '\${title}'.\`,
)
const confirmOrder = resolver({ title: arg() }, function confirmOrder({ title }) {
  return elicit(\`'\${title}' ships in 3 weeks. Order anyway?\`, Confirm)
})
mcp.tool(
  'backorder_book',
  { description: 'Order a book that is out of stock.', input: Order, use: { answer: confirmOrder } },
  ({ title, answer }) => (answer.confirm ? \`Backordered '\${title}'.\` : 'No order placed.'),
)

const handler = createFetchHandler(mcp)
createServer(async (req, res) => {
  const chunks = []
  for await (const chunk of req) chunks.push(chunk)
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    for (const one of [value].flat()) if (one !== undefined) headers.append(name, one)
  }
  const body = chunks.length ? Buffer.concat(chunks) : undefined
  const response = await handler(
    new Request(new URL(req.url, \`http://\${req.headers.host}\`), { method: req.method, headers, body }),
  )
  res.writeHead(response.status, [...response.headers].flat())
  if (response.body) for await (const chunk of response.body) res.write(chunk)
  res.end()
}).listen(0, '127.0.0.1', function () {
  console.log(JSON.stringify({ port: this.address().port }))
})
`

/** What each client prints: the same for both, but for the protocol version. */
const REPORT = `
const text = (result) => result.content.map((c) => c.text).join('\\n')
const report = (protocolVersion, tools, order, invalid, prompt, backorder) =>
  console.log(JSON.stringify({
    protocolVersion,
    tools: tools.map(({ name, inputSchema }) => ({ name, inputSchema })),
    order: text(order),
    invalid: { isError: invalid.isError, text: text(invalid) },
    prompt: prompt.messages.map((m) => m.content.text),
    backorder: text(backorder),
    asked,
  }))
const asked = []
`

/** The official v1 client (2025-11-25, initialize): answers \`elicitation/create\` with its request handler. */
const CLIENT_V1_MJS = `
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
${REPORT}
const client = new Client({ name: 'v1', version: '1.0.0' }, { capabilities: { elicitation: {} } })
client.setRequestHandler(ElicitRequestSchema, (request) => {
  asked.push(request.params.message)
  return { action: 'accept', content: { confirm: true } }
})
const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]))
await client.connect(transport)
report(
  transport.protocolVersion,
  (await client.listTools()).tools,
  await client.callTool({ name: 'order_book', arguments: { title: 'Dune', copies: 2 } }),
  await client.callTool({ name: 'order_book', arguments: { copies: 0 } }),
  await client.getPrompt({ name: 'blurb', arguments: { title: 'Dune', tone: 'dry' } }),
  await client.callTool({ name: 'backorder_book', arguments: { title: 'Dune' } }),
)
await client.close()
`

/** edge-mcp's Client (2026-07-28): answers the input-required question with its \`elicitation\` callback. */
const CLIENT_OURS_MJS = `
import { Client, StreamableHttpClientTransport } from 'edge-mcp/client'
${REPORT}
const client = new Client({
  transport: new StreamableHttpClientTransport(process.argv[2]),
  elicitation: (params) => {
    asked.push(params.message)
    return { action: 'accept', content: { confirm: true } }
  },
})
report(
  client.protocolVersion,
  await client.listTools(),
  await client.callTool('order_book', { title: 'Dune', copies: 2 }),
  await client.callTool('order_book', { copies: 0 }),
  await client.getPrompt('blurb', { title: 'Dune', tone: 'dry' }),
  await client.callTool('backorder_book', { title: 'Dune' }),
)
await client.close()
`

/** A TypeScript consumer: handler, prompt and resolver parameters typed from the library's schemas (not any). */
const consumerTs = (library: Library) => `
${LIBRARIES[library].imports}
import type { CallToolResult } from 'edge-mcp'
import { McpServer, arg, createFetchHandler, elicit, formSchema, resolver, type FetchHandler } from 'edge-mcp/server'
import { Client, StreamableHttpClientTransport } from 'edge-mcp/client'
${LIBRARIES[library].schemas}

const mcp = new McpServer({ name: 'shop', version: '1.0.0' })
mcp.tool('order_book', { input: Order }, (args) => {
  const title: string = args.title
  const copies: number | undefined = args.copies
  // @ts-expect-error -- title is a string
  const wrong: number = args.title
  // @ts-expect-error -- copies is optional
  const always: number = args.copies
  // @ts-expect-error -- no such argument
  void args.isbn
  return \`\${title} \${copies ?? always ?? wrong}\`
})
mcp.prompt('blurb', { arguments: Blurb }, ({ title, tone }) => {
  const style: 'warm' | 'dry' | undefined = tone
  // @ts-expect-error -- tone is one of two words
  const other: 'cold' | undefined = tone
  return \`\${title} \${style ?? other}\`
})
const confirmOrder = resolver({ title: arg<string>() }, function confirmOrder({ title }) {
  return elicit(\`Order \${title}?\`, Confirm)
})
mcp.tool('backorder_book', { input: Order, use: { answer: confirmOrder } }, ({ title, answer }) => {
  const yes: boolean = answer.confirm
  // @ts-expect-error -- confirm is a boolean
  const no: string = answer.confirm
  return yes ? title : no
})
const needsIsbn = resolver({ isbn: arg<string>() }, function needsIsbn({ isbn }) {
  return isbn
})
// @ts-expect-error -- the tool has no isbn argument for the resolver
mcp.tool('by_isbn', { input: Order, use: { isbn: needsIsbn } }, () => 'x')
const handler: FetchHandler = createFetchHandler(mcp)

const client = new Client({
  transport: new StreamableHttpClientTransport('http://127.0.0.1:8787/mcp'),
  elicitation: () => ({ action: 'accept', content: { confirm: true } }),
})
export async function main(): Promise<CallToolResult> {
  void handler
  return client.callTool('backorder_book', { title: 'Dune' })
}
`

/** A user's settings (strict, NodeNext), declarations included: the package's .d.ts are checked too. */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023', 'DOM', 'DOM.Iterable'],
    types: ['node'],
    strict: true,
    skipLibCheck: false,
    noEmit: true,
  },
  files: ['consumer.ts'],
}

const work = mkdtempSync(join(tmpdir(), 'edge-mcp-schemas-'))
const appOf = (library: Library) => join(work, library)
const V1 = `@modelcontextprotocol/sdk@${pkg.devDependencies['@modelcontextprotocol/sdk']}`
const TS5 = join(ROOT, 'node_modules/typescript/bin/tsc')
let tsc7: string
const servers: ChildProcess[] = []

beforeAll(async () => {
  const [{ tarball }] = await Promise.all([packTarball(work), ensureTool('typescript').then((bin) => (tsc7 = bin))])
  await Promise.all(
    (Object.keys(LIBRARIES) as Library[]).map(async (library) => {
      const app = appOf(library)
      mkdirSync(app)
      const devDependencies = { '@types/node': pkg.devDependencies['@types/node'] } // arktype's declarations use node:buffer's
      writeFileSync(
        join(app, 'package.json'),
        JSON.stringify({ name: 'app', private: true, type: 'module', devDependencies }),
      )
      await npm(['install', tarball, `${library}@${pkg.devDependencies[library]}`, V1, ...OFFLINE], app)
      writeFileSync(join(app, 'server.mjs'), serverMjs(library))
      writeFileSync(join(app, 'client-v1.mjs'), CLIENT_V1_MJS)
      writeFileSync(join(app, 'client.mjs'), CLIENT_OURS_MJS)
      writeFileSync(join(app, 'consumer.ts'), consumerTs(library))
      writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(TSCONFIG))
    }),
  )
}, 300_000)

afterAll(() => {
  for (const server of servers) server.kill()
  rmSync(work, { recursive: true, force: true })
})

/** The paths from the app down to each installed copy of `name`, as `npm ls --all` walks them. */
async function pathsTo(name: string, app: string): Promise<string[]> {
  interface Node {
    dependencies?: Record<string, Node>
  }
  const { stdout } = await npm(['ls', name, '--all', '--json'], app)
  const walk = (node: Node, path: string[]): string[] =>
    Object.entries(node.dependencies ?? {}).flatMap(([dep, child]) =>
      dep === name ? [[...path, dep].join(' > ')] : walk(child, [...path, dep]),
    )
  return walk(JSON.parse(stdout) as Node, [])
}

describe.each(Object.keys(LIBRARIES) as Library[])('a fresh app with %s as its only schema library', (library) => {
  const app = appOf(library)

  it('depends on edge-mcp, the library and the official client only; valibot only through edge-mcp', async () => {
    const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>
    }
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@modelcontextprotocol/sdk', 'edge-mcp', library].sort())
    await npm(['ls', '--all'], app) // exits non-zero on a missing or invalid dependency
    // one copy of valibot, reached through edge-mcp (its protocol validator), and from the app only when it is the app's library
    const valibot = await pathsTo('valibot', app)
    expect(valibot).toContain('edge-mcp > valibot')
    const direct = library === 'valibot' ? ['valibot'] : []
    expect(valibot.filter((path) => !path.startsWith('edge-mcp > '))).toEqual(direct)
    const { stdout } = await npm(['ls', 'valibot', '--all', '--parseable'], app)
    expect(stdout.trim().split('\n')).toEqual([join(app, 'node_modules/valibot')])
  })

  it('serves the official v1 client and our Client: list, call, an invalid call, a prompt and a question', async () => {
    const server = spawn(process.execPath, ['server.mjs'], { cwd: app, stdio: ['ignore', 'pipe', 'inherit'] })
    servers.push(server)
    const port = await new Promise<number>((resolve, reject) => {
      server.stdout.once('data', (line: Buffer) => resolve((JSON.parse(line.toString()) as { port: number }).port))
      server.once('exit', (code) => reject(new Error(`server.mjs exited with ${code}`)))
    })
    const url = `http://127.0.0.1:${port}/mcp`
    const inputSchema = {
      type: 'object',
      properties: { title: { type: 'string', description: 'The title' }, copies: LIBRARIES[library].copies },
      required: ['title'],
    }
    for (const [client, protocolVersion] of [
      ['client-v1.mjs', '2025-11-25'],
      ['client.mjs', '2026-07-28'],
    ]) {
      const { stdout } = await run(process.execPath, [client, url], { cwd: app, timeout: 30_000 })
      const seen = JSON.parse(stdout) as { invalid: { text: string } }
      expect(seen, client).toEqual({
        protocolVersion,
        tools: [
          { name: 'order_book', inputSchema },
          { name: 'backorder_book', inputSchema },
        ],
        order: "Ordered 2 of 'Dune'.",
        invalid: { isError: true, text: seen.invalid.text }, // in each library's words, matched below
        prompt: ["Write a dry blurb for 'Dune'."],
        backorder: "Backordered 'Dune'.",
        asked: [QUESTION],
      })
      expect(seen.invalid.text, client).toMatch(
        /^Invalid arguments for tool order_book: field 'title': .+; field 'copies': .+/,
      )
    }
  })

  it.each([
    ['TypeScript 5', () => TS5, pkg.devDependencies.typescript],
    ['TypeScript 7', () => tsc7, TOOL_VERSIONS.typescript],
  ])('type-checks a consumer with %s (strict, NodeNext, the declarations included)', async (_, tsc, version) => {
    const { stdout: reported } = await run(process.execPath, [tsc(), '--version'])
    expect(reported.trim()).toBe(`Version ${version}`)
    const result = await run(process.execPath, [tsc(), '-p', app, '--pretty', 'false']).catch(
      (e: { stdout: string }) => e,
    )
    expect(result.stdout).toBe('')
  })
})
