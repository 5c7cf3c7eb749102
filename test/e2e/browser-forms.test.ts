/**
 * edge-mcp/browser in real headless Chromium (Debian's chromium via playwright-core): every case of
 * shared/cases/elicitation-forms.md with its exact content, keyboard-only completion, URL consent, the
 * sampling form, several requests in one round through a real Client and McpServer, Escape, abort, focus,
 * i18n strings, and server text that tries to be HTML.
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { schemaErrors } from '../spec-schema.ts'
import { DEFAULT_STRINGS, DEFAULT_STYLESHEET, staticRoots } from '../../src/browser/index.ts'
import type { RoundInfo } from '../../src/client/index.ts'
import { McpServer, createFetchHandler, elicitForm, inputRequired } from '../../src/server/index.ts'
import { openPage, PAGE_ORIGIN, routeFetchHandler, useEntryBundle } from '../browser.ts'

const conforms = schemaErrors

/** In-page driver: `ask(kind, params, options)` calls a fresh handler; `answer` is its outcome, `settled` whether it came. */
const PAGE_HELPERS = `
window.ask = (kind, params, options = {}) => {
  const o = { ...options }
  if (typeof o.container === 'string') o.container = document.querySelector(o.container)
  const ac = new AbortController()
  window.abortAsk = (reason) => ac.abort(reason)
  const handler = kind === 'sample' ? EdgeMcp.createSamplingHandler(o) : EdgeMcp.createElicitationHandler(o)
  window.settled = false
  window.answer = handler(params, { key: 'q', method: 'tools/call', target: 'order_book', signal: ac.signal }).then(
    (value) => { window.settled = true; return { value } },
    (e) => { window.settled = true; return { error: e.name + ': ' + e.message } })
}
window.opened = []
const realOpen = window.open.bind(window)
window.open = (...args) => { window.opened.push(args); return realOpen(...args) }
`

const chromium = useEntryBundle()
let context: BrowserContext

async function open(options: { timezoneId?: string } = {}): Promise<{ page: Page; errors: string[] }> {
  await context?.close()
  const errors: string[] = []
  const opened = await openPage(chromium.browser, {
    scripts: [chromium.bundle, PAGE_HELPERS],
    body: '<button id="opener">start</button><div id="host"></div>',
    errors,
    ...(options.timezoneId ? { contextOptions: { timezoneId: options.timezoneId } } : {}),
  })
  context = opened.context
  return { page: opened.page, errors }
}

/** An outcome the page reports: a handler's or a tool call's answer (wire JSON), or an error's `name: message`. */
interface Outcome {
  value?: WireValue
  error?: string
}
interface WireValue {
  action?: unknown
  content?: unknown
  [key: string]: unknown
}
/**
 * What PAGE_HELPERS, the bundle and the in-page client put on `window`. Code inside `page.evaluate` runs in the
 * page, so it casts `window` itself rather than calling a helper from this file.
 */
interface PageWindow {
  EdgeMcp: typeof import('../fixtures/browser-entry.ts')
  ask(kind: string, params: unknown, options: unknown): void
  abortAsk(reason: unknown): void
  answer: Promise<Outcome>
  settled: boolean
  opened: unknown[][]
  pwned?: unknown
  call(name: string): void
  abortCall(): void
  rounds: RoundInfo[]
}
/** The part of a CDP accessibility node these tests read. */
interface AXNode {
  ignored?: boolean
  role?: { value?: unknown }
  name?: { value?: unknown }
  description?: { value?: unknown }
  properties?: Array<{ name: string; value: { value?: unknown } }>
}
const axNodes = async (cdp: CDPSession): Promise<AXNode[]> =>
  ((await cdp.send('Accessibility.getFullAXTree')) as { nodes: AXNode[] }).nodes

type Ask = (kind: 'elicit' | 'sample', params: unknown, options?: Record<string, unknown>) => Promise<void>
const ask: (page: Page, ...args: Parameters<Ask>) => Promise<void> = (page, kind, params, options = {}) =>
  page.evaluate(([k, p, o]) => (window as unknown as PageWindow).ask(k, p, o), [kind, params, options] as const)
const answer = (page: Page): Promise<Outcome> => page.evaluate(() => (window as unknown as PageWindow).answer)
const settled = (page: Page): Promise<boolean> => page.evaluate(() => (window as unknown as PageWindow).settled)
const focused = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const a = document.activeElement as HTMLElement | null
    return a
      ? `${a.tagName.toLowerCase()}${a.id ? '#' + a.id : ''}${a.className ? '.' + a.className.split(' ').join('.') : ''}`
      : 'none'
  })
const field = (page: Page, name: string) => page.locator(`.mcp-field[data-name="${name}"]`)
/** The one input or select of a field. */
const control = (page: Page, name: string) => field(page, name).locator('input, select').first()
/** The `mcp-error` message beside a field. */
const fieldError = (page: Page, name: string) => field(page, name).locator('.mcp-error').textContent()

const form = (message: string, requestedSchema: unknown) => ({ mode: 'form', message, requestedSchema })

const F1 = {
  type: 'object',
  properties: {
    color: { type: 'string', enum: ['red', 'green'], default: 'green' },
    size: {
      type: 'string',
      oneOf: [
        { const: 's', title: 'Small' },
        { const: 'l', title: 'Large' },
      ],
    },
    legacy: { type: 'string', enum: ['a', 'b'], enumNames: ['Alpha', 'Beta'] },
    toppings: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['x', 'y', 'z'] } },
    tags: {
      type: 'array',
      items: {
        anyOf: [
          { const: 't1', title: 'Tag one' },
          { const: 't2', title: 'Tag two' },
        ],
      },
    },
    when: { type: 'string', format: 'date-time' },
    count: { type: 'integer', minimum: 1, maximum: 10 },
    qty: { type: 'integer', format: 'int32' },
  },
  required: ['color', 'size', 'toppings'],
}

const F2 = {
  type: 'object',
  properties: {
    note: { type: 'string' },
    nick: { type: 'string', default: '' },
    retries: { type: 'integer', default: 0 },
    notify: { type: 'boolean', default: false },
    agree: { type: 'boolean' },
  },
  required: ['agree'],
}

describe('F1 every schema shape in one form', () => {
  it('renders titles / enumNames, refuses 1.5 for an integer and a third topping, then sends the exact content', async () => {
    const { page, errors } = await open()
    await ask(page, 'elicit', form('Configure your pizza', F1), { container: '#host' })
    const options = (name: string) => field(page, name).locator('option').allTextContents()
    expect(await options('color')).toEqual(['red', 'green'])
    expect(await control(page, 'color').inputValue()).toBe('green')
    expect(await options('size')).toEqual([DEFAULT_STRINGS.choose, 'Small', 'Large'])
    expect(await options('legacy')).toEqual([DEFAULT_STRINGS.choose, 'Alpha', 'Beta'])
    expect(await field(page, 'tags').locator('label').allTextContents()).toEqual(['Tag one', 'Tag two'])
    expect(await control(page, 'when').getAttribute('type')).toBe('datetime-local')
    expect(await control(page, 'qty').getAttribute('type')).toBe('number')

    await control(page, 'size').selectOption({ label: 'Large' })
    await control(page, 'legacy').selectOption({ label: 'Beta' })
    for (const t of ['x', 'y', 'z']) await page.getByLabel(t, { exact: true }).check()
    await page.getByLabel('Tag one').check()
    await control(page, 'count').fill('1')
    await control(page, 'qty').fill('1.5')
    await page.getByRole('button', { name: 'Submit' }).click()
    expect(await fieldError(page, 'qty')).toBe('Enter a whole number.')
    expect(await control(page, 'qty').getAttribute('aria-invalid')).toBe('true')
    expect(await fieldError(page, 'toppings')).toBe('Choose at most 2.')
    expect(await fieldError(page, 'count')).toBe('')
    expect(await focused(page)).toBe('input') // the first invalid control: the first topping checkbox
    expect(await settled(page)).toBe(false)

    await page.getByLabel('z', { exact: true }).uncheck()
    expect(await fieldError(page, 'toppings')).toBe('') // re-checked as the user fixes it
    await control(page, 'qty').fill('2')
    await page.getByRole('button', { name: 'Submit' }).click()
    const { value } = await answer(page)
    expect(JSON.stringify(value?.content)).toBe(
      '{"color":"green","size":"l","legacy":"b","toppings":["x","y"],"tags":["t1"],"count":1,"qty":2}',
    )
    expect(value?.action).toBe('accept')
    expect(conforms('ElicitResult', value)).toEqual([])
    expect(await page.locator('.mcp-form').count()).toBe(0)
    expect(errors).toEqual([])
  })

  it('string and number rules: min/maxLength, email, uri, date, date-time with offset, minimum/maximum', async () => {
    const { page } = await open({ timezoneId: 'Asia/Kolkata' })
    const requestedSchema = {
      type: 'object',
      properties: {
        code: { type: 'string', minLength: 3, maxLength: 5, description: 'Three to five characters' },
        email: { type: 'string', format: 'email' },
        site: { type: 'string', format: 'uri' },
        day: { type: 'string', format: 'date' },
        at: { type: 'string', format: 'date-time' },
        since: { type: 'string', format: 'date-time', default: '2026-07-28T08:00:00Z' },
        price: { type: 'number', minimum: 0.5, maximum: 9.5 },
      },
      required: ['code'],
    }
    await ask(page, 'elicit', form('Details', requestedSchema), { container: '#host' })
    expect(await control(page, 'since').inputValue()).toBe('2026-07-28T13:30') // the default, in local time (+05:30)
    await control(page, 'code').fill('ab')
    await control(page, 'email').fill('not-an-address')
    await control(page, 'site').fill('example.com/no-scheme')
    await control(page, 'price').fill('10')
    await page.getByRole('button', { name: 'Submit' }).click()
    expect(await fieldError(page, 'code')).toBe('Use at least 3 characters.')
    expect(await fieldError(page, 'email')).toBe('Enter an e-mail address.')
    expect(await fieldError(page, 'site')).toBe('Enter a full address (URL).')
    expect(await fieldError(page, 'price')).toBe('Enter 9.5 or less.')
    // the description and the message are both referenced by aria-describedby
    const described = await control(page, 'code').evaluate((input) =>
      input
        .getAttribute('aria-describedby')!
        .split(' ')
        .map((id) => document.getElementById(id)!.textContent),
    )
    expect(described).toEqual(['Three to five characters', 'Use at least 3 characters.'])
    expect(await settled(page)).toBe(false)

    await control(page, 'code').fill('abcd')
    await control(page, 'email').fill('ada@example.com')
    await control(page, 'site').fill('https://example.com/x')
    await control(page, 'day').fill('2026-07-28')
    await control(page, 'at').fill('2026-12-24T18:05')
    await control(page, 'price').fill('0.5')
    await page.getByRole('button', { name: 'Submit' }).click()
    const { value } = await answer(page)
    expect(value).toEqual({
      action: 'accept',
      content: {
        code: 'abcd',
        email: 'ada@example.com',
        site: 'https://example.com/x',
        day: '2026-07-28',
        at: '2026-12-24T18:05:00+05:30',
        since: '2026-07-28T13:30:00+05:30',
        price: 0.5,
      },
    })
  })
})

describe('F2 defaults, optional fields, booleans', () => {
  it('(a) submitted untouched: defaults (falsy too) sent, unchecked boolean false, empty optional text omitted', async () => {
    const { page } = await open()
    await ask(page, 'elicit', form('Settings', F2), { container: '#host' })
    expect(await control(page, 'nick').inputValue()).toBe('')
    expect(await control(page, 'retries').inputValue()).toBe('0')
    expect(await control(page, 'notify').isChecked()).toBe(false)
    // a checkbox always answers (true or false): even a required one is not marked, it need not be ticked
    expect(await field(page, 'agree').locator('.mcp-required').count()).toBe(0)
    expect(await field(page, 'note').locator('.mcp-required').count()).toBe(0)
    await page.getByRole('button', { name: 'Submit' }).click()
    expect(JSON.stringify((await answer(page)).value)).toBe(
      '{"action":"accept","content":{"nick":"","retries":0,"notify":false,"agree":false}}',
    )
  })

  it('(b) a cleared optional string is omitted unless its default is ""', async () => {
    const { page } = await open()
    const requestedSchema = {
      type: 'object',
      properties: { city: { type: 'string', default: 'Paris' }, nick: { type: 'string', default: '' } },
    }
    await ask(page, 'elicit', form('Where?', requestedSchema), { container: '#host' })
    expect(await control(page, 'city').inputValue()).toBe('Paris')
    await control(page, 'city').fill('')
    await control(page, 'nick').fill('x')
    await control(page, 'nick').fill('')
    await page.getByRole('button', { name: 'Submit' }).click()
    expect(JSON.stringify((await answer(page)).value)).toBe('{"action":"accept","content":{"nick":""}}')
  })

  it('(c) no required fields and no defaults: Submit is enabled and sends {}', async () => {
    const { page } = await open()
    await ask(
      page,
      'elicit',
      form('Anything to add?', {
        type: 'object',
        properties: { note: { type: 'string' }, n: { type: 'number' }, pick: { type: 'string', enum: ['a'] } },
      }),
      { container: '#host' },
    )
    expect(await page.getByRole('button', { name: 'Submit' }).isEnabled()).toBe(true)
    await page.getByRole('button', { name: 'Submit' }).click()
    expect(JSON.stringify((await answer(page)).value)).toBe('{"action":"accept","content":{}}')
  })
})

describe('F3 decline and cancel', () => {
  const REQUIRED = { type: 'object', properties: { name: { type: 'string', minLength: 2 } }, required: ['name'] }
  for (const [how, expected] of [
    ['Decline', '{"action":"decline"}'],
    ['Cancel', '{"action":"cancel"}'],
    ['Escape', '{"action":"cancel"}'],
    ['removal', '{"action":"cancel"}'],
  ] as const) {
    it(`${how} → ${expected}, without validating the (invalid) fields`, async () => {
      const { page } = await open()
      await ask(page, 'elicit', form('Your name?', REQUIRED), { container: '#host' })
      await control(page, 'name').fill('x')
      if (how === 'Escape') await page.keyboard.press('Escape')
      else if (how === 'removal') await page.evaluate(() => document.querySelector('.mcp-form')!.remove())
      else await page.getByRole('button', { name: how }).click()
      expect(JSON.stringify((await answer(page)).value)).toBe(expected)
      expect(await page.locator('.mcp-error:not(:empty)').count()).toBe(0)
      expect(await page.locator('.mcp-form').count()).toBe(0)
    })
  }

  it('in the default modal <dialog>: Escape cancels, the dialog goes and focus returns where it was', async () => {
    const { page } = await open()
    await page.focus('#opener')
    await ask(page, 'elicit', form('Your name?', REQUIRED), { serverName: 'Bookshop' })
    expect(await page.locator('dialog.mcp-dialog:modal').count()).toBe(1)
    expect(await page.locator('dialog.mcp-dialog').getAttribute('aria-labelledby')).toBe(
      await page.locator('.mcp-message').getAttribute('id'),
    )
    expect(await page.locator('.mcp-origin').textContent()).toBe('Request from Bookshop (order_book)')
    expect(await focused(page)).toMatch(/^input#mcp-\d+$/) // the first field
    await page.keyboard.press('Escape')
    expect((await answer(page)).value).toEqual({ action: 'cancel' })
    expect(await page.locator('dialog').count()).toBe(0)
    expect(await focused(page)).toBe('button#opener')
  })
})

describe('F4 URL mode', () => {
  async function urlPage() {
    const { page } = await open()
    const hits: Array<{ url: string; referer: string | undefined }> = []
    await context.route('https://auth.example.com/**', async (route) => {
      hits.push({ url: route.request().url(), referer: (await route.request().allHeaders()).referer })
      await route.fulfill({ contentType: 'text/html', body: '<title>auth</title>ok' })
    })
    return { page, hits }
  }
  const URL_PARAMS = { mode: 'url', message: 'Connect your account', url: 'https://auth.example.com/connect?x=1' }

  it('shows the full URL with its host emphasised, fetches nothing before consent; Accept opens it noopener,noreferrer', async () => {
    const { page, hits } = await urlPage()
    await page.focus('#opener')
    await ask(page, 'elicit', URL_PARAMS, { serverName: 'Bookshop' })
    expect(await page.locator('.mcp-url').textContent()).toBe('https://auth.example.com/connect?x=1')
    expect(await page.locator('.mcp-url strong.mcp-url-host').textContent()).toBe('auth.example.com')
    expect(await page.locator('.mcp-message').textContent()).toBe('Connect your account')
    expect(await page.locator('.mcp-warning').count()).toBe(0)
    await page.waitForTimeout(200)
    expect(hits).toEqual([])
    expect(await page.evaluate(() => (window as unknown as PageWindow).opened)).toEqual([])

    const popup = context.waitForEvent('page')
    await page.getByRole('button', { name: 'Open' }).click()
    expect((await answer(page)).value).toEqual({ action: 'accept' })
    expect(await page.evaluate(() => (window as unknown as PageWindow).opened)).toEqual([
      ['https://auth.example.com/connect?x=1', '_blank', 'noopener,noreferrer'],
    ])
    const tab = await popup
    await tab.waitForLoadState()
    expect(await tab.evaluate(() => window.opener as unknown)).toBe(null)
    expect(hits).toEqual([{ url: 'https://auth.example.com/connect?x=1', referer: undefined }])
    expect(await page.locator('dialog').count()).toBe(0)
    expect(await focused(page)).toBe('button#opener')
  })

  it('Decline answers decline and nothing is opened or fetched', async () => {
    const { page, hits } = await urlPage()
    await ask(page, 'elicit', URL_PARAMS)
    await page.getByRole('button', { name: 'Decline' }).click()
    expect(JSON.stringify((await answer(page)).value)).toBe('{"action":"decline"}')
    await page.waitForTimeout(200)
    expect(hits).toEqual([])
    expect(await page.evaluate(() => (window as unknown as PageWindow).opened)).toEqual([])
    expect(context.pages()).toHaveLength(1)
  })

  it('warns for http other than localhost; no Open button for other schemes', async () => {
    const { page } = await open()
    const warningFor = async (url: string) => {
      await ask(page, 'elicit', { mode: 'url', message: 'Go', url }, { container: '#host' })
      const warning = (await page.locator('.mcp-warning').count())
        ? await page.locator('.mcp-warning').textContent()
        : null
      const openButton = await page.getByRole('button', { name: 'Open' }).count()
      await page.getByRole('button', { name: 'Cancel' }).click()
      expect((await answer(page)).value).toEqual({ action: 'cancel' })
      return [warning, openButton]
    }
    expect(await warningFor('http://auth.example.com/connect')).toEqual([DEFAULT_STRINGS.insecureUrl, 1])
    expect(await warningFor('http://localhost:8787/callback')).toEqual([null, 1])
    expect(await warningFor('http://127.0.0.1:8787/callback')).toEqual([null, 1])
    expect(await warningFor('https://auth.example.com/')).toEqual([null, 1])
    expect(await warningFor('javascript:alert(1)')).toEqual([DEFAULT_STRINGS.unsupportedUrl, 0])
    // userinfo cannot pass itself off as the host
    await ask(
      page,
      'elicit',
      { mode: 'url', message: 'Go', url: 'https://bank.example@evil.example/login' },
      { container: '#host' },
    )
    expect(await page.locator('.mcp-url-host').textContent()).toBe('evil.example')
  })
})

describe('keyboard only', () => {
  it('completes a form with Tab, Space, typing and Enter only', async () => {
    const { page } = await open()
    const requestedSchema = {
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Name' },
        plan: {
          type: 'string',
          title: 'Plan',
          oneOf: [
            { const: 'free', title: 'Free' },
            { const: 'pro', title: 'Pro' },
          ],
        },
        confirm: { type: 'boolean', title: 'I agree' },
        extras: { type: 'array', title: 'Extras', items: { type: 'string', enum: ['backup', 'support'] } },
        seats: { type: 'integer', title: 'Seats', minimum: 1 },
      },
      required: ['name', 'plan', 'confirm'],
    }
    await page.focus('#opener')
    await ask(page, 'elicit', form('Open an account', requestedSchema))
    expect(
      await page.evaluate(
        () =>
          document.activeElement ===
          document.querySelector('input#' + document.querySelector('label.mcp-label')!.getAttribute('for')),
      ),
    ).toBe(true)
    await page.keyboard.type('Ada')
    await page.keyboard.press('Tab') // plan
    await page.keyboard.type('P') // type-ahead: Pro
    await page.keyboard.press('Tab') // confirm
    await page.keyboard.press('Space')
    await page.keyboard.press('Tab') // extras: backup
    await page.keyboard.press('Tab') // extras: support
    await page.keyboard.press('Space')
    await page.keyboard.press('Tab') // seats
    await page.keyboard.type('3')
    await page.keyboard.press('Enter')
    expect(JSON.stringify((await answer(page)).value)).toBe(
      '{"action":"accept","content":{"name":"Ada","plan":"pro","confirm":true,"extras":["support"],"seats":3}}',
    )
    expect(await focused(page)).toBe('button#opener')
  })

  it('URL consent: Enter on the focused Open button accepts', async () => {
    const { page } = await open()
    await ask(page, 'elicit', { mode: 'url', message: 'Sign in', url: 'https://auth.example.com/a' })
    expect(await focused(page)).toBe('button.mcp-submit.mcp-open')
    await page.keyboard.press('Tab')
    expect(await focused(page)).toBe('button.mcp-decline')
    await page.keyboard.press('Enter')
    expect((await answer(page)).value).toEqual({ action: 'decline' })
  })
})

describe('accessibility tree (Chromium, via CDP)', () => {
  it('labels name the controls, descriptions and messages describe them, required and invalid are exposed', async () => {
    const { page } = await open()
    const requestedSchema = {
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Full name', description: 'As on your card' },
        plan: { type: 'string', title: 'Plan', enum: ['free'] },
        extras: { type: 'array', title: 'Extras', items: { type: 'string', enum: ['backup'] } },
        agree: { type: 'boolean', title: 'I agree' },
      },
      required: ['name', 'plan'],
    }
    await ask(page, 'elicit', form('Open an account', requestedSchema), { serverName: 'Bank' })
    const cdp = await context.newCDPSession(page)
    const snapshot = async () => {
      const nodes = await axNodes(cdp)
      const props = (n: AXNode) =>
        Object.fromEntries(
          (n.properties ?? [])
            .filter((p) => ['required', 'invalid', 'modal'].includes(p.name))
            .map((p) => [p.name, p.value.value]),
        )
      return nodes
        .filter(
          (n) =>
            !n.ignored &&
            ['dialog', 'textbox', 'combobox', 'checkbox', 'group', 'button'].includes(String(n.role?.value)),
        )
        .map((n) => [n.role?.value, n.name?.value ?? '', n.description?.value ?? '', props(n)])
    }
    const before = await snapshot()
    const find = (rows: unknown[][], role: string, name: string) => rows.find((r) => r[0] === role && r[1] === name)
    expect(find(before, 'dialog', 'Open an account')).toEqual([
      'dialog',
      'Open an account',
      'Request from Bank (order_book)',
      { modal: true },
    ])
    expect(find(before, 'textbox', 'Full name')).toEqual([
      'textbox',
      'Full name',
      'As on your card',
      { invalid: 'false', required: true },
    ])
    expect(find(before, 'combobox', 'Plan')).toBeDefined() // the label's "*" marker is not part of the name
    expect(find(before, 'group', 'Extras')).toBeDefined()
    expect(find(before, 'checkbox', 'backup')).toBeDefined()
    expect(find(before, 'checkbox', 'I agree')).toBeDefined()
    expect(before.filter((r) => r[0] === 'button').map((r) => r[1])).toEqual(['Submit', 'Decline', 'Cancel'])
    await page.keyboard.press('Enter')
    const after = await snapshot()
    expect(find(after, 'textbox', 'Full name')).toEqual([
      'textbox',
      'Full name',
      'As on your card This field is required.',
      { invalid: 'true', required: true },
    ])
    expect(find(after, 'combobox', 'Plan')?.slice(0, 3)).toEqual(['combobox', 'Plan', 'This field is required.'])
  })
})

describe('server text is text', () => {
  it('message, titles, descriptions, options and the URL message never become HTML', async () => {
    const { page, errors } = await open()
    const evil = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
    const requestedSchema = {
      type: 'object',
      properties: {
        a: { type: 'string', title: evil, description: `<b>${evil}</b>` },
        b: { type: 'string', oneOf: [{ const: 'v', title: evil }] },
        c: { type: 'array', items: { anyOf: [{ const: 'w', title: evil }] } },
      },
    }
    await ask(page, 'elicit', form(evil, requestedSchema), { container: '#host', serverName: evil })
    expect(await page.locator('.mcp-message').textContent()).toBe(evil)
    expect(await page.locator('.mcp-origin').textContent()).toBe(`Request from ${evil} (order_book)`)
    expect(await field(page, 'a').locator('.mcp-label-text').textContent()).toBe(evil)
    expect(await field(page, 'a').locator('.mcp-description').textContent()).toBe(`<b>${evil}</b>`)
    expect(await field(page, 'b').locator('option').nth(1).textContent()).toBe(evil)
    expect(await field(page, 'c').locator('.mcp-option-text').textContent()).toBe(evil)
    expect(await page.locator('#host img, #host script, #host b').count()).toBe(0)
    await page.getByRole('button', { name: 'Cancel' }).click()
    await answer(page)
    await ask(
      page,
      'sample',
      { messages: [{ role: 'user', content: { type: 'text', text: evil } }], systemPrompt: evil, maxTokens: 10 },
      { container: '#host' },
    )
    expect(await page.locator('.mcp-turn .mcp-text').textContent()).toBe(evil)
    expect(await page.locator('#host img, #host script').count()).toBe(0)
    await page.getByRole('button', { name: 'Decline' }).click()
    await answer(page)
    await ask(
      page,
      'elicit',
      { mode: 'url', message: evil, url: 'https://auth.example.com/?q=<img src=x onerror=alert(1)>' },
      { container: '#host' },
    )
    expect(await page.locator('.mcp-message').textContent()).toBe(evil)
    expect(await page.locator('.mcp-url').textContent()).toBe(
      'https://auth.example.com/?q=%3Cimg%20src=x%20onerror=alert(1)%3E',
    )
    expect(await page.locator('#host img, #host script').count()).toBe(0)
    expect(await page.evaluate(() => (window as unknown as PageWindow).pwned)).toBeUndefined()
    expect(errors).toEqual([])
  })
})

describe('Decline and Cancel, told apart', () => {
  it('a line under the buttons says what each does and describes both; an empty string leaves it out', async () => {
    const { page } = await open()
    const requestedSchema = { type: 'object', properties: { ok: { type: 'boolean', title: 'OK?' } } }
    await ask(page, 'elicit', form('Go on?', requestedSchema), { container: '#host' })
    const hint = page.locator('.mcp-actions-hint')
    expect(await hint.textContent()).toBe(DEFAULT_STRINGS.declineOrCancel)
    expect(DEFAULT_STRINGS.declineOrCancel).toBe(
      'Decline says no to this question. Cancel closes it without answering.',
    )
    const id = await hint.getAttribute('id')
    for (const name of ['Decline', 'Cancel'])
      expect(await page.getByRole('button', { name }).getAttribute('aria-describedby')).toBe(id)
    expect(await page.getByRole('button', { name: 'Submit' }).getAttribute('aria-describedby')).toBeNull()
    // touch-sized: every button of the row is at least 44 px tall (the default stylesheet)
    await page.addStyleTag({ content: DEFAULT_STYLESHEET })
    for (const box of await page
      .locator('.mcp-actions button')
      .evaluateAll((bs) => bs.map((b) => b.getBoundingClientRect().height)))
      expect(box).toBeGreaterThanOrEqual(44)
    await page.getByRole('button', { name: 'Cancel' }).click()
    expect((await answer(page)).value).toEqual({ action: 'cancel' })

    await ask(page, 'elicit', form('Again?', requestedSchema), { container: '#host', strings: { declineOrCancel: '' } })
    expect(await page.locator('.mcp-actions-hint').count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Decline' }).getAttribute('aria-describedby')).toBeNull()
  })
})

describe('i18n', () => {
  it('every button and message string can be replaced', async () => {
    const { page } = await open()
    const strings = {
      submit: 'Senden',
      decline: 'Ablehnen',
      cancel: 'Abbrechen',
      origin: '{server} fragt ({target})',
      requiredField: 'Pflichtfeld.',
      choose: 'Bitte wählen',
      requiredMark: '(Pflicht)',
      declineOrCancel: 'Ablehnen heißt Nein; Abbrechen schließt ohne Antwort.',
    }
    const requestedSchema = {
      type: 'object',
      properties: { name: { type: 'string', title: 'Name' }, size: { type: 'string', enum: ['s'] } },
      required: ['name'],
    }
    await ask(page, 'elicit', form('Wie heißt du?', requestedSchema), {
      container: '#host',
      strings,
      serverName: 'Buchladen',
    })
    expect(await page.locator('.mcp-actions button').allTextContents()).toEqual(['Senden', 'Ablehnen', 'Abbrechen'])
    expect(await page.locator('.mcp-actions-hint').textContent()).toBe(
      'Ablehnen heißt Nein; Abbrechen schließt ohne Antwort.',
    )
    expect(await page.locator('.mcp-origin').textContent()).toBe('Buchladen fragt (order_book)')
    expect(await field(page, 'size').locator('option').first().textContent()).toBe('Bitte wählen')
    expect(await field(page, 'name').locator('.mcp-required').textContent()).toBe('(Pflicht)')
    await page.getByRole('button', { name: 'Senden' }).click()
    expect(await fieldError(page, 'name')).toBe('Pflichtfeld.')
    await page.getByRole('button', { name: 'Abbrechen' }).click()
    expect((await answer(page)).value).toEqual({ action: 'cancel' })
  })
})

describe('sampling form and roots', () => {
  const PARAMS = {
    systemPrompt: 'You recommend books.',
    messages: [
      { role: 'user', content: { type: 'text', text: 'Recommend one sci-fi book.' } },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Any constraints?' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'tool_use', id: 't1', name: 'search', input: {} },
        ],
      },
      { role: 'user', content: { type: 'text', text: 'Under 400 pages.' } },
    ],
    maxTokens: 100,
  }

  it('shows the transcript; the user writes the reply; answers a valid CreateMessageResult', async () => {
    const { page } = await open()
    await page.focus('#opener')
    await ask(page, 'sample', PARAMS, { model: 'reader' })
    expect(await page.locator('.mcp-system').textContent()).toBe('InstructionsYou recommend books.')
    expect(
      await page
        .locator('.mcp-turn')
        .evaluateAll((items) => items.map((i) => [(i as HTMLElement).dataset.role, i.textContent])),
    ).toEqual([
      ['user', 'UserRecommend one sci-fi book.'],
      ['assistant', 'AssistantAny constraints?[image image/png][tool_use]'],
      ['user', 'UserUnder 400 pages.'],
    ])
    expect(await focused(page)).toBe(`textarea#${await page.locator('textarea').getAttribute('id')}.mcp-reply`)
    await page.getByRole('button', { name: 'Send' }).click()
    expect(await page.locator('.mcp-error').textContent()).toBe('This field is required.')
    await page.getByLabel('Your reply').fill('Hyperion')
    await page.getByRole('button', { name: 'Send' }).click()
    const { value } = await answer(page)
    expect(value).toEqual({
      role: 'assistant',
      content: { type: 'text', text: 'Hyperion' },
      model: 'reader',
      stopReason: 'endTurn',
    })
    expect(conforms('CreateMessageResult', value)).toEqual([])
    expect(await focused(page)).toBe('button#opener')
  })

  it('Decline and Escape reject with SamplingDeclinedError (a sampling answer cannot say no)', async () => {
    const { page } = await open()
    await ask(page, 'sample', PARAMS)
    await page.getByRole('button', { name: 'Decline' }).click()
    expect(await answer(page)).toEqual({ error: 'SamplingDeclinedError: The user declined the sampling request' })
    await ask(page, 'sample', PARAMS, { container: '#host' })
    await page.keyboard.press('Escape')
    expect(await answer(page)).toEqual({ error: 'SamplingDeclinedError: The user declined the sampling request' })
  })

  it('staticRoots answers copies of its list and refuses non-file URIs', async () => {
    const roots = [{ uri: 'file:///home/ada/books', name: 'Books' }]
    const callback = staticRoots(roots)
    roots[0].name = 'changed'
    const ctx = { key: 'r', method: 'tools/call', target: 't', signal: new AbortController().signal }
    const first = await callback(ctx)
    expect(first).toEqual({ roots: [{ uri: 'file:///home/ada/books', name: 'Books' }] })
    expect(conforms('ListRootsResult', first)).toEqual([])
    first.roots[0].uri = 'file:///tampered'
    expect(await callback(ctx)).toEqual({ roots: [{ uri: 'file:///home/ada/books', name: 'Books' }] })
    expect(() => staticRoots([{ uri: 'https://example.com/' }])).toThrow(
      new TypeError('A root\'s uri must be a file:// URI, got "https://example.com/"'),
    )
  })
})

describe('abort', () => {
  it('ctx.signal aborting removes the form, restores focus and rejects with the reason', async () => {
    const { page } = await open()
    await page.focus('#opener')
    await ask(page, 'elicit', form('Name?', { type: 'object', properties: { name: { type: 'string' } } }))
    expect(await page.locator('dialog.mcp-dialog').count()).toBe(1)
    await page.evaluate(() =>
      (window as unknown as PageWindow).abortAsk(new DOMException('sibling failed', 'AbortError')),
    )
    expect(await answer(page)).toEqual({ error: 'AbortError: sibling failed' })
    expect(await page.locator('dialog').count()).toBe(0)
    expect(await focused(page)).toBe('button#opener')
  })
})

describe('several input requests in one round (real Client ↔ McpServer)', () => {
  const NAME = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] }
  const PLAN = {
    type: 'object' as const,
    properties: { plan: { type: 'string' as const, enum: ['free', 'pro'] } },
    required: ['plan'],
  }
  const OK = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } }, required: ['ok'] }

  function server() {
    const mcp = new McpServer({ name: 'forms', version: '1.0.0' })
    const asked: unknown[] = []
    mcp.tool('signup', {}, (_args, ctx) => {
      if (!ctx.inputResponses)
        return inputRequired(
          {
            name: elicitForm('Your name?', NAME),
            plan: elicitForm('Which plan?', PLAN),
            confirm: elicitForm('Confirm?', OK),
          },
          'round-1',
        )
      asked.push(ctx.inputResponses)
      return JSON.stringify(ctx.inputResponses)
    })
    mcp.tool('mixed', {}, (_args, ctx) => {
      if (!ctx.inputResponses) {
        return inputRequired(
          {
            pick: elicitForm('Pick a plan', PLAN),
            draft: {
              method: 'sampling/createMessage',
              params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 5 },
            },
            where: { method: 'roots/list' },
          },
          'mixed-1',
        )
      }
      return JSON.stringify(ctx.inputResponses)
    })
    return { handler: createFetchHandler(mcp), asked }
  }

  async function clientPage() {
    const { page, errors } = await open()
    const { handler, asked } = server()
    await routeFetchHandler(page, `${PAGE_ORIGIN}/mcp`, handler)
    await page.evaluate(() => {
      const w = window as unknown as PageWindow
      w.call = (name: string) => {
        const client = new w.EdgeMcp.Client({
          transport: new w.EdgeMcp.StreamableHttpClientTransport(location.origin + '/mcp'),
          elicitation: w.EdgeMcp.createElicitationHandler({ serverName: 'forms' }),
          sampling: w.EdgeMcp.createSamplingHandler(),
          roots: w.EdgeMcp.staticRoots([{ uri: 'file:///home/ada', name: 'home' }]),
        })
        w.rounds = []
        const ac = new AbortController()
        w.abortCall = () => ac.abort()
        w.answer = client.callTool(name, {}, { signal: ac.signal, onRound: (r) => w.rounds.push(r) }).then(
          (value) => ({ value: JSON.parse((value.content[0] as { text: string }).text) as WireValue }),
          (e: Error) => ({ error: `${e.name}: ${e.message}` }),
        )
      }
    })
    return { page, errors, asked }
  }

  it('shows them one after another ("Question n of 3") and sends each answer under its key', async () => {
    const { page, errors } = await clientPage()
    await page.evaluate(() => (window as unknown as PageWindow).call('signup'))
    await page.locator('.mcp-form').waitFor()
    expect(await page.locator('.mcp-form').count()).toBe(1)
    expect(await page.locator('.mcp-progress').textContent()).toBe('Question 1 of 3')
    expect(await page.locator('.mcp-origin').textContent()).toBe('Request from forms (signup)')
    await control(page, 'name').fill('Ada')
    await page.keyboard.press('Enter')
    await page.locator('.mcp-message', { hasText: 'Which plan?' }).waitFor()
    expect(await page.locator('.mcp-progress').textContent()).toBe('Question 2 of 3')
    await control(page, 'plan').selectOption('pro')
    await page.getByRole('button', { name: 'Submit' }).click()
    await page.locator('.mcp-message', { hasText: 'Confirm?' }).waitFor()
    expect(await page.locator('.mcp-progress').textContent()).toBe('Question 3 of 3')
    await control(page, 'ok').check()
    await page.getByRole('button', { name: 'Submit' }).click()
    expect((await answer(page)).value).toEqual({
      name: { action: 'accept', content: { name: 'Ada' } },
      plan: { action: 'accept', content: { plan: 'pro' } },
      confirm: { action: 'accept', content: { ok: true } },
    })
    expect(
      await page.evaluate(() =>
        (window as unknown as PageWindow).rounds.map((r) => [r.round, Object.keys(r.inputRequests), r.hasRequestState]),
      ),
    ).toEqual([[1, ['name', 'plan', 'confirm'], true]])
    expect(errors).toEqual([])
  })

  it('a Cancel in one cancels the round: the rest answer cancel without being shown', async () => {
    const { page, asked } = await clientPage()
    await page.evaluate(() => (window as unknown as PageWindow).call('signup'))
    await control(page, 'name').fill('Ada')
    await page.getByRole('button', { name: 'Submit' }).click()
    await page.locator('.mcp-message', { hasText: 'Which plan?' }).waitFor()
    await page.keyboard.press('Escape')
    expect((await answer(page)).value).toEqual({
      name: { action: 'accept', content: { name: 'Ada' } },
      plan: { action: 'cancel' },
      confirm: { action: 'cancel' },
    })
    expect(asked).toHaveLength(1)
    expect(await page.locator('.mcp-form').count()).toBe(0)
  })

  it('elicitation, sampling and roots in one round share the queue; each answer goes back under its key', async () => {
    const { page } = await clientPage()
    await page.evaluate(() => (window as unknown as PageWindow).call('mixed'))
    await page.locator('.mcp-elicitation').waitFor()
    expect(await page.locator('.mcp-progress').textContent()).toBe('Question 1 of 2') // roots needs no form
    await control(page, 'plan').selectOption('free')
    await page.getByRole('button', { name: 'Submit' }).click()
    await page.locator('.mcp-sampling').waitFor()
    expect(await page.locator('.mcp-progress').textContent()).toBe('Question 2 of 2')
    await page.getByLabel('Your reply').fill('hi')
    await page.getByRole('button', { name: 'Send' }).click()
    expect((await answer(page)).value).toEqual({
      pick: { action: 'accept', content: { plan: 'free' } },
      draft: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'human', stopReason: 'endTurn' },
      where: { roots: [{ uri: 'file:///home/ada', name: 'home' }] },
    })
  })

  it('declining the sampling request abandons the call and takes the other forms away', async () => {
    const { page } = await clientPage()
    await page.evaluate(() => (window as unknown as PageWindow).call('mixed'))
    await control(page, 'plan').selectOption('free')
    await page.getByRole('button', { name: 'Submit' }).click()
    await page.locator('.mcp-sampling').waitFor()
    await page.getByRole('button', { name: 'Decline' }).click()
    expect(await answer(page)).toEqual({ error: 'SamplingDeclinedError: The user declined the sampling request' })
    expect(await page.locator('.mcp-form').count()).toBe(0)
  })

  it('aborting the call removes the form shown and the queued ones never appear', async () => {
    const { page } = await clientPage()
    await page.focus('#opener')
    await page.evaluate(() => (window as unknown as PageWindow).call('signup'))
    await page.locator('.mcp-form').waitFor()
    await page.evaluate(() => (window as unknown as PageWindow).abortCall())
    expect((await answer(page)).error).toMatch(/^AbortError: /)
    await page.waitForTimeout(100)
    expect(await page.locator('.mcp-form').count()).toBe(0)
    expect(await focused(page)).toBe('button#opener')
  })
})

describe('stylesheet', () => {
  it('nothing is styled unless DEFAULT_STYLESHEET is installed; it parses and styles the mcp-* classes', async () => {
    const { page } = await open()
    await ask(page, 'elicit', form('Name?', { type: 'object', properties: { name: { type: 'string' } } }), {
      container: '#host',
    })
    expect(await page.evaluate(() => document.styleSheets.length)).toBe(0)
    expect(await page.locator('.mcp-actions').evaluate((e) => getComputedStyle(e).display)).toBe('block')
    const rules = await page.evaluate(() => {
      const style = document.createElement('style')
      style.textContent = (window as unknown as PageWindow).EdgeMcp.DEFAULT_STYLESHEET
      document.head.append(style)
      return style.sheet!.cssRules.length
    })
    expect(rules).toBeGreaterThan(20)
    expect(await page.locator('.mcp-actions').evaluate((e) => getComputedStyle(e).display)).toBe('flex')
    expect(await page.locator('.mcp-error').evaluate((e) => getComputedStyle(e).display)).toBe('none')
  })
})

describe('URL consent edge cases', () => {
  it('shows exactly the URL that opens, with the real host emphasised, whatever the userinfo, port or host kind', async () => {
    const { page } = await open()
    const shown = async (url: string) => {
      await ask(page, 'elicit', { mode: 'url', message: 'Go', url }, { container: '#host' })
      const out = [await page.locator('.mcp-url').textContent(), await page.locator('.mcp-url-host').textContent()]
      await page.getByRole('button', { name: 'Cancel' }).click()
      await answer(page)
      return out
    }
    // an empty username with a password: the password cannot be passed off as the host, nor the text garbled
    expect(await shown('https://:bank.example.com@evil.example/x')).toEqual([
      'https://:bank.example.com@evil.example/x',
      'evil.example',
    ])
    expect(await shown('https://user:pw@evil.example:8443/x?y#z')).toEqual([
      'https://user:pw@evil.example:8443/x?y#z',
      'evil.example',
    ])
    expect(await shown('http://[::1]:8080/cb')).toEqual(['http://[::1]:8080/cb', '[::1]'])
    expect(await shown('https://аpple.com/')).toEqual(['https://xn--pple-43d.com/', 'xn--pple-43d.com'])
  })
})

describe('URL consent warnings', () => {
  it('warns for a Punycode host and for userinfo before the host (spec: ambiguous/suspicious URLs)', async () => {
    const { page } = await open()
    const warnings = async (url: string) => {
      await ask(page, 'elicit', { mode: 'url', message: 'Go', url }, { container: '#host' })
      const out = await page.locator('.mcp-warning').allTextContents()
      const described = await page.locator('.mcp-form').evaluate((f) =>
        f
          .getAttribute('aria-describedby')!
          .split(' ')
          .map((id) => document.getElementById(id)!.className),
      )
      await page.getByRole('button', { name: 'Cancel' }).click()
      await answer(page)
      return [out, described.filter((c) => c === 'mcp-warning').length]
    }
    expect(await warnings('https://аpple.com/login')).toEqual([[DEFAULT_STRINGS.punycodeUrl], 1])
    expect(await warnings('https://shop.XN--80AK6AA92E.com/')).toEqual([[DEFAULT_STRINGS.punycodeUrl], 1])
    expect(await warnings('https://bank.example@evil.example/')).toEqual([[DEFAULT_STRINGS.userinfoUrl], 1])
    expect(await warnings('http://:pw@evil.example/')).toEqual([
      [DEFAULT_STRINGS.insecureUrl, DEFAULT_STRINGS.userinfoUrl],
      2,
    ])
    expect(await warnings('https://auth.example.com/connect?x=1')).toEqual([[], 0])
    expect(await warnings('https://example.com/xn--path')).toEqual([[], 0])
  })
})

describe('the consent dialog is announced with what it asks', () => {
  it("URL mode: the dialog's description names who asks, the URL and the warning (focus starts on Open)", async () => {
    const { page } = await open()
    await ask(
      page,
      'elicit',
      { mode: 'url', message: 'Connect your account', url: 'http://auth.example.com/connect' },
      { serverName: 'Bookshop' },
    )
    const cdp = await context.newCDPSession(page)
    const nodes = await axNodes(cdp)
    const dialog = nodes.find((n) => n.role?.value === 'dialog')
    expect([dialog?.name?.value, dialog?.description?.value]).toEqual([
      'Connect your account',
      `Request from Bookshop (order_book) ${DEFAULT_STRINGS.urlIntro} http://auth.example.com/connect ${DEFAULT_STRINGS.insecureUrl}`,
    ])
    expect(await focused(page)).toBe('button.mcp-submit.mcp-open')
    await page.keyboard.press('Escape')
    expect((await answer(page)).value).toEqual({ action: 'cancel' })
  })
})

describe('a format: "uri" answer is a URI', () => {
  it('spaces and non-ASCII are percent-encoded, the host in Punycode; what cannot be a URI is refused', async () => {
    const { page } = await open()
    const sent = async (typed: string, extra: Record<string, unknown> = {}) => {
      await ask(
        page,
        'elicit',
        form('Site?', { type: 'object', properties: { site: { type: 'string', format: 'uri', ...extra } } }),
        { container: '#host' },
      )
      await control(page, 'site').fill(typed)
      await page.getByRole('button', { name: 'Submit' }).click()
      if (!(await settled(page))) {
        const error = await fieldError(page, 'site')
        await page.getByRole('button', { name: 'Cancel' }).click()
        await answer(page)
        return { error }
      }
      return (await answer(page)).value?.content
    }
    expect(await sent('https://example.com/a b')).toEqual({ site: 'https://example.com/a%20b' })
    expect(await sent('https://例え.jp/ü?q=ä')).toEqual({ site: 'https://xn--r8jz45g.jp/%C3%BC?q=%C3%A4' })
    expect(await sent('https://example.com/x?q=1#f')).toEqual({ site: 'https://example.com/x?q=1#f' }) // a URI already: as typed
    expect(await sent('mailto:ada@example.com')).toEqual({ site: 'mailto:ada@example.com' })
    expect(await sent('https://example.com/^|')).toEqual({ site: 'https://example.com/%5E%7C' })
    expect(await sent('https://example.com/?q={x}')).toEqual({ error: DEFAULT_STRINGS.invalidUri }) // the browser leaves {} in a query
    expect(await sent('https://example.com/a b', { maxLength: 24 })).toEqual({ error: 'Use at most 24 characters.' }) // the length of what is sent
  })
})

describe('dates have four-digit years', () => {
  it('a date or date-time past year 9999 (the pickers allow 275760) is refused, never sent', async () => {
    const { page } = await open()
    await ask(
      page,
      'elicit',
      form('When?', {
        type: 'object',
        properties: { day: { type: 'string', format: 'date' }, at: { type: 'string', format: 'date-time' } },
      }),
      { container: '#host' },
    )
    expect([await control(page, 'day').getAttribute('max'), await control(page, 'at').getAttribute('max')]).toEqual([
      '9999-12-31',
      '9999-12-31T23:59:59',
    ])
    // what the year segment holds after typing a fifth digit
    await control(page, 'day').evaluate((input: HTMLInputElement) => (input.value = '12026-07-28'))
    await control(page, 'at').evaluate((input: HTMLInputElement) => (input.value = '12026-07-28T10:00'))
    await page.getByRole('button', { name: 'Submit' }).click()
    expect([await fieldError(page, 'day'), await fieldError(page, 'at')]).toEqual([
      DEFAULT_STRINGS.invalidDate,
      DEFAULT_STRINGS.invalidDate,
    ])
    expect(await settled(page)).toBe(false)
    await control(page, 'day').fill('2026-07-28')
    await control(page, 'at').fill('')
    await page.getByRole('button', { name: 'Submit' }).click()
    expect((await answer(page)).value).toEqual({ action: 'accept', content: { day: '2026-07-28' } })
  })
})

describe('an enum with no choices is still a choice', () => {
  it('enum: [] / oneOf: [] give an empty list, not a free text box: required cannot be submitted, optional is omitted', async () => {
    const { page } = await open()
    const requestedSchema = {
      type: 'object',
      properties: { a: { type: 'string', enum: [] }, b: { type: 'string', oneOf: [] } },
      required: ['a'],
    }
    await ask(page, 'elicit', form('Pick', requestedSchema), { container: '#host' })
    expect(await page.locator('.mcp-fields input').count()).toBe(0)
    expect(await field(page, 'a').locator('option').allTextContents()).toEqual([DEFAULT_STRINGS.choose])
    expect(await field(page, 'b').locator('option').allTextContents()).toEqual([DEFAULT_STRINGS.choose])
    await page.getByRole('button', { name: 'Submit' }).click()
    expect(await fieldError(page, 'a')).toBe(DEFAULT_STRINGS.requiredField)
    expect(await settled(page)).toBe(false)
    await page.getByRole('button', { name: 'Decline' }).click()
    expect((await answer(page)).value).toEqual({ action: 'decline' })
    await ask(page, 'elicit', form('Pick', { type: 'object', properties: { b: { type: 'string', oneOf: [] } } }), {
      container: '#host',
    })
    await page.getByRole('button', { name: 'Submit' }).click()
    expect((await answer(page)).value).toEqual({ action: 'accept', content: {} })
  })
})

describe('the empty string is a choice like any other', () => {
  it('enum ["", "a"]: choosing "" (or its default "") sends "", and "Choose…" still means nothing chosen', async () => {
    const { page } = await open()
    await ask(
      page,
      'elicit',
      form('Suffix?', {
        type: 'object',
        properties: { s: { type: 'string', enum: ['', 'a'], default: '' } },
        required: ['s'],
      }),
      { container: '#host' },
    )
    await page.getByRole('button', { name: 'Submit' }).click()
    expect((await answer(page)).value).toEqual({ action: 'accept', content: { s: '' } })
    await ask(
      page,
      'elicit',
      form('Suffix?', {
        type: 'object',
        properties: {
          s: {
            type: 'string',
            oneOf: [
              { const: '', title: 'None' },
              { const: 'a', title: 'A' },
            ],
          },
        },
        required: ['s'],
      }),
      { container: '#host' },
    )
    await page.getByRole('button', { name: 'Submit' }).click()
    expect(await fieldError(page, 's')).toBe(DEFAULT_STRINGS.requiredField)
    await control(page, 's').selectOption({ label: 'None' })
    await page.getByRole('button', { name: 'Submit' }).click()
    expect((await answer(page)).value).toEqual({ action: 'accept', content: { s: '' } })
  })
})

describe('multipleOf, which sets the step, is also enforced', () => {
  it('step 5 from minimum 1 lets the browser count 1, 6, 11: 6 is refused, 10 and 0.3 (of 0.1) are sent', async () => {
    const { page } = await open()
    await ask(
      page,
      'elicit',
      form('How many?', {
        type: 'object',
        properties: { n: { type: 'integer', minimum: 1, multipleOf: 5 }, x: { type: 'number', multipleOf: 0.1 } },
      }),
      { container: '#host' },
    )
    expect(await control(page, 'n').getAttribute('step')).toBe('5')
    await control(page, 'n').fill('6')
    await control(page, 'x').fill('0.3')
    await page.getByRole('button', { name: 'Submit' }).click()
    expect(await fieldError(page, 'n')).toBe('Enter a multiple of 5.')
    expect(await settled(page)).toBe(false)
    await control(page, 'n').fill('10')
    await page.getByRole('button', { name: 'Submit' }).click()
    expect((await answer(page)).value).toEqual({ action: 'accept', content: { n: 10, x: 0.3 } })
  })
})

describe('lengths count characters, as JSON Schema does', () => {
  it('maxLength 3 takes three emoji (six UTF-16 units); a fourth is refused with the message', async () => {
    const { page } = await open()
    await ask(
      page,
      'elicit',
      form('Mood?', { type: 'object', properties: { mood: { type: 'string', maxLength: 3 } } }),
      { container: '#host' },
    )
    await control(page, 'mood').focus()
    await page.keyboard.type('😀😀😀😀')
    await page.getByRole('button', { name: 'Submit' }).click()
    expect(await fieldError(page, 'mood')).toBe('Use at most 3 characters.')
    await page.keyboard.press('Backspace')
    expect(await fieldError(page, 'mood')).toBe('')
    await page.getByRole('button', { name: 'Submit' }).click()
    expect((await answer(page)).value).toEqual({ action: 'accept', content: { mood: '😀😀😀' } })
  })
})

describe('a required multi-select says so to assistive technology', () => {
  it('the group is described as required (a fieldset cannot carry `required`); an optional one is not', async () => {
    const { page } = await open()
    const requestedSchema = {
      type: 'object',
      properties: {
        toppings: {
          type: 'array',
          title: 'Toppings',
          description: 'Up to two',
          maxItems: 2,
          items: { type: 'string', enum: ['x', 'y'] },
        },
        extras: { type: 'array', title: 'Extras', items: { type: 'string', enum: ['z'] } },
      },
      required: ['toppings'],
    }
    await ask(page, 'elicit', form('Pizza', requestedSchema), { container: '#host' })
    const cdp = await context.newCDPSession(page)
    const groups = async () => {
      const nodes = await axNodes(cdp)
      return nodes
        .filter((n) => !n.ignored && n.role?.value === 'group')
        .map((n) => [n.name?.value, n.description?.value ?? ''])
    }
    expect(await groups()).toEqual([
      ['Toppings', 'required Up to two'],
      ['Extras', ''],
    ])
    expect(await page.locator('.mcp-required-note').isVisible()).toBe(false)
    await page.getByRole('button', { name: 'Submit' }).click()
    expect(await groups()).toEqual([
      ['Toppings', `required Up to two ${DEFAULT_STRINGS.requiredChoice}`],
      ['Extras', ''],
    ])
  })
})
