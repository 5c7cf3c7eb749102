/** The 2026-07-28 request envelope (src/protocol/envelope.ts): reading it, the protocol version, capabilities. */
import { describe, expect, it } from 'vitest'
import { McpError } from '../../src/index.ts'
import {
  checkProtocolVersion,
  hasCapability,
  hasEnvelope,
  readEnvelope,
  requireCapabilities,
} from '../../src/protocol/envelope.ts'
import { env } from '../helpers.ts'

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
