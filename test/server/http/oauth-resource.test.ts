/**
 * An MCP endpoint as an OAuth protected resource, in-process, with a stub verifier (the JWT verifier is
 * tested in oauth/verify.test.ts, and the two together against a loopback authorization server in
 * oauth-protected.test.ts): the metadata document, the challenges, scopes per item and per server, the
 * legacy era, CORS, and `requestState` bound to the token's user.
 */
import * as valibot from 'valibot'
import { describe, expect, it } from 'vitest'
import type { ProtectedResourceOptions } from '../../../src/server/http/bearer.ts'
import {
  InsufficientScopeError,
  InvalidTokenError,
  protectedResource,
  type VerifyToken,
} from '../../../src/oauth/index.ts'
import {
  McpServer,
  createFetchHandler,
  elicit,
  formSchema,
  resolver,
  type FetchHandlerOptions,
} from '../../../src/server/index.ts'
import type { AuthInfo } from '../../../src/index.ts'
import { env, std } from '../../helpers.ts'

const MCP = 'https://mcp.test/mcp'
const PRM = 'https://mcp.test/.well-known/oauth-protected-resource/mcp'

const users: Record<string, AuthInfo> = {
  'token-a': { clientId: 'app', issuer: 'https://as.test', subject: 'alice', scopes: ['books:read'] },
  'token-a-order': {
    clientId: 'app',
    issuer: 'https://as.test',
    subject: 'alice',
    scopes: ['books:read', 'books:order'],
  },
  'token-b-order': {
    clientId: 'app',
    issuer: 'https://as.test',
    subject: 'bob',
    scopes: ['books:read', 'books:order'],
  },
  'token-admin': { clientId: 'app', issuer: 'https://as.test', subject: 'carol', scopes: ['books:admin'] },
}

function setup(oauth: Partial<ProtectedResourceOptions> = {}, options: FetchHandlerOptions = {}) {
  const seen: Array<{ token: string; resource: string }> = []
  const verifyToken: VerifyToken = (token, { resource }) => {
    seen.push({ token, resource })
    if (token === 'broken') throw new Error('JWKS unreachable')
    const user = users[token]
    if (!user) throw new InvalidTokenError('the token has expired')
    return user
  }
  const mcp = new McpServer(
    { name: 'shop', version: '1' },
    { impliedScopes: { 'books:admin': ['books:order', 'books:read'] } },
  )
  mcp.tool('search', { description: 'open to any token' }, (_a, ctx) => `hello ${ctx.authInfo?.subject}`)
  mcp.tool('order_book', { scopes: ['books:order'] }, () => 'ordered')
  const confirm = resolver({}, function confirm() {
    return elicit('Sure?', formSchema({ ok: valibot.boolean() }))
  })
  mcp.tool('confirm_order', { scopes: ['books:order'], use: { answer: confirm } }, ({ answer }) =>
    JSON.stringify(answer),
  )
  mcp.prompt('secret_prompt', { scopes: ['books:admin'] }, () => 'hi')
  mcp.resource('stock', 'books://stock', { scopes: ['books:order'] }, () => '3 left')
  const handler = createFetchHandler(mcp, {
    allowedHosts: ['mcp.test', 'api.test', '127.0.0.1:8787'],
    ...options,
    oauth: protectedResource({
      authorizationServers: ['https://as.test'],
      verifyToken,
      scopesSupported: ['books:read', 'books:order'],
      ...oauth,
    }),
  })
  return { handler, seen }
}

let id = 1
function call(
  method: string,
  params: Record<string, unknown>,
  token?: string,
  extra: Record<string, string> = {},
  url = MCP,
): Request {
  const name = (params.name ?? params.uri) as string | undefined
  const headers: Record<string, string> = { ...std(method, name), ...extra }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  return new Request(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params: { ...params, _meta: env() } }),
  })
}
const tool = (name: string, token?: string, args: Record<string, unknown> = {}, more: Record<string, unknown> = {}) =>
  call('tools/call', { name, arguments: args, ...more }, token)

describe('the protected resource metadata (RFC 9728)', () => {
  it('is served at the path-based well-known URL, to any origin, with the resource derived from the request', async () => {
    const { handler } = setup({ resourceDocumentation: 'https://docs.test/shop' })
    const res = await handler(new Request(PRM, { headers: { origin: 'https://elsewhere.test' } }))
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(await res.json()).toEqual({
      resource: MCP,
      authorization_servers: ['https://as.test'],
      bearer_methods_supported: ['header'],
      scopes_supported: ['books:read', 'books:order'],
      resource_documentation: 'https://docs.test/shop',
    })
    const other = await handler(new Request('http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp'))
    expect(((await other.json()) as { resource: string }).resource).toBe('http://127.0.0.1:8787/mcp')
  })

  it('answers preflights, and the root form only when asked', async () => {
    const { handler } = setup()
    const pre = await handler(new Request(PRM, { method: 'OPTIONS', headers: { origin: 'https://x.test' } }))
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe('*')
    const root = 'https://mcp.test/.well-known/oauth-protected-resource'
    expect((await handler(new Request(root))).status).not.toBe(200)
    const { handler: withRoot } = setup({ rootMetadata: true, resource: 'https://api.test/v1/mcp' })
    const doc = (await (await withRoot(new Request(root))).json()) as { resource: string }
    expect(doc.resource).toBe('https://api.test/v1/mcp')
    expect((await withRoot(new Request('https://mcp.test/.well-known/oauth-protected-resource/v1/mcp'))).status).toBe(
      200,
    )
  })
})

describe('behind a proxy', () => {
  it('with oauth.resource set, resource_metadata names the public origin, not the one the request arrived at', async () => {
    const { handler } = setup({ resource: MCP }, { allowedHosts: ['internal:8080'] })
    // a TLS-terminating proxy forwards https://mcp.test/mcp as http://internal:8080/mcp
    const res = await handler(call('tools/list', {}, undefined, {}, 'http://internal:8080/mcp'))
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${PRM}"`)
  })
})

describe('bearer challenges (RFC 6750, MCP authorization)', () => {
  it('401 with resource_metadata and no error when no token was sent, before the body is read', async () => {
    const { handler, seen } = setup()
    const request = tool('search')
    const res = await handler(request)
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${PRM}"`)
    expect(request.bodyUsed).toBe(false)
    expect(seen).toEqual([])
    const body = (await res.json()) as { error: { code: number; message: string } }
    expect(body.error.code).toBe(-32600)
  })

  it('401 invalid_token with the verifier’s reason for a refused token; a Basic header is no token', async () => {
    const { handler } = setup()
    const res = await handler(tool('search', 'stale'))
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${PRM}", error="invalid_token", error_description="the token has expired"`,
    )
    const basic = await handler(
      call('tools/call', { name: 'search', arguments: {} }, undefined, { authorization: 'Basic YTpi' }),
    )
    expect(basic.status).toBe(401)
    expect(basic.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${PRM}"`)
  })

  it('401 for malformed bearer values, which never reach the verifier', async () => {
    const { handler, seen } = setup()
    for (const value of ['Bearer', 'Bearer ', 'Bearer a b', 'Bearer tök', 'Bearer "quoted"']) {
      const res = await handler(
        call('tools/call', { name: 'search', arguments: {} }, undefined, { authorization: value }),
      )
      expect(res.status, value).toBe(401)
      expect(res.headers.get('www-authenticate'), value).toContain('error="invalid_token"')
    }
    expect(seen).toEqual([])
  })

  it('401 for a token in the query string, even with a valid header token', async () => {
    const { handler, seen } = setup()
    const res = await handler(
      call('tools/call', { name: 'search', arguments: {} }, 'token-a', {}, `${MCP}?access_token=token-a`),
    )
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_request"')
    expect(seen).toEqual([])
  })

  it('passes the canonical resource to the verifier and the identity to handlers', async () => {
    const { handler, seen } = setup()
    const res = await handler(tool('search', 'token-a'))
    expect(res.status).toBe(200)
    expect(((await res.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text).toBe(
      'hello alice',
    )
    expect(seen).toEqual([{ token: 'token-a', resource: MCP }])
  })

  it('503 (not 401, never accepted) when the verifier cannot run', async () => {
    const { handler } = setup()
    const res = await handler(tool('search', 'broken'))
    expect(res.status).toBe(503)
    expect(res.headers.get('www-authenticate')).toBeNull()
  })

  it('403 insufficient_scope naming the tool’s scopes; 200 with them; a broader scope implies them', async () => {
    const { handler } = setup()
    const res = await handler(tool('order_book', 'token-a'))
    expect(res.status).toBe(403)
    const challenge = res.headers.get('www-authenticate')!
    expect(challenge).toContain(`resource_metadata="${PRM}"`)
    expect(challenge).toContain('error="insufficient_scope"')
    expect(challenge).toContain('scope="books:order"')
    const body = (await res.json()) as { error: { code: number; data: unknown } }
    expect(body.error).toMatchObject({ code: -32600, data: { scope: 'books:order' } })
    expect((await handler(tool('order_book', 'token-a-order'))).status).toBe(200)
    expect((await handler(tool('order_book', 'token-admin'))).status).toBe(200)
  })

  it('scopes on prompts and resources too', async () => {
    const { handler } = setup()
    const prompt = await handler(call('prompts/get', { name: 'secret_prompt' }, 'token-a-order'))
    expect(prompt.status).toBe(403)
    expect(prompt.headers.get('www-authenticate')).toContain('scope="books:admin"')
    expect((await handler(call('prompts/get', { name: 'secret_prompt' }, 'token-admin'))).status).toBe(200)
    const read = await handler(call('resources/read', { uri: 'books://stock' }, 'token-a'))
    expect(read.status).toBe(403)
    expect(read.headers.get('www-authenticate')).toContain('scope="books:order"')
    expect((await handler(call('resources/read', { uri: 'books://stock' }, 'token-b-order'))).status).toBe(200)
  })

  it('a tool the token cannot call is still listed', async () => {
    const { handler } = setup()
    const res = await handler(call('tools/list', {}, 'token-a'))
    const names = ((await res.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name)
    expect(names).toContain('order_book')
  })

  it('server-wide requiredScopes: 403 for every request without them', async () => {
    const { handler } = setup({ requiredScopes: ['books:read'] })
    const res = await handler(call('tools/list', {}, 'token-admin'))
    expect(res.status).toBe(200) // books:admin implies books:read
    const { handler: strict } = setup({ requiredScopes: ['books:order'] })
    const refused = await strict(call('tools/list', {}, 'token-a'))
    expect(refused.status).toBe(403)
    expect(refused.headers.get('www-authenticate')).toContain('scope="books:order"')
    const anonymous = await strict(call('tools/list', {}))
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${PRM}", scope="books:order"`)
  })

  it('a 403 of a scoped tool also names the server-wide requiredScopes (a client asking for just those keeps them)', async () => {
    const { handler } = setup({ requiredScopes: ['books:read'] })
    const res = await handler(tool('order_book', 'token-a'))
    expect(res.status).toBe(403)
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${PRM}", error="insufficient_scope", error_description="Forbidden: insufficient scope; tool order_book needs books:order (missing books:order)", scope="books:read books:order"`,
    )
  })

  it('the challenge is readable cross-origin (Access-Control-Expose-Headers)', async () => {
    const { handler } = setup({}, { allowedOrigins: ['https://app.test'] })
    const res = await handler(
      call('tools/call', { name: 'order_book', arguments: {} }, 'token-a', { origin: 'https://app.test' }),
    )
    expect(res.status).toBe(403)
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.test')
    expect(res.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/i)
    const unauth = await handler(
      call('tools/call', { name: 'search', arguments: {} }, undefined, { origin: 'https://app.test' }),
    )
    expect(unauth.status).toBe(401)
    expect(unauth.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/i)
  })

  it('a 2025-era request gets the same 401 and 403 challenges (in-band errors stay 200 for it)', async () => {
    const { handler } = setup()
    const legacy = (method: string, params: Record<string, unknown>, token?: string) =>
      new Request(MCP, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }),
      })
    expect((await handler(legacy('tools/call', { name: 'search', arguments: {} }))).status).toBe(401)
    const res = await handler(legacy('tools/call', { name: 'order_book', arguments: {} }, 'token-a'))
    expect(res.status).toBe(403)
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"')
    const unknown = await handler(legacy('tools/call', { name: 'nope', arguments: {} }, 'token-a'))
    expect(unknown.status).toBe(200)
  })

  it('a 2025-era session id minted for alice is refused (404) for bob and accepted for alice', async () => {
    const { handler } = setup()
    const post = (body: Record<string, unknown>, token: string, session?: string) =>
      handler(
        new Request(MCP, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${token}`,
            ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: id++, ...body }),
        }),
      )
    const init = await post(
      {
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      },
      'token-a-order',
    )
    expect(init.status).toBe(200)
    const session = init.headers.get('mcp-session-id')!
    expect(session).toBeTruthy()
    const call = { method: 'tools/call', params: { name: 'search', arguments: {} } }
    expect((await post(call, 'token-b-order', session)).status).toBe(404)
    const alice = await post(call, 'token-a-order', session)
    expect(alice.status).toBe(200)
    expect(((await alice.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text).toBe(
      'hello alice',
    )
  })
})

describe('subscriptions follow the resource scopes', () => {
  it('a listen stream subscribes only to resources the token may read', async () => {
    const { handler } = setup()
    const listen = async (token: string) => {
      const res = await handler(
        new Request(MCP, {
          method: 'POST',
          headers: { ...std('subscriptions/listen'), authorization: `Bearer ${token}` },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: id++,
            method: 'subscriptions/listen',
            params: { notifications: { resourceSubscriptions: ['books://stock', 'books://other'] }, _meta: env({}) },
          }),
        }),
      )
      expect(res.status).toBe(200)
      const reader = res.body!.getReader()
      let text = ''
      while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value)
      await reader.cancel()
      const ack = JSON.parse(text.slice(text.indexOf('data: ') + 6, text.indexOf('\n\n'))) as {
        params: { notifications: { resourceSubscriptions?: string[] } }
      }
      return ack.params.notifications.resourceSubscriptions
    }
    expect(await listen('token-a')).toEqual(['books://other'])
    expect(await listen('token-a-order')).toEqual(['books://stock', 'books://other'])
  })
})

describe('requestState is bound to the token’s user', () => {
  it('a state minted for alice is refused for bob and accepted for alice', async () => {
    const { handler } = setup()
    const first = await handler(tool('confirm_order', 'token-a-order'))
    const round = (
      (await first.json()) as {
        result: { resultType: string; requestState: string; inputRequests: Record<string, unknown> }
      }
    ).result
    expect(round.resultType).toBe('input_required')
    const key = Object.keys(round.inputRequests)[0]
    const retry = (token: string) =>
      tool(
        'confirm_order',
        token,
        {},
        { requestState: round.requestState, inputResponses: { [key]: { action: 'accept', content: { ok: true } } } },
      )
    const bob = (await (await handler(retry('token-b-order'))).json()) as { error?: { code: number; message: string } }
    expect(bob.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' })
    const alice = (await (await handler(retry('token-a-order'))).json()) as {
      result?: { content: Array<{ text: string }> }
    }
    expect(alice.result?.content[0].text).toBe('{"ok":true}')
  })
})

describe('a handler may challenge for scopes it decides', () => {
  it('InsufficientScopeError thrown by a tool is a 403 challenge (not an isError result), also with `authenticate`', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('write', { input: { path: valibot.string() } }, ({ path }) => {
      if (path.startsWith('/etc')) throw new InsufficientScopeError(['files:write', 'files:system'])
      return 'written'
    })
    const handler = createFetchHandler(mcp, {
      authenticate: (request) => (request.headers.get('authorization') ? users['token-a'] : undefined),
    })
    const res = await handler(tool('write', 'token-a', { path: '/etc/passwd' }))
    expect(res.status).toBe(403)
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", error_description="Forbidden: insufficient scope; this operation needs files:write files:system", scope="files:write files:system"',
    )
    expect((await handler(tool('write', 'token-a', { path: '/tmp/x' }))).status).toBe(200)
  })

  it('an anonymous caller of a tool with scopes gets 401 naming them', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('order_book', { scopes: ['books:order'] }, () => 'ordered')
    const handler = createFetchHandler(mcp, { authenticate: () => undefined })
    const res = await handler(tool('order_book'))
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toContain('scope="books:order"')
    expect(res.headers.get('www-authenticate')).not.toContain('error=')
  })

  it('refuses oauth together with authenticate, and malformed scope lists at registration', () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    expect(() =>
      createFetchHandler(mcp, {
        authenticate: () => undefined,
        oauth: protectedResource({ authorizationServers: ['https://as.test'], verifyToken: () => users['token-a'] }),
      }),
    ).toThrow(TypeError)
    // options without protectedResource() are refused with the fix named
    expect(() =>
      createFetchHandler(mcp, {
        oauth: { authorizationServers: ['https://as.test'], verifyToken: () => users['token-a'] } as never,
      }),
    ).toThrow(/protectedResource/)
    expect(() => mcp.tool('t', { scopes: ['has space'] }, () => 'x')).toThrow(/scopes must be an array of scope names/)
    expect(() =>
      createFetchHandler(mcp, {
        oauth: protectedResource({ authorizationServers: [], verifyToken: () => users['token-a'] }),
      }),
    ).toThrow(/authorizationServers/)
  })
})
