/**
 * End to end in headless Chromium, as test/e2e/web-demo.test.ts (the built web demo served by the demo Worker
 * under `wrangler dev`): declining a prompt's question and declining a sampling request are the user's own
 * answers, shown in the neutral `refused` style like a declined `order_book`, never as errors; and
 * connecting again while an earlier connect still waits for a slow endpoint leaves the page to the newer
 * connection: the slow server's late answer shows nothing, and the superseded client asks it nothing more.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Server } from '../../src/server/index.ts'
import { launchChromium } from '../browser.ts'
import { callOrderBook, openDemo as openDemo_, problems, routeToServer } from '../web-demo-page.ts'
import { ROOT, startWorker, type RunningWorker } from '../workerd.ts'

let browser: Browser
let worker: RunningWorker

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'web-demo/dist/index.html')))
    throw new Error('web-demo/dist is missing: run `npm run build:web` first (npm test does)')
  ;[browser, worker] = await Promise.all([launchChromium(), startWorker()])
})

afterAll(async () => {
  await browser?.close()
  await worker?.stop()
})

const PROMPT_DECLINED = 'Could not get prompt briefing because the user declined: Who is the briefing for?'
const SAMPLING_DECLINED = 'The user declined the sampling request.'

const origin = (w: RunningWorker) => `http://127.0.0.1:${w.port}`
const openDemo = () => openDemo_(browser, origin(worker))

describe('a declined prompt question and a declined sampling request are shown neutrally', () => {
  it('briefing: Decline "Who is the briefing for?" → the refusal in the refused style, no error', async () => {
    const page = await openDemo()
    const questions = page.locator('#questions')
    await page.getByRole('button', { name: 'Get briefing' }).click()
    await page.locator('#args').getByLabel('topic').fill('Q3')
    await page.getByRole('button', { name: 'Get prompt' }).click()
    await expect.poll(() => questions.innerText()).toContain('Who is the briefing for?')
    await questions.getByRole('button', { name: 'Decline' }).click()
    await expect.poll(() => page.locator('#result p.refused').allInnerTexts()).toEqual([PROMPT_DECLINED])
    expect(await page.locator('#result .error').count()).toBe(0)
    expect(await page.locator('#result .content').count()).toBe(0)
    expect(await page.locator('#rounds').innerText()).toContain('→ {"action":"decline"}')
    expect(problems.get(page)).toEqual([])
    await page.close()
  })

  it('recommend_book: Decline the sampling form → the call is abandoned, shown in the refused style', async () => {
    const page = await openDemo()
    const questions = page.locator('#questions')
    await page.getByRole('button', { name: 'Call recommend_book' }).click()
    await page.locator('#args').getByLabel('genre').fill('sci-fi')
    await page.getByRole('button', { name: 'Call tool' }).click()
    await expect.poll(() => questions.innerText()).toContain('Suggest one sci-fi book title.')
    await questions.getByRole('button', { name: 'Decline' }).click()
    await expect.poll(() => page.locator('#result p.refused').allInnerTexts()).toEqual([SAMPLING_DECLINED])
    expect(await page.locator('#result .error').count()).toBe(0)
    expect(await questions.innerText()).toBe('') // the form went away
    expect(problems.get(page)).toEqual([])
    await page.close()
  })
})

describe('connecting again while an earlier connect is still in flight', () => {
  it("the slow endpoint's late answer is dropped: the page shows the second server; the first client asks nothing more", async () => {
    const SLOW = 'http://slow.test/mcp'
    const slow = new Server({ name: 'slow', version: '9.9.9' })
    slow.setRequestHandler('tools/list', () => ({ tools: [{ name: 'slow_tool', inputSchema: { type: 'object' } }] }))
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    const answered = await routeToServer(page, SLOW, slow, origin(worker), held)
    await page.goto(`${origin(worker)}/?endpoint=${encodeURIComponent(SLOW)}`)
    await expect.poll(() => page.locator('#status').innerText()).toBe(`Connecting to ${SLOW}…`)

    await page.locator('#endpoint').fill(worker.url)
    await page.getByRole('button', { name: 'Connect' }).click()
    const connected = `Connected to edge-mcp-demo 0.1.0 at ${worker.url} · MCP 2026-07-28`
    await expect.poll(() => page.locator('#status').innerText()).toBe(connected)
    await expect.poll(() => page.locator('#tools code').allInnerTexts()).toContain('order_book')
    const tools = await page.locator('#tools code').allInnerTexts()

    // now the slow endpoint answers the first connect's discovery
    release()
    await expect.poll(() => answered.length).toBeGreaterThan(0)
    await page.waitForTimeout(1000) // time for a late result to (wrongly) reach the page
    expect(await page.locator('#status').innerText()).toBe(connected)
    expect(await page.locator('#status').getAttribute('class')).not.toBe('error')
    expect(await page.locator('#tools code').allInnerTexts()).toEqual(tools)
    expect(await page.locator('#tools').innerText()).not.toContain('slow_tool')
    // the superseded client stopped at its discovery: it never listed the slow server's tools
    expect(answered.map((a) => a.method)).not.toContain('tools/list')
    expect(answered.map((a) => a.method)).toContain('server/discover')
    expect(problems.get(page) ?? []).toEqual([])
    await page.close()
  })

  it('connecting again while a question is open abandons that call: the form goes, and nothing of it is shown', async () => {
    const page = await openDemo()
    const requests: string[] = []
    page.on('request', (r) => {
      if (r.method() === 'POST')
        requests.push(String((JSON.parse(r.postData() ?? '{}') as { method?: unknown }).method))
    })
    await callOrderBook(page, 'Neuromancer')
    await page.getByRole('button', { name: 'Connect' }).click()
    await expect.poll(() => page.locator('#questions').innerText()).toBe('')
    await expect.poll(() => page.locator('#tools code').allInnerTexts()).toContain('order_book')
    expect(await page.locator('#result-section').isVisible()).toBe(false)
    expect(await page.locator('#result').innerText()).toBe('')
    expect(await page.locator('#status').getAttribute('class')).not.toBe('error')
    expect(requests.filter((m) => m === 'tools/call')).toHaveLength(1) // the question was never answered
    expect(problems.get(page)).toEqual([])
    await page.close()
  })
})
