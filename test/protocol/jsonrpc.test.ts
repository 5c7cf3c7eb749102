import { describe, expect, it } from 'vitest'
import { ErrorCode, McpError } from '../../src/index.ts'
import {
  checkProtocolVersion,
  hasCapability,
  hasEnvelope,
  readEnvelope,
  requireCapabilities,
} from '../../src/protocol/envelope.ts'
import { decodeHeaderValue, encodeHeaderValue } from '../../src/protocol/headers.ts'
import { classifyMessage, parseMessage } from '../../src/protocol/jsonrpc.ts'
import { env } from '../helpers.ts'

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

describe('request envelope', () => {
  it('reads protocolVersion, clientCapabilities and clientInfo', () => {
    const e = readEnvelope({ _meta: env({ sampling: {} }) })
    expect(e.protocolVersion).toBe('2026-07-28')
    expect(e.clientCapabilities).toEqual({ sampling: {} })
    expect(e.clientInfo).toEqual({ name: 't', version: '0' })
  })
  it('is claimed by the protocolVersion key alone, not by the io.modelcontextprotocol/ prefix 2025 keys share', () => {
    const task = { 'io.modelcontextprotocol/related-task': { taskId: 't1' } } // defined by the 2025-11-25 schema
    expect(hasEnvelope({ _meta: task })).toBe(false)
    expect(hasEnvelope({ _meta: { ...task, progressToken: 1 } })).toBe(false)
    expect(hasEnvelope(undefined)).toBe(false)
    expect(hasEnvelope({ _meta: null })).toBe(false)
    expect(hasEnvelope({ _meta: { ...task, ...env() } })).toBe(true)
    // a malformed claim is still a claim: the 2026 lane answers it -32602
    expect(hasEnvelope({ _meta: { 'io.modelcontextprotocol/protocolVersion': 5 } })).toBe(true)
  })
  it('answers -32602 with HTTP 400 naming the missing field', () => {
    for (const params of [{}, { _meta: {} }, { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }]) {
      try {
        readEnvelope(params)
        expect.unreachable()
      } catch (error) {
        expect(error).toBeInstanceOf(McpError)
        expect((error as McpError).code).toBe(-32602)
        expect((error as McpError).httpStatus).toBe(400)
        expect((error as McpError).message).toMatch(/_meta/)
      }
    }
    try {
      readEnvelope({ _meta: { ...env(), 'io.modelcontextprotocol/clientCapabilities': 'all' } })
      expect.unreachable()
    } catch (error) {
      expect((error as McpError).message).toContain('io.modelcontextprotocol/clientCapabilities')
    }
  })
  it('answers an unsupported version with -32022 {supported, requested}', () => {
    try {
      checkProtocolVersion('1900-01-01', ['2026-07-28'])
      expect.unreachable()
    } catch (error) {
      expect((error as McpError).toJSON()).toEqual({
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: ['2026-07-28'], requested: '1900-01-01' },
      })
      expect((error as McpError).httpStatus).toBe(400)
    }
  })
  it('checks capabilities: elicitation {} means form only', () => {
    expect(hasCapability({ elicitation: {} }, 'elicitation.form')).toBe(true)
    expect(hasCapability({ elicitation: {} }, 'elicitation.url')).toBe(false)
    expect(hasCapability({ elicitation: { url: {} } }, 'elicitation.form')).toBe(false)
    expect(hasCapability({ sampling: {} }, 'sampling.tools')).toBe(false)
    try {
      requireCapabilities({}, 'elicitation.form', 'sampling.tools')
      expect.unreachable()
    } catch (error) {
      expect((error as McpError).code).toBe(-32021)
      expect((error as McpError).data).toEqual({
        requiredCapabilities: { elicitation: { form: {} }, sampling: { tools: {} } },
      })
    }
  })
})

describe('header value codec', () => {
  it('passes safe ASCII and base64-encodes everything else', () => {
    expect(encodeHeaderValue('get_weather')).toBe('get_weather')
    for (const value of ['café', ' padded ', 'line\nbreak', '=?base64?Zm9v?=', '日本語', '']) {
      const encoded = encodeHeaderValue(value)
      expect(/^[\x20-\x7e]*$/.test(encoded)).toBe(true)
      expect(decodeHeaderValue(encoded)).toBe(value)
    }
    expect(encodeHeaderValue('café')).toBe('=?base64?Y2Fmw6k=?=')
    expect(decodeHeaderValue('=?base64?//79?=')).toBeUndefined() // not UTF-8
  })
  it('accepts only canonical base64 in Mcp-Name', () => {
    expect(decodeHeaderValue('=?base64?ZWNobw==?=')).toBe('echo')
    for (const bad of ['=?base64?ZWNobw?=', '=?base64?YR==?=', '=?base64?77u/ZWNobw==?=']) {
      const decoded = decodeHeaderValue(bad)
      expect(decoded === undefined || decoded !== 'echo', bad).toBe(true)
    }
    expect(decodeHeaderValue('=?base64?77u/ZWNobw==?=')).toBe('\ufeffecho') // the BOM is kept, so it cannot pass as "echo"
  })
})

describe('describeIssue', () => {
  it('explains a union of object shapes by the alternative that got furthest, with the full path', async () => {
    const v = await import('valibot')
    const { InputResponses } = await import('../../src/protocol/schemas/index.ts')
    const { describeIssue } = await import('../../src/protocol/issues.ts')
    const nested = v.safeParse(InputResponses, { region: { action: 'accept', content: { region: { nested: 1 } } } })
    expect(nested.success).toBe(false)
    expect(describeIssue(nested.issues![0])).toBe(
      "field 'region.content.region': Invalid type: Expected (string | number | boolean | Array) but received Object",
    )
    const flat = v.safeParse(v.object({ a: v.union([v.string(), v.number()]) }), { a: true })
    expect(describeIssue(flat.issues![0])).toBe("field 'a': Invalid type: Expected (string | number) but received true")
  })
})
