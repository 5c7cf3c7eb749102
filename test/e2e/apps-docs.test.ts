/**
 * docs/apps.md's App (its ```html block, the App written without an SDK) works as the guide says, in
 * headless Chromium: served by `registerAppResource` beside the guide's `order_book` and app-only
 * `set_order_quantity`, rendered by `renderApp` through `appSandboxResponse` on another origin, it shows the
 * ordered title and quantity from its tool-result, its "Change quantity" button calls the app-only tool
 * and shows the new quantity, and the iframe follows its height. (The guide's TypeScript blocks are
 * type-checked by test/e2e/dts.test.ts; HTML is not, hence this test.)
 */
import { join } from 'node:path'
import type { BrowserContext, Frame, Page } from 'playwright-core'
import * as v from 'valibot'
import { afterAll, describe, expect, it } from 'vitest'
import { toolVisibility } from '../../src/protocol/apps.ts'
import { McpServer, appSandboxResponse, createFetchHandler, registerAppResource } from '../../src/server/index.ts'
import { ROOT, routeFetchHandler, useEntryBundle } from '../browser.ts'
import { readMarkdown } from '../markdown.ts'

const HOST = 'http://host.test'
const SANDBOX = 'http://sandbox.test'

const blocks = readMarkdown(join(ROOT, 'docs/apps.md'), ROOT).blocks.filter((b) => b.lang === 'html')
/** The guide's App, in a document of its own. */
const APP_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Order</title></head><body>${blocks[0]?.body}</body></html>`

/** The guide's server: the App, `order_book` linked to it, the app-only `set_order_quantity`; `calls` records runs. */
function bookshop() {
  const calls: unknown[] = []
  const mcp = new McpServer({ name: 'bookshop', version: '1.0.0' })
  registerAppResource(mcp, { uri: 'ui://bookshop/order-card', name: 'order_card', html: APP_HTML })
  mcp.tool(
    'order_book',
    { input: { title: v.string() }, _meta: { ui: { resourceUri: 'ui://bookshop/order-card' } } },
    ({ title }) => {
      calls.push(['order_book', title])
      return {
        content: [{ type: 'text', text: `Ordered 1 × ${title}.` }],
        structuredContent: { title, quantity: 1, status: 'ordered' },
      }
    },
  )
  mcp.tool(
    'set_order_quantity',
    {
      input: { title: v.string(), quantity: v.pipe(v.number(), v.integer(), v.minValue(1)) },
      _meta: { ui: { resourceUri: 'ui://bookshop/order-card', visibility: ['app'] } },
    },
    ({ title, quantity }) => {
      calls.push(['set_order_quantity', title, quantity])
      return {
        content: [{ type: 'text', text: `${title}: quantity now ${quantity}.` }],
        structuredContent: { title, quantity, status: 'ordered' },
      }
    },
  )
  return { handler: createFetchHandler(mcp), calls }
}

interface HostWindow {
  EdgeMcp: typeof import('../fixtures/browser-entry.ts')
  offered: string[]
}

const chromium = useEntryBundle()
let context: BrowserContext | undefined
afterAll(() => context?.close())

/** A host page on HOST whose client (era `era`) called order_book and rendered its App into #result. */
async function renderGuideApp(era: 'modern' | 'legacy') {
  await context?.close()
  context = await chromium.browser.newContext()
  const page: Page = await context.newPage()
  const server = bookshop()
  const errors: string[] = []
  // the host's warnings (a message it ignored) and uncaught errors; not the console's network lines (a 2025-era
  // client's GET for a stream is answered 405 by this server)
  page.on('console', (m) => void (m.type() === 'warning' ? errors.push(m.text()) : 0))
  page.on('pageerror', (e) => errors.push(String(e)))
  await context.route('**/*', (route) => route.abort('blockedbyclient'))
  await context.route(`${HOST}/**`, (route) =>
    new URL(route.request().url()).pathname === '/bundle.js'
      ? route.fulfill({ contentType: 'text/javascript', body: chromium.bundle })
      : route.fulfill({
          contentType: 'text/html',
          body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title><script src="/bundle.js"></script></head><body><main id="result"></main></body></html>',
        }),
  )
  await routeFetchHandler(context, `${HOST}/mcp`, server.handler)
  await routeFetchHandler(context, `${SANDBOX}/**`, (request) => appSandboxResponse(request, { hostOrigins: [HOST] }))
  await page.goto(`${HOST}/`)
  const listed = await page.evaluate(
    async ({ era, sandboxUrl }) => {
      const w = window as unknown as HostWindow
      const client = new w.EdgeMcp.Client({
        transport: new w.EdgeMcp.StreamableHttpClientTransport(`${location.origin}/mcp`),
        versionNegotiation: era,
        extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
      })
      const tools = await client.listTools()
      const tool = tools.find((t) => t.name === 'order_book')!
      const args = { title: 'Neuromancer' }
      const view = await w.EdgeMcp.renderApp(client, {
        container: document.getElementById('result')!,
        sandboxUrl,
        tool,
        arguments: args,
        result: client.callTool(tool.name, args),
        hostContext: { containerDimensions: { maxHeight: 2000 } },
      })
      await view.ready
      return tools.map((t) => ({ name: t.name, _meta: t._meta }))
    },
    { era, sandboxUrl: `${SANDBOX}/mcp-app-sandbox` },
  )
  const outer = await (await page.locator('#result iframe.mcp-app').elementHandle()).contentFrame()
  await expect.poll(() => outer!.childFrames().length).toBe(1)
  const app: Frame = outer!.childFrames()[0]
  return { page, app, server, errors, listed }
}

describe("docs/apps.md's App, served and rendered as the guide shows", () => {
  it('the guide has one HTML App, which calls a tool', () => {
    expect(blocks).toHaveLength(1)
    expect(blocks[0].body).toContain("request('tools/call'")
  })

  for (const era of ['modern', 'legacy'] as const)
    it(`${era} era: shows the ordered title, its button calls the app-only tool, the iframe follows its height`, async () => {
      const { page, app, server, errors, listed } = await renderGuideApp(era)
      // what a page offers the model: order_book, not the app-only set_order_quantity
      expect(listed.filter((t) => toolVisibility(t).includes('model')).map((t) => t.name)).toEqual(['order_book'])
      const card = page.frameLocator('#result iframe.mcp-app').frameLocator('iframe')
      await expect.poll(() => card.locator('#title').textContent()).toBe('Neuromancer')
      expect(await card.locator('#quantity').textContent()).toBe('1')

      await card.getByRole('button', { name: 'Change quantity' }).click()
      await expect.poll(() => card.locator('#quantity').textContent()).toBe('2')
      expect(server.calls).toEqual([
        ['order_book', 'Neuromancer'],
        ['set_order_quantity', 'Neuromancer', 2],
      ])

      // the App grows: its ResizeObserver reports the new height, the host sets the iframe's
      await app.evaluate(() => (document.querySelector('main')!.style.minHeight = '640px'))
      const appHeight = await app.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height))
      expect(appHeight).toBeGreaterThanOrEqual(640)
      const iframe = page.locator('#result iframe.mcp-app')
      await expect.poll(() => iframe.evaluate((el: HTMLIFrameElement) => el.clientHeight)).toBe(appHeight)
      expect(errors).toEqual([])
    })
})
