/**
 * End to end in headless Chromium, as test/e2e/web-demo.test.ts (the built web demo served by the demo Worker
 * under `wrangler dev`, tasks in its Durable Objects): `stock_take` runs as a task. The page shows its status,
 * a `<progress>` bar and a Cancel button; its question midway is the usual form; answered, the task completes.
 * Cancel ends the task on the server. A reload while the task waits for its answer resumes it from the id kept
 * in sessionStorage, asks again and completes. Screenshots go to test-results/web-demo/: task-question.png.
 */
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { openDemo as openDemo_, problems, SHOTS, useDemo } from '../web-demo-page.ts'

const QUESTION = 'Halfway there. Count the returns shelf too?'
const WITH_RETURNS = 'Stock-take complete: 111 books on 8 shelves (the returns shelf held 5).'
const WITHOUT_RETURNS = 'Stock-take complete: 106 books on 8 shelves (the returns shelf was not counted).'

const demo = useDemo()

const origin = () => `http://127.0.0.1:${demo.worker.port}`

/** A page on the demo, connected. */
async function openDemo(): Promise<Page> {
  const page = await openDemo_(demo.browser, origin())
  await expect.poll(() => page.locator('#status').innerText()).toMatch(/^Connected to edge-mcp-demo/)
  return page
}

/** Call stock_take for `seconds`; resolves once the task panel shows the task. */
async function callStockTake(page: Page, seconds: number): Promise<string> {
  await page.getByRole('button', { name: 'Call stock_take' }).click()
  await page.locator('#args').getByLabel('seconds').fill(String(seconds))
  await page.getByRole('button', { name: 'Call tool' }).click()
  await expect.poll(() => page.locator('#task-id').innerText()).toMatch(/^Task [\w-]{22,}$/)
  return taskIdOn(page)
}

const taskIdOn = async (page: Page) => (await page.locator('#task-id').innerText()).replace(/^Task /, '')
const saved = (page: Page) => page.evaluate(() => sessionStorage.getItem('edge-mcp-demo.task'))
const progressOf = (page: Page) =>
  page.locator('#task-progress').evaluate((p: HTMLProgressElement) => ({ value: p.value, max: p.max }))

/** Our Client, from Node, on the same endpoint (anonymous, like the page). */
const nodeClient = () =>
  new Client({ transport: new StreamableHttpClientTransport(`${origin()}/mcp`), versionNegotiation: 'modern' })

describe('stock_take in the web demo: a task with status, progress, a question and Cancel', () => {
  it('shows status and progress, asks midway through the form, and completes', async () => {
    const page = await openDemo()
    const taskId = await callStockTake(page, 2)
    expect(JSON.parse((await saved(page))!)).toMatchObject({ taskId, endpoint: `${origin()}/mcp` })
    const questions = page.locator('#questions')
    await expect.poll(() => questions.innerText()).toContain(QUESTION)
    expect(await page.locator('#task-status').innerText()).toBe(
      'Waiting for your answer: Halfway: 4 of 8 shelves counted',
    )
    expect(await progressOf(page)).toEqual({ value: 4, max: 8 })
    expect(await page.getByRole('button', { name: 'Cancel task' }).isEnabled()).toBe(true)
    await page.screenshot({ path: join(SHOTS, 'task-question.png'), fullPage: true })
    await questions.getByRole('checkbox', { name: 'Count the returns shelf too' }).check()
    await questions.getByRole('button', { name: 'Submit' }).click()
    await expect
      .poll(() => page.locator('#result .content').allInnerTexts(), { timeout: 15_000 })
      .toEqual([WITH_RETURNS])
    expect(await page.locator('#task-status').innerText()).toMatch(/^Completed/)
    expect(await progressOf(page)).toEqual({ value: 1, max: 1 })
    expect(await page.getByRole('button', { name: 'Cancel task' }).isDisabled()).toBe(true)
    expect(await saved(page)).toBeNull()
    expect(problems.get(page)).toEqual([])
    await page.close()
  }, 60_000)

  it('Cancel task: the page says cancelled, and the task is cancelled on the server', async () => {
    const page = await openDemo()
    const taskId = await callStockTake(page, 30)
    await expect.poll(() => page.locator('#task-status').innerText()).toMatch(/^Working: Shelf 1 of 8: Sci-fi A-F$/)
    expect(await progressOf(page)).toEqual({ value: 0, max: 8 })
    await page.getByRole('button', { name: 'Cancel task' }).click()
    await expect.poll(() => page.locator('#task-status').innerText()).toBe('Cancelled: you cancelled the task.')
    expect(await page.locator('#result p.refused').allInnerTexts()).toEqual(['You cancelled the task.'])
    expect(await page.locator('#result .error').count()).toBe(0)
    expect(await saved(page)).toBeNull()
    await expect.poll(async () => (await nodeClient().getTask(taskId)).status).toBe('cancelled')
    expect(problems.get(page)).toEqual([])
    await page.close()
  }, 60_000)

  it('a reload while the task waits for its answer resumes it from sessionStorage: asked again, it completes', async () => {
    const page = await openDemo()
    const taskId = await callStockTake(page, 2)
    await expect.poll(() => page.locator('#questions').innerText()).toContain(QUESTION)
    await page.reload()
    // the same task, resumed: its panel, the question again, and the result once answered
    await expect.poll(() => page.locator('#task-id').innerText()).toBe(`Task ${taskId}`)
    const questions = page.locator('#questions')
    await expect.poll(() => questions.innerText()).toContain(QUESTION)
    expect(await page.locator('#task-status').innerText()).toMatch(/^Waiting for your answer/)
    await questions.getByRole('button', { name: 'Submit' }).click() // unticked: no returns shelf
    await expect
      .poll(() => page.locator('#result .content').allInnerTexts(), { timeout: 15_000 })
      .toEqual([WITHOUT_RETURNS])
    expect(await page.locator('#task-status').innerText()).toMatch(/^Completed/)
    expect(await saved(page)).toBeNull()
    // another reload resumes nothing
    await page.reload()
    await expect.poll(() => page.locator('#status').innerText()).toMatch(/^Connected to edge-mcp-demo/)
    expect(await page.locator('#task').isVisible()).toBe(false)
    expect(problems.get(page)).toEqual([])
    await page.close()
  }, 60_000)

  it('a reload while the task is counting resumes it, and it completes', async () => {
    const page = await openDemo()
    const taskId = await callStockTake(page, 3)
    await page.reload()
    await expect.poll(() => page.locator('#task-id').innerText()).toBe(`Task ${taskId}`)
    const questions = page.locator('#questions')
    await expect.poll(() => questions.innerText(), { timeout: 15_000 }).toContain(QUESTION)
    await questions.getByRole('checkbox', { name: 'Count the returns shelf too' }).check()
    await questions.getByRole('button', { name: 'Submit' }).click()
    await expect
      .poll(() => page.locator('#result .content').allInnerTexts(), { timeout: 15_000 })
      .toEqual([WITH_RETURNS])
    expect(problems.get(page)).toEqual([])
    await page.close()
  }, 60_000)
})
