/**
 * OpenTelemetry on Workers: examples/tracing-worker.ts (serverTracing, the SDK's BasicTracerProvider, an
 * exporter that POSTs with fetch, no context manager, `nodejs_compat` off) bundled by `wrangler deploy
 * --dry-run` with examples/wrangler.toml and run in workerd (Miniflare). A Node client with clientTracing
 * calls the tool that asks (two rounds): the Worker's spans reach a loopback collector, and they continue
 * the client's trace — each round's server span under the client's request span, the handler run,
 * resolvers and question under it.
 */
import { execFile } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { SpanKind } from '@opentelemetry/api'
import { Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { clientTracing } from '../../src/opentelemetry/index.ts'
import { exporter } from '../opentelemetry/otel.ts'
import { ROOT } from '../workerd.ts'

interface Exported {
  name: string
  kind: SpanKind
  traceId: string
  spanId: string
  parentSpanId?: string
  links: string[]
  attributes: Record<string, unknown>
}

const received: Exported[] = []
let collector: Server
let mf: Miniflare | undefined
let dir = ''
let base = ''

beforeAll(async () => {
  collector = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      received.push(...(JSON.parse(body) as Exported[]))
      response.end('ok')
    })
  })
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve))
  const { port } = collector.address() as { port: number }
  dir = await mkdtemp(join(tmpdir(), 'edge-mcp-tracing-workerd-'))
  await promisify(execFile)(
    join(ROOT, 'node_modules/.bin/wrangler'),
    [
      'deploy',
      '--dry-run',
      '--config',
      join(ROOT, 'examples/wrangler.toml'),
      '--outdir',
      join(dir, 'out'),
      join(ROOT, 'examples/tracing-worker.ts'),
    ],
    {
      cwd: ROOT,
      timeout: 90_000,
      env: { ...process.env, CI: 'true', WRANGLER_LOG: 'warn', WRANGLER_LOG_PATH: dir, WRANGLER_SEND_METRICS: 'false' },
    },
  )
  mf = new Miniflare({
    modules: true,
    scriptPath: join(dir, 'out/tracing-worker.js'),
    modulesRoot: join(dir, 'out'),
    compatibilityDate: '2026-04-01',
    compatibilityFlags: ['no_nodejs_compat', 'enable_request_signal'],
    bindings: { TRACES_URL: `http://127.0.0.1:${port}/spans` },
    unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
  })
  base = (await mf.unsafeGetDirectURL()).href
}, 120_000)

afterAll(async () => {
  await mf?.dispose()
  collector?.close()
  await rm(dir, { recursive: true, force: true })
})

describe('serverTracing in workerd', () => {
  it('exports the Worker’s spans with fetch, in the trace of the Node client’s call', async () => {
    const client = new Client({
      transport: new StreamableHttpClientTransport(new URL('/mcp', base).href),
      versionNegotiation: 'modern',
      elicitation: () => ({ action: 'accept', content: { confirm: true } }),
    })
    client.use(clientTracing())
    const result = await client.callTool('order_book', { title: 'Neuromancer' })
    expect(result.content).toEqual([{ type: 'text', text: "Backordered 'Neuromancer'; it ships in 2-3 weeks." }])
    await expect.poll(() => received.filter((s) => s.kind === SpanKind.SERVER).length).toBe(2)
    await expect.poll(() => received.length).toBe(9)

    const [call] = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.INTERNAL)
    const requests = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT)
    expect(requests).toHaveLength(2)
    const traceId = call.spanContext().traceId
    expect(received.every((s) => s.traceId === traceId)).toBe(true)

    const served = received.filter((s) => s.kind === SpanKind.SERVER)
    expect(served.map((s) => s.parentSpanId).sort()).toEqual(requests.map((r) => r.spanContext().spanId).sort())
    for (const s of served) {
      expect(s.name).toBe('tools/call order_book')
      expect(s.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'network.transport': 'tcp' })
    }
    const byId = new Map(received.map((s) => [s.spanId, s]))
    const parentName = (s: Exported) => byId.get(s.parentSpanId ?? '')?.name
    const lines = received.map((s) => `${s.name} ← ${parentName(s) ?? 'client'}`).sort()
    expect(lines).toEqual(
      [
        'tools/call order_book ← client',
        'tools/call order_book ← client',
        'execute_tool order_book ← tools/call order_book',
        'execute_tool order_book ← tools/call order_book',
        'resolve checkStock ← execute_tool order_book',
        'resolve checkStock ← execute_tool order_book',
        'resolve confirmBackorder ← execute_tool order_book',
        'resolve confirmBackorder ← execute_tool order_book',
        'elicitation/create ← resolve confirmBackorder',
      ].sort(),
    )
    // the second round links to the first (its context carried in the sealed requestState)
    expect(served.flatMap((s) => s.links)).toHaveLength(1)
    expect(served.map((s) => s.spanId)).toContain(served.flatMap((s) => s.links)[0])
  }, 60_000)
})
