/**
 * Real headless Chromium for tests: Debian's `/usr/bin/chromium` driven by `playwright-core` (no browser
 * download). `.ci/run` installs the `chromium` package when it is missing.
 *
 * ```ts
 * const browser = await launchChromium()
 * const bundle = await bundleForBrowser({ entry: 'test/fixtures/browser-entry.ts', name: 'T' }) // an IIFE: window.T
 * const page = await openPage(browser, { scripts: [bundle] })                                      // http://edge-mcp.test/
 * ...
 * await browser.close()
 * ```
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { isAbsolute, join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'

export const ROOT = join(import.meta.dirname, '..')

/** Where Chromium lives: `$CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Flags that work in containers and CI (as root, no GPU, no network chatter of its own). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Launch headless Chromium with a fresh profile (playwright makes a temporary user-data-dir per launch). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`Chromium not found at ${CHROMIUM_PATH} (apt-get install -y chromium, or set CHROMIUM_PATH)`)
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS })
}

/** Options of {@link bundleForBrowser}. */
export interface BundleOptions {
  /** The entry module, relative to the repo root (or absolute). */
  entry: string
  /** The global the IIFE assigns the entry's exports to (`window[name]`). */
  name: string
  /** Minify (default false: readable stack traces). */
  minify?: boolean
}

/**
 * Bundle one entry (and everything it imports) into a single IIFE script with vite's `build()` in
 * library mode, into a temp dir that is removed afterwards. Returns the script text.
 */
export async function bundleForBrowser(options: BundleOptions): Promise<string> {
  const { build } = await import('vite')
  const outDir = await mkdtemp(join(tmpdir(), 'edge-mcp-bundle-'))
  try {
    await build({
      root: ROOT,
      configFile: false,
      logLevel: 'warn',
      publicDir: false,
      build: {
        outDir,
        emptyOutDir: true,
        minify: options.minify ?? false,
        sourcemap: false,
        reportCompressedSize: false,
        lib: {
          entry: isAbsolute(options.entry) ? options.entry : join(ROOT, options.entry),
          name: options.name,
          formats: ['iife'],
          fileName: () => 'bundle.js',
        },
      },
    })
    return await readFile(join(outDir, 'bundle.js'), 'utf8')
  } finally {
    await rm(outDir, { recursive: true, force: true })
  }
}

/** The origin {@link openPage} serves its page from (answered by `page.route`, no server). */
export const PAGE_ORIGIN = 'http://edge-mcp.test'

/** Options of {@link openPage}. */
export interface OpenPageOptions {
  /** Scripts (text) run in order in the page's `<head>`, e.g. a {@link bundleForBrowser} result. */
  scripts?: string[]
  /** Body HTML of the test page (test-authored, trusted). Default: empty. */
  body?: string
  /** Collect `console.error` / page errors into this array. */
  errors?: string[]
  /** Options of the fresh context (e.g. `timezoneId`, `locale`). */
  contextOptions?: BrowserContextOptions
}

/**
 * A fresh context and page at `http://edge-mcp.test/` (served from memory through `page.route`). Every
 * other request not routed by the test is aborted, so a test can assert nothing was fetched.
 */
export async function openPage(
  browser: Browser,
  options: OpenPageOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(options.contextOptions)
  const page = await context.newPage()
  const scripts = options.scripts ?? []
  await context.route('**/*', (route) => route.abort('blockedbyclient'))
  await context.route(`${PAGE_ORIGIN}/**`, (route) => {
    const path = new URL(route.request().url()).pathname
    const m = /^\/script-(\d+)\.js$/.exec(path)
    if (m && scripts[Number(m[1])] !== undefined)
      return route.fulfill({ contentType: 'text/javascript', body: scripts[Number(m[1])] })
    if (path === '/') {
      const tags = scripts.map((_, i) => `<script src="/script-${i}.js"></script>`).join('')
      return route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>test</title>${tags}</head><body>${options.body ?? ''}</body></html>`,
      })
    }
    return route.fulfill({ status: 404, body: 'not found' })
  })
  if (options.errors) {
    const errors = options.errors
    page.on('pageerror', (e) => errors.push(String(e)))
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text())
    })
  }
  await page.goto(`${PAGE_ORIGIN}/`)
  return { context, page }
}

/**
 * Answer the page's (or a whole context's) requests to `url` (a glob or URL) with a fetch handler running in Node, e.g.
 * `createFetchHandler(mcp)`: the browser's `fetch` reaches a real server without a socket. Responses are
 * buffered (fine for JSON answers; an SSE stream arrives whole once the handler ends it).
 */
export async function routeFetchHandler(
  page: Pick<Page, 'route'> | Pick<BrowserContext, 'route'>,
  url: string,
  handler: (request: Request) => Promise<Response> | Response,
): Promise<void> {
  await page.route(url, async (route) => {
    const r = route.request()
    const body = r.postDataBuffer()
    const response = await handler(
      new Request(r.url(), {
        method: r.method(),
        headers: await r.allHeaders(),
        ...(body ? { body: new Uint8Array(body) } : {}),
      }),
    )
    await route.fulfill({
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: Buffer.from(await response.arrayBuffer()),
    })
  })
}

/**
 * Chromium and the bundle of test/fixtures/browser-entry.ts (an IIFE: `window.EdgeMcp`) for one test file:
 * launched and bundled in `beforeAll`, closed in `afterAll`. Read `browser` and `bundle` inside tests.
 */
export function useEntryBundle(): { readonly browser: Browser; readonly bundle: string } {
  const shared = {} as { browser: Browser; bundle: string }
  beforeAll(async () => {
    ;[shared.browser, shared.bundle] = await Promise.all([
      launchChromium(),
      bundleForBrowser({ entry: 'test/fixtures/browser-entry.ts', name: 'EdgeMcp' }),
    ])
  })
  afterAll(async () => {
    await shared.browser?.close()
  })
  return shared
}
