/**
 * The MCP Apps browser host (`renderApp`, edge-mcp/browser) and its sandbox page (`appSandboxResponse`,
 * edge-mcp/server) in real headless Chromium: a host page on http://host.test with two clients of two
 * McpServers, the sandbox page on http://sandbox.test (two origins, served from memory by page routes), and
 * a test App (test/fixtures/apps/test-app.ts) driven in its own frame (client a speaks 2026-07-28, client b
 * the 2025 era) — the handshake, tool input and result,
 * an app-visible tool call, resizing, then what a hostile App tries: an undeclared origin, a model-only tool,
 * another server's tool, malformed messages, top navigation, the sandbox's own messages, links and messages
 * without consent.
 */
import type { BrowserContext, Frame, Page } from 'playwright-core'
import * as v from 'valibot'
import { afterAll, describe, expect, it } from 'vitest'
import { DEFAULT_STRINGS } from '../../src/browser/index.ts'
import { APP_MIME_TYPE } from '../../src/protocol/apps.ts'
import { McpServer, appSandboxResponse, createFetchHandler } from '../../src/server/index.ts'
import { routeFetchHandler, useEntryBundle } from '../browser.ts'
import { testAppHtml } from '../fixtures/apps/test-app.ts'

const HOST = 'http://host.test'
const SANDBOX = 'http://sandbox.test'
/** Server b's own sandbox origin: one origin shows the Apps of one client only. */
const SANDBOX_B = 'http://sandbox-b.test'
const ALLOWED = 'http://allowed.test'
const EVIL = 'http://evil.test'

/** One server: an App (`ui://{id}/app`), the tool it renders, an app-only tool, a model-only tool; `calls` counts runs. */
function appServer(id: 'a' | 'b') {
  const calls: string[] = []
  const uri = `ui://${id}/app`
  const mcp = new McpServer({ name: `server-${id}`, version: '1.0.0' })
  mcp.resource('app', uri, { mimeType: APP_MIME_TYPE }, () => ({
    contents: [
      {
        uri,
        mimeType: APP_MIME_TYPE,
        text: testAppHtml(`App ${id}`),
        _meta: { ui: { csp: { connectDomains: [ALLOWED] }, prefersBorder: true } },
      },
    ],
  }))
  mcp.tool('show_card', { input: { title: v.string() }, _meta: { ui: { resourceUri: uri } } }, ({ title }) => {
    calls.push('show_card')
    return { content: [{ type: 'text', text: `Card for ${title}` }], structuredContent: { title } }
  })
  mcp.tool(`${id}_app_only`, { _meta: { ui: { resourceUri: uri, visibility: ['app'] } } }, () => {
    calls.push(`${id}_app_only`)
    return `app-only tool of ${id}`
  })
  // an app-only tool that answers when the test opens the gate (requests in flight)
  let release = () => {}
  let gate = new Promise<void>((resolve) => (release = resolve))
  mcp.tool(`${id}_slow`, { _meta: { ui: { resourceUri: uri, visibility: ['app'] } } }, async () => {
    calls.push(`${id}_slow`)
    await gate
    return 'slow'
  })
  /** Answer the slow calls waiting now; later ones wait for the next `open()`. */
  const open = () => {
    release()
    gate = new Promise<void>((resolve) => (release = resolve))
  }
  mcp.tool(`${id}_model_only`, { _meta: { ui: { visibility: ['model'] } } }, () => {
    calls.push(`${id}_model_only`)
    return 'model-only'
  })
  return { handler: createFetchHandler(mcp), calls, open }
}

/** What the host page keeps on `window` (see HOST_SCRIPT). */
interface HostWindow {
  EdgeMcp: typeof import('../fixtures/browser-entry.ts')
  opened: unknown[][]
  messages: unknown[]
  contexts: unknown[]
  aborts: Record<string, AbortController>
  views: Record<string, import('../../src/browser/index.ts').AppView>
  clients: Record<string, import('../../src/client/index.ts').Client>
}

/** The host page's helpers: window.open recorded (never really opened), ui/message deliveries recorded. */
const HOST_SCRIPT = `
window.opened = []
window.open = (...args) => { window.opened.push(args); return null }
window.messages = []
window.contexts = []
window.aborts = {}
window.views = {}
window.clients = {}
`

const chromium = useEntryBundle()
let context: BrowserContext | undefined
afterAll(() => context?.close())

interface Setup {
  page: Page
  warnings: string[]
  logs: string[]
  errors: string[]
  hits: { allowed: number; evil: number }
  servers: { a: ReturnType<typeof appServer>; b: ReturnType<typeof appServer> }
}

/** A fresh host page with clients of servers a and b connected (`window.clients`). */
async function setup(): Promise<Setup> {
  await context?.close()
  context = await chromium.browser.newContext()
  const page = await context.newPage()
  const servers = { a: appServer('a'), b: appServer('b') }
  const hits = { allowed: 0, evil: 0 }
  const warnings: string[] = []
  const logs: string[] = []
  const errors: string[] = []
  page.on('console', (m) => (m.type() === 'warning' ? warnings : m.type() === 'error' ? errors : logs).push(m.text()))
  page.on('pageerror', (e) => errors.push(String(e)))
  await context.route('**/*', (route) => route.abort('blockedbyclient'))
  await context.route(`${HOST}/**`, async (route) => {
    const path = new URL(route.request().url()).pathname
    if (path === '/bundle.js') return route.fulfill({ contentType: 'text/javascript', body: chromium.bundle })
    if (path === '/host.js') return route.fulfill({ contentType: 'text/javascript', body: HOST_SCRIPT })
    return route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title><script src="/bundle.js"></script><script src="/host.js"></script></head><body><main><div id="a"></div><div id="b"></div></main></body></html>',
    })
  })
  // routes added later win: the servers' endpoints over the host page's catch-all
  for (const id of ['a', 'b'] as const) await routeFetchHandler(context, `${HOST}/${id}/mcp`, servers[id].handler)
  for (const sandbox of [SANDBOX, SANDBOX_B])
    await routeFetchHandler(context, `${sandbox}/**`, (request) => appSandboxResponse(request, { hostOrigins: [HOST] }))
  for (const [origin, key] of [
    [ALLOWED, 'allowed'],
    [EVIL, 'evil'],
  ] as const)
    await context.route(`${origin}/**`, (route) => {
      hits[key]++
      return route.fulfill({ headers: { 'access-control-allow-origin': '*' }, body: 'hello' })
    })
  await page.goto(`${HOST}/`)
  await page.evaluate(() => {
    const w = window as unknown as HostWindow
    for (const id of ['a', 'b']) {
      w.clients[id] = new w.EdgeMcp.Client({
        transport: new w.EdgeMcp.StreamableHttpClientTransport(`${location.origin}/${id}/mcp`),
        versionNegotiation: id === 'a' ? 'modern' : 'legacy', // both eras: b is a 2025-era session
        extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
      })
    }
  })
  return { page, warnings, logs, errors, hits, servers }
}

/**
 * Render server `id`'s show_card App into `#id` (the tool called first, its result passed as a promise), on
 * `extra.sandbox` (default: SANDBOX for a, SANDBOX_B for b).
 */
async function render(page: Page, id: 'a' | 'b', extra: Record<string, unknown> = {}): Promise<Frame> {
  await page.evaluate(
    async ({ id, extra, sandbox }) => {
      const w = window as unknown as HostWindow
      const client = w.clients[id]
      const tool = (await client.listTools()).find((t) => t.name === 'show_card')!
      const args = { title: `Dune ${id}` }
      w.views[id] = await w.EdgeMcp.renderApp(client, {
        container: document.getElementById(id)!,
        sandboxUrl: `${sandbox}/mcp-app-sandbox`,
        tool,
        arguments: args,
        result:
          typeof extra.cancel === 'string'
            ? Promise.reject(new Error(extra.cancel))
            : client.callTool('show_card', args),
        onMessage: (m) => void w.messages.push(m),
        onModelContext: (c) => void w.contexts.push(c),
        signal: (w.aborts[id] = new AbortController()).signal,
      })
      await w.views[id].ready
    },
    { id, extra, sandbox: (extra.sandbox as string | undefined) ?? (id === 'a' ? SANDBOX : SANDBOX_B) },
  )
  return appFrame(page, id)
}

/** The App's own frame: the inner iframe of the sandbox page in `#id`. */
async function appFrame(page: Page, id: string): Promise<Frame> {
  const outer = await (await page.locator(`#${id} iframe.mcp-app`).elementHandle()).contentFrame()
  await expect.poll(() => outer!.childFrames().length).toBe(1)
  return outer!.childFrames()[0]
}

type Rpc = {
  id?: unknown
  method?: string
  params?: Record<string, unknown>
  result?: unknown
  error?: { code: number; message: string }
}
/** Run `method` from inside the App (its own `window.request`), returning the host's answer. */
function appRequest(app: Frame, method: string, params: unknown): Promise<Rpc> {
  return app.evaluate(
    ([m, p]) => (window as unknown as { request(m: unknown, p: unknown): Promise<Rpc> }).request(m, p),
    [method, params] as const,
  )
}
const received = (app: Frame) => app.evaluate(() => (window as unknown as { received: Rpc[] }).received)

describe('renderApp: an App of a connected server', () => {
  it('renders, completes the handshake, gets tool-input then tool-result, calls its app-only tool, resizes', async () => {
    const { page, servers, errors } = await setup()
    const app = await render(page, 'a')
    const iframe = page.locator('#a iframe.mcp-app')
    expect(await iframe.getAttribute('sandbox')).toBe('allow-scripts allow-same-origin allow-forms')
    expect(await iframe.getAttribute('title')).toBe('App: show_card')
    expect(await iframe.getAttribute('class')).toBe('mcp-app mcp-app-border')
    const src = new URL((await iframe.getAttribute('src'))!)
    expect(src.origin).toBe(SANDBOX)
    expect(src.searchParams.get('host')).toBe(HOST)
    expect(JSON.parse(src.searchParams.get('csp')!)).toEqual({ connectDomains: [ALLOWED] })

    // the handshake: the initialize answer, then tool-input, then tool-result; nothing before
    const init = (await app.evaluate(() => (window as unknown as { initialized: Promise<Rpc> }).initialized)).result
    expect(init).toMatchObject({
      protocolVersion: '2026-01-26',
      hostInfo: { name: 'edge-mcp-client', version: '0.1.0' },
      hostContext: { toolInfo: { tool: { name: 'show_card' } }, displayMode: 'inline' },
      hostCapabilities: { sandbox: { csp: { connectDomains: [ALLOWED] } } },
    })
    await expect
      .poll(async () => (await received(app)).map((m) => m.method ?? 'answer'))
      .toEqual(['answer', 'ui/notifications/tool-input', 'ui/notifications/tool-result'])
    const [, input, result] = await received(app)
    expect(input.params).toEqual({ arguments: { title: 'Dune a' } })
    expect(result.params).toMatchObject({
      content: [{ type: 'text', text: 'Card for Dune a' }],
      structuredContent: { title: 'Dune a' },
    })
    await expect
      .poll(() => page.frameLocator('#a iframe.mcp-app').frameLocator('iframe').locator('h1').textContent())
      .toBe('Dune a')

    // an app-visible tool of its own server
    const called = await appRequest(app, 'tools/call', { name: 'a_app_only', arguments: {} })
    expect(called.result).toMatchObject({ content: [{ type: 'text', text: 'app-only tool of a' }] })
    expect(servers.a.calls).toEqual(['show_card', 'a_app_only'])
    // resources/read and ping through the same client
    expect(
      ((await appRequest(app, 'resources/read', { uri: 'ui://a/app' })).result as { contents: unknown[] }).contents,
    ).toHaveLength(1)
    expect((await appRequest(app, 'ping', {})).result).toEqual({})
    expect((await appRequest(app, 'ui/request-display-mode', { mode: 'fullscreen' })).result).toEqual({
      mode: 'inline',
    })
    const context = { structuredContent: { quantity: 2 }, content: [{ type: 'text', text: 'two copies' }] }
    expect((await appRequest(app, 'ui/update-model-context', context)).result).toEqual({})
    expect(await page.evaluate(() => (window as unknown as HostWindow).contexts)).toEqual([context])
    expect((await appRequest(app, 'ui/unknown-thing', {})).error).toEqual({
      code: -32601,
      message: 'Method not found: ui/unknown-thing',
    })

    // size-changed sets the iframe's height
    await app.evaluate(() =>
      (window as unknown as { notify(m: string, p: unknown): void }).notify('ui/notifications/size-changed', {
        width: 300,
        height: 321,
      }),
    )
    await expect.poll(() => iframe.evaluate((el: HTMLIFrameElement) => el.clientHeight)).toBe(321)
    expect(errors).toEqual([])
  })

  it('a tool call that fails before the App is ready: tool-input, then tool-cancelled with the reason', async () => {
    const { page, servers } = await setup()
    const app = await render(page, 'a', { cancel: 'the user stopped it' })
    await expect
      .poll(async () => (await received(app)).slice(1))
      .toEqual([
        { jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: { title: 'Dune a' } } },
        { jsonrpc: '2.0', method: 'ui/notifications/tool-cancelled', params: { reason: 'the user stopped it' } },
      ])
    expect(servers.a.calls).toEqual([])
  })

  it('host context changes are sent; teardown asks the App, waits for its answer, removes the iframe', async () => {
    const { page, logs } = await setup()
    const app = await render(page, 'a')
    await page.evaluate(() => (window as unknown as HostWindow).views.a.setHostContext({ theme: 'dark' }))
    await expect
      .poll(async () => (await received(app)).at(-1))
      .toEqual({
        jsonrpc: '2.0',
        method: 'ui/notifications/host-context-changed',
        params: { theme: 'dark' },
      })
    await page.evaluate(() => (window as unknown as HostWindow).views.a.teardown('the user closed it'))
    expect(logs).toContain('[App ui://a/app] teardown: the user closed it')
    expect(await page.locator('iframe').count()).toBe(0)
    // the signal aborting tears the App down the same way
    await render(page, 'b')
    await page.evaluate(() => (window as unknown as HostWindow).aborts.b.abort())
    await expect.poll(() => page.locator('iframe').count()).toBe(0)
    expect(logs).toContain('[App ui://b/app] teardown: aborted')
  })
})

describe('renderApp: what a hostile App tries', () => {
  it('fetch to an undeclared origin is blocked by the CSP (a declared one is allowed); it reports so through the host', async () => {
    const { page, hits, logs } = await setup()
    const app = await render(page, 'a')
    const tryFetch = (url: string) =>
      app.evaluate((u) => (window as unknown as { tryFetch(u: string): Promise<string> }).tryFetch(u), url)
    expect(await tryFetch(`${EVIL}/steal`)).toBe('blocked by connect-src')
    expect(hits.evil).toBe(0)
    expect(await tryFetch(`${ALLOWED}/data`)).toBe('fetched 200')
    expect(hits.allowed).toBe(1)
    await app.evaluate(() =>
      (window as unknown as { notify(m: string, p: unknown): void }).notify('notifications/message', {
        level: 'info',
        data: 'evil fetch blocked',
      }),
    )
    await expect.poll(() => logs).toContain('[App ui://a/app] evil fetch blocked')
  })

  it('a model-only tool, and a tool only another server has, are refused; neither server is asked', async () => {
    const { page, servers, warnings } = await setup()
    const [appA, appB] = [await render(page, 'a'), await render(page, 'b')]
    const refused = (name: string) => ({
      code: -32000,
      message: `Tool ${name} is not an app-visible tool of this App's server`,
    })
    expect((await appRequest(appA, 'tools/call', { name: 'a_model_only', arguments: {} })).error).toEqual(
      refused('a_model_only'),
    )
    expect((await appRequest(appA, 'tools/call', { name: 'b_app_only', arguments: {} })).error).toEqual(
      refused('b_app_only'),
    )
    expect((await appRequest(appA, 'tools/call', { name: 'no_such_tool' })).error).toEqual(refused('no_such_tool'))
    expect(servers.a.calls).toEqual(['show_card'])
    expect(servers.b.calls).toEqual(['show_card'])
    // server b's own App may call it: the boundary is the server, not the tool's name
    expect((await appRequest(appB, 'tools/call', { name: 'b_app_only' })).result).toMatchObject({
      content: [{ type: 'text', text: 'app-only tool of b' }],
    })
    expect(servers.b.calls).toEqual(['show_card', 'b_app_only'])
    // each view hears the other's messages on the same window and leaves them alone, silently
    expect(warnings).toEqual([])
  })

  it('at most 8 of its requests are served at once: the rest are refused at once, the server never asked', async () => {
    const { page, servers } = await setup()
    const app = await render(page, 'a')
    const answers = app.evaluate(() =>
      Promise.all(
        Array.from({ length: 12 }, () =>
          (window as unknown as { request(m: string, p: unknown): Promise<Rpc> }).request('tools/call', {
            name: 'a_slow',
          }),
        ),
      ),
    )
    await expect.poll(() => servers.a.calls.filter((c) => c === 'a_slow').length).toBe(8)
    servers.a.open()
    const outcomes = (await answers).map(
      (a) => a.error?.message ?? (a.result as { content: [{ text: string }] }).content[0].text,
    )
    expect(outcomes.filter((o) => o === 'slow')).toHaveLength(8)
    expect(outcomes.filter((o) => o === 'Too many requests in flight (at most 8)')).toHaveLength(4)
    expect(servers.a.calls.filter((c) => c === 'a_slow')).toHaveLength(8)
    // once answered, the App may ask again
    const again = appRequest(app, 'tools/call', { name: 'a_slow' })
    await expect.poll(() => servers.a.calls.filter((c) => c === 'a_slow').length).toBe(9)
    servers.a.open()
    expect((await again).result).toMatchObject({ content: [{ type: 'text', text: 'slow' }] })
  })

  it('cannot act as another server’s App: a second client’s App on a live sandbox origin is refused; on its own origin it is out of reach', async () => {
    const { page, servers } = await setup()
    const appA = await render(page, 'a')
    // the same sandbox origin as a's App: refused, nothing rendered (a's App could script its frames)
    const refused = await render(page, 'b', { sandbox: SANDBOX }).then(
      () => 'rendered',
      (e: Error) => e.message,
    )
    expect(refused).toContain(
      `TypeError: sandbox origin ${SANDBOX} shows another client's App: tear it down first (view.teardown()), or give each server its own sandbox origin`,
    )
    expect(await page.locator('#b iframe').count()).toBe(0)
    // on its own origin: App a cannot reach b's frames to post as b
    await render(page, 'b')
    const tries = await appA.evaluate((host) => {
      const outcomes: string[] = []
      for (let i = 0; i < window.top!.frames.length; i++) {
        const frame = window.top!.frames[i]
        if (frame === window.parent) continue
        try {
          const script = frame.document.createElement('script')
          script.textContent = `parent.postMessage({ jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'b_app_only' } }, '${host}')`
          frame.document.body.append(script)
          outcomes.push('injected')
        } catch (e) {
          outcomes.push((e as Error).name)
        }
      }
      return outcomes
    }, HOST)
    expect(tries).toEqual(['SecurityError'])
    expect((await appRequest(appA, 'ping', {})).result).toEqual({}) // a's own channel still answers
    expect(servers.b.calls).toEqual(['show_card', 'show_card']) // the two renders' own calls, nothing else
    // once a's App is gone, the origin may show b's
    await page.evaluate(() => (window as unknown as HostWindow).views.a.teardown())
    await page.evaluate(() => (window as unknown as HostWindow).views.b.teardown())
    await render(page, 'b', { sandbox: SANDBOX })
  })

  it('messages of the wrong shape are ignored, each with one console warning, and not answered', async () => {
    const { page, warnings } = await setup()
    const app = await render(page, 'a')
    const post = (data: unknown) => app.evaluate((d) => (window as unknown as { post(d: unknown): void }).post(d), data)
    await post('hello')
    await post({ jsonrpc: '2.0', id: 900, method: 'tools/call', params: { arguments: {} } })
    await post({ jsonrpc: '2.0', id: 901, method: 'ui/open-link', params: 'https://example.com' })
    await post({ jsonrpc: '1.0', id: 902, method: 'ping' })
    expect((await appRequest(app, 'ping', {})).result).toEqual({}) // answered after all of the above were read
    const prefix = '[edge-mcp] App ui://a/app: ignored a message'
    expect(warnings).toEqual([
      `${prefix} (not a JSON-RPC 2.0 message)`,
      `${prefix} (tools/call: params.name must be a string)`,
      `${prefix} (ui/open-link: params must be an object)`,
      `${prefix} (not a JSON-RPC 2.0 message)`,
    ])
    expect((await received(app)).filter((m) => typeof m.id === 'number' && m.id >= 900)).toEqual([])
  })

  it('cannot navigate the top window', async () => {
    const { page, hits, errors } = await setup()
    const app = await render(page, 'a')
    const outcome = await app.evaluate(
      (url) => (window as unknown as { tryTopNavigation(u: string): string }).tryTopNavigation(url),
      `${EVIL}/phish`,
    )
    expect((await appRequest(app, 'ping', {})).result).toEqual({})
    expect(outcome).toBe('SecurityError') // thrown at once: the sandbox has no allow-top-navigation
    expect(errors).toEqual([
      expect.stringMatching(/The frame attempting navigation of the top-level window is sandboxed/),
    ])
    expect(page.url()).toBe(`${HOST}/`)
    expect(hits.evil).toBe(0)
  })

  it('the sandbox proxy’s own messages from the App are not obeyed (neither by the proxy nor by the host)', async () => {
    const { page } = await setup()
    const app = await render(page, 'a')
    const post = (data: unknown, target?: string) =>
      app.evaluate(([d, t]) => (window as unknown as { post(d: unknown, t?: string): void }).post(d, t), [
        data,
        target,
      ] as const)
    const html = '<!doctype html><h1>replaced</h1>'
    await post({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-resource-ready', params: { html } })
    await post({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} })
    await post({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, 'top')
    expect((await appRequest(app, 'ping', {})).result).toEqual({})
    expect(await app.locator('h1').textContent()).toBe('Dune a') // the same document, not replaced
    // the host sent the HTML exactly once: the App saw no second resource-ready, and is still the first document
    expect(await app.evaluate(() => typeof (window as unknown as { request?: unknown }).request)).toBe('function')
  })
})

describe('renderApp: links and messages need the user’s consent', () => {
  it('open-link: declined → an error to the App and nothing opened; allowed → opened with noopener', async () => {
    const { page } = await setup()
    const app = await render(page, 'a')
    const ask = () => appRequest(app, 'ui/open-link', { url: 'https://example.com/docs' })
    let answer = ask()
    const dialog = page.getByRole('dialog', { name: 'The app asks to open this address:' })
    await dialog.waitFor()
    expect(await dialog.locator('.mcp-url').textContent()).toBe('https://example.com/docs')
    await page.getByRole('button', { name: 'Decline' }).click()
    expect((await answer).error).toEqual({ code: -32000, message: 'Link opening denied by user' })
    answer = ask()
    await dialog.waitFor()
    await page.keyboard.press('Escape')
    expect((await answer).error).toEqual({ code: -32000, message: 'Link opening denied by user' })
    expect(await page.evaluate(() => (window as unknown as HostWindow).opened)).toEqual([])
    // focus starts on Decline: an Enter the user was pressing in the App when it asked denies
    answer = ask()
    await dialog.waitFor()
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Decline')
    await page.keyboard.press('Enter')
    expect((await answer).error).toEqual({ code: -32000, message: 'Link opening denied by user' })
    expect(await page.evaluate(() => (window as unknown as HostWindow).opened)).toEqual([])
    answer = ask()
    await page.getByRole('button', { name: 'Allow' }).click()
    expect((await answer).result).toEqual({})
    expect(await page.evaluate(() => (window as unknown as HostWindow).opened)).toEqual([
      ['https://example.com/docs', '_blank', 'noopener,noreferrer'],
    ])
    // not http(s): refused without asking
    expect((await appRequest(app, 'ui/open-link', { url: 'javascript:alert(1)' })).error).toEqual({
      code: -32000,
      message: 'Invalid URL: only http and https links open',
    })
    expect(await dialog.count()).toBe(0)
    // a deceptive link is shown as URL elicitation shows one: the real host emphasised, a warning
    answer = appRequest(app, 'ui/open-link', { url: 'https://bank.example@evil.example/login' })
    const deceptive = page.getByRole('dialog', { name: 'The app asks to open this address:' })
    await deceptive.waitFor()
    expect(await deceptive.locator('.mcp-url-host').textContent()).toBe('evil.example')
    expect(await deceptive.locator('.mcp-warning').allTextContents()).toEqual([DEFAULT_STRINGS.userinfoUrl])
    await page.keyboard.press('Escape')
    expect((await answer).error).toEqual({ code: -32000, message: 'Link opening denied by user' })
  })

  it('message: declined → an error and nothing delivered; allowed → delivered to onMessage', async () => {
    const { page } = await setup()
    const app = await render(page, 'a')
    const content = [{ type: 'text', text: 'Order two copies' }]
    let answer = appRequest(app, 'ui/message', { role: 'user', content })
    const dialog = page.getByRole('dialog', { name: 'The app asks to send this message for you:' })
    await dialog.waitFor()
    expect(await dialog.locator('.mcp-text').textContent()).toBe('Order two copies')
    await page.getByRole('button', { name: 'Decline' }).click()
    expect((await answer).error).toEqual({ code: -32000, message: 'Message sending denied by user' })
    expect(await page.evaluate(() => (window as unknown as HostWindow).messages)).toEqual([])
    answer = appRequest(app, 'ui/message', { role: 'user', content: content[0] })
    await page.getByRole('button', { name: 'Allow' }).click()
    expect((await answer).result).toEqual({})
    expect(await page.evaluate(() => (window as unknown as HostWindow).messages)).toEqual([{ role: 'user', content }])
  })
})

describe('renderApp: refused setups', () => {
  it('a sandboxUrl on the page’s own origin is a TypeError, and nothing is rendered', async () => {
    const { page } = await setup()
    const error = await page.evaluate(async () => {
      const w = window as unknown as HostWindow
      const tool = (await w.clients.a.listTools()).find((t) => t.name === 'show_card')!
      return w.EdgeMcp.renderApp(w.clients.a, { container: document.body, sandboxUrl: '/mcp-app-sandbox', tool }).then(
        () => 'rendered',
        (e: Error) => `${e.name}: ${e.message}`,
      )
    })
    expect(error).toBe(
      `TypeError: sandboxUrl (/mcp-app-sandbox) must be an appSandboxResponse page on another origin than ${HOST}`,
    )
    expect(await page.locator('iframe').count()).toBe(0)
  })

  it('what is not a sandboxUrl, a Tool or a container is a TypeError saying what to pass; a missing App names the tool', async () => {
    const { page } = await setup()
    const outcomes = await page.evaluate(async () => {
      const w = window as unknown as HostWindow
      const tools = await w.clients.a.listTools()
      const tool = tools.find((t) => t.name === 'show_card')!
      const lost = { ...tool, _meta: { ui: { resourceUri: 'ui://a/missing' } } }
      const container = document.getElementById('a')!
      const attempts: Array<Record<string, unknown>> = [
        { container, tool },
        { container, tool: 'show_card', sandboxUrl: 'http://sandbox.test/' },
        { container: null, tool, sandboxUrl: 'http://sandbox.test/' },
        { container, tool: lost, sandboxUrl: 'http://sandbox.test/' },
      ]
      const results: string[] = []
      for (const options of attempts)
        results.push(
          await w.EdgeMcp.renderApp(w.clients.a, options as never).then(
            () => 'rendered',
            (e: Error) => `${e.name}: ${e.message}`,
          ),
        )
      return results
    })
    expect(outcomes.slice(0, 3)).toEqual([
      `TypeError: sandboxUrl (undefined) must be an appSandboxResponse page on another origin than ${HOST}`,
      'TypeError: tool "show_card" has no _meta.ui.resourceUri (a ui:// URI): pass a Tool of client.listTools()',
      'TypeError: renderApp: container must be an HTMLElement',
    ])
    expect(outcomes[3]).toMatch(/^Error: tool show_card's App ui:\/\/a\/missing could not be read: /)
    expect(await page.locator('iframe').count()).toBe(0)
  })

  it('a sandboxUrl that is not the sandbox page fails ready, with a console error saying what to check', async () => {
    const { page, errors } = await setup()
    const outcome = await page.evaluate(async (sandboxUrl) => {
      const w = window as unknown as HostWindow
      const tool = (await w.clients.a.listTools()).find((t) => t.name === 'show_card')!
      const view = await w.EdgeMcp.renderApp(w.clients.a, {
        container: document.getElementById('a')!,
        sandboxUrl,
        tool,
      })
      return view.ready.then(
        () => 'ready',
        (e: Error) => e.message,
      )
    }, `${ALLOWED}/typo`)
    const message = `${ALLOWED}/typo is not the MCP Apps sandbox page, or refused ${HOST} (check sandboxUrl and hostOrigins)`
    expect(outcome).toBe(message)
    expect(errors).toEqual([`[edge-mcp] App ui://a/app: ${message}`])
  })

  it('an App whose frame left the page without teardown() no longer holds its sandbox origin', async () => {
    const { page } = await setup()
    await render(page, 'a')
    const outcomes = await page.evaluate(async (sandboxUrl) => {
      const w = window as unknown as HostWindow
      const tool = (await w.clients.b.listTools()).find((t) => t.name === 'show_card')!
      const attempt = () =>
        w.EdgeMcp.renderApp(w.clients.b, { container: document.getElementById('b')!, sandboxUrl, tool }).then(
          (view) => view.ready.then(() => 'ready'),
          (e: Error) => e.message,
        )
      const before = await attempt()
      document.querySelector('#a iframe')!.remove() // as a framework's re-render does
      return [before, await attempt()]
    }, `${SANDBOX}/mcp-app-sandbox`)
    expect(outcomes[0]).toMatch(/shows another client's App: tear it down first \(view\.teardown\(\)\)/)
    expect(outcomes[1]).toBe('ready')
  })
})
