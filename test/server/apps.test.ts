/**
 * MCP Apps on the server (ext-apps specification/2026-01-26/apps.mdx): `registerAppResource` and a tool's
 * `_meta.ui` — what registration refuses, what `resources/list`, `resources/read` and `tools/list` carry,
 * and the extension in the capabilities of both eras. Every result is checked against the official
 * 2026-07-28 schema (2026 wire) and 2025-11-25 schema (legacy wire).
 */
import { describe, expect, it } from 'vitest'
import { APP_MIME_TYPE, APPS_EXTENSION, toolVisibility, type McpUiVisibility, type Tool } from '../../src/index.ts'
import {
  McpServer,
  createFetchHandler,
  inMemoryTasks,
  registerAppResource,
  type AppResourceConfig,
  type FetchHandler,
} from '../../src/server/index.ts'
import { call, recordingLogger, type Posted, type WireResult } from '../helpers.ts'
import { expectLegacyResult, initializeAt, legacyCall } from '../legacy-wire.ts'
import { schemaErrors } from '../spec-schema.ts'

const URI = 'ui://bookshop/order-card'
const HTML = '<!doctype html><html><body><p>Your order</p></body></html>'
const UI_SETTINGS = { mimeTypes: [APP_MIME_TYPE] }

/** A 2026 success: HTTP 200, a valid response whose result is a valid `def`. */
function expectResult(res: Posted, def: string): WireResult {
  expect(res.status, res.text).toBe(200)
  expect(schemaErrors('JSONRPCResultResponse', res.body), res.text).toEqual([])
  expect(schemaErrors(def, res.body.result), res.text).toEqual([])
  return res.body.result
}

/** The entry both eras list for `uri` in `resources/list`, and the contents both read, each schema-checked. */
async function served(handler: FetchHandler, uri = URI) {
  const list = expectResult(await call(handler, 'resources/list'), 'ListResourcesResult')
  const legacyList = expectLegacyResult(await legacyCall(handler, 'resources/list'), 'ListResourcesResult')
  const read = expectResult(await call(handler, 'resources/read', { uri }), 'ReadResourceResult')
  const legacyRead = expectLegacyResult(await legacyCall(handler, 'resources/read', { uri }), 'ReadResourceResult')
  const listed = (list.resources as Array<{ uri: string }>).find((r) => r.uri === uri)
  expect(legacyList.resources.find((r) => (r as { uri: string }).uri === uri)).toEqual(listed)
  expect((legacyRead as unknown as { contents: unknown }).contents).toEqual(read.contents)
  return { listed, contents: read.contents }
}

/** The capabilities of `server/discover` (2026) and of `initialize` (2025-11-25), each schema-checked. */
async function capabilitiesOf(handler: FetchHandler) {
  const discover = expectResult(await call(handler, 'server/discover'), 'DiscoverResult')
  const init = expectLegacyResult(await initializeAt(handler, '2025-11-25'), 'InitializeResult')
  return {
    modern: discover.capabilities as { extensions?: Record<string, unknown> },
    legacy: init.capabilities as { extensions?: Record<string, unknown> },
  }
}

function server(): McpServer {
  return new McpServer({ name: 'bookshop', version: '1.0.0' })
}

describe('registerAppResource: registration checks', () => {
  const good: AppResourceConfig = { uri: URI, name: 'order_card', html: HTML }
  const refused: Array<[string, Record<string, unknown>, RegExp]> = [
    ['uri of another scheme', { uri: 'https://bookshop.example/card' }, /uri must be a ui:\/\/ URI/],
    ['uri with nothing after ui://', { uri: 'ui://' }, /uri must be a ui:\/\/ URI/],
    ['uri with whitespace', { uri: 'ui://order card' }, /uri must be a ui:\/\/ URI/],
    ['uri not a string', { uri: 42 }, /uri must be a ui:\/\/ URI, not 42/],
    ['uri missing', { uri: undefined }, /uri must be a ui:\/\/ URI/],
    ['empty name', { name: '' }, /name must be a non-empty string/],
    ['name not a string', { name: 7 }, /name must be a non-empty string/],
    ['empty html', { html: '' }, /html must be a non-empty string or a function/],
    ['html neither string nor function', { html: { body: 'x' } }, /html must be a non-empty string or a function/],
    ['title not a string', { title: 3 }, /title must be a string/],
    ['description not a string', { description: false }, /description must be a string/],
    ['icons not an array', { icons: 'icon.png' }, /icons must be an array/],
    ['csp not an object', { csp: 'https://api.example.com' }, /csp must be an object/],
    [
      'csp field not an array',
      { csp: { connectDomains: 'https://api.example.com' } },
      /csp\.connectDomains must be an array/,
    ],
    ['csp wildcard origin', { csp: { connectDomains: ['*'] } }, /csp\.connectDomains holds "\*"/],
    ['csp keyword', { csp: { resourceDomains: ["'unsafe-eval'"] } }, /csp\.resourceDomains holds/],
    ['csp origin with a path', { csp: { frameDomains: ['https://a.example/x'] } }, /csp\.frameDomains holds/],
    ['csp unknown field', { csp: { scriptDomains: ['https://a.example'] } }, /csp\.scriptDomains is not a field/],
    ['permissions not an object', { permissions: ['camera'] }, /permissions must be an object/],
    ['permission not {}', { permissions: { camera: true } }, /permissions\.camera must be \{\}/],
    ['permission with settings', { permissions: { microphone: { echo: 1 } } }, /permissions\.microphone must be \{\}/],
    ['unknown permission', { permissions: { usb: {} } }, /permissions\.usb is not one of camera/],
    ['empty domain', { domain: '' }, /domain must be a non-empty string/],
    ['domain not a string', { domain: 5 }, /domain must be a non-empty string/],
    ['prefersBorder not boolean', { prefersBorder: 'yes' }, /prefersBorder must be a boolean/],
    ['unknown field', { cps: { connectDomains: [] } }, /cps is not a field of AppResourceConfig/],
    ['mimeType (fixed by the spec)', { mimeType: 'text/html' }, /mimeType is not a field/],
  ]

  it.each(refused)(
    'refuses %s with a TypeError naming the field, and registers nothing',
    async (_, change, message) => {
      const mcp = server()
      mcp.resource('readme', 'file:///readme', {}, () => 'hello')
      const config = { ...good, ...change }
      expect(() => registerAppResource(mcp, config)).toThrow(TypeError)
      expect(() => registerAppResource(mcp, config)).toThrow(message)
      const handler = createFetchHandler(mcp)
      const list = expectResult(await call(handler, 'resources/list'), 'ListResourcesResult')
      expect(list.resources).toEqual([{ uri: 'file:///readme', name: 'readme' }])
      const { modern, legacy } = await capabilitiesOf(handler)
      expect(modern.extensions).toBeUndefined()
      expect(legacy.extensions).toBeUndefined()
    },
  )

  it('names the App in a field error once its uri is known', () => {
    expect(() => registerAppResource(server(), { ...good, domain: '' })).toThrow(
      `App resource '${URI}': domain must be a non-empty string`,
    )
  })

  it('refuses a config that is not an object, and a first argument that is not an McpServer', () => {
    expect(() => registerAppResource(server(), null as unknown as AppResourceConfig)).toThrow(
      new TypeError('registerAppResource: config must be an object'),
    )
    expect(() => registerAppResource({} as McpServer, good)).toThrow(
      new TypeError('registerAppResource: mcp must be an McpServer'),
    )
  })

  it('refuses a second resource at the same URI', () => {
    const mcp = server()
    registerAppResource(mcp, good)
    expect(() => registerAppResource(mcp, { ...good, name: 'other' })).toThrow(
      `Resource '${URI}' is already registered`,
    )
  })

  it('accepts every permission as {}, every csp field, a domain and both prefersBorder values', () => {
    const mcp = server()
    registerAppResource(mcp, {
      ...good,
      csp: {
        connectDomains: ['https://api.example.com', 'wss://rt.example.com:443'],
        resourceDomains: ['https://*.cdn.example.com'],
        frameDomains: [],
        baseUriDomains: ['https://base.example.com'],
      },
      permissions: { camera: {}, microphone: {}, geolocation: {}, clipboardWrite: {} },
      domain: 'a904794854a047f6.claudemcpcontent.com',
      prefersBorder: false,
    })
    registerAppResource(mcp, { ...good, uri: 'ui://bookshop/other', prefersBorder: true })
  })
})

describe('registerAppResource: what both eras list and read', () => {
  it('lists the App with its MIME type and declared _meta.ui, and reads the same _meta.ui with the HTML', async () => {
    const mcp = server()
    const csp = { connectDomains: ['https://api.bookshop.example'], resourceDomains: ['https://cdn.example.com'] }
    registerAppResource(mcp, {
      uri: URI,
      name: 'order_card',
      title: 'Order card',
      description: 'The order, with a button to change the quantity',
      html: HTML,
      csp,
      permissions: { clipboardWrite: {} },
      domain: 'cards.bookshop.example',
      prefersBorder: true,
      icons: [{ src: 'https://bookshop.example/card.png', mimeType: 'image/png' }],
    })
    const ui = { csp, permissions: { clipboardWrite: {} }, domain: 'cards.bookshop.example', prefersBorder: true }
    const { listed, contents } = await served(createFetchHandler(mcp))
    expect(listed).toEqual({
      uri: URI,
      name: 'order_card',
      title: 'Order card',
      description: 'The order, with a button to change the quantity',
      mimeType: 'text/html;profile=mcp-app',
      icons: [{ src: 'https://bookshop.example/card.png', mimeType: 'image/png' }],
      _meta: { ui },
    })
    expect(contents).toEqual([{ uri: URI, mimeType: 'text/html;profile=mcp-app', text: HTML, _meta: { ui } }])
  })

  it('carries no _meta when nothing is declared', async () => {
    const mcp = server()
    registerAppResource(mcp, { uri: URI, name: 'order_card', html: HTML })
    const { listed, contents } = await served(createFetchHandler(mcp))
    expect(listed).toEqual({ uri: URI, name: 'order_card', mimeType: APP_MIME_TYPE })
    expect(contents).toEqual([{ uri: URI, mimeType: APP_MIME_TYPE, text: HTML }])
  })

  it('serves what was declared at registration, whatever the caller changes in its objects later', async () => {
    const mcp = server()
    const csp = { connectDomains: ['https://api.bookshop.example'] }
    const permissions: Record<string, object> = { camera: {} }
    registerAppResource(mcp, { uri: URI, name: 'order_card', html: HTML, csp, permissions })
    csp.connectDomains.push('https://evil.example')
    permissions.microphone = {}
    const { contents } = await served(createFetchHandler(mcp))
    expect(contents).toEqual([
      {
        uri: URI,
        mimeType: APP_MIME_TYPE,
        text: HTML,
        _meta: { ui: { csp: { connectDomains: ['https://api.bookshop.example'] }, permissions: { camera: {} } } },
      },
    ])
  })

  it('serves the csp it checked, even from a getter that answers differently the second time', async () => {
    const mcp = server()
    let reads = 0
    const csp = {
      get connectDomains() {
        return ++reads === 1 ? ['https://api.bookshop.example'] : ['*']
      },
    }
    registerAppResource(mcp, { uri: URI, name: 'order_card', html: HTML, csp })
    const { listed, contents } = await served(createFetchHandler(mcp))
    const ui = { csp: { connectDomains: ['https://api.bookshop.example'] } }
    expect(listed).toMatchObject({ _meta: { ui } })
    expect(contents).toMatchObject([{ _meta: { ui } }])
  })

  it('calls html(ctx) on each read, sync or async, and answers what it returns', async () => {
    const mcp = server()
    const seen: string[] = []
    let reads = 0
    registerAppResource(mcp, {
      uri: URI,
      name: 'order_card',
      html: (ctx) => {
        seen.push(ctx.target)
        return `<!doctype html><p>read ${++reads}</p>`
      },
      prefersBorder: true,
    })
    registerAppResource(mcp, {
      uri: 'ui://bookshop/receipt',
      name: 'receipt',
      html: async () => {
        await Promise.resolve()
        return '<!doctype html><p>receipt</p>'
      },
    })
    const handler = createFetchHandler(mcp)
    const first = expectResult(await call(handler, 'resources/read', { uri: URI }), 'ReadResourceResult')
    const second = expectLegacyResult(await legacyCall(handler, 'resources/read', { uri: URI }), 'ReadResourceResult')
    expect(first.contents).toEqual([
      {
        uri: URI,
        mimeType: APP_MIME_TYPE,
        text: '<!doctype html><p>read 1</p>',
        _meta: { ui: { prefersBorder: true } },
      },
    ])
    expect((second as unknown as WireResult).contents[0].text).toBe('<!doctype html><p>read 2</p>')
    expect(seen).toEqual([URI, URI])
    const { contents } = await served(handler, 'ui://bookshop/receipt')
    expect(contents).toEqual([
      { uri: 'ui://bookshop/receipt', mimeType: APP_MIME_TYPE, text: '<!doctype html><p>receipt</p>' },
    ])
  })

  it('fails a read with -32603 (logged) when html() returns no string or throws', async () => {
    const { logger, error } = recordingLogger()
    const mcp = new McpServer({ name: 'bookshop', version: '1.0.0' }, { logger })
    registerAppResource(mcp, { uri: URI, name: 'card', html: () => 42 as unknown as string })
    registerAppResource(mcp, {
      uri: 'ui://bookshop/broken',
      name: 'broken',
      html: () => {
        throw new Error('template missing')
      },
    })
    const handler = createFetchHandler(mcp)
    for (const uri of [URI, 'ui://bookshop/broken']) {
      const res = await call(handler, 'resources/read', { uri })
      expect(schemaErrors('JSONRPCErrorResponse', res.body), res.text).toEqual([])
      expect(res.body.error.code).toBe(-32603)
    }
    expect(error.join('\n')).toContain(`App resource '${URI}': html() returned number, not a string`)
    expect(error.join('\n')).toContain('template missing')
  })
})

describe('registerAppResource: the extension in the capabilities of both eras', () => {
  it('declares io.modelcontextprotocol/ui in server/discover and initialize once an App is registered', async () => {
    const mcp = server()
    mcp.tool('search', {}, () => 'nothing')
    const handler = createFetchHandler(mcp)
    const before = await capabilitiesOf(handler)
    expect(before.modern.extensions).toBeUndefined()
    expect(before.legacy.extensions).toBeUndefined()
    registerAppResource(mcp, { uri: URI, name: 'order_card', html: HTML })
    const after = await capabilitiesOf(handler)
    expect(APPS_EXTENSION).toBe('io.modelcontextprotocol/ui')
    expect(after.modern.extensions).toEqual({ [APPS_EXTENSION]: UI_SETTINGS })
    expect(after.legacy.extensions).toEqual({ [APPS_EXTENSION]: UI_SETTINGS })
  })

  it("keeps the server's own extensions, and its own settings for the UI extension", async () => {
    const own = { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE], note: 'mine' }, 'com.example/flags': { beta: true } }
    const options = { capabilities: { extensions: own } }
    const mcp = new McpServer({ name: 'bookshop', version: '1.0.0' }, options)
    registerAppResource(mcp, { uri: URI, name: 'order_card', html: HTML })
    const { modern, legacy } = await capabilitiesOf(createFetchHandler(mcp))
    expect(modern.extensions).toEqual(own)
    expect(legacy.extensions).toEqual(own)
    expect(options.capabilities.extensions).toBe(own) // the caller's options are not rewritten
    expect(Object.keys(own)).toEqual([APPS_EXTENSION, 'com.example/flags'])
  })

  it('declares the Tasks extension in the 2026 era only (a 2025-era call never runs as a task)', async () => {
    const mcp = new McpServer({ name: 'bookshop', version: '1.0.0' }, { tasks: inMemoryTasks() })
    registerAppResource(mcp, { uri: URI, name: 'order_card', html: HTML })
    const { modern, legacy } = await capabilitiesOf(createFetchHandler(mcp))
    expect(modern.extensions).toEqual({ [APPS_EXTENSION]: UI_SETTINGS, 'io.modelcontextprotocol/tasks': {} })
    expect(legacy.extensions).toEqual({ [APPS_EXTENSION]: UI_SETTINGS })
  })
})

describe('mcp.tool: _meta.ui', () => {
  const refused: Array<[string, unknown, string]> = [
    ['a string', 'ui://bookshop/order-card', "Tool 'order_book': _meta.ui must be an object"],
    ['null', null, "Tool 'order_book': _meta.ui must be an object"],
    ['an array', [URI], "Tool 'order_book': _meta.ui must be an object"],
    [
      'an https resourceUri',
      { resourceUri: 'https://bookshop.example/card' },
      '_meta.ui.resourceUri must be a ui:// URI',
    ],
    ['a bare ui:// resourceUri', { resourceUri: 'ui://' }, '_meta.ui.resourceUri must be a ui:// URI'],
    ['a resourceUri that is no string', { resourceUri: [URI] }, '_meta.ui.resourceUri must be a ui:// URI'],
    ['an empty visibility', { visibility: [] }, "_meta.ui.visibility must be ['model'], ['app'] or both"],
    ['a visibility naming one twice', { visibility: ['app', 'app'] }, '_meta.ui.visibility must be'],
    ['a visibility of three', { visibility: ['model', 'app', 'model'] }, '_meta.ui.visibility must be'],
    ['an unknown audience', { visibility: ['user'] }, '_meta.ui.visibility must be'],
    ['a visibility that is a string', { visibility: 'app' }, '_meta.ui.visibility must be'],
    ['a visibility that is an object', { visibility: { 0: 'app' } }, '_meta.ui.visibility must be'],
  ]

  it.each(refused)(
    'refuses a _meta.ui that is %s with a TypeError naming the field; nothing is listed',
    async (_, ui, message) => {
      const mcp = server()
      expect(() => mcp.tool('order_book', { _meta: { ui } as never }, () => 'ordered')).toThrow(TypeError)
      expect(() => mcp.tool('order_book', { _meta: { ui } as never }, () => 'ordered')).toThrow(message)
      mcp.tool('search', {}, () => 'nothing')
      const list = expectResult(await call(createFetchHandler(mcp), 'tools/list'), 'ListToolsResult')
      expect(list.tools.map((t) => t.name)).toEqual(['search'])
    },
  )

  it('lists a linked tool, an app-only tool and a model-only tool with their _meta in both eras', async () => {
    const mcp = server()
    registerAppResource(mcp, { uri: URI, name: 'order_card', html: HTML })
    mcp.tool('order_book', { _meta: { ui: { resourceUri: URI } } }, () => ({
      content: [{ type: 'text', text: 'Ordered 1 copy of Dune.' }],
      structuredContent: { title: 'Dune', quantity: 1, status: 'ordered' },
    }))
    mcp.tool('set_order_quantity', { _meta: { ui: { resourceUri: URI, visibility: ['app'] } } }, () => 'changed')
    mcp.tool('cancel_order', { _meta: { ui: { visibility: ['model', 'app'] }, 'com.example/audit': true } }, () => 'x')
    const later = { visibility: ['app', 'model'] as McpUiVisibility[], future: 1 } // a field of a later revision
    mcp.tool('refund', { _meta: { ui: later } }, () => 'x')
    mcp.tool('search', { _meta: { 'com.example/cost': 2 } }, () => 'nothing')
    const handler = createFetchHandler(mcp)
    const modern = expectResult(await call(handler, 'tools/list'), 'ListToolsResult')
    const legacy = expectLegacyResult(await legacyCall(handler, 'tools/list'), 'ListToolsResult')
    const metas = Object.fromEntries(modern.tools.map((t) => [t.name, t._meta]))
    expect(metas).toEqual({
      order_book: { ui: { resourceUri: URI } },
      set_order_quantity: { ui: { resourceUri: URI, visibility: ['app'] } },
      cancel_order: { ui: { visibility: ['model', 'app'] }, 'com.example/audit': true },
      refund: { ui: { visibility: ['app', 'model'], future: 1 } },
      search: { 'com.example/cost': 2 },
    })
    expect(legacy.tools).toEqual(modern.tools)
    expect(modern.tools.map((t) => toolVisibility(t as Tool).join('+'))).toEqual([
      'model+app',
      'app',
      'model+app',
      'app+model',
      'model+app',
    ])
    // the linked tool's result: text for hosts without Apps, structuredContent for the App
    const result = expectResult(await call(handler, 'tools/call', { name: 'order_book' }), 'CallToolResult')
    expect(result.content).toEqual([{ type: 'text', text: 'Ordered 1 copy of Dune.' }])
    expect(result.structuredContent).toEqual({ title: 'Dune', quantity: 1, status: 'ordered' })
  })

  it('does not require the linked App to be registered first (or on this server at all)', async () => {
    const mcp = server()
    mcp.tool('order_book', { _meta: { ui: { resourceUri: 'ui://bookshop/later' } } }, () => 'ordered')
    registerAppResource(mcp, { uri: 'ui://bookshop/later', name: 'later', html: HTML })
    const list = expectResult(await call(createFetchHandler(mcp), 'tools/list'), 'ListToolsResult')
    expect(list.tools[0]._meta).toEqual({ ui: { resourceUri: 'ui://bookshop/later' } })
  })
})
