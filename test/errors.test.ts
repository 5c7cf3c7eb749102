import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  ClientError,
  EdgeMcpError,
  ServerError,
  McpError,
  ErrorCode,
  UriTemplateError,
  type EdgeMcpErrorCode,
} from '../src/index.ts'
import {
  ConnectionClosedError,
  HttpError,
  InputRequiredRoundsExceededError,
  InvalidInputResponseError,
  InvalidResultError,
  MissingInputHandlerError,
  NetworkError,
  OAuthError,
  RequestTimeoutError,
  SubscriptionDroppedError,
  TaskEndedError,
} from '../src/client/index.ts'
import {
  InvalidRequestStateError,
  InvalidSignatureError,
  QuestionTimeoutError,
  ResolutionError,
} from '../src/server/index.ts'
import { InvalidTokenError } from '../src/oauth/index.ts'
import { SamplingDeclinedError } from '../src/browser/index.ts'
import {
  HandlerResultError,
  InvalidAnswerError,
  KeySourceError,
  RefusalError,
  RequestCancelledError,
  UpstreamError,
} from '../src/server/errors.ts'
import { Server } from '../src/server/index.ts'
import { introspectionVerifier, jwtVerifier } from '../src/oauth/index.ts'
import { durableObjectMailbox, durableObjectNotificationBus, type MailboxNamespace } from '../src/cloudflare/index.ts'

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
    [new ConnectionClosedError('gone'), 'ConnectionClosedError', 'ERR_CONNECTION_CLOSED'],
    [new SamplingDeclinedError(), 'SamplingDeclinedError', 'ERR_SAMPLING_DECLINED'],
    [new TaskEndedError('t', 'cancelled'), 'TaskEndedError', 'ERR_TASK_ENDED'],
    [new OAuthError('invalid_grant', 'refused'), 'OAuthError', 'ERR_OAUTH'],
  ]
  const server: [Error, string, string][] = [
    [new InvalidRequestStateError('seal'), 'InvalidRequestStateError', 'ERR_INVALID_REQUEST_STATE'],
    [new InvalidSignatureError('bad graph'), 'InvalidSignatureError', 'ERR_INVALID_SIGNATURE'],
    [new ResolutionError('declined'), 'ResolutionError', 'ERR_RESOLUTION'],
    [new RefusalError('decline', 'Pick one'), 'RefusalError', 'ERR_RESOLUTION'],
    [new QuestionTimeoutError(1500), 'QuestionTimeoutError', 'ERR_QUESTION_TIMEOUT'],
    [new RequestCancelledError(), 'RequestCancelledError', 'ERR_REQUEST_CANCELLED'],
    [new InvalidTokenError('expired'), 'InvalidTokenError', 'ERR_INVALID_TOKEN'],
    [new KeySourceError('no JWKS'), 'KeySourceError', 'ERR_KEY_SOURCE'],
    [new HandlerResultError('not an object'), 'HandlerResultError', 'ERR_HANDLER_RESULT'],
    [new InvalidAnswerError('an error answer'), 'InvalidAnswerError', 'ERR_INVALID_ANSWER'],
    [new UpstreamError('the bus answered 500'), 'UpstreamError', 'ERR_UPSTREAM'],
  ]
  it.each(client)('%s is a ClientError', (error, name, code) => {
    expect(error).toBeInstanceOf(ClientError)
    expect(error).toBeInstanceOf(EdgeMcpError)
    expect(error).not.toBeInstanceOf(ServerError)
    expect(error).toMatchObject({ name, code })
    expect((error.constructor as unknown as { code: string }).code).toBe(code)
    expect(String(error)).toBe(`${name}: ${error.message}`)
  })
  it.each(server)('%s is a ServerError', (error, name, code) => {
    expect(error).toBeInstanceOf(ServerError)
    expect(error).toBeInstanceOf(EdgeMcpError)
    expect(error).not.toBeInstanceOf(ClientError)
    expect(error).toMatchObject({ name, code })
    expect((error.constructor as unknown as { code: string }).code).toBe(code)
    expect(String(error)).toBe(`${name}: ${error.message}`)
  })
  it('UriTemplateError (either side) is an EdgeMcpError; McpError (the wire error) keeps its numeric JSON-RPC code', () => {
    expect(new UriTemplateError('x')).toMatchObject({ name: 'UriTemplateError', code: 'ERR_URI_TEMPLATE' })
    expect(UriTemplateError.code).toBe('ERR_URI_TEMPLATE')
    expect(new UriTemplateError('x')).toBeInstanceOf(EdgeMcpError)
    const wire = new McpError(ErrorCode.InvalidParams, 'bad')
    expect(wire).not.toBeInstanceOf(EdgeMcpError)
    expect(wire.code).toBe(-32602)
  })
  it('keeps the cause it was given', () => {
    const cause = new TypeError('refused')
    expect(new NetworkError('http://x', cause).cause).toBe(cause)
    expect(new KeySourceError('no JWKS', { cause }).cause).toBe(cause)
  })
  it('an OAuthError has code ERR_OAUTH and keeps the OAuth error string in `error`', () => {
    const error = new OAuthError('invalid_grant', 'The token request was refused: invalid_grant')
    expect(error).toMatchObject({ code: 'ERR_OAUTH', error: 'invalid_grant', name: 'OAuthError' })
    expect(error.message).toBe('The token request was refused: invalid_grant')
    expect(OAuthError.code).toBe('ERR_OAUTH')
  })
  it('a cancelled request is no McpError (it is never answered on the wire)', () => {
    const cancelled = new RequestCancelledError()
    expect(cancelled).not.toBeInstanceOf(McpError)
    expect(cancelled.message).toBe('Request cancelled: the client went away or cancelled it')
  })
  it('messages are unchanged', () => {
    expect(new QuestionTimeoutError(1500).message).toBe('no answer within 1.5 s')
    expect(new InvalidTokenError('the token has expired').message).toBe('the token has expired')
  })
})

describe('EdgeMcpErrorCode: one code per class, typed to its literal', () => {
  // `satisfies` fails to compile when a code of the union has no class here, or a class's code is not in it
  const classes = {
    ERR_URI_TEMPLATE: UriTemplateError,
    ERR_HTTP: HttpError,
    ERR_NETWORK: NetworkError,
    ERR_INVALID_RESULT: InvalidResultError,
    ERR_REQUEST_TIMEOUT: RequestTimeoutError,
    ERR_INPUT_REQUIRED_ROUNDS_EXCEEDED: InputRequiredRoundsExceededError,
    ERR_MISSING_INPUT_HANDLER: MissingInputHandlerError,
    ERR_INVALID_INPUT_RESPONSE: InvalidInputResponseError,
    ERR_SUBSCRIPTION_DROPPED: SubscriptionDroppedError,
    ERR_CONNECTION_CLOSED: ConnectionClosedError,
    ERR_OAUTH: OAuthError,
    ERR_SAMPLING_DECLINED: SamplingDeclinedError,
    ERR_TASK_ENDED: TaskEndedError,
    ERR_INVALID_REQUEST_STATE: InvalidRequestStateError,
    ERR_INVALID_SIGNATURE: InvalidSignatureError,
    ERR_RESOLUTION: ResolutionError,
    ERR_QUESTION_TIMEOUT: QuestionTimeoutError,
    ERR_REQUEST_CANCELLED: RequestCancelledError,
    ERR_INVALID_TOKEN: InvalidTokenError,
    ERR_KEY_SOURCE: KeySourceError,
    ERR_HANDLER_RESULT: HandlerResultError,
    ERR_INVALID_ANSWER: InvalidAnswerError,
    ERR_UPSTREAM: UpstreamError,
  } satisfies { [K in EdgeMcpErrorCode]: { readonly code: K } }

  it.each(Object.entries(classes))('%s is the static code of its class', (code, cls) => {
    expect(cls.code).toBe(code)
  })

  it('static and instance codes are typed to their literal', () => {
    expectTypeOf(HttpError.code).toEqualTypeOf<'ERR_HTTP'>()
    expectTypeOf(new HttpError(500, '').code).toEqualTypeOf<'ERR_HTTP'>()
    expectTypeOf(new OAuthError('x', 'y').code).toEqualTypeOf<'ERR_OAUTH'>()
    expectTypeOf(new RequestCancelledError().code).toEqualTypeOf<'ERR_REQUEST_CANCELLED'>()
    expectTypeOf<EdgeMcpError['code']>().toEqualTypeOf<EdgeMcpErrorCode>()
  })
})

describe('what the server raises at run time is an EdgeMcpError with its code', () => {
  /** A Durable Object namespace whose every object answers `status`. */
  const failing = (status: number): MailboxNamespace => ({
    idFromName: (name) => name,
    get: () => ({ fetch: () => Promise.resolve(new Response('no', { status })) }),
  })

  it('a handler that returns a non-object: the logged error is a HandlerResultError, the client gets -32603', async () => {
    const logged: unknown[] = []
    const server = new Server({ name: 's', version: '1' }, { logger: { warn() {}, error: (_m, e) => logged.push(e) } })
    server.setRequestHandler('tools/list', () => 'not an object' as never)
    const handled = await server.handleRequest({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
    expect(handled.response).toMatchObject({ error: { code: -32603 } })
    expect(logged).toHaveLength(1)
    expect(logged[0]).toBeInstanceOf(HandlerResultError)
    expect(logged[0]).toMatchObject({
      code: 'ERR_HANDLER_RESULT',
      message: 'handler for tools/list returned a non-object result',
    })
  })

  it('an introspection endpoint that answers 500: KeySourceError (the request gets 503), not InvalidTokenError', async () => {
    const verify = introspectionVerifier({
      endpoint: 'https://as.example/introspect',
      clientId: 'rs',
      fetch: () => Promise.resolve(new Response('down', { status: 500 })),
    })
    const context = { resource: 'https://rs.example/mcp', request: new Request('https://rs.example/mcp') }
    await expect(verify('t', context as never)).rejects.toMatchObject({
      name: 'KeySourceError',
      code: 'ERR_KEY_SOURCE',
      message: 'Token introspection at https://as.example/introspect answered 500',
    })
  })

  it('an authorization server whose metadata cannot be fetched (network error): KeySourceError with the cause', async () => {
    const refused = new TypeError('fetch failed')
    const verify = jwtVerifier({ issuer: 'https://as.example', fetch: () => Promise.reject(refused) })
    const part = (value: unknown) =>
      btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')
    const exp = Math.floor(Date.now() / 1000) + 60
    const token = `${part({ alg: 'ES256', kid: 'k', typ: 'at+jwt' })}.${part({ iss: 'https://as.example', sub: 'a', aud: 'https://rs.example/mcp', exp })}.AAAA`
    const context = { resource: 'https://rs.example/mcp', request: new Request('https://rs.example/mcp') }
    const error = await Promise.resolve()
      .then(() => verify(token, context as never))
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(KeySourceError)
    expect(error).toMatchObject({ code: 'ERR_KEY_SOURCE', cause: refused })
  })

  it('a mailbox object that cannot be reached or answers no JSON, a bus that cannot be reached: UpstreamError', async () => {
    const down = new Error('Durable Object reset because its code was updated')
    const unreachable: MailboxNamespace = {
      idFromName: (name) => name,
      get: () => ({ fetch: () => Promise.reject(down) }),
    }
    const garbled: MailboxNamespace = {
      idFromName: (name) => name,
      get: () => ({ fetch: () => Promise.resolve(new Response('not json', { status: 200 })) }),
    }
    await expect(durableObjectMailbox(unreachable)({}).deliver('q1', { result: {} })).rejects.toMatchObject({
      code: 'ERR_UPSTREAM',
      cause: down,
    })
    await expect(durableObjectMailbox(garbled)({}).wait('q1', 1000)).rejects.toMatchObject({
      code: 'ERR_UPSTREAM',
      message: 'the question mailbox answered with a body that is not JSON',
    })
    const bus = durableObjectNotificationBus({ MCP_NOTIFICATIONS: unreachable })
    await expect(bus.publish({ kind: 'toolsListChanged' })).rejects.toMatchObject({ code: 'ERR_UPSTREAM', cause: down })
  })

  it('a mailbox or notification bus object that fails: UpstreamError', async () => {
    const mailbox = durableObjectMailbox(failing(500))({})
    await expect(mailbox.deliver('q1', { result: {} })).rejects.toMatchObject({
      code: 'ERR_UPSTREAM',
      message: 'the question mailbox answered 500',
    })
    const bus = durableObjectNotificationBus({ MCP_NOTIFICATIONS: failing(500) })
    await expect(bus.publish({ kind: 'toolsListChanged' })).rejects.toBeInstanceOf(UpstreamError)
    await expect(
      bus.subscribe(
        () => {},
        () => {},
      ),
    ).rejects.toMatchObject({
      code: 'ERR_UPSTREAM',
      message: 'the notification bus answered 500 to a listen',
    })
  })
})
