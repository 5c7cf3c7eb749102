import { describe, expect, it } from 'vitest'
import { ClientError, EdgeMcpError, ServerError, McpError, ErrorCode } from '../src/index.ts'
import {
  HttpError,
  InputRequiredRoundsExceededError,
  InvalidInputResponseError,
  InvalidResultError,
  MissingInputHandlerError,
  NetworkError,
  OAuthError,
  RequestTimeoutError,
  SubscriptionDroppedError,
} from '../src/client/index.ts'
import { InvalidRequestStateError, InvalidSignatureError, ResolutionError } from '../src/server/index.ts'
import { UriTemplateError } from '../src/index.ts'
import { SamplingDeclinedError } from '../src/browser/index.ts'

describe('errors: one base class per side, each with its name and a stable string code', () => {
  const client: [Error, string, string][] = [
    [new HttpError(502, 'bad gateway'), 'HttpError', 'ERR_HTTP'],
    [new InvalidResultError('bad'), 'InvalidResultError', 'ERR_INVALID_RESULT'],
    [new NetworkError('http://x', new TypeError('refused')), 'NetworkError', 'ERR_NETWORK'],
    [new RequestTimeoutError('tools/list', 10), 'RequestTimeoutError', 'ERR_REQUEST_TIMEOUT'],
    [new InputRequiredRoundsExceededError(3), 'InputRequiredRoundsExceededError', 'ERR_INPUT_REQUIRED_ROUNDS_EXCEEDED'],
    [new MissingInputHandlerError('sampling', 'k'), 'MissingInputHandlerError', 'ERR_MISSING_INPUT_HANDLER'],
    [new InvalidInputResponseError('k', 'no'), 'InvalidInputResponseError', 'ERR_INVALID_INPUT_RESPONSE'],
    [new SubscriptionDroppedError(1, new Error('x')), 'SubscriptionDroppedError', 'ERR_SUBSCRIPTION_DROPPED'],
    [new SamplingDeclinedError(), 'SamplingDeclinedError', 'ERR_SAMPLING_DECLINED'],
    [new OAuthError('invalid_grant', 'refused'), 'OAuthError', 'invalid_grant'],
  ]
  const server: [Error, string, string][] = [
    [new InvalidRequestStateError('seal'), 'InvalidRequestStateError', 'ERR_INVALID_REQUEST_STATE'],
    [new InvalidSignatureError('bad graph'), 'InvalidSignatureError', 'ERR_INVALID_SIGNATURE'],
    [new ResolutionError('declined'), 'ResolutionError', 'ERR_RESOLUTION'],
  ]
  it.each(client)('%s is a ClientError', (error, name, code) => {
    expect(error).toBeInstanceOf(ClientError)
    expect(error).toBeInstanceOf(EdgeMcpError)
    expect(error).not.toBeInstanceOf(ServerError)
    expect(error).toMatchObject({ name, code })
  })
  it.each(server)('%s is a ServerError', (error, name, code) => {
    expect(error).toBeInstanceOf(ServerError)
    expect(error).not.toBeInstanceOf(ClientError)
    expect(error).toMatchObject({ name, code })
  })
  it('UriTemplateError (either side) is an EdgeMcpError; McpError (the wire error) keeps its numeric JSON-RPC code', () => {
    expect(new UriTemplateError('x')).toMatchObject({ name: 'UriTemplateError', code: 'ERR_URI_TEMPLATE' })
    expect(new UriTemplateError('x')).toBeInstanceOf(EdgeMcpError)
    const wire = new McpError(ErrorCode.InvalidParams, 'bad')
    expect(wire).not.toBeInstanceOf(EdgeMcpError)
    expect(wire.code).toBe(-32602)
  })
  it('keeps the cause it was given', () => {
    const cause = new TypeError('refused')
    expect(new NetworkError('http://x', cause).cause).toBe(cause)
  })
})
