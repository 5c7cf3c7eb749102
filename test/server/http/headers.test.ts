/**
 * The HTTP-surface and answer cases of shared/cases/robustness.md: R4 (Hono, a body a
 * middleware already read), R7 (standard header values are visible ASCII before anything else), R8
 * (`content: null` in an elicitation answer is no content), R9 (a decline's or cancel's content is
 * ignored), on the 2026 `inputResponses` lane and the 2025 legacy questions lane; and
 * (mismatch messages show both values distinguishably; a malformed sampling answer is not "missing action").
 */
import { Hono } from 'hono'
import * as v from 'valibot'
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHonoHandler } from '../../../src/hono/index.ts'
import { encodeHeaderValue, isVisibleAscii, quoteValue } from '../../../src/protocol/headers.ts'
import {
  McpServer,
  RequestStateSecurity,
  acceptedContent,
  createFetchHandler,
  elicit,
  elicitForm,
  formSchema,
  inputRequired,
  resolver,
  type FetchHandler,
} from '../../../src/server/index.ts'
import type { RequestedSchema } from '../../../src/index.ts'
import { adapters, call, env, post, recordingLogger, req, std, type Posted } from '../../helpers.ts'
import { answer, initializeLegacy, legacyPost, sseReader } from '../../legacy-wire.ts'
import { startWorker, type RunningWorker } from '../../workerd.ts'

const KEY = 'k'.repeat(32)
const nameForm: RequestedSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
const askName = resolver({}, function askName() {
  return elicit('What is your name?', formSchema({ name: v.string() }))
})

/** A server with a plain tool, a café tool, a header-mirrored argument, a raw asker, a resolver asker, a sampler. */
function makeServer() {
  const mcp = new McpServer(
    { name: 'wire', version: '1' },
    { requestStateSecurity: new RequestStateSecurity({ keys: [KEY] }) },
  )
  mcp.tool('ping', { description: 'pong' }, () => 'pong')
  mcp.tool('café', { description: 'non-ASCII name' }, () => 'served')
  mcp.tool('find', { input: { city: v.string() }, headers: { city: 'City' } }, ({ city }) => `found ${city}`)
  mcp.resource('shortlist', 'books://Załączniki/shortlist', { description: 'non-ASCII URI' }, () => 'list')
  mcp.tool('confirm', { description: 'asks, then echoes the answer it got' }, (_args, ctx) => {
    const got = ctx.inputResponses?.confirm
    if (ctx.requestState !== 'asked' || !got) return inputRequired({ confirm: elicitForm('Sure?', nameForm) }, 'asked')
    if (got.action === 'accept' && !acceptedContent(got))
      return inputRequired({ confirm: elicitForm('Sure?', nameForm) }, 'asked')
    return JSON.stringify(got)
  })
  mcp.tool('greet', { description: 'resolver asks a name', use: { who: askName } }, ({ who }) => `Hello, ${who.name}!`)
  mcp.tool('sample', { description: 'needs sampling' }, (_args, ctx) =>
    ctx.inputResponses?.s
      ? 'sampled'
      : inputRequired({ s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } } }),
  )
  return mcp
}

const CAPS = { elicitation: { form: {} }, sampling: {} }
const tool = (handler: FetchHandler, name: string, extra: Record<string, unknown> = {}) =>
  call(handler, 'tools/call', { name, arguments: {}, ...extra }, CAPS)

/** Round 1 of a tool that asks, then round 2 with `answers` keyed by the question's key. */
async function answerWith(handler: FetchHandler, name: string, make: (key: string) => unknown): Promise<Posted> {
  const first = await tool(handler, name)
  expect(first.body.result.resultType).toBe('input_required')
  const [key] = Object.keys(first.body.result.inputRequests)
  return tool(handler, name, { inputResponses: { [key]: make(key) }, requestState: first.body.result.requestState })
}

const textOf = (res: Posted) => res.body.result.content?.[0]?.text

describe('R4: Hono, a body already read by a middleware', () => {
  const app = (options = {}) => {
    const hono = new Hono<{ Variables: { rpc: string } }>()
    hono.use('/mcp', async (c, next) => {
      if (c.req.method === 'POST') c.set('rpc', (await c.req.json<{ method: string }>()).method)
      await next()
    })
    hono.all('/mcp', createHonoHandler(makeServer(), options))
    return (request: Request) => Promise.resolve(hono.fetch(request))
  }

  it('tools/call ping answers 200 with pong', async () => {
    const res = await call(app(), 'tools/call', { name: 'ping', arguments: {} })
    expect(res.status).toBe(200)
    expect(textOf(res)).toBe('pong')
  })

  it('a middleware that read the text, or the body twice, changes nothing', async () => {
    const hono = new Hono()
    hono.use('/mcp', async (c, next) => {
      await c.req.text()
      await c.req.json()
      await next()
    })
    hono.all('/mcp', createHonoHandler(makeServer()))
    const res = await call((r) => Promise.resolve(hono.fetch(r)), 'tools/call', { name: 'ping', arguments: {} })
    expect([res.status, textOf(res)]).toEqual([200, 'pong'])
  })

  it('a middleware that consumed the raw Request (no copy kept): 500 -32603, the log names the cause', async () => {
    const { logger, error } = recordingLogger()
    const mcp = new McpServer({ name: 'wire', version: '1' }, { logger })
    mcp.tool('ping', {}, () => 'pong')
    const hono = new Hono()
    hono.use('/mcp', async (c, next) => {
      await c.req.raw.text() // the raw Request: Hono keeps no copy
      await next()
    })
    hono.all('/mcp', createHonoHandler(mcp))
    const res = await post(
      (r) => Promise.resolve(hono.fetch(r)),
      req('tools/call', { name: 'ping', arguments: {} }),
      std('tools/call', 'ping'),
    )
    expect([res.status, res.body.error.code, res.body.error.message]).toEqual([500, -32603, 'Internal error'])
    expect(error.join('\n')).toContain('The request body was already read before the MCP handler')
  })

  it('the body cap still holds: 413 over maxBodyBytes, counted or declared', async () => {
    const body = req('tools/call', { name: 'ping', arguments: { pad: 'x'.repeat(600) } })
    const counted = await post(app({ maxBodyBytes: 500 }), body, std('tools/call', 'ping'))
    expect([counted.status, counted.body.error.code]).toEqual([413, -32600])
    const declared = await post(app({ maxBodyBytes: 500 }), body, {
      ...std('tools/call', 'ping'),
      'content-length': String(JSON.stringify(body).length),
    })
    expect(declared.status).toBe(413)
    const under = await call(app({ maxBodyBytes: 2000 }), 'tools/call', { name: 'ping', arguments: {} })
    expect(under.status).toBe(200)
  })

  it('a body that breaks off mid-stream (the client left): 400 -32600, nothing logged as an error', async () => {
    const { logger, error } = recordingLogger()
    const mcp = new McpServer({ name: 'wire', version: '1' }, { logger })
    mcp.tool('ping', {}, () => 'pong')
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,'))
        controller.error(new TypeError('Network connection lost'))
      },
    })
    const res = await createFetchHandler(mcp)(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: std('tools/call', 'ping'),
        body,
        duplex: 'half',
      } as RequestInit),
    )
    const json = (await res.json()) as { error: { code: number; message: string } }
    expect([res.status, json.error.code, json.error.message]).toEqual([
      400,
      -32600,
      'The request body broke off before its end',
    ])
    expect(error).toEqual([])
  })
})

describe('R7: header values are visible ASCII before anything else', () => {
  const latin1 = (s: string) => String.fromCharCode(...new TextEncoder().encode(s)) // raw UTF-8 bytes as a ByteString

  for (const [label, handler] of adapters(makeServer())) {
    it(`${label}: Mcp-Name caf\\xE9 (Latin-1) for the tool café is a mismatch; the base64 form is served`, async () => {
      const body = req('tools/call', { name: 'café', arguments: {} })
      const raw = await post(handler, body, std('tools/call', 'caf\xE9'))
      expect([raw.status, raw.body.error.code]).toEqual([400, -32020])
      expect(raw.body.error.message).toContain("'caf\\u00e9' is not visible ASCII")
      const ok = await post(
        handler,
        req('tools/call', { name: 'café', arguments: {} }),
        std('tools/call', encodeHeaderValue('café')),
      )
      expect([ok.status, textOf(ok)]).toEqual([200, 'served'])
    })

    it(`${label}: Mcp-Name books://Załączniki/shortlist as raw UTF-8 is a mismatch`, async () => {
      const uri = 'books://Załączniki/shortlist'
      const raw = await post(handler, req('resources/read', { uri }), std('resources/read', latin1(uri)))
      expect([raw.status, raw.body.error.code]).toEqual([400, -32020])
      const ok = await post(handler, req('resources/read', { uri }), std('resources/read', encodeHeaderValue(uri)))
      expect(ok.status).toBe(200)
    })

    it(`${label}: an Mcp-Param-* value with a byte over 0x7E is a mismatch even when it spells the argument`, async () => {
      const params = { name: 'find', arguments: { city: 'Kraków' } }
      const raw = await post(handler, req('tools/call', params, CAPS), {
        ...std('tools/call', 'find'),
        'mcp-param-city': latin1('Kraków'),
      })
      expect([raw.status, raw.body.error.code]).toEqual([400, -32020])
      expect(raw.body.error.message).toContain("'Krak\\u00c3\\u00b3w' is not visible ASCII")
      const latin = await post(handler, req('tools/call', { name: 'find', arguments: { city: 'é' } }, CAPS), {
        ...std('tools/call', 'find'),
        'mcp-param-city': '\xE9',
      })
      expect([latin.status, latin.body.error.code]).toEqual([400, -32020])
      const ok = await post(handler, req('tools/call', params, CAPS), {
        ...std('tools/call', 'find'),
        'mcp-param-city': encodeHeaderValue('Kraków'),
      })
      expect([ok.status, textOf(ok)]).toEqual([200, 'found Kraków'])
    })

    it(`${label}: Mcp-Method and MCP-Protocol-Version are checked raw too`, async () => {
      const method = await post(handler, req('tools/list'), { ...std('tools/list'), 'mcp-method': 'tools/list\xA0' })
      expect([method.status, method.body.error.code]).toEqual([400, -32020])
      const version = await post(handler, req('tools/list'), {
        ...std('tools/list'),
        'mcp-protocol-version': '2026-07-28\xFF',
      })
      expect([version.status, version.body.error.code]).toEqual([400, -32020])
    })
  }

  it('as workerd hands it over (raw UTF-8 decoded to text), Mcp-Name equal to the body URI is still a mismatch', async () => {
    const uri = 'books://Załączniki/shortlist'
    const request = new Request('http://localhost/mcp', {
      method: 'POST',
      headers: std('resources/read', 'placeholder'),
      body: JSON.stringify(req('resources/read', { uri })),
    })
    const headers = request.headers
    const decoded = { get: (name: string) => (name.toLowerCase() === 'mcp-name' ? uri : headers.get(name)) }
    Object.defineProperty(request, 'headers', { value: decoded }) // Node's Headers refuses chars over 0xFF
    const res = await createFetchHandler(makeServer())(request)
    const body = (await res.json()) as { error: { code: number; message: string } }
    expect([res.status, body.error.code]).toEqual([400, -32020])
    expect(body.error.message).toContain("'books://Za\\u0142\\u0105czniki/shortlist' is not visible ASCII")
  })

  it('tab and 0x20–0x7E are visible ASCII; DEL, controls and anything over 0x7E are not', () => {
    expect(isVisibleAscii('a\tb ~')).toBe(true)
    for (const bad of ['\x7F', '\x00', '\n', '\xE9', 'ł', '\uD800']) expect(isVisibleAscii(`a${bad}`)).toBe(false)
  })

  it('a mismatch shows the two values distinguishably (escaped, lone surrogates included)', async () => {
    const handler = createFetchHandler(makeServer())
    const nfd = await post(handler, req('tools/call', { name: 'cafe\u0301', arguments: {} }), {
      ...std('tools/call', encodeHeaderValue('café')),
    })
    expect(nfd.body.error.message).toBe(
      "Header mismatch: Mcp-Name header value 'caf\\u00e9' does not match body value 'cafe\\u0301'",
    )
    const lone = await post(
      handler,
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"\\ud800","_meta":${JSON.stringify(env(CAPS))}}}`,
      std('tools/call', encodeHeaderValue('\uFFFD')),
    )
    expect(lone.body.error.message).toBe(
      "Header mismatch: Mcp-Name header value '\\ufffd' does not match body value '\\ud800'",
    )
    expect(quoteValue("it's a\\b")).toBe("'it\\'s a\\\\b'")
  })
})

describe('R8 / R9: content null is no content; a decline or cancel ignores its content', () => {
  const handler = createFetchHandler(makeServer())

  it('2026 inputResponses: cancel / decline with content null, nested or a string are a cancel / decline', async () => {
    const cancel = await answerWith(handler, 'confirm', () => ({ action: 'cancel' }))
    expect(textOf(cancel)).toBe('{"action":"cancel"}')
    for (const content of [null, 'nope', { confirm: { nested: 1 } }]) {
      const res = await answerWith(handler, 'confirm', () => ({ action: 'cancel', content }))
      expect([res.status, textOf(res)]).toEqual([200, '{"action":"cancel"}'])
      const dec = await answerWith(handler, 'confirm', () => ({ action: 'decline', content }))
      expect([dec.status, textOf(dec)]).toEqual([200, '{"action":"decline"}'])
    }
  })

  it('2026 inputResponses: accept with content null is an answer with nothing in it (asked again)', async () => {
    const res = await answerWith(handler, 'confirm', () => ({ action: 'accept', content: null }))
    expect(res.status).toBe(200)
    expect(res.body.result.resultType).toBe('input_required')
    const accepted = await answerWith(handler, 'confirm', () => ({ action: 'accept', content: { name: 'Ada' } }))
    expect(textOf(accepted)).toBe('{"action":"accept","content":{"name":"Ada"}}')
  })

  it('resolvers: a decline with content is a decline, accept with content null asks again', async () => {
    const plain = await answerWith(handler, 'greet', () => ({ action: 'decline' }))
    const nested = await answerWith(handler, 'greet', () => ({
      action: 'decline',
      content: { confirm: { nested: 1 } },
    }))
    expect(nested.status).toBe(200)
    expect(nested.body.result).toEqual(plain.body.result)
    const cancelled = await answerWith(handler, 'greet', () => ({ action: 'cancel', content: 'nope' }))
    const cancelPlain = await answerWith(handler, 'greet', () => ({ action: 'cancel' }))
    expect(cancelled.body.result).toEqual(cancelPlain.body.result)
    expect(cancelled.body.result.content[0].text).not.toBe(nested.body.result.content[0].text)
    const empty = await answerWith(handler, 'greet', () => ({ action: 'accept', content: null }))
    expect(empty.body.result.resultType).toBe('input_required')
  })

  it('an accept whose content is not a form answer is still -32602', async () => {
    const res = await answerWith(handler, 'confirm', () => ({ action: 'accept', content: 'nope' }))
    expect(res.body.error.code).toBe(-32602)
  })

  it('a malformed sampling answer is reported by its own fields, not as a missing action', async () => {
    const res = await answerWith(handler, 'sample', () => ({ role: 'assistant', content: { type: 'text', text: 'x' } }))
    expect(res.body.error.code).toBe(-32602)
    expect(res.body.error.message).toContain("field 's.model'")
    expect(res.body.error.message).not.toContain('action')
  })

  it('2025 legacy questions: an elicitation/create answer with content null, or a decline / cancel with content', async () => {
    const mcp = makeServer()
    const legacy = createFetchHandler(mcp)
    const session = await initializeLegacy(legacy, { elicitation: {} })
    let id = 100
    const ask = async (name: string, result: unknown) => {
      const stream = sseReader(
        await legacyPost(
          legacy,
          { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: {} } },
          session,
        ),
      )
      const question = await stream.next()
      expect(question.method).toBe('elicitation/create')
      expect((await legacyPost(legacy, answer(question.id, result), session)).status).toBe(202)
      return stream
    }
    const cases: Array<[unknown, string]> = [
      [{ action: 'cancel', content: null }, '{"action":"cancel"}'],
      [{ action: 'decline', content: null }, '{"action":"decline"}'],
      [{ action: 'decline', content: { confirm: { nested: 1 } } }, '{"action":"decline"}'],
      [{ action: 'cancel', content: 'nope' }, '{"action":"cancel"}'],
    ]
    for (const [result, text] of cases) {
      const stream = await ask('confirm', result)
      expect((await stream.next()).result).toEqual({ content: [{ type: 'text', text }] })
    }
    const greet = await ask('greet', { action: 'decline', content: 'nope' })
    const declined = (await greet.next()).result as { content: Array<{ text: string }> }
    expect(declined.content[0].text).toMatch(/declin/i)
    const again = await ask('confirm', { action: 'accept', content: null })
    const next = await again.next()
    expect(next.method).toBe('elicitation/create') // asked again, as for a missing required field
    await again.cancel()
  })
})

describe('R7 on workerd (the demo Worker under wrangler dev): raw UTF-8 bytes in Mcp-Name', () => {
  let worker: RunningWorker
  beforeAll(async () => {
    worker = await startWorker()
  }, 120_000)
  afterAll(async () => worker?.stop())

  /** POST with `Mcp-Name` as raw UTF-8 bytes on the wire (node:http writes a Latin-1 string byte for byte). */
  const rawPost = (name: string) =>
    new Promise<{ status: number; body: { error: { code: number; message: string } } }>((resolve, reject) => {
      const body = JSON.stringify(req('tools/call', { name, arguments: {} }, CAPS))
      const headers = { ...std('tools/call'), 'mcp-name': String.fromCharCode(...new TextEncoder().encode(name)) }
      const r = httpRequest(worker.url, { method: 'POST', headers }, (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (text += d))
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as never }))
      })
      r.on('error', reject)
      r.end(body)
    })

  it('a name sent as raw UTF-8 is refused by the ASCII check first (400, -32020), not compared or looked up', async () => {
    const res = await rawPost('zażółć')
    expect([res.status, res.body.error.code]).toEqual([400, -32020])
    expect(res.body.error.message).toMatch(/is not visible ASCII/)
  }, 30_000)
})
