/**
 * End to end: the web demo (web-demo/, built into web-demo/dist by `npm run build:web`) served by the
 * demo Worker under `wrangler dev`, driven in headless Chromium. `order_book` for Neuromancer asks to
 * confirm a backorder through the browser form; confirm, submit unticked and decline each give the
 * tool's answer; the rounds view shows the opaque requestState that travelled. The SPA also works
 * against an endpoint on another origin that allows it. Screenshots go to test-results/web-demo/:
 * question.png (the form asking), result.png (after accepting), declined.png, mobile.png (390 px wide).
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../browser.ts'
import {
  HINT,
  QUESTION,
  callOrderBook,
  controlHeights,
  openDemo as openDemo_,
  problems,
  recordRequests,
  typedPage as typedPage_,
} from '../web-demo-page.ts'
import { ROOT, startWorker, type RunningWorker } from '../workerd.ts'

const SHOTS = join(ROOT, 'test-results/web-demo')
const BACKORDERED = "Backordered 'Neuromancer'; it ships in 2-3 weeks."
const DECLINED = 'The user declined: "Neuromancer" is out of stock (2-3 weeks). Order anyway?'

let browser: Browser
let worker: RunningWorker

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'web-demo/dist/index.html')))
    throw new Error('web-demo/dist is missing: run `npm run build:web` first (npm test does)')
  mkdirSync(SHOTS, { recursive: true })
  ;[browser, worker] = await Promise.all([launchChromium(), startWorker()])
})

afterAll(async () => {
  await browser?.close()
  await worker?.stop()
})

const origin = (w: RunningWorker) => `http://127.0.0.1:${w.port}`

/** A fresh page on the demo (see web-demo-page.ts). */
const openDemo = (at: string, query = '', width = 1200) => openDemo_(browser, at, query, width)

describe('the web demo served by the Worker', () => {
  it('serves the SPA at / and lists the tools, prompts and resources; /mcp is still the MCP endpoint', async () => {
    const page = await openDemo(origin(worker))
    await expect
      .poll(() => page.locator('#status').innerText())
      .toMatch(/^Connected to edge-mcp-demo 0\.1\.0 at http:\/\/127\.0\.0\.1:\d+\/mcp · MCP 2026-07-28$/)
    await expect
      .poll(() => page.locator('#tools code').allInnerTexts())
      .toEqual(['provision', 'reserve_book', 'order_book', 'recommend_book', 'open_account', 'stock_take'])
    await expect.poll(() => page.locator('#prompts code').allInnerTexts()).toEqual(['briefing'])
    await expect
      .poll(() => page.locator('#resources code').allInnerTexts())
      .toEqual(['books://catalog', 'ui://bookshop/order-card', 'books://{genre}/shortlist'])
    expect(await page.locator('#tools').innerText()).toContain(
      'Order a book from the shop. Asks to confirm a backorder when the book is out of stock.',
    )
    expect(await page.title()).toBe('edge-mcp web demo')
    // the empty state says what to try; Rounds and Result wait for a call
    expect(await page.locator('#hint').innerText()).toBe(HINT)
    expect(await page.locator('#rounds-section').isVisible()).toBe(false)
    expect(await page.locator('#result-section').isVisible()).toBe(false)
    // one button style, touch-sized: the endpoint controls and every Call… / Get… / Read button
    const heights = await controlHeights(page)
    expect(heights.length).toBeGreaterThan(8)
    for (const [name, height] of heights) expect(height, name).toBeGreaterThanOrEqual(44)
    expect(problems.get(page)).toEqual([]) // no console errors, no 404 (the favicon is inline)
    await page.screenshot({ path: join(SHOTS, 'empty.png'), fullPage: true })
    // GET /mcp reaches the Worker (405 from the MCP handler), not an asset
    const res = await fetch(`${origin(worker)}/mcp`)
    expect(res.status).toBe(405)
    await page.close()
  }, 60_000)

  it('order_book Neuromancer: the form appears, confirm → backordered; the round shows the requestState that travelled', async () => {
    const page = await openDemo(origin(worker))
    const requests = recordRequests(page)
    await callOrderBook(page, 'Neuromancer')
    const questions = page.locator('#questions')
    // the optional checkbox is not marked required; Decline and Cancel are told apart; touch-sized buttons
    expect(await questions.locator('.mcp-field-boolean .mcp-required').count()).toBe(0)
    expect(await questions.locator('.mcp-field-boolean').innerText()).toBe('Order anyway and wait?')
    expect(await questions.locator('.mcp-actions-hint').innerText()).toBe(
      'Decline says no to this question. Cancel closes it without answering.',
    )
    expect(await page.locator('#hint').isVisible()).toBe(false) // the hint has done its job
    for (const [name, height] of await controlHeights(page)) expect(height, name).toBeGreaterThanOrEqual(44)
    await page.screenshot({ path: join(SHOTS, 'question.png'), fullPage: true })
    await questions.getByLabel('Order anyway and wait?').check()
    await questions.getByRole('button', { name: 'Submit' }).click()
    await expect.poll(() => page.locator('#result .content').allInnerTexts()).toEqual([BACKORDERED])
    expect(await page.locator('#result .error, #result .refused').count()).toBe(0)
    await page.screenshot({ path: join(SHOTS, 'result.png'), fullPage: true })
    expect(problems.get(page)).toEqual([])

    // what the page sent: the call, then the retry with the answer and the server's state, byte-exact
    const calls = requests.filter((r) => r.body?.method === 'tools/call')
    expect(calls).toHaveLength(2)
    expect(calls[0].body!.params).toMatchObject({ name: 'order_book', arguments: { title: 'Neuromancer' } })
    const retry = calls[1].body!.params
    expect(retry.inputResponses).toEqual({ confirmBackorder: { action: 'accept', content: { confirm: true } } })
    const state = retry.requestState as string
    expect(state).toMatch(/^v2\./)
    // ...and what the rounds view shows about it
    const rounds = page.locator('#rounds > li')
    expect(await rounds.count()).toBe(1)
    const round = await rounds.first().innerText()
    expect(round).toContain('Round 1')
    expect(round).toContain(`confirmBackorder: elicitation (form): ${QUESTION}`)
    expect(round).toContain('→ {"action":"accept","content":{"confirm":true}}')
    expect(await page.locator('#era').innerText()).toBe(
      'MCP 2026-07-28: input-required rounds. The server answers with its questions; the client answers them and retries with the opaque requestState.',
    )
    expect(await page.locator('#rounds .round-state').innerText()).toBe(
      `requestState: ${state.length} chars, ${state.slice(0, 16)}… — opaque to the client, sent back unchanged with the answers.`,
    )
    await page.close()
  }, 60_000)

  it('order_book Neuromancer: submitted unticked → "No order placed."; Decline → "The user declined: …", shown neutrally', async () => {
    const page = await openDemo(origin(worker))
    await callOrderBook(page, 'Neuromancer')
    await page.locator('#questions').getByRole('button', { name: 'Submit' }).click()
    await expect.poll(() => page.locator('#result .content').allInnerTexts()).toEqual(['No order placed.'])
    expect(await page.locator('#rounds').innerText()).toContain('→ {"action":"accept","content":{"confirm":false}}')

    await callOrderBook(page, 'Neuromancer')
    expect(await page.locator('#rounds > li').count()).toBe(0) // a new call starts a fresh rounds view
    await page.locator('#questions').getByRole('button', { name: 'Decline' }).click()
    await expect.poll(() => page.locator('#result .content').allInnerTexts()).toEqual([DECLINED])
    // the user's own answer: the neutral style, not the error one
    expect(await page.locator('#result pre.content').getAttribute('class')).toBe('content refused')
    expect(await page.locator('#result p.refused').innerText()).toBe('You declined a question, so the tool stopped:')
    expect(await page.locator('#result .error').count()).toBe(0)
    expect(await page.locator('#rounds').innerText()).toContain('→ {"action":"decline"}')
    await page.screenshot({ path: join(SHOTS, 'declined.png'), fullPage: true })

    // Cancel (here: Escape) reads the same way
    await callOrderBook(page, 'Neuromancer')
    await page.keyboard.press('Escape')
    await expect
      .poll(() => page.locator('#result .content').allInnerTexts())
      .toEqual([`The user cancelled: ${QUESTION}`])
    expect(await page.locator('#result p.refused').innerText()).toBe('You cancelled a question, so the tool stopped:')
    expect(problems.get(page)).toEqual([])
    await page.close()
  }, 60_000)

  it('a tool that needs no answer runs in one request, with no rounds; bad arguments are refused in the form', async () => {
    const page = await openDemo(origin(worker))
    const requests = recordRequests(page)
    await page.getByRole('button', { name: 'Call reserve_book' }).click()
    await page.getByRole('button', { name: 'Call tool' }).click() // title is required: the browser refuses the empty form
    expect(
      await page
        .locator('#args')
        .getByLabel('title')
        .evaluate((input: HTMLInputElement) => input.validity.valueMissing),
    ).toBe(true)
    expect(requests.filter((r) => r.body?.method === 'tools/call')).toHaveLength(0)
    await page.locator('#args').getByLabel('title').fill('Dune')
    await page.getByRole('button', { name: 'Call tool' }).click()
    await expect
      .poll(() => page.locator('#result .content').allInnerTexts())
      .toEqual(["Reserved 'Dune' (6 copies left)."])
    expect(await page.locator('#rounds > li').count()).toBe(0)
    await page.close()
  })
})

describe('the web demo says which server asks, and what went wrong', () => {
  it('a 390 px wide phone: one column, nothing wider than the screen, touch-sized buttons', async () => {
    const page = await openDemo(origin(worker), '', 390)
    await expect.poll(() => page.locator('#tools code').allInnerTexts()).toContain('order_book')
    await callOrderBook(page, 'Neuromancer')
    await page.locator('#questions').scrollIntoViewIfNeeded()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    for (const [name, height] of await controlHeights(page)) expect(height, name).toBeGreaterThanOrEqual(44)
    await page.screenshot({ path: join(SHOTS, 'mobile.png'), fullPage: true })
    expect(problems.get(page)).toEqual([])
    await page.close()
  }, 60_000)

  it('an endpoint that is not a URL (?endpoint=) is reported in the status line, and nothing stays connected', async () => {
    const page = await openDemo(origin(worker))
    await expect.poll(() => page.locator('#tools code').allInnerTexts()).toContain('order_book')
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(String(e)))
    await page.goto(`${origin(worker)}/?endpoint=${encodeURIComponent('http://[')}`)
    await expect.poll(() => page.locator('#status').innerText()).toBe('Could not connect: "http://[" is not a URL.')
    expect(await page.locator('#status').getAttribute('class')).toBe('error')
    expect(await page.locator('#tools code').count()).toBe(0)
    expect(errors).toEqual([])
    await page.close()
  })

  it('the form names the server by its title and its host (a title alone is whatever the server claims)', async () => {
    const page = await openDemo(origin(worker))
    await callOrderBook(page, 'Neuromancer')
    expect(await page.locator('#questions .mcp-origin').innerText()).toBe(
      `Request from edge-mcp demo: provisioner and bookshop at 127.0.0.1:${worker.port} (order_book)`,
    )
    await page.locator('#questions').getByRole('button', { name: 'Cancel' }).click()
    await page.close()
  })
})

describe('the web demo: sampling, several rounds, prompts and resources', () => {
  it("recommend_book: the sampling form shows the server's prompt; the human reply is the pick", async () => {
    const page = await openDemo(origin(worker))
    await page.getByRole('button', { name: 'Call recommend_book' }).click()
    await page.locator('#args').getByLabel('genre').fill('sci-fi')
    await page.getByRole('button', { name: 'Call tool' }).click()
    const questions = page.locator('#questions')
    await expect
      .poll(() => questions.innerText())
      .toContain('Suggest one sci-fi book title. Answer with the title only.')
    await questions.getByLabel('Your reply').fill('Hyperion')
    await questions.getByRole('button', { name: 'Send' }).click()
    await expect.poll(() => page.locator('#result .content').allInnerTexts()).toEqual(["Today's sci-fi pick: Hyperion"])
    expect(await page.locator('#rounds').innerText()).toContain(
      'suggestTitle: sampling, 1 message(s) → {"role":"assistant","content":{"type":"text","text":"Hyperion"},"model":"human","stopReason":"endTurn"}',
    )
    await page.close()
  })

  it('open_account: three rounds in a row, each listed with its question, answer and state', async () => {
    const page = await openDemo(origin(worker))
    await page.getByRole('button', { name: 'Call open_account' }).click()
    await page.getByRole('button', { name: 'Call tool' }).click()
    const questions = page.locator('#questions')
    await expect.poll(() => questions.innerText()).toContain('What name should the account be under?')
    await questions.getByLabel('Your name').fill('Ada')
    await questions.getByRole('button', { name: 'Submit' }).click()
    await expect.poll(() => questions.innerText()).toContain('Which plan for Ada?')
    await questions.getByRole('combobox').selectOption('pro')
    await questions.getByRole('button', { name: 'Submit' }).click()
    await expect.poll(() => questions.innerText()).toContain('Open a pro account for Ada?')
    await questions.getByLabel('Confirm').check()
    await questions.getByRole('button', { name: 'Submit' }).click()
    await expect.poll(() => page.locator('#result .content').allInnerTexts()).toEqual(['Opened a pro account for Ada.'])
    const rounds = await page.locator('#rounds > li').allInnerTexts()
    expect(rounds).toHaveLength(3)
    expect(rounds[0]).toContain(
      'accountName: elicitation (form): What name should the account be under? → {"action":"accept","content":{"name":"Ada"}}',
    )
    expect(rounds[1]).toContain(
      'accountPlan: elicitation (form): Which plan for Ada? → {"action":"accept","content":{"plan":"pro"}}',
    )
    expect(rounds[2]).toContain(
      'accountConfirm: elicitation (form): Open a pro account for Ada? → {"action":"accept","content":{"confirm":true}}',
    )
    const states = await page.locator('#rounds .round-state').allInnerTexts()
    for (const [i, state] of states.entries())
      expect(state, `round ${i + 1}`).toMatch(/^requestState: \d+ chars, v2\.\S{13}… — opaque/)
    await page.screenshot({ path: join(SHOTS, 'open-account-three-rounds.png'), fullPage: true })
    await page.close()
  }, 60_000)

  it('a prompt and a resource template that ask, and a static resource', { timeout: 60_000 }, async () => {
    const page = await openDemo(origin(worker))
    const questions = page.locator('#questions')
    await page.getByRole('button', { name: 'Get briefing' }).click()
    await page.locator('#args').getByLabel('topic').fill('Q3')
    await page.getByRole('button', { name: 'Get prompt' }).click()
    await expect.poll(() => questions.innerText()).toContain('Who is the briefing for?')
    await questions.getByLabel('Audience').fill('the board')
    await questions.getByRole('button', { name: 'Submit' }).click()
    await expect
      .poll(() => page.locator('#result .content').allInnerTexts())
      .toEqual(['user: Write a one-page briefing on Q3 for the board.'])

    await page.getByRole('button', { name: 'Read books://{genre}/shortlist' }).click()
    await page.locator('#args').getByLabel('genre').fill('sci-fi')
    await page.getByRole('button', { name: 'Read resource' }).click()
    await expect.poll(() => questions.innerText()).toContain('How many sci-fi books on the shortlist?')
    await questions.getByLabel('How many books').fill('2')
    await questions.getByRole('button', { name: 'Submit' }).click()
    await expect.poll(() => page.locator('#result .content').allInnerTexts()).toEqual(['Dune\nNeuromancer'])
    expect(await page.locator('#rounds').innerText()).toContain('→ {"action":"accept","content":{"count":2}}') // a JSON number

    await page.getByRole('button', { name: 'Read books://catalog' }).click()
    await expect
      .poll(() => page.locator('#result .content').allInnerTexts())
      .toEqual([
        JSON.stringify({
          'sci-fi': ['Dune', 'Neuromancer', 'Hyperion', 'Foundation', 'Solaris'],
          fantasy: ['Earthsea', 'The Hobbit', 'Piranesi'],
        }),
      ])
    expect(await page.locator('#rounds > li').count()).toBe(0)
    await page.close()
  })
})

describe('the web demo against another origin', () => {
  let other: RunningWorker
  beforeAll(async () => {
    other = await startWorker({ vars: { ALLOWED_ORIGINS: origin(worker) } })
  })
  afterAll(async () => {
    await other?.stop()
  })

  it('works against an endpoint on another origin that allows the page’s origin', async () => {
    const page = await openDemo(origin(worker))
    await expect.poll(() => page.locator('#status').innerText()).toMatch(/^Connected to /)
    const requests = recordRequests(page)
    await page.locator('#endpoint').fill(other.url)
    await page.getByRole('button', { name: 'Connect' }).click()
    await expect
      .poll(() => page.locator('#status').innerText())
      .toBe(`Connected to edge-mcp-demo 0.1.0 at ${other.url} · MCP 2026-07-28`)
    await expect.poll(() => page.locator('#tools code').allInnerTexts()).toContain('order_book')
    await callOrderBook(page, 'Neuromancer')
    await page.locator('#questions').getByLabel('Order anyway and wait?').check()
    await page.locator('#questions').getByRole('button', { name: 'Submit' }).click()
    await expect.poll(() => page.locator('#result .content').allInnerTexts()).toEqual([BACKORDERED])
    await page.screenshot({ path: join(SHOTS, 'cross-origin-backordered.png'), fullPage: true })
    expect(requests.length).toBeGreaterThan(0)
    expect(requests.every((r) => r.url === other.url)).toBe(true) // every MCP request went to the other origin
    await page.close()
  }, 60_000)

  it('an origin the endpoint does not allow cannot use it (403, no CORS), and says so', async () => {
    // the page on `other`, the endpoint on `worker`, which allows no other origin
    const page = await openDemo(origin(other), `?endpoint=${encodeURIComponent(worker.url)}`)
    // the URL once, and the browser's reasonless "Failed to fetch" with its two likely causes
    await expect
      .poll(() => page.locator('#status').innerText())
      .toBe(
        `Could not reach ${worker.url}: Failed to fetch (the server may be down, or may not allow requests from this page's origin)`,
      )
    // what the browser met: the endpoint refuses the page's origin at the CORS preflight
    const preflight = await fetch(worker.url, {
      method: 'OPTIONS',
      headers: { origin: origin(other), 'access-control-request-method': 'POST' },
    })
    expect(preflight.status).toBe(403)
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull()
    expect(await page.locator('#tools li').count()).toBe(0)
    await page.close()
  })
})

describe("the arguments form built from a tool's inputSchema", () => {
  const typedPage = () => typedPage_(browser, origin(worker))

  it("one field per property, labelled, required marked, described; values sent as the schema's JSON types", async () => {
    const { page, calls } = await typedPage()
    await expect.poll(() => page.locator('#prompts').innerText()).toBe('None.') // not declared by this server: not listed
    await page.getByRole('button', { name: 'Call echo' }).click()
    const form = page.locator('#args')
    expect(await form.locator('label').allInnerTexts()).toEqual([
      'Book title *',
      'copies *',
      'budget',
      'Gift wrap',
      'binding *',
      'shipping *',
      'email',
      'note',
      'tags',
    ])
    const title = form.getByLabel('Book title')
    expect(
      await title.evaluate((input) => document.getElementById(input.getAttribute('aria-describedby')!)?.textContent),
    ).toBe('As printed on the cover')
    expect(await form.getByLabel('copies').inputValue()).toBe('1') // the default
    expect(await form.getByLabel('shipping').locator('option:checked').innerText()).toBe('Standard')
    expect(await form.getByLabel('email').getAttribute('type')).toBe('email')
    expect(await form.getByLabel('binding').locator('option').allInnerTexts()).toEqual([
      'Choose…',
      'paperback',
      'hardcover',
    ])

    await title.fill('Dune')
    await form.getByLabel('copies').fill('7') // above maximum: the browser refuses the form
    await form.getByLabel('binding').selectOption({ label: 'hardcover' })
    await page.getByRole('button', { name: 'Call tool' }).click()
    expect(await form.getByLabel('copies').evaluate((input: HTMLInputElement) => input.validity.rangeOverflow)).toBe(
      true,
    )
    await form.getByLabel('copies').fill('2')
    await form.getByLabel('tags').fill('[a]') // not JSON: refused with a message, nothing sent
    await page.getByRole('button', { name: 'Call tool' }).click()
    await expect.poll(() => page.locator('#result .error').allInnerTexts()).toEqual(['tags: not valid JSON'])
    expect(calls).toEqual([])

    await form.getByLabel('budget').fill('12.5')
    await form.getByLabel('Gift wrap').check()
    await form.getByLabel('shipping').selectOption({ label: 'Express' })
    await form.getByLabel('tags').fill('["sci-fi", "classic"]')
    await page.getByRole('button', { name: 'Call tool' }).click()
    const sent = {
      title: 'Dune',
      copies: 2,
      budget: 12.5,
      gift: true,
      binding: 'hardcover',
      shipping: 'express',
      tags: ['sci-fi', 'classic'],
    }
    await expect.poll(() => page.locator('#result .content').allInnerTexts()).toEqual([JSON.stringify(sent)])
    expect(calls).toEqual([sent]) // empty optional fields (email, note) omitted
    await page.close()
  })
})
