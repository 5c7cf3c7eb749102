/**
 * Everything we put on the wire validates against the official 2026-07-28 schema.json: each server
 * response (results and errors) and each client request of a full session against the demo server.
 */
import { describe, expect, it } from 'vitest'
import { schemaErrors } from './spec-schema.ts'
import { Client, StreamableHttpClientTransport } from '../src/client/index.ts'
import { createFetchHandler, McpServer, inputRequired } from '../src/server/index.ts'
import { createDemoServer } from '../worker/server.ts'
import { env, json, post, req, std, type WireRequest, type WireResponse } from './helpers.ts'

const validator = (def: string) => (value: unknown) => schemaErrors(def, value)

const RESPONSE_DEF: Record<string, string> = {
  'server/discover': 'DiscoverResultResponse',
  'tools/list': 'ListToolsResultResponse',
  'tools/call': 'CallToolResultResponse',
}
const REQUEST_DEF: Record<string, string> = {
  'server/discover': 'DiscoverRequest',
  'tools/list': 'ListToolsRequest',
  'tools/call': 'CallToolRequest',
}

describe('what we emit validates against schema.json', () => {
  it('a full client session: every request and every response', async () => {
    const handler = createFetchHandler(createDemoServer())
    const exchanges: Array<{ request: WireRequest; response: WireResponse }> = []
    const transport = new StreamableHttpClientTransport('http://x/mcp', {
      fetch: async (r) => {
        const request = await json<WireRequest>(r.clone())
        const res = await handler(r)
        exchanges.push({ request, response: await json<WireResponse>(res.clone()) })
        return res
      },
    })
    let answer = 0
    const client = new Client({
      transport,
      clientInfo: { name: 'schema-test', version: '1.0.0' },
      elicitation: (p) =>
        answer++ % 2 === 0 && p.mode !== 'url' && 'region' in p.requestedSchema.properties
          ? { action: 'accept', content: { region: 'eu-west-1' } }
          : { action: 'accept', content: { confirm: true } },
    })
    await client.discover()
    await client.listTools()
    await client.callTool('provision', { name: 'orders' })
    await client.callTool('order_book', { title: 'Neuromancer' })
    await client.callTool('reserve_book', { title: 'Dune' })
    await client.callTool('reserve_book', {}) // isError result
    await client.callTool('nope').catch(() => {}) // -32602 error
    expect(exchanges.length).toBe(9)
    for (const { request, response } of exchanges) {
      expect(validator('ClientRequest')(request), JSON.stringify(request)).toEqual([])
      expect(validator(REQUEST_DEF[request.method])(request)).toEqual([])
      expect(validator('JSONRPCResponse')(response), JSON.stringify(response)).toEqual([])
      if ('result' in response)
        expect(validator(RESPONSE_DEF[request.method])(response), JSON.stringify(response)).toEqual([])
      else expect(validator('JSONRPCErrorResponse')(response)).toEqual([])
    }
    const irr = exchanges.find((e) => e.response.result?.resultType === 'input_required')!.response.result
    expect(validator('InputRequiredResult')(irr)).toEqual([])
    const retry = exchanges.find((e) => e.request.params.inputResponses)!.request.params
    expect(validator('InputResponses')(retry.inputResponses)).toEqual([])
  })

  it('every error the endpoint answers with', async () => {
    const mcp = createDemoServer()
    const handler = createFetchHandler(mcp)
    const errors = [
      await post(handler, '{', std('tools/list')),
      await post(handler, [], std('tools/list')),
      await post(handler, req('nope/nope'), std('nope/nope')),
      await post(handler, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, std('tools/list')),
      await post(
        handler,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: { _meta: { ...env(), 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } },
        },
        { ...std('tools/list'), 'mcp-protocol-version': '1900-01-01' },
      ),
      await post(handler, req('tools/call', { name: 'b' }), std('tools/call', 'a')),
      await post(
        handler,
        req('tools/call', { name: 'provision', arguments: { name: 'x' } }, {}),
        std('tools/call', 'provision'),
      ),
      await post(
        handler,
        req('tools/call', { name: 'provision', arguments: { name: 'x' }, requestState: 'forged' }),
        std('tools/call', 'provision'),
      ),
      await handler(new Request('http://x/mcp', { method: 'GET' })).then(async (r) => ({
        body: await json<WireResponse>(r),
      })),
    ]
    const codes = errors.map((e) => e.body.error.code)
    expect(codes).toEqual([-32700, -32600, -32601, -32602, -32022, -32020, -32021, -32602, -32600])
    for (const e of errors) expect(validator('JSONRPCErrorResponse')(e.body), JSON.stringify(e.body)).toEqual([])
    expect(validator('UnsupportedProtocolVersionError')(errors[4].body)).toEqual([])
    expect(validator('HeaderMismatchError')(errors[5].body)).toEqual([])
    expect(validator('MissingRequiredClientCapabilityError')(errors[6].body)).toEqual([])
    expect(validator('MethodNotFoundError')(errors[2].body.error)).toEqual([])
    expect(validator('ParseError')(errors[0].body.error)).toEqual([])
    expect(validator('InvalidParamsError')(errors[7].body.error)).toEqual([])
  })

  it('a state-only InputRequiredResult', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('wait', {}, () => inputRequired(undefined, 'pending'))
    const res = await post(createFetchHandler(mcp), req('tools/call', { name: 'wait' }), std('tools/call', 'wait'))
    expect(res.body.result.inputRequests).toBeUndefined()
    expect(validator('CallToolResultResponse')(res.body)).toEqual([])
  })
})
