/**
 * Helpers of the web demo's Chromium tests (test/e2e/web-demo.test.ts): a page on the demo that records what a
 * user would not see (console errors, 404s), the sizes of its controls, and the order_book call.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect } from 'vitest'
import { launchChromium } from './browser.ts'
import { ROOT, startWorker, type RunningWorker } from './workerd.ts'
import { Server, createFetchHandler } from '../src/server/index.ts'
import type { WireRequest } from './helpers.ts'

/** The question order_book asks for an out-of-stock title. */
export const QUESTION = '"Neuromancer" is out of stock (2-3 weeks). Order anyway?'

/** The empty state's hint with the demo server. */
export const HINT =
  'Try this: press Call… next to order_book, type Neuromancer as the title and press Call tool. It is out of stock, so the server asks you a question first.'

/** What went wrong on a page that a user would not see: console errors, uncaught errors, 404s, 5xx answers (with the request). */
export const problems = new WeakMap<Page, string[]>()

/** Where the web demo's tests put their screenshots. */
export const SHOTS = join(ROOT, 'test-results/web-demo')

/**
 * Chromium and the demo Worker (`wrangler dev`, web-demo/dist as its assets) for one test file: started in
 * `beforeAll`, stopped in `afterAll`. Read `browser` and `worker` inside tests (they are set once started).
 */
export function useDemo(): { browser: Browser; worker: RunningWorker } {
  const demo = {} as { browser: Browser; worker: RunningWorker }
  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'web-demo/dist/index.html')))
      throw new Error('web-demo/dist is missing: run `npm run build:web` first (npm test does)')
    mkdirSync(SHOTS, { recursive: true })
    ;[demo.browser, demo.worker] = await Promise.all([launchChromium(), startWorker()])
  })
  afterAll(async () => {
    await demo.browser?.close()
    await demo.worker?.stop()
  })
  return demo
}

/** A fresh page on the demo (at `width` px), recording its console errors, 404s and 5xx answers (see {@link problems}). */
export async function openDemo(browser: Browser, at: string, query = '', width = 1200): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } })
  const seen: string[] = []
  problems.set(page, seen)
  page.on('console', (m) => {
    if (m.type() === 'error') seen.push(`console: ${m.text()}`)
  })
  page.on('pageerror', (e) => seen.push(`page: ${String(e)}`))
  page.on('response', (r) => {
    if (r.status() === 404) seen.push(`404: ${r.url()}`)
    if (r.status() >= 500) {
      // which request, and what the server said (a 503 from `wrangler dev` says the Worker restarted mid-request)
      const rpc = rpcMethodOf(r.request().postData())
      const what = `${r.status()}: ${r.request().method()} ${r.url()}${typeof rpc === 'string' ? ` (${rpc})` : ''}`
      seen.push(what)
      void r.text().then(
        (body) => seen.splice(seen.indexOf(what), 1, `${what}: ${body.slice(0, 200)}`),
        () => {},
      )
    }
  })
  await page.goto(`${at}/${query}`)
  return page
}

/** The JSON-RPC method of a POST body, if it is one. */
function rpcMethodOf(body: string | null): unknown {
  try {
    return (JSON.parse(body ?? 'null') as { method?: unknown } | null)?.method
  } catch {
    return undefined
  }
}

/** The heights of the visible buttons and text inputs on the page (each should be touch-sized, ≥ 44 px). */
export function controlHeights(page: Page): Promise<Array<[string, number]>> {
  return page
    .locator('button:visible, input:not([type=checkbox]):visible')
    .evaluateAll((nodes) =>
      nodes.map((n): [string, number] => [n.textContent || n.id, Math.round(n.getBoundingClientRect().height)]),
    )
}

/** Select order_book, enter a title and call it; resolves once the server's question is shown. */
export async function callOrderBook(page: Page, title: string): Promise<void> {
  await page.getByRole('button', { name: 'Call order_book' }).click()
  await page.locator('#args').getByLabel('title').fill(title)
  await page.getByRole('button', { name: 'Call tool' }).click()
  await expect.poll(() => page.locator('#questions').innerText()).toContain(QUESTION)
}

/** The POST bodies the page sent to an MCP endpoint. */
export function recordRequests(page: Page): Array<{ url: string; body: WireRequest | null }> {
  const seen: Array<{ url: string; body: WireRequest | null }> = []
  page.on('request', (request) => {
    if (request.method() === 'POST')
      seen.push({ url: request.url(), body: JSON.parse(request.postData() ?? 'null') as WireRequest | null })
  })
  return seen
}

/** The inputSchema of the typed page's one tool: every kind of field the arguments form builds. */
export const SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string', title: 'Book title', description: 'As printed on the cover', minLength: 2 },
    copies: { type: 'integer', minimum: 1, maximum: 5, default: 1 },
    budget: { type: 'number' },
    gift: { type: 'boolean', title: 'Gift wrap' },
    binding: { type: 'string', enum: ['paperback', 'hardcover'] },
    shipping: {
      type: 'string',
      oneOf: [
        { const: 'std', title: 'Standard' },
        { const: 'express', title: 'Express' },
      ],
      default: 'std',
    },
    email: { type: 'string', format: 'email' },
    note: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['title', 'copies', 'gift', 'binding', 'shipping'],
}
/**
 * Answer `endpoint` on `page` in-process with `server` (CORS for the `demo` origin). Each POST waits for
 * `hold` first (a slow endpoint); what it then answered is pushed to the returned list (`'aborted'` when
 * the page had given up on the request by then).
 */
export async function routeToServer(
  page: Page,
  endpoint: string,
  server: Server,
  demo: string,
  hold: Promise<void> = Promise.resolve(),
): Promise<Array<{ method: string; outcome: number | 'aborted' }>> {
  const handler = createFetchHandler(server, { allowedOrigins: [demo] })
  const answered: Array<{ method: string; outcome: number | 'aborted' }> = []
  await page.route(endpoint, async (route) => {
    const r = route.request()
    const method =
      r.method() === 'POST' ? String((JSON.parse(r.postData() ?? '{}') as { method?: unknown }).method) : r.method()
    if (r.method() === 'POST') await hold
    const headers = Object.fromEntries(Object.entries(await r.allHeaders()).filter(([k]) => !k.startsWith(':')))
    const res = await handler(
      new Request(r.url(), {
        method: r.method(),
        headers,
        ...(r.method() === 'POST' ? { body: r.postData() ?? '' } : {}),
      }),
    )
    try {
      await route.fulfill({ status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() })
      answered.push({ method, outcome: res.status })
    } catch {
      answered.push({ method, outcome: 'aborted' })
    }
  })
  return answered
}

/** The typed page's endpoint (answered in-process through `page.route`). */
export const ENDPOINT = 'http://typed.test/mcp'

/** A page on the demo whose endpoint is an in-process server (low-level `Server`) with one tool echoing its arguments. */
export async function typedPage(browser: Browser, demo: string): Promise<{ page: Page; calls: unknown[] }> {
  const server = new Server({ name: 'typed', version: '1.0.0' })
  const calls: unknown[] = []
  server.setRequestHandler('tools/list', () => ({
    tools: [{ name: 'echo', description: 'Echoes its arguments as JSON.', inputSchema: SCHEMA }],
  }))
  server.setRequestHandler('tools/call', (params) => {
    calls.push(params.arguments)
    return { content: [{ type: 'text', text: JSON.stringify(params.arguments) }] }
  })
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
  await routeToServer(page, ENDPOINT, server, demo)
  await page.goto(`${demo}/?endpoint=${encodeURIComponent(ENDPOINT)}`)
  await expect
    .poll(() => page.locator('#status').innerText())
    .toBe(`Connected to typed 1.0.0 at ${ENDPOINT} · MCP 2026-07-28`)
  return { page, calls }
}
