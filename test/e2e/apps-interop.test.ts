/**
 * Interop with the official MCP Apps SDK (`@modelcontextprotocol/ext-apps` 2.0.4) in real headless Chromium.
 *
 * 1. An App written with its `App` class (test/fixtures/apps-interop/official-app.ts, bundled into the App's
 *    HTML), served by our server (`registerAppResource`) and rendered by our host (`renderApp`, edge-mcp/browser)
 *    through our sandbox page (`appSandboxResponse`) on a second origin: the SDK's handshake completes, its
 *    callbacks get the tool input and result, its `callServerTool` reaches an app-visible tool and is refused a
 *    model-only one, its auto-resize and `sendSizeChanged` size the iframe, its `openLink` waits for our consent —
 *    in both eras (our client speaks 2026-07-28 or 2025-11-25 to our server). Then, once (what it exercises
 *    stays between App and page), its other requests: `sendMessage` after consent, `updateModelContext`,
 *    `sendLog`, `requestDisplayMode`, and our teardown reaching its `onteardown`.
 * 2. Our server's App (test/fixtures/apps/test-app.ts, written without any SDK) rendered by the official host
 *    side: a page built from the official v2 client and `AppBridge` only (test/fixtures/apps-interop/
 *    official-host.ts), with our sandbox page as its sandbox proxy: the App gets its tool input and result,
 *    and its `tools/call` reaches our server through their client; then the demo's order card
 *    (worker/order-card.ts, createDemoServer) the same way, its change-quantity button clicked. Both eras (their client's default
 *    2025-11-25, and 2026-07-28 by discovery).
 */
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core'
import * as v from 'valibot'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { McpServer, appSandboxResponse, createFetchHandler, registerAppResource } from '../../src/server/index.ts'
import { bundleForBrowser, launchChromium, routeFetchHandler } from '../browser.ts'
import { testAppHtml } from '../fixtures/apps/test-app.ts'
import { createDemoServer } from '../../worker/server.ts'

const HOST = 'http://host.test'
const SANDBOX = 'http://sandbox.test'
const APP_URI = 'ui://interop/order-card'

/** The official SDK's App as one HTML document: the bundle inlined (a `</script` inside it escaped). */
function officialAppHtml(script: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Order card</title></head><body><h1>waiting</h1><div id="pad"></div><script>${script.replace(/<\/script/gi, '<\\/script')}</script></body></html>`
}

/** Our server: the App, the tool it renders, an app-only tool and a model-only tool; `calls` records runs. */
function interopServer(html: string) {
  const calls: string[] = []
  const mcp = new McpServer({ name: 'interop-server', version: '1.0.0' })
  registerAppResource(mcp, { uri: APP_URI, name: 'order-card', title: 'Order card', html })
  mcp.tool(
    'order_book',
    { input: { title: v.string(), quantity: v.number() }, _meta: { ui: { resourceUri: APP_URI } } },
    ({ title, quantity }) => {
      calls.push('order_book')
      return {
        content: [{ type: 'text', text: `Ordered ${quantity} × ${title}` }],
        structuredContent: { title, quantity, status: 'placed' },
      }
    },
  )
  mcp.tool(
    'set_order_quantity',
    { input: { quantity: v.number() }, _meta: { ui: { resourceUri: APP_URI, visibility: ['app'] } } },
    ({ quantity }) => {
      calls.push('set_order_quantity')
      return { content: [{ type: 'text', text: `Quantity now ${quantity}` }], structuredContent: { quantity } }
    },
  )
  mcp.tool('cancel_all_orders', { _meta: { ui: { visibility: ['model'] } } }, () => {
    calls.push('cancel_all_orders')
    return 'all cancelled'
  })
  return { handler: createFetchHandler(mcp), calls }
}

/**
 * The page's console errors and page errors, and its HTTP answers ≥ 400 (`METHOD path status`). Chromium
 * logs every such answer as a console error; {@link expectClean} tells the expected one from the rest.
 */
function watch(page: Page) {
  const errors: string[] = []
  const failed: string[] = []
  page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())))
  page.on('pageerror', (e) => void errors.push(String(e)))
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.request().method()} ${new URL(r.url()).pathname} ${r.status()}`)
  })
  return { errors, failed }
}

/**
 * No error but, in the 2025 era, the client's optional GET stream (spec 2025-11-25 "Listening for Messages
 * from the Server"), which our stateless server answers 405 as that section allows.
 */
function expectClean({ errors, failed }: ReturnType<typeof watch>, era: 'modern' | 'legacy'): void {
  expect(failed).toEqual(era === 'legacy' ? ['GET /mcp 405'] : [])
  expect(errors.filter((e) => !/Failed to load resource: .* 405/.test(e))).toEqual([])
  expect(errors.length).toBe(failed.length)
}

interface HostWindow {
  EdgeMcp: typeof import('../fixtures/browser-entry.ts')
  opened: unknown[][]
  messages: unknown[]
  contexts: unknown[]
  view: import('../../src/browser/index.ts').AppView
}
/** What the official App keeps on its window (see the fixture). */
interface AppWindow {
  seen: { toolInput: unknown[]; toolResult: unknown[]; hostContext: unknown; connected: string }
  connected: Promise<string>
  app: import('@modelcontextprotocol/ext-apps').App
}

let browser: Browser
let hostBundle: string
let appHtml: string
let officialHostBundle: string
let context: BrowserContext | undefined

beforeAll(async () => {
  let appBundle: string
  ;[browser, hostBundle, appBundle, officialHostBundle] = await Promise.all([
    launchChromium(),
    bundleForBrowser({ entry: 'test/fixtures/browser-entry.ts', name: 'EdgeMcp' }),
    bundleForBrowser({ entry: 'test/fixtures/apps-interop/official-app.ts', name: 'OfficialApp' }),
    bundleForBrowser({ entry: 'test/fixtures/apps-interop/official-host.ts', name: 'OfficialHost' }),
  ])
  appHtml = officialAppHtml(appBundle)
})
afterAll(async () => {
  await context?.close()
  await browser?.close()
})

/**
 * A fresh page on HOST running `bundle` (at /bundle.js) with `handler` at /mcp; our sandbox page answers on
 * SANDBOX (`appSandboxResponse`, frame-ancestors HOST); every other request is aborted.
 */
async function hostPage(handler: (r: Request) => Promise<Response>, bundle: string) {
  await context?.close()
  context = await browser.newContext()
  const page = await context.newPage()
  const watched = watch(page)
  await context.route('**/*', (route) => route.abort('blockedbyclient'))
  await context.route(`${HOST}/**`, (route) => {
    const path = new URL(route.request().url()).pathname
    if (path === '/bundle.js') return route.fulfill({ contentType: 'text/javascript', body: bundle })
    return route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title><script src="/bundle.js"></script></head><body><main id="apps"></main></body></html>',
    })
  })
  // routes added later win: the MCP endpoint over the host page's catch-all
  await routeFetchHandler(context, `${HOST}/mcp`, handler)
  await routeFetchHandler(context, `${SANDBOX}/**`, (request) => appSandboxResponse(request, { hostOrigins: [HOST] }))
  await page.goto(`${HOST}/`)
  return { page, ...watched }
}

/** The App's own frame: the inner iframe of the sandbox page in `#apps`. */
async function appFrame(page: Page): Promise<Frame> {
  const outer = await (await page.locator('#apps iframe').elementHandle()).contentFrame()
  await expect.poll(() => outer!.childFrames().length).toBe(1)
  return outer!.childFrames()[0]
}

/** A host page on HOST with our client connected in `era`, the sandbox page on SANDBOX; the App rendered. */
async function renderOfficialApp(era: 'modern' | 'legacy') {
  const server = interopServer(appHtml)
  const { page, errors, failed } = await hostPage(server.handler, hostBundle)
  await page.evaluate(
    async ({ era, sandbox }) => {
      const w = window as unknown as HostWindow
      w.opened = []
      w.messages = []
      w.contexts = []
      window.open = (...args: unknown[]) => (w.opened.push(args), null)
      const client = new w.EdgeMcp.Client({
        transport: new w.EdgeMcp.StreamableHttpClientTransport(`${location.origin}/mcp`),
        versionNegotiation: era,
        extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
      })
      const tool = (await client.listTools()).find((t) => t.name === 'order_book')!
      const args = { title: 'Dune', quantity: 1 }
      w.view = await w.EdgeMcp.renderApp(client, {
        container: document.getElementById('apps')!,
        sandboxUrl: `${sandbox}/mcp-app-sandbox`,
        tool,
        arguments: args,
        result: client.callTool('order_book', args),
        onMessage: (m) => void w.messages.push(m),
        onModelContext: (c) => void w.contexts.push(c),
      })
      await w.view.ready
    },
    { era, sandbox: SANDBOX },
  )
  return { page, app: await appFrame(page), server, errors, failed }
}

describe.each(['modern', 'legacy'] as const)(
  'an App written with the official App class, in our host (%s era)',
  (era) => {
    it('connects, gets tool input and result through its callbacks, calls an app tool, is refused a model-only one', async () => {
      const { page, app, server, errors, failed } = await renderOfficialApp(era)
      expect(await app.evaluate(() => (window as unknown as AppWindow).connected)).toBe('connected')
      expect(await app.evaluate(() => (window as unknown as AppWindow).app.getHostVersion())).toEqual({
        name: 'edge-mcp-client',
        version: '0.1.0',
      })
      expect(await app.evaluate(() => (window as unknown as AppWindow).seen.hostContext)).toMatchObject({
        toolInfo: { tool: { name: 'order_book' } },
        displayMode: 'inline',
      })
      await expect.poll(() => app.evaluate(() => (window as unknown as AppWindow).seen.toolResult.length)).toBe(1)
      const seen = await app.evaluate(() => (window as unknown as AppWindow).seen)
      expect(seen.toolInput).toEqual([{ arguments: { title: 'Dune', quantity: 1 } }])
      expect(seen.toolResult[0]).toMatchObject({
        content: [{ type: 'text', text: 'Ordered 1 × Dune' }],
        structuredContent: { title: 'Dune', quantity: 1, status: 'placed' },
      })
      expect(await app.locator('h1').textContent()).toBe('Dune')

      // callServerTool of the app-only tool: our host calls our server on the same client
      const changed = await app.evaluate(() =>
        (window as unknown as AppWindow).app.callServerTool({ name: 'set_order_quantity', arguments: { quantity: 3 } }),
      )
      expect(changed).toMatchObject({
        content: [{ type: 'text', text: 'Quantity now 3' }],
        structuredContent: { quantity: 3 },
      })
      // a model-only tool: the SDK's promise rejects with our host's JSON-RPC error; the server never runs it
      const refused = await app.evaluate(() =>
        (window as unknown as AppWindow).app.callServerTool({ name: 'cancel_all_orders', arguments: {} }).then(
          () => 'called',
          (e: unknown) => String((e as Error).message),
        ),
      )
      expect(refused).toContain("Tool cancel_all_orders is not an app-visible tool of this App's server")
      expect(server.calls).toEqual(['order_book', 'set_order_quantity'])
      expect(await page.evaluate(() => (window as unknown as HostWindow).view.iframe.isConnected)).toBe(true)
      expectClean({ errors, failed }, era)
    })

    it('auto-resize and sendSizeChanged size our iframe', async () => {
      const { page, app } = await renderOfficialApp(era)
      const iframe = page.locator('#apps iframe.mcp-app')
      // the SDK's ResizeObserver reports the document's height when its content grows
      await app.evaluate(() => (document.getElementById('pad')!.style.height = '640px'))
      const measured = await app.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height))
      expect(measured).toBeGreaterThan(640)
      await expect.poll(() => iframe.evaluate((el: HTMLIFrameElement) => el.clientHeight)).toBe(measured)
      // an explicit sendSizeChanged
      await app.evaluate(() => (window as unknown as AppWindow).app.sendSizeChanged({ width: 320, height: 987 }))
      await expect.poll(() => iframe.evaluate((el: HTMLIFrameElement) => el.clientHeight)).toBe(987)
    })

    it('openLink waits for our consent dialog: declined → its promise rejects (-32000) and nothing opens; allowed → opened', async () => {
      const { page, app } = await renderOfficialApp(era)
      const openLink = () =>
        app.evaluate(() =>
          (window as unknown as AppWindow).app.openLink({ url: 'https://example.com/orders/42' }).then(
            (r) => ({ result: r }),
            (e: unknown) => ({ error: String((e as Error).message) }),
          ),
        )
      const dialog = page.getByRole('dialog', { name: 'The app asks to open this address:' })
      let answer = openLink()
      await dialog.waitFor()
      expect(await dialog.locator('.mcp-url').textContent()).toBe('https://example.com/orders/42')
      await dialog.getByRole('button', { name: 'Decline' }).click()
      const declined = await answer
      expect('error' in declined ? declined.error : declined).toMatch(/Link opening denied by user/)
      expect(await page.evaluate(() => (window as unknown as HostWindow).opened)).toEqual([])
      answer = openLink()
      await dialog.waitFor()
      await dialog.getByRole('button', { name: 'Allow' }).click()
      expect(await answer).toEqual({ result: {} })
      expect(await page.evaluate(() => (window as unknown as HostWindow).opened)).toEqual([
        ['https://example.com/orders/42', '_blank', 'noopener,noreferrer'],
      ])
    })
  },
)

describe('the official App class’s other host requests, in our host', () => {
  it('sendMessage after consent, updateModelContext, sendLog, requestDisplayMode; teardown reaches its onteardown', async () => {
    const { page, app } = await renderOfficialApp('modern')
    const logs: string[] = []
    page.on('console', (m) => void (m.type() === 'info' && logs.push(m.text())))
    /** Run `fn` on the App's `App` instance in its frame (`fn` is sent as source: no closure). */
    const appCall = (fn: (a: AppWindow['app']) => Promise<unknown>) =>
      app.evaluate<unknown>(`(${fn.toString()})(window.app)`)
    const sent = appCall((a) => a.sendMessage({ role: 'user', content: [{ type: 'text', text: 'Order two more' }] }))
    const dialog = page.getByRole('dialog', { name: 'The app asks to send this message for you:' })
    await dialog.waitFor()
    expect(await dialog.locator('.mcp-text').textContent()).toBe('Order two more')
    await dialog.getByRole('button', { name: 'Allow' }).click()
    expect(await sent).toEqual({})
    expect(await page.evaluate(() => (window as unknown as HostWindow).messages)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Order two more' }] },
    ])
    expect(await appCall((a) => a.updateModelContext({ structuredContent: { quantity: 3 } }))).toEqual({})
    expect(await page.evaluate(() => (window as unknown as HostWindow).contexts)).toEqual([
      { structuredContent: { quantity: 3 } },
    ])
    expect(await appCall((a) => a.requestDisplayMode({ mode: 'fullscreen' }))).toEqual({ mode: 'inline' })
    await appCall((a) => a.sendLog({ level: 'info', data: 'card shown' }))
    await expect.poll(() => logs).toContain(`[App ${APP_URI}] card shown`)
    await page.evaluate(() => (window as unknown as HostWindow).view.teardown('the user closed it'))
    await expect.poll(() => logs).toContain(`[App ${APP_URI}] teardown handled`)
    expect(await page.locator('iframe').count()).toBe(0)
  })
})

/** Run the official host page's `show` (test/fixtures/apps-interop/official-host.ts) for `toolName`. */
function showInOfficialHost(page: Page, era: 'modern' | 'legacy', toolName: string, args: Record<string, unknown>) {
  return page.evaluate(
    ({ era, sandbox, toolName, args }) =>
      (
        window as unknown as { OfficialHost: typeof import('../fixtures/apps-interop/official-host.ts') }
      ).OfficialHost.show({
        mcpUrl: `${location.origin}/mcp`,
        sandboxUrl: `${sandbox}/mcp-app-sandbox`,
        era,
        container: document.getElementById('apps')!,
        toolName,
        arguments: args,
      }),
    { era, sandbox: SANDBOX, toolName, args },
  )
}

type Rpc = { id?: unknown; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown }

describe.each(['modern', 'legacy'] as const)(
  'our server’s App in the official host side (AppBridge + the official v2 client, %s era)',
  (era) => {
    it('gets its tool input and result; its tools/call reaches our server through their client', async () => {
      const server = interopServer(testAppHtml('Order card'))
      const watched = await hostPage(server.handler, officialHostBundle)
      const { page } = watched
      const shown = await showInOfficialHost(page, era, 'order_book', { title: 'Dune', quantity: 2 })
      expect(shown.protocolVersion).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25')
      // what their client saw of our server: the UI extension declared, visibility as registered
      expect(shown.serverExtensions).toMatchObject({
        'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] },
      })
      expect(shown.toolVisibility).toEqual({
        order_book: undefined,
        set_order_quantity: ['app'],
        cancel_all_orders: ['model'],
      })
      expect(shown.appVersion).toEqual({ name: 'test-app', version: '1.0.0' })

      const app = await appFrame(page)
      const received = () => app.evaluate(() => (window as unknown as { received: Rpc[] }).received)
      await expect
        .poll(async () => (await received()).map((m) => m.method ?? 'answer'))
        .toEqual(['answer', 'ui/notifications/tool-input', 'ui/notifications/tool-result'])
      const [init, input, result] = await received()
      expect(init.result).toMatchObject({
        protocolVersion: '2026-01-26',
        hostInfo: { name: 'official-host', version: '2.0.4' },
        hostContext: { toolInfo: { tool: { name: 'order_book' } } },
      })
      expect(input.params).toEqual({ arguments: { title: 'Dune', quantity: 2 } })
      expect(result.params).toMatchObject({
        content: [{ type: 'text', text: 'Ordered 2 × Dune' }],
        structuredContent: { title: 'Dune', quantity: 2, status: 'placed' },
      })
      expect(await app.locator('h1').textContent()).toBe('Dune')

      // the App's tools/call: AppBridge forwards it to their client, which calls our server
      const called = await app.evaluate(() =>
        (window as unknown as { request(m: string, p: unknown): Promise<Rpc> }).request('tools/call', {
          name: 'set_order_quantity',
          arguments: { quantity: 5 },
        }),
      )
      expect(called.result).toMatchObject({
        content: [{ type: 'text', text: 'Quantity now 5' }],
        structuredContent: { quantity: 5 },
      })
      expect(server.calls).toEqual(['order_book', 'set_order_quantity'])
      // and its resources/read, forwarded the same way, answers our App's HTML
      const read = await app.evaluate(
        (uri) =>
          (window as unknown as { request(m: string, p: unknown): Promise<Rpc> }).request('resources/read', { uri }),
        APP_URI,
      )
      expect(read.result).toMatchObject({ contents: [{ uri: APP_URI, mimeType: 'text/html;profile=mcp-app' }] })
      expectClean(watched, era)
    })
  },
)

describe.each(['modern', 'legacy'] as const)(
  'the demo’s order card (worker/) in the official host side (%s era)',
  (era) => {
    it('shows the order; its change-quantity button calls set_order_quantity through their client', async () => {
      const watched = await hostPage(createFetchHandler(createDemoServer()), officialHostBundle)
      const { page } = watched
      const shown = await showInOfficialHost(page, era, 'order_book', { title: 'Dune' })
      expect(shown.protocolVersion).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25')
      expect(shown.appVersion).toMatchObject({ name: 'bookshop-order-card' })
      const card = await appFrame(page)
      await expect.poll(() => card.locator('#quantity-line').textContent()).toBe('Quantity: 1')
      expect(await card.locator('#title').textContent()).toBe('Dune')
      await card.locator('#qty').fill('3')
      await card.locator('#apply').click()
      await expect.poll(() => card.locator('#quantity-line').textContent()).toBe('Quantity: 3')
      expect(await card.locator('#message').textContent()).toBe("Changed the order of 'Dune' to 3 copies.")
      expectClean(watched, era)
    })
  },
)
