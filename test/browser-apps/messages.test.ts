/** What the browser host accepts from an App (src/browser/apps/messages.ts): JSON-RPC 2.0 of each method's shape. */
import { describe, expect, it } from 'vitest'
import { parseAppMessage } from '../../src/browser/apps/messages.ts'

describe('parseAppMessage', () => {
  it('reads requests, notifications and responses of the spec’s shapes', () => {
    expect(
      parseAppMessage({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', arguments: { a: 1 } } }),
    ).toEqual({ kind: 'request', id: 1, method: 'tools/call', params: { name: 't', arguments: { a: 1 } } })
    expect(parseAppMessage({ jsonrpc: '2.0', id: 'a', method: 'ping' })).toEqual({
      kind: 'request',
      id: 'a',
      method: 'ping',
      params: {},
    })
    expect(
      parseAppMessage({ jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: { height: 120 } }),
    ).toEqual({ kind: 'notification', method: 'ui/notifications/size-changed', params: { height: 120 } })
    expect(parseAppMessage({ jsonrpc: '2.0', id: 7, result: {} })).toEqual({
      kind: 'response',
      id: 7,
      error: undefined,
    })
    // ui/message: the spec's single block and the SDK's array both pass
    for (const content of [{ type: 'text', text: 'hi' }, [{ type: 'text', text: 'hi' }]])
      expect(
        parseAppMessage({ jsonrpc: '2.0', id: 2, method: 'ui/message', params: { role: 'user', content } }),
      ).toMatchObject({ kind: 'request' })
  })

  it.each([
    ['a string', 'hello', 'not a JSON-RPC 2.0 message'],
    ['no jsonrpc', { id: 1, method: 'ping' }, 'not a JSON-RPC 2.0 message'],
    ['a numeric method', { jsonrpc: '2.0', id: 1, method: 5 }, 'method must be a string'],
    ['array params', { jsonrpc: '2.0', id: 1, method: 'ping', params: [] }, 'ping: params must be an object'],
    ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, 'ping: id must be a string or an integer'],
    [
      'tools/call without a name',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} },
      'tools/call: params.name must be a string',
    ],
    [
      'tools/call with array arguments',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: [1] } },
      'tools/call: params.arguments must be an object',
    ],
    [
      'open-link without url',
      { jsonrpc: '2.0', id: 1, method: 'ui/open-link', params: { href: 'x' } },
      'ui/open-link: params.url must be a string',
    ],
    [
      'message as assistant',
      { jsonrpc: '2.0', id: 1, method: 'ui/message', params: { role: 'assistant', content: [] } },
      "ui/message: params.role must be 'user'",
    ],
    [
      'message without blocks',
      { jsonrpc: '2.0', id: 1, method: 'ui/message', params: { role: 'user', content: 'hi' } },
      'ui/message: params.content must be one or more content blocks',
    ],
    // the host shows a message's text in its consent dialog and hands the blocks to the page: text is text
    ...[{ type: 'text', text: { evil: true } }, [{ type: 'text' }], []].map((content): [string, unknown, string] => [
      `message content ${JSON.stringify(content)}`,
      { jsonrpc: '2.0', id: 1, method: 'ui/message', params: { role: 'user', content } },
      'ui/message: params.content must be one or more content blocks',
    ]),
    [
      'model context with a text block without text',
      { jsonrpc: '2.0', id: 1, method: 'ui/update-model-context', params: { content: [{ type: 'text', text: 5 }] } },
      'ui/update-model-context: params.content must be an array of content blocks',
    ],
    [
      'negative height',
      { jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: { height: -1 } },
      'ui/notifications/size-changed: params.width and height must be numbers ≥ 0',
    ],
    [
      'infinite width',
      { jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: { width: Infinity } },
      'ui/notifications/size-changed: params.width and height must be numbers ≥ 0',
    ],
    [
      'an unknown display mode',
      { jsonrpc: '2.0', id: 1, method: 'ui/request-display-mode', params: { mode: 'huge' } },
      "ui/request-display-mode: params.mode must be 'inline', 'fullscreen' or 'pip'",
    ],
    [
      'a log without level',
      { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x' } },
      'notifications/message: params.level must be a logging level',
    ],
    [
      'initialize without version',
      { jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: {} },
      'ui/initialize: params.protocolVersion must be a string',
    ],
    [
      'a response with both result and error',
      { jsonrpc: '2.0', id: 1, result: {}, error: {} },
      'a response needs exactly one of result and error',
    ],
    ['a response without id', { jsonrpc: '2.0', result: {} }, 'a response without a valid id'],
  ])('%s is refused with a reason', (_, data, reason) => {
    expect(parseAppMessage(data)).toBe(reason)
  })
})
