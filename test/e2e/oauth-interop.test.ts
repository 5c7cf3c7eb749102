/**
 * Official MCP clients against an edge-mcp protected resource (the README's "Protecting a server"
 * example: `createFetchHandler` + `oauth` + `jwtVerifier`), with a real loopback authorization server
 * (test/oauth-server.ts): the official SDK 2.4.0 (`@modelcontextprotocol/client`, 2026-07-28) and 1.x
 * (`@modelcontextprotocol/sdk`, 2025-11-25) each run 401 → our Protected Resource Metadata → the AS
 * metadata → dynamic registration → PKCE authorization (with our `resource`) → token → call, then a tool
 * with `scopes` → 403 `insufficient_scope` → step-up. This checks what we serve (metadata, challenges,
 * audience) with clients we did not write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import {
  Client as Client2,
  StreamableHTTPClientTransport as Transport2,
  UnauthorizedError as Unauthorized2,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/client'
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { UnauthorizedError as Unauthorized1 } from '@modelcontextprotocol/sdk/client/auth.js'
import { Hono } from 'hono'
import { createHonoHandler } from '../../src/hono/index.ts'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'
import type { ProtectedResourceOptions } from '../../src/server/http/bearer.ts'
import { jwtVerifier, protectedResource } from '../../src/oauth/index.ts'
import { startOAuthServer, type TestAuthorizationServer } from '../oauth-server.ts'

const ORIGIN = 'https://shop.test'
const REDIRECT = 'http://127.0.0.1:3000/callback'
let as: TestAuthorizationServer
let handler: (request: Request) => Promise<Response>
let hono: Hono
/** The same server with the server-wide floor `requiredScopes: ['books:read']` (as the demo Worker). */
let floored: (request: Request) => Promise<Response>
/** Requests that reached our server: method, status, challenge. */
let seen: Array<{ status: number; challenge: string | null }> = []

beforeAll(async () => {
  as = await startOAuthServer()
  const shop = new McpServer({ name: 'shop', version: '1.0.0' })
  shop.tool('search_books', { input: { q: v.string() } }, ({ q }, ctx) => `${q}: 3 books for ${ctx.authInfo?.subject}`)
  shop.tool('order_book', { input: { title: v.string() }, scopes: ['books:order'] }, ({ title }) => `Ordered ${title}`)
  const oauth = {
    authorizationServers: [as.issuer],
    verifyToken: jwtVerifier({ issuer: as.issuer }),
    scopesSupported: ['books:read', 'books:order'],
  } satisfies ProtectedResourceOptions
  const allowedHosts = [new URL(ORIGIN).host]
  const fetchHandler = createFetchHandler(shop, { oauth: protectedResource(oauth), allowedHosts })
  // docs/authorization.md, Hono: one handler on the endpoint and on its metadata URL; `path` when not /mcp
  const mcp = createHonoHandler(shop, { oauth: protectedResource({ ...oauth, path: '/api/mcp' }), allowedHosts })
  floored = createFetchHandler(shop, {
    oauth: protectedResource({ ...oauth, requiredScopes: ['books:read'] }),
    allowedHosts,
  })
  hono = new Hono()
  hono.all('/api/mcp', mcp)
  hono.all('/.well-known/oauth-protected-resource/api/mcp', mcp)
  handler = async (request) => {
    const response = await fetchHandler(request)
    seen.push({ status: response.status, challenge: response.headers.get('www-authenticate') })
    return response
  }
}, 30_000)

afterAll(async () => {
  await as?.close()
})

/** Our server in-process for its origin, the real network for the authorization server. */
const routed = (url: string | URL, init?: RequestInit): Promise<Response> => {
  const request = new Request(url, init)
  return new URL(request.url).origin === ORIGIN ? handler(request) : fetch(request)
}
/** The floored server in-process for its origin. */
const routedFloor = async (url: string | URL, init?: RequestInit): Promise<Response> => {
  const request = new Request(url, init)
  if (new URL(request.url).origin !== ORIGIN) return fetch(request)
  const response = await floored(request)
  seen.push({ status: response.status, challenge: response.headers.get('www-authenticate') })
  return response
}
/** The Hono app in-process for its origin. */
const routedHono = async (url: string | URL, init?: RequestInit): Promise<Response> => {
  const request = new Request(url, init)
  if (new URL(request.url).origin !== ORIGIN) return fetch(request)
  const response = await hono.fetch(request)
  seen.push({ status: response.status, challenge: response.headers.get('www-authenticate') })
  return response
}

/**
 * The OAuthClientProvider both official SDKs take, in memory. Its "browser" follows the auto-approving
 * `/authorize` to its redirect and keeps the callback's code (and `iss`) for `finishAuth`.
 */
class MemoryProvider {
  tokenSet: { access_token: string; token_type: string; scope?: string; refresh_token?: string } | undefined
  client?: { client_id: string; client_secret?: string }
  verifier = ''
  callback: URL | undefined
  readonly redirectUrl = REDIRECT
  readonly clientMetadata = {
    client_name: 'interop',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  }
  clientInformation() {
    return this.client
  }
  saveClientInformation(client: { client_id: string }) {
    this.client = client
  }
  tokens() {
    return this.tokenSet
  }
  /** False: drop refresh tokens (SDK 1.x then steps up by re-authorizing instead of refreshing). */
  keepRefresh = true
  saveTokens(tokens: { access_token: string; token_type: string; scope?: string; refresh_token?: string }) {
    this.tokenSet = this.keepRefresh
      ? tokens
      : {
          access_token: tokens.access_token,
          token_type: tokens.token_type,
          ...(tokens.scope ? { scope: tokens.scope } : {}),
        }
  }
  async redirectToAuthorization(url: URL) {
    const response = await fetch(url, { redirect: 'manual' })
    this.callback = new URL(response.headers.get('location')!)
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
  discovery: OAuthDiscoveryState | undefined
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state
  }
  discoveryState() {
    return this.discovery
  }
  /** The code of the last authorization, consumed. */
  takeCallback(): URL {
    const callback = this.callback!
    this.callback = undefined
    return callback
  }
}

/** The first authorization of each client leaves `books:order` out (the user did not consent yet). */
function consentReadFirst(): void {
  const counted = new Set<string>()
  as.setGrant((requested, params) => {
    const first = !counted.has(params.client_id)
    counted.add(params.client_id)
    return first ? requested.filter((s) => s !== 'books:order') : requested
  })
}

const text = (result: unknown): string => (result as { content: Array<{ text: string }> }).content[0].text

describe('official SDK 2.4.0 client → edge-mcp protected resource', () => {
  it('401 → discovery → registration → authorization → call; 403 insufficient_scope → step-up → call', async () => {
    seen = []
    consentReadFirst()
    const before = as.authorizations.length
    const provider = new MemoryProvider()
    const url = new URL(`${ORIGIN}/mcp`)
    const transport = () => new Transport2(url, { authProvider: provider, fetch: routed })
    let t = transport()
    const client = new Client2({ name: 'interop', version: '1.0.0' })
    await expect(client.connect(t)).rejects.toBeInstanceOf(Unauthorized2)
    expect(seen[0].status).toBe(401)
    expect(seen[0].challenge).toBe(`Bearer resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp"`)
    await t.finishAuth(provider.takeCallback().searchParams)
    t = transport()
    await client.connect(t)

    const first = as.authorizations[before]
    expect(first.resource).toBe(`${ORIGIN}/mcp`)
    expect(first.code_challenge_method).toBe('S256')
    expect(first.scope.split(' ')).toContain('books:read')
    expect(provider.tokenSet?.scope).not.toContain('books:order')

    const tools = await client.listTools()
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual(['order_book', 'search_books'])
    expect(text(await client.callTool({ name: 'search_books', arguments: { q: 'dune' } }))).toBe(
      'dune: 3 books for alice',
    )

    // order_book needs books:order: 403 → the SDK re-authorizes with the union of scopes
    await expect(client.callTool({ name: 'order_book', arguments: { title: 'Dune' } })).rejects.toBeInstanceOf(
      Unauthorized2,
    )
    const forbidden = seen.find((s) => s.status === 403)
    expect(forbidden?.challenge).toContain('error="insufficient_scope"')
    expect(forbidden?.challenge).toContain('books:order')
    const stepUp = as.authorizations[as.authorizations.length - 1]
    expect(stepUp.scope.split(' ')).toEqual(expect.arrayContaining(['books:read', 'books:order']))
    expect(stepUp.resource).toBe(`${ORIGIN}/mcp`)
    await t.finishAuth(provider.takeCallback().searchParams)
    expect(provider.tokenSet?.scope).toContain('books:order')
    expect(text(await client.callTool({ name: 'order_book', arguments: { title: 'Dune' } }))).toBe('Ordered Dune')
    await client.close()
  })
})

describe('official SDK 1.x client (2025-11-25) → edge-mcp protected resource', () => {
  it('401 → discovery → registration → authorization → call; 403 insufficient_scope → step-up → call', async () => {
    seen = []
    consentReadFirst()
    const before = as.authorizations.length
    const provider = new MemoryProvider()
    const url = new URL(`${ORIGIN}/mcp`)
    const transport = () => new Transport1(url, { authProvider: provider, fetch: routed })
    let t = transport()
    let client = new Client1({ name: 'interop', version: '1.0.0' })
    await expect(client.connect(t)).rejects.toBeInstanceOf(Unauthorized1)
    expect(seen[0].status).toBe(401)
    await t.finishAuth(provider.takeCallback().searchParams.get('code')!)
    t = transport()
    await client.connect(t)

    expect(as.authorizations[before].resource).toBe(`${ORIGIN}/mcp`)
    const tools = await client.listTools()
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual(['order_book', 'search_books'])
    expect(text(await client.callTool({ name: 'search_books', arguments: { q: 'dune' } }))).toBe(
      'dune: 3 books for alice',
    )

    // SDK 1.x answers the 403 with a refresh_token grant (which cannot widen the scopes), gets the same
    // 403 and gives up: a client-side limitation, our challenge is the one 2.4.0 steps up on above
    const authorizations = as.authorizations.length
    await expect(client.callTool({ name: 'order_book', arguments: { title: 'Dune' } })).rejects.toThrow(
      /403 after trying upscoping/,
    )
    expect(as.tokenRequests[as.tokenRequests.length - 1].grant_type).toBe('refresh_token')
    expect(as.authorizations.length).toBe(authorizations)
    const forbidden = seen.filter((s) => s.status === 403)
    expect(forbidden).toHaveLength(2)
    expect(forbidden[0].challenge).toContain('error="insufficient_scope"')
    expect(forbidden[0].challenge).toContain('books:order')

    // Without a refresh token (and on a new transport: the old one remembers it tried this challenge) it
    // re-authorizes with the challenged scope, and the call goes through
    await client.close()
    provider.tokenSet = { access_token: provider.tokenSet!.access_token, token_type: 'Bearer' }
    t = transport()
    client = new Client1({ name: 'interop', version: '1.0.0' })
    await client.connect(t)
    await expect(client.callTool({ name: 'order_book', arguments: { title: 'Dune' } })).rejects.toBeInstanceOf(
      Unauthorized1,
    )
    const stepUp = as.authorizations[as.authorizations.length - 1]
    expect(as.authorizations.length).toBe(authorizations + 1)
    expect(stepUp.scope.split(' ')).toContain('books:order')
    expect(stepUp.resource).toBe(`${ORIGIN}/mcp`)
    await t.finishAuth(provider.takeCallback().searchParams.get('code')!)
    expect(text(await client.callTool({ name: 'order_book', arguments: { title: 'Dune' } }))).toBe('Ordered Dune')
    await client.close()
  })
})

describe('official SDK 1.x client → a server with requiredScopes', () => {
  it('steps up with the scopes the 403 names, which include the server-wide ones, and keeps them', async () => {
    seen = []
    consentReadFirst()
    const provider = new MemoryProvider()
    provider.keepRefresh = false
    const url = new URL(`${ORIGIN}/mcp`)
    const t = new Transport1(url, { authProvider: provider, fetch: routedFloor })
    const client = new Client1({ name: 'interop', version: '1.0.0' })
    await expect(client.connect(t)).rejects.toBeInstanceOf(Unauthorized1)
    expect(seen[0].challenge).toContain('scope="books:read"')
    expect(as.authorizations[as.authorizations.length - 1].scope).toBe('books:read')
    await t.finishAuth(provider.takeCallback().searchParams.get('code')!)
    const t2 = new Transport1(url, { authProvider: provider, fetch: routedFloor })
    await client.connect(t2)
    // the 403 of order_book names books:read too: SDK 1.x asks for exactly what it names
    await expect(client.callTool({ name: 'order_book', arguments: { title: 'Dune' } })).rejects.toBeInstanceOf(
      Unauthorized1,
    )
    expect(seen.find((s) => s.status === 403)?.challenge).toContain('scope="books:read books:order"')
    expect(as.authorizations[as.authorizations.length - 1].scope).toBe('books:read books:order')
    await t2.finishAuth(provider.takeCallback().searchParams.get('code')!)
    expect(text(await client.callTool({ name: 'order_book', arguments: { title: 'Dune' } }))).toBe('Ordered Dune')
    expect(text(await client.callTool({ name: 'search_books', arguments: { q: 'dune' } }))).toBe(
      'dune: 3 books for alice',
    )
    await client.close()
  })
})

describe('official SDK 2.4.0 client → edge-mcp on Hono at /api/mcp', () => {
  it('finds the metadata route mounted next to the endpoint, authorizes for /api/mcp and calls', async () => {
    seen = []
    as.setGrant((requested) => requested)
    const before = as.authorizations.length
    const provider = new MemoryProvider()
    const url = new URL(`${ORIGIN}/api/mcp`)
    let t = new Transport2(url, { authProvider: provider, fetch: routedHono })
    const client = new Client2({ name: 'interop', version: '1.0.0' })
    await expect(client.connect(t)).rejects.toBeInstanceOf(Unauthorized2)
    expect(seen[0].challenge).toBe(`Bearer resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/api/mcp"`)
    const metadata = await routedHono(`${ORIGIN}/.well-known/oauth-protected-resource/api/mcp`)
    expect(await metadata.json()).toMatchObject({ resource: `${ORIGIN}/api/mcp`, authorization_servers: [as.issuer] })
    await t.finishAuth(provider.takeCallback().searchParams)
    t = new Transport2(url, { authProvider: provider, fetch: routedHono })
    await client.connect(t)
    expect(as.authorizations[before].resource).toBe(`${ORIGIN}/api/mcp`)
    expect(text(await client.callTool({ name: 'order_book', arguments: { title: 'Dune' } }))).toBe('Ordered Dune')
    await client.close()
  })
})
