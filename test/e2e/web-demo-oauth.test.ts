/**
 * End to end in headless Chromium: the web demo (the browser `Client`, edge-mcp/browser) against the
 * demo Worker protected by `OAUTH_ISSUER` (under `wrangler dev`), with a real loopback authorization
 * server (test/oauth-server.ts). Connecting gets 401: the page shows "Sign in at …"; the click opens the
 * authorization server in a popup, which redirects to oauth-callback.html, which hands the code back;
 * the client exchanges it (dynamic registration, PKCE, RFC 8707 resource) and connects. Calling
 * order_book gets 403 `insufficient_scope`: the page asks to sign in again, and the call succeeds with the
 * union of the scopes (step-up). Screenshots go to test-results/web-demo/.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../browser.ts'
import { startOAuthServer, type TestAuthorizationServer } from '../oauth-server.ts'
import { ROOT, startWorker, type RunningWorker } from '../workerd.ts'

const SHOTS = join(ROOT, 'test-results/web-demo')

let browser: Browser
let worker: RunningWorker
let as: TestAuthorizationServer

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'web-demo/dist/oauth-callback.html')))
    throw new Error('web-demo/dist is missing: run `npm run build:web` first (npm test does)')
  mkdirSync(SHOTS, { recursive: true })
  as = await startOAuthServer()
  ;[browser, worker] = await Promise.all([launchChromium(), startWorker({ vars: { OAUTH_ISSUER: as.issuer } })])
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await worker?.stop()
  await as?.close()
})

/** Click "Sign in at <issuer host>" and wait for the popup to finish (it closes itself). */
async function signIn(page: Page): Promise<void> {
  const host = new URL(as.issuer).host
  const button = page.getByRole('button', { name: `Sign in at ${host}` })
  await button.waitFor()
  const popup = page.waitForEvent('popup')
  await button.click()
  const opened = await popup
  // the popup may have closed itself already (a quick sign-in): a 'close' event would then never come
  if (!opened.isClosed()) await opened.waitForEvent('close', { timeout: 60_000 })
}

describe('the web demo against a protected Worker', () => {
  it('signs in on 401, connects, and steps up on 403 for order_book', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    const origin = `http://127.0.0.1:${worker.port}`
    await page.goto(`${origin}/`)
    await expect.poll(() => page.locator('#sign-in').innerText()).toContain('This server needs you to sign in')
    expect(await page.locator('#sign-in').innerText()).toContain('(scopes: books:read)')
    await page.screenshot({ path: join(SHOTS, 'oauth-sign-in.png'), fullPage: true })
    await signIn(page)
    await expect.poll(() => page.locator('#status').innerText()).toMatch(/^Connected to edge-mcp-demo/)
    expect(await page.locator('#sign-in').innerText()).toBe('')
    const first = as.authorizations.at(-1)!
    expect(first.resource).toBe(`${origin}/mcp`)
    expect(first.redirect_uri).toBe(`${origin}/oauth-callback.html`)
    expect(first.scope).toBe('books:read')

    await page.getByRole('button', { name: 'Call order_book' }).click()
    await page.locator('#args').getByLabel('title').fill('Dune')
    await page.getByRole('button', { name: 'Call tool' }).click()
    await expect.poll(() => page.locator('#sign-in').innerText()).toContain('(scopes: books:read books:order)')
    await signIn(page)
    await expect.poll(() => page.locator('#result .content').allInnerTexts()).toEqual([expect.stringMatching(/Dune/)])
    await page.screenshot({ path: join(SHOTS, 'oauth-stepped-up.png'), fullPage: true })
    expect(as.authorizations.at(-1)!.scope.split(' ').sort()).toEqual(['books:order', 'books:read'])
    expect(errors).toEqual([])
    await page.close()
  }, 90_000)

  it('Cancel ends the sign-in: the page says the connection failed', async () => {
    const page = await browser.newPage()
    await page.goto(`http://127.0.0.1:${worker.port}/`)
    await page.getByRole('button', { name: 'Cancel' }).click()
    await expect.poll(() => page.locator('#status').innerText()).toMatch(/^Could not connect to .*Sign-in cancelled/)
    await page.close()
  }, 60_000)
})
