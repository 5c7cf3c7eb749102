/** JSON-RPC 2.0 framing (src/protocol/jsonrpc.ts): parsing a message and classifying it, with the error codes. */
import { describe, expect, it } from 'vitest'
import { ErrorCode, McpError } from '../../src/index.ts'
import { classifyMessage, parseMessage } from '../../src/protocol/jsonrpc.ts'

function codeOf(fn: () => unknown): number | undefined {
  try {
    fn()
  } catch (error) {
    return (error as McpError).code
  }
  return undefined
}

describe('JSON-RPC framing', () => {
  it('classifies requests and notifications', () => {
    expect(parseMessage('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}')).toEqual({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} },
    })
    expect(parseMessage('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}').kind).toBe(
      'notification',
    )
  })
  it('rejects invalid JSON with -32700 and malformed messages with -32600', () => {
    expect(codeOf(() => parseMessage('{"jsonrpc":"2.0","id":2,"method":'))).toBe(ErrorCode.ParseError)
    expect(codeOf(() => parseMessage(''))).toBe(ErrorCode.ParseError)
    for (const bad of [
      [],
      [{ jsonrpc: '2.0', id: 1, method: 'x' }],
      { jsonrpc: '1.0', id: 1, method: 'x' },
      { jsonrpc: '2.0', id: 1 },
      { jsonrpc: '2.0', id: 1, result: 'x' },
      { jsonrpc: '2.0', id: null, result: {} },
      { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } },
      { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'm' } },
      { jsonrpc: '2.0', id: 1, error: { code: 1 } },
      { jsonrpc: '2.0', id: null, method: 'x' },
      { jsonrpc: '2.0', id: {}, method: 'x' },
      { jsonrpc: '2.0', id: true, method: 'x' },
      { jsonrpc: '2.0', id: [1], method: 'x' },
      { jsonrpc: '2.0', id: 1, method: 'x', params: [1] },
      'text',
    ]) {
      expect(
        codeOf(() => classifyMessage(bad)),
        JSON.stringify(bad),
      ).toBe(ErrorCode.InvalidRequest)
    }
  })
  it('classifies a response (a 2025-era client answering a server-to-client request)', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: 'q1.x', result: { action: 'decline' } })).toEqual({
      kind: 'response',
      message: { id: 'q1.x', result: { action: 'decline' } },
    })
    expect(classifyMessage({ jsonrpc: '2.0', id: 3, error: { code: -1, message: 'no', data: 1 } })).toEqual({
      kind: 'response',
      message: { id: 3, error: { code: -1, message: 'no', data: 1 } },
    })
  })
})
