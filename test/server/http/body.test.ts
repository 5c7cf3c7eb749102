/**
 * The request body as the Streamable HTTP server reads it: already read by a Hono middleware (a copy Hono
 * kept is used; the raw Request consumed is a logged 500), under the `maxBodyBytes` cap, broken off mid-stream.
 */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { createHonoHandler } from '../../../src/hono/index.ts'
import { McpServer, createFetchHandler } from '../../../src/server/index.ts'
import { call, post, recordingLogger, req, std } from '../../helpers.ts'
import { makeServer, textOf } from '../../fixtures/wire-server.ts'

// shared/cases/robustness.md R4
describe('Hono: a body already read by a middleware', () => {
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
