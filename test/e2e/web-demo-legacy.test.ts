/**
 * End to end: the web demo (served by the demo Worker under `wrangler dev`) in headless Chromium, pointed
 * with `?endpoint=` at a legacy-only server: the official v1 SDK (`@modelcontextprotocol/sdk` 1.x, MCP
 * 2025-11-25, stateful sessions) over Node http on another loopback port, with CORS for the demo's origin.
 * The client's `server/discover` probe gets the v1 SDK's 400 -32000, so it speaks to it in a session; the
 * status line and the rounds view name that era. `order_book` asks with `elicitInput` on the call's own
 * SSE stream: the same native form as with a 2026-07-28 server appears, and accepting or declining gives
 * the tool's answer, while the rounds view lists the server's question and what went back. Screenshots go
 * to test-results/web-demo/.
 */
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as z from 'zod'
import { launchChromium } from '../browser.ts'
import { ROOT, startWorker, type RunningWorker } from '../workerd.ts'

const SHOTS = join(ROOT, 'test-results/web-demo')
const QUESTION = '"Neuromancer" is out of stock (2-3 weeks). Order anyway?'
const BACKORDERED = "Backordered 'Neuromancer'; it ships in 2-3 weeks."
const DECLINED = 'No order placed: the confirmation was declined.'
const LEGACY_ERA =
  "MCP 2025-11-25 (session): the server asks on the request's stream; no rounds. " +
  'Each request it sent during the call is listed with the answer that went back.'

// ------------------------------------------------------------------ the legacy-only server

/** The bookshop as a v1 SDK server: `order_book` asks to confirm the backorder on the call's stream. */
function bookshop(): McpServer {
  const server = new McpServer({ name: 'v1-bookshop', title: 'Legacy bookshop', version: '1.0.0' })
  server.registerTool(
    'order_book',
    {
      description: 'Order a book; asks to confirm a backorder when it is out of stock.',
      inputSchema: { title: z.string().min(1) },
    },
    async ({ title }, extra) => {
      // relatedRequestId: the request goes out on this POST's SSE stream (the v1 SDK's GET stream otherwise)
      const answer = await server.server.elicitInput(
        {
          message: `"${title}" is out of stock (2-3 weeks). Order anyway?`,
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean', title: 'Order anyway and wait?' } },
            required: ['confirm'],
          },
        },
        { relatedRequestId: extra.requestId },
      )
      let text = `Backordered '${title}'; it ships in 2-3 weeks.`
      if (answer.action === 'decline') text = 'No order placed: the confirmation was declined.'
      else if (answer.action === 'cancel') text = 'No order placed: the confirmation was cancelled.'
      else if (answer.content?.confirm !== true) text = 'No order placed.'
      return { content: [{ type: 'text', text }] }
    },
  )
  return server
}

/** What reached the server: HTTP method, JSON-RPC method (or `response` for a client's answer), status. */
interface Seen {
  http: string
  rpc?: string
  status?: number
}

interface LegacyServer {
  url: string
  seen: Seen[]
  stop(): Promise<void>
}

/** Request headers the demo's client sends cross-origin (the preflight must allow each one). */
const ALLOWED_HEADERS = [
  'content-type',
  'accept',
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'last-event-id',
]

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function jsonError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }))
}

/**
 * The v1 SDK's stateful Streamable HTTP pattern on Node http (one McpServer and transport per session,
 * found by `Mcp-Session-Id`; a request without one must be `initialize`), with CORS for `allowedOrigin`
 * on every response, errors included, so the browser can read them.
 */
async function startLegacyServer(allowedOrigin: string): Promise<LegacyServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const seen: Seen[] = []
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.origin === allowedOrigin) {
      res.setHeader('Access-Control-Allow-Origin', allowedOrigin)
      res.setHeader('Access-Control-Expose-Headers', 'Mcp-Session-Id')
      res.setHeader('Vary', 'Origin')
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
        'Access-Control-Allow-Headers': ALLOWED_HEADERS.join(', '),
        'Access-Control-Max-Age': '600',
      })
      return res.end()
    }
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') return jsonError(res, 404, -32000, 'Not found')
    const entry: Seen = { http: req.method ?? '' }
    seen.push(entry)
    res.on('finish', () => (entry.status = res.statusCode))
    let body: unknown
    if (req.method === 'POST') {
      try {
        body = JSON.parse(await readBody(req))
      } catch {
        return jsonError(res, 400, -32700, 'Parse error')
      }
      entry.rpc = (body as { method?: string }).method ?? 'response'
    }
    const id = req.headers['mcp-session-id']
    let transport = typeof id === 'string' ? sessions.get(id) : undefined
    if (!transport) {
      if (id !== undefined) return jsonError(res, 404, -32001, 'Session not found')
      if (!isInitializeRequest(body)) return jsonError(res, 400, -32000, 'Bad Request: No valid session ID provided')
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, created),
      })
      created.onclose = () => void (created.sessionId && sessions.delete(created.sessionId))
      await bookshop().connect(created)
      transport = created
    }
    await transport.handleRequest(req, res, body)
  }
  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) jsonError(res, 500, -32603, String(error))
      else res.end()
    })
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    stop: async () => {
      for (const t of sessions.values()) await t.close()
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}

// ------------------------------------------------------------------ the demo against it

let browser: Browser
let worker: RunningWorker
let legacy: LegacyServer

const origin = (w: RunningWorker) => `http://127.0.0.1:${w.port}`

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'web-demo/dist/index.html')))
    throw new Error('web-demo/dist is missing: run `npm run build:web` first (npm test does)')
  mkdirSync(SHOTS, { recursive: true })
  ;[browser, worker] = await Promise.all([launchChromium(), startWorker()])
  legacy = await startLegacyServer(origin(worker))
})

afterAll(async () => {
  await browser?.close()
  await legacy?.stop()
  await worker?.stop()
})

/** A fresh page on the demo, pointed at the legacy server, connected (the status line names the era). */
async function openLegacyDemo(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
  await page.goto(`${origin(worker)}/?endpoint=${encodeURIComponent(legacy.url)}`)
  await expect
    .poll(() => page.locator('#status').innerText())
    .toBe(`Connected to v1-bookshop 1.0.0 at ${legacy.url} · MCP 2025-11-25 (session)`)
  return page
}

/** Select order_book, enter a title and call it; resolves once the server's question is shown. */
async function callOrderBook(page: Page, title: string): Promise<void> {
  await page.getByRole('button', { name: 'Call order_book' }).click()
  await page.locator('#args').getByLabel('title').fill(title)
  await page.getByRole('button', { name: 'Call tool' }).click()
  await expect.poll(() => page.locator('#questions').innerText()).toContain(QUESTION)
}

describe('the web demo against a legacy-only (2025-11-25) server', () => {
  it('connects in the 2025 era after the server/discover probe is refused, and lists the tools', async () => {
    const before = legacy.seen.length
    const page = await openLegacyDemo()
    await expect.poll(() => page.locator('#tools code').allInnerTexts()).toEqual(['order_book'])
    expect(await page.locator('#prompts').innerText()).toBe('None.') // not declared by this server
    expect(await page.locator('#era').innerText()).toBe(LEGACY_ERA)
    // the wire: the probe (no session: the v1 SDK's 400 -32000, read through CORS), then a session,
    // and the session's standalone GET stream (open: no status yet)
    expect(legacy.seen.slice(before, before + 5)).toEqual([
      { http: 'POST', rpc: 'server/discover', status: 400 },
      { http: 'POST', rpc: 'initialize', status: 200 },
      { http: 'POST', rpc: 'notifications/initialized', status: 202 },
      { http: 'GET' },
      { http: 'POST', rpc: 'tools/list', status: 200 },
    ])
    await page.close()
  })

  it('order_book: the native form arrives on the call’s stream; accept → backordered, decline → declined; the rounds view lists the question', async () => {
    const page = await openLegacyDemo()
    const before = legacy.seen.length
    await callOrderBook(page, 'Neuromancer')
    const questions = page.locator('#questions')
    expect(await questions.locator('.mcp-origin').innerText()).toBe(
      `Request from Legacy bookshop at ${new URL(legacy.url).host} (order_book)`,
    )
    // while the form is open, the rounds view already shows the question, waiting
    const asked = page.locator('#rounds > li.server-request')
    await expect.poll(() => asked.allInnerTexts()).toHaveLength(1)
    expect(await asked.first().innerText()).toMatch(
      new RegExp(`^Asked during tools/call order_book\\s+server-request-\\d+: elicitation \\(form\\): .* → waiting`),
    )
    await questions.getByLabel('Order anyway and wait?').check()
    await page.screenshot({ path: join(SHOTS, 'legacy-order-book-form.png'), fullPage: true })
    await questions.getByRole('button', { name: 'Submit' }).click()
    await expect.poll(() => page.locator('#result .content').allInnerTexts()).toEqual([BACKORDERED])
    expect(await asked.first().innerText()).toContain(
      `: elicitation (form): ${QUESTION} → {"action":"accept","content":{"confirm":true}}`,
    )
    expect(await page.locator('#rounds > li.round').count()).toBe(0) // no input-required rounds in this era
    expect(await page.locator('#era').innerText()).toBe(LEGACY_ERA)
    await page.screenshot({ path: join(SHOTS, 'legacy-order-book-backordered.png'), fullPage: true })
    // the wire: one tools/call (its stream carried the question) and the answer POSTed back in the session
    expect(legacy.seen.slice(before).map((s) => s.rpc)).toEqual(['tools/call', 'response'])
    expect(legacy.seen.at(-1)!.status).toBe(202)

    await callOrderBook(page, 'Neuromancer')
    expect(await asked.allInnerTexts()).toHaveLength(1) // a new call starts a fresh list
    await questions.getByRole('button', { name: 'Decline' }).click()
    await expect.poll(() => page.locator('#result .content').allInnerTexts()).toEqual([DECLINED])
    expect(await asked.first().innerText()).toContain(`: elicitation (form): ${QUESTION} → {"action":"decline"}`)
    await page.screenshot({ path: join(SHOTS, 'legacy-order-book-declined.png'), fullPage: true })
    await page.close()
  }, 60_000)

  it('connecting to the 2026-07-28 Worker from there ends the session (DELETE) and names the new era', async () => {
    const page = await openLegacyDemo()
    const before = legacy.seen.length
    await page.locator('#endpoint').fill(worker.url)
    await page.getByRole('button', { name: 'Connect' }).click()
    await expect
      .poll(() => page.locator('#status').innerText())
      .toBe(`Connected to edge-mcp-demo 0.1.0 at ${worker.url} · MCP 2026-07-28`)
    expect(await page.locator('#era').innerText()).toMatch(/^MCP 2026-07-28: input-required rounds\. /)
    await expect.poll(() => legacy.seen.slice(before)).toEqual([{ http: 'DELETE', status: 200 }])
    await page.close()
  })
})
