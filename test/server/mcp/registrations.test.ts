/**
 * What McpServer's registrations accept and serve: resource-template literals compare after URI
 * normalisation, tool names outside the spec's guidance register with a warning, a result with only
 * `structuredContent`, `__proto__` is never an argument (shared/cases/robustness.md R1, R5, R6, R10).
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../../src/client/index.ts'
import { McpError } from '../../../src/index.ts'
import { UriTemplate } from '../../../src/protocol/uri-template.ts'
import { notificationMatcher } from '../../../src/server/notifications.ts'
import { readState } from '../../../src/server/resolve/answers.ts'
import { McpServer, arg, createFetchHandler, resolver } from '../../../src/server/index.ts'
import { createDemoServer } from '../../../worker/server.ts'
import { post, recordingLogger, req, std } from '../../helpers.ts'

const clientOf = (mcp: McpServer) =>
  new Client({ transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: createFetchHandler(mcp) }) })

// shared/cases/robustness.md R1
describe('resource-template literals compare after URI normalisation (RFC 3986 section 6.2.2)', () => {
  const server = () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.resourceTemplate('cafe', new UriTemplate('file:///docs/café/{name}'), {}, ({ name }) => `cafe:${name}`)
    mcp.resourceTemplate('tilde', new UriTemplate('x://h/%7Euser/{id}'), {}, ({ id }) => `tilde:${id}`)
    mcp.resourceTemplate('any', new UriTemplate('file:///{+path}'), {}, ({ path }) => `any:${path}`)
    return mcp
  }

  it.each([
    ['file:///docs/café/a.txt', 'cafe:a.txt'],
    ['file:///docs/caf%C3%A9/a.txt', 'cafe:a.txt'],
    ['file:///docs/caf%c3%a9/a.txt', 'cafe:a.txt'],
    ['x://h/~user/1', 'tilde:1'],
    ['x://h/%7euser/1', 'tilde:1'],
    ['file:///docs/cafe/a.txt', 'any:docs/cafe/a.txt'],
  ])('resources/read %s → %s', async (uri, text) => {
    const read = await clientOf(server()).readResource(uri)
    expect(read.contents).toEqual([{ uri, text }])
  })

  it('static resources too: every equivalent form reads it (one resource, one registration), others do not', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.resource('menu', 'file:///docs/café/menu.txt', {}, () => 'menu')
    mcp.resource('home', 'x://h/%7Euser/home', {}, () => 'home')
    mcp.resourceTemplate('any', new UriTemplate('file:///{+path}'), {}, ({ path }) => `any:${path}`)
    const client = clientOf(mcp)
    for (const uri of [
      'file:///docs/café/menu.txt',
      'file:///docs/caf%C3%A9/menu.txt',
      'file:///docs/caf%c3%a9/menu.txt',
    ])
      expect((await client.readResource(uri)).contents).toEqual([{ uri, text: 'menu' }])
    for (const uri of ['x://h/~user/home', 'x://h/%7euser/home'])
      expect((await client.readResource(uri)).contents).toEqual([{ uri, text: 'home' }])
    // a reserved character encoded is another URI (RFC 3986 2.2): the template answers, not the static resource
    const slash = 'file:///docs%2Fcafé/menu.txt'
    expect((await client.readResource(slash)).contents).toEqual([{ uri: slash, text: 'any:docs/café/menu.txt' }])
    expect(() => mcp.resource('again', 'file:///docs/caf%c3%a9/menu.txt', {}, () => 'x')).toThrow(/already registered/)
    expect(mcp.removeResource('x://h/~user/home')).toBe(true)
    const gone = await client.readResource('x://h/%7Euser/home').catch((e: unknown) => e)
    expect((gone as McpError).message).toBe('Resource not found')
  })

  it('subscriptions too: an update in another equivalent form reaches the stream, under the URI subscribed to', () => {
    const match = notificationMatcher({ resourceSubscriptions: ['x://h/%7euser/caf%C3%A9'] }, 7)
    const sent = match({ kind: 'resourceUpdated', uri: 'x://h/~user/café' })
    expect(sent?.params).toEqual({
      _meta: { 'io.modelcontextprotocol/subscriptionId': 7 },
      uri: 'x://h/%7euser/caf%C3%A9',
    })
    expect(match({ kind: 'resourceUpdated', uri: 'x://h/~user/cafe' })).toBeUndefined()
    expect(match({ kind: 'resourceUpdated', uri: 'x://h%2F~user/café' })).toBeUndefined()
  })

  it('without a catch-all, a URI that matches no literal is "Resource not found"', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.resourceTemplate('tilde', new UriTemplate('x://h/%7Euser/{id}'), {}, ({ id }) => `tilde:${id}`)
    const error = (await clientOf(mcp)
      .readResource('x://h/user/1')
      .catch((e: unknown) => e)) as McpError
    expect([error.code, error.message]).toEqual([-32602, 'Resource not found'])
  })

  it('registration order decides between two templates that both match', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.resourceTemplate('any', new UriTemplate('file:///{+path}'), {}, ({ path }) => `any:${path}`)
    mcp.resourceTemplate('cafe', new UriTemplate('file:///docs/café/{name}'), {}, ({ name }) => `cafe:${name}`)
    const read = await clientOf(mcp).readResource('file:///docs/caf%c3%a9/a.txt')
    expect(read.contents[0]).toMatchObject({ text: 'any:docs/café/a.txt' })
  })

  it('UriTemplate.match: equivalent forms of a literal match; reserved characters and other characters do not', () => {
    const t = new UriTemplate('x://h/caf%c3%A9/%7e/{a}')
    expect(t.match('x://h/café/~/1')).toEqual({ a: '1' })
    expect(t.match('x://h/caf%C3%A9/%7E/1')).toEqual({ a: '1' })
    expect(t.match('x://h/%63af%c3%a9/%7e/1')).toEqual({ a: '1' })
    expect(t.match('x://h/cafe/~/1')).toBeUndefined()
    const slash = new UriTemplate('x://a%2Fb/{a}')
    expect(slash.match('x://a%2fb/1')).toEqual({ a: '1' })
    expect(slash.match('x://a/b/1')).toBeUndefined()
    expect(new UriTemplate('x://a/{a}').match('x://a%2F1')).toBeUndefined()
  })

  it('a variable named __proto__ or constructor is a name like any other', () => {
    const match = new UriTemplate('x://{__proto__}/{constructor}').match('x://a/b')!
    expect(Object.getPrototypeOf(match)).toBe(Object.prototype)
    expect(Object.entries(match)).toEqual([
      ['__proto__', 'a'],
      ['constructor', 'b'],
    ])
  })
})

// shared/cases/robustness.md R5
describe('tool names outside the spec guidance (server/tools.mdx "Tool Names")', () => {
  it('register with one warning each; a conforming name logs nothing; the empty name throws', async () => {
    const log = recordingLogger()
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: log.logger })
    for (const name of ['getUser', 'DATA_EXPORT_v2', 'admin.tools.list', 'a-b', 'x'.repeat(128)])
      mcp.tool(name, {}, () => 'ok')
    expect(log.warn).toEqual([])
    mcp.tool('Create CIFS Share', {}, () => 'spaced')
    expect(log.warn).toHaveLength(1)
    expect(log.warn[0]).toContain('"Create CIFS Share"')
    const long = 'y'.repeat(129)
    mcp.tool(long, {}, () => 'long')
    expect(log.warn).toHaveLength(2)
    expect(log.warn[1]).toContain('129 characters')
    expect(() => mcp.tool('', {}, () => 'empty')).toThrow(/non-empty/)
    expect(log.warn).toHaveLength(2)
    const client = clientOf(mcp)
    expect((await client.listTools()).map((t) => t.name)).toContain('Create CIFS Share')
    expect((await client.callTool('Create CIFS Share', {})).content).toEqual([{ type: 'text', text: 'spaced' }])
    expect((await client.callTool(long, {})).content).toEqual([{ type: 'text', text: 'long' }])
    expect(log.warn).toHaveLength(2)
  })

  it('prompt and resource names get no such check (the spec gives the guidance for tools only)', () => {
    const log = recordingLogger()
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: log.logger })
    mcp.prompt('A prompt, with spaces', {}, () => 'p')
    mcp.resource('A resource', 'docs://r', {}, () => 'r')
    expect(log.warn).toEqual([])
  })
})

// shared/cases/robustness.md R6
describe('a tool result with only structuredContent', () => {
  it('succeeds, with one text block holding the JSON of the structured content', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('weather', { output: v.object({ tempC: v.number() }) }, () => ({ structuredContent: { tempC: 21 } }))
    mcp.tool('plain', {}, () => ({ structuredContent: { a: [1, 'b'] }, isError: false }))
    const client = clientOf(mcp)
    const weather = await client.callTool('weather', {})
    expect(weather.content).toEqual([{ type: 'text', text: '{"tempC":21}' }])
    expect(weather.structuredContent).toEqual({ tempC: 21 })
    expect(weather.isError).toBeUndefined()
    const plain = await client.callTool('plain', {})
    expect(plain.content).toEqual([{ type: 'text', text: '{"a":[1,"b"]}' }])
  })

  it('keeps content the handler gave, and still checks structuredContent against outputSchema', async () => {
    const log = recordingLogger()
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: log.logger })
    mcp.tool('both', { output: v.object({ tempC: v.number() }) }, () => ({
      content: [{ type: 'text' as const, text: 'warm' }],
      structuredContent: { tempC: 21 },
    }))
    mcp.tool('wrong', { output: v.object({ tempC: v.number() }) }, () => ({ structuredContent: { tempC: 'hot' } }))
    const client = clientOf(mcp)
    expect((await client.callTool('both', {})).content).toEqual([{ type: 'text', text: 'warm' }])
    const error = (await client.callTool('wrong', {}).catch((e: unknown) => e)) as McpError
    expect(error.code).toBe(-32603)
  })
})

/** A tools/call body with `key` as a raw JSON key of `arguments` (a JS object literal would set the prototype). */
function rawCall(name: string, key: string, value: unknown, extra: Record<string, unknown> = {}): string {
  const body = JSON.stringify(req('tools/call', { name, arguments: { ...extra, KEY_PLACEHOLDER: value } }))
  return body.replace('"KEY_PLACEHOLDER"', JSON.stringify(key))
}

const KEYS = ['__proto__', 'constructor', 'prototype']

// shared/cases/robustness.md R10
describe('__proto__ is never an argument', () => {
  it.each(KEYS)(
    'order_book (the demo, with resolvers): arguments.%s carrying title is "Invalid arguments"',
    async (key) => {
      const handler = createFetchHandler(createDemoServer())
      const res = await post(handler, rawCall('order_book', key, { title: 'Dune' }), std('tools/call', 'order_book'))
      expect(res.status).toBe(200)
      const result = res.body.result as { isError?: boolean; content: { text: string }[] }
      expect(result.isError).toBe(true)
      expect(result.content[0].text).toMatch(/^Invalid arguments for tool order_book: .*title/)
    },
  )

  it.each(KEYS)('a tool without resolvers answers the same for arguments.%s', async (key) => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('plain_book', { input: { title: v.string() } }, ({ title }) => `ordered ${title}`)
    const res = await post(
      createFetchHandler(mcp),
      rawCall('plain_book', key, { title: 'Dune' }),
      std('tools/call', 'plain_book'),
    )
    const result = res.body.result as { isError?: boolean; content: { text: string }[] }
    expect(result.isError).toBe(true)
    expect(result.content[0].text).toMatch(/^Invalid arguments for tool plain_book: .*title/)
  })

  it.each(KEYS)('a header-mirrored argument hidden under arguments.%s never reaches the handler', async (key) => {
    const mcp = new McpServer({ name: 's', version: '1' })
    const seen: unknown[] = []
    const quota = resolver({ region: arg<string>() }, function quota({ region }) {
      return `${region}:10`
    })
    mcp.tool(
      'deploy',
      { input: { region: v.string() }, headers: { region: 'Region' }, use: { quota } },
      ({ region, quota }) => {
        seen.push(region)
        return `deployed ${region} ${quota}`
      },
    )
    const handler = createFetchHandler(mcp)
    const res = await post(handler, rawCall('deploy', key, { region: 'eu' }), std('tools/call', 'deploy'))
    const result = res.body.result as { isError?: boolean; content: { text: string }[] }
    expect(result.isError).toBe(true)
    expect(result.content[0].text).toMatch(/^Invalid arguments for tool deploy: .*region/)
    expect(seen).toEqual([])
    // the right call still works, and the key is left alone as an own property
    const ok = await post(handler, rawCall('deploy', key, 1, { region: 'eu' }), {
      ...std('tools/call', 'deploy'),
      'mcp-param-region': 'eu',
    })
    expect((ok.body.result as { content: { text: string }[] }).content[0].text).toBe('deployed eu eu:10')
  })

  it('inputResponses and a resolver state with such keys set no prototype', () => {
    // an opened token's state is JSON.parse'd, which makes `__proto__` an own key
    const state = readState(
      JSON.parse(
        '{"v":1,"outcomes":{"__proto__":{"q":"x","action":"accept"}},"asked":{"__proto__":"x","constructor":"y"}}',
      ),
    )
    expect(Object.getPrototypeOf(state.outcomes)).toBe(Object.prototype)
    expect(Object.getPrototypeOf(state.asked)).toBe(Object.prototype)
    expect(Object.keys(state.asked)).toEqual(['__proto__', 'constructor'])
  })
})
