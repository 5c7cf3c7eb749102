/**
 * shared/cases/http-transport.md H1 (CORS preflight), H2 (headers a browser must read, on every status)
 * and H6 (c) (4 MiB − 1 byte accepted), against the fetch handler and the Hono adapter; the Origin rule;
 * DNS-rebinding protection with allowedHosts; an unparsable request URL.
 */
import { describe, expect, it } from 'vitest'
import { McpServer, createFetchHandler } from '../../../src/server/index.ts'
import { createDemoServer } from '../../../worker/server.ts'
import { adapters, post, req, std } from '../../helpers.ts'

const ORIGIN = 'https://spa.example'
const options = {
  allowedOrigins: [ORIGIN],
  authenticate: (request: Request) => {
    if (request.headers.get('authorization') === 'Bearer nope') throw new Error('bad token')
    return undefined
  },
}

for (const [label, handler] of adapters(createDemoServer(), options)) {
  describe(`CORS and browser-visible errors via ${label}`, () => {
    it('H1 answers an allowed preflight with 204, every requested header, a max-age; never as JSON-RPC', async () => {
      const res = await handler(
        new Request('http://localhost/mcp', {
          method: 'OPTIONS',
          headers: {
            origin: ORIGIN,
            'access-control-request-method': 'POST',
            'access-control-request-headers':
              'content-type, accept, authorization, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region',
          },
        }),
      )
      expect(res.status).toBe(204)
      expect(await res.text()).toBe('')
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN)
      expect(res.headers.get('vary')).toMatch(/Origin/)
      // GET and DELETE too: a 2025-era browser client's session stream and its end (DELETE is no simple method)
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE, OPTIONS')
      const allowed = res.headers.get('access-control-allow-headers')!.split(/,\s*/)
      for (const h of [
        'content-type',
        'accept',
        'authorization',
        'mcp-protocol-version',
        'mcp-method',
        'mcp-name',
        'mcp-param-region',
      ])
        expect(allowed).toContain(h)
      expect(allowed).not.toContain('*')
      expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0)
    })

    it('H1 answers a POST from an origin that is not allowed with 403', async () => {
      const res = await post(handler, req('tools/list'), { ...std('tools/list'), origin: 'https://evil.example' })
      expect(res.status).toBe(403)
      expect(res.body.error.message).toBe(
        "Forbidden: origin https://evil.example is not in this server's allowedOrigins; add it there to let its pages call this endpoint",
      )
      expect(res.headers.get('access-control-allow-origin')).toBeNull()
    })

    it('H2 every error status carries the CORS headers; a 401 exposes WWW-Authenticate (and Mcp-Session-Id)', async () => {
      const cors = { origin: ORIGIN }
      const statuses: Array<[number, Promise<Response>]> = [
        [
          400,
          handler(
            new Request('http://localhost/mcp', {
              method: 'POST',
              headers: { ...std('tools/list'), ...cors },
              body: '{',
            }),
          ),
        ],
        [
          401,
          handler(
            new Request('http://localhost/mcp', {
              method: 'POST',
              headers: { ...std('tools/list'), ...cors, authorization: 'Bearer nope' },
              body: JSON.stringify(req('tools/list')),
            }),
          ),
        ],
        [
          404,
          handler(
            new Request('http://localhost/mcp', {
              method: 'POST',
              headers: { ...std('nope/nope'), ...cors },
              body: JSON.stringify(req('nope/nope')),
            }),
          ),
        ],
        [405, handler(new Request('http://localhost/mcp', { method: 'GET', headers: cors }))],
        [
          406,
          handler(
            new Request('http://localhost/mcp', {
              method: 'POST',
              headers: { ...std('tools/list'), ...cors, accept: 'text/html' },
              body: JSON.stringify(req('tools/list')),
            }),
          ),
        ],
        [
          413,
          handler(
            new Request('http://localhost/mcp', {
              method: 'POST',
              headers: { ...std('tools/list'), ...cors, 'content-length': String(5 * 1024 * 1024) },
              body: '{}',
            }),
          ),
        ],
        [
          415,
          handler(
            new Request('http://localhost/mcp', {
              method: 'POST',
              headers: { ...std('tools/list'), ...cors, 'content-type': 'text/plain' },
              body: '{}',
            }),
          ),
        ],
      ]
      for (const [status, pending] of statuses) {
        const res = await pending
        expect(res.status, String(status)).toBe(status)
        expect(res.headers.get('access-control-allow-origin'), String(status)).toBe(ORIGIN)
        expect(res.headers.get('access-control-expose-headers'), String(status)).toBe(
          'WWW-Authenticate, Mcp-Session-Id, DPoP-Nonce',
        )
        if (status === 401) expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/)
        if (status !== 405) expect(((await res.json()) as { jsonrpc: string }).jsonrpc).toBe('2.0')
      }
    })

    it('H6 (c) accepts a body of exactly 4 MiB − 1 byte', async () => {
      const base = JSON.stringify(req('tools/list', { pad: '' }))
      const limit = 4 * 1024 * 1024
      const body = base.replace('"pad":""', `"pad":"${'a'.repeat(limit - 1 - base.length)}"`)
      expect(new TextEncoder().encode(body).length).toBe(limit - 1)
      expect((await post(handler, body, std('tools/list'))).status).toBe(200)
      const over = base.replace('"pad":""', `"pad":"${'a'.repeat(limit + 1 - base.length)}"`)
      expect((await post(handler, over, std('tools/list'))).status).toBe(413)
    })
  })
}

for (const [label, handler] of adapters(createDemoServer(), {
  allowedHosts: ['localhost', '127.0.0.1:8787', '[::1]'],
})) {
  describe(`DNS rebinding: allowedHosts via ${label}`, () => {
    const at = (url: string, headers: Record<string, string> = {}) =>
      handler(
        new Request(url, {
          method: 'POST',
          headers: { ...std('tools/list'), ...headers },
          body: JSON.stringify(req('tools/list')),
        }),
      )

    it('refuses a rebound host with 403 even when Origin is same-origin with it', async () => {
      // the attack: evil.example resolves to 127.0.0.1; the browser sends Host and Origin of evil.example
      const res = await at('http://evil.example:8787/mcp', { origin: 'http://evil.example:8787' })
      expect(res.status).toBe(403)
      const body = (await res.json()) as { error: { code: number; message: string } }
      expect(body.error.code).toBe(-32600)
      expect(body.error.message).toBe(
        "Forbidden: host evil.example:8787 is not in this server's allowedHosts (DNS-rebinding protection); add it there to serve it",
      )
      expect(body.error.message).not.toContain('localhost') // the configured hosts are not told
      const preflight = await handler(
        new Request('http://evil.example:8787/mcp', {
          method: 'OPTIONS',
          headers: { origin: 'http://evil.example:8787' },
        }),
      )
      expect(preflight.status).toBe(403)
    })

    it('serves listed hosts: a bare name on any port, a host:port entry on that port only, IPv6, any case', async () => {
      expect((await at('http://LOCALHOST:3000/mcp', { origin: 'http://localhost:3000' })).status).toBe(200)
      expect((await at('http://127.0.0.1:8787/mcp')).status).toBe(200)
      expect((await at('http://127.0.0.1:8788/mcp')).status).toBe(403)
      expect((await at('http://[::1]:9/mcp')).status).toBe(200)
    })

    it('still applies the Origin rule on an allowed host', async () => {
      expect((await at('http://localhost:3000/mcp', { origin: 'http://evil.example' })).status).toBe(403)
    })
  })
}

describe('DNS rebinding: without allowedHosts', () => {
  it('serves any host (the default; only the Origin rule applies)', async () => {
    const [[, handler]] = adapters(createDemoServer()) as [[string, (r: Request) => Promise<Response>]]
    const res = await handler(
      new Request('http://anything.example/mcp', {
        method: 'POST',
        headers: std('tools/list'),
        body: JSON.stringify(req('tools/list')),
      }),
    )
    expect(res.status).toBe(200)
  })
})

describe('an unparsable request URL', () => {
  it('is a 400 JSON-RPC error, not a rejected promise (Bun passes a bad Host header through to request.url)', async () => {
    const { createFetchHandler } = await import('../../../src/server/http/handler.ts')
    const handler = createFetchHandler(createDemoServer())
    const request = {
      url: 'http://a b c/mcp',
      method: 'POST',
      headers: new Headers({ 'content-type': 'application/json' }),
    } as unknown as Request
    const res = await handler(request)
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Bad request: the request URL (its Host header) is not a valid URL' },
    })
  })
})

describe('Origin policy and CORS on the fetch handler', () => {
  const mcp = createDemoServer()
  const strict = createFetchHandler(mcp)
  const open = createFetchHandler(mcp, { allowedOrigins: ['https://spa.example'] })

  it("allows requests without Origin and from the endpoint's own origin", async () => {
    expect((await post(strict, req('tools/list'), std('tools/list'))).status).toBe(200)
    expect((await post(strict, req('tools/list'), { ...std('tools/list'), origin: 'http://localhost' })).status).toBe(
      200,
    )
  })
  it('answers a disallowed origin with 403 and no CORS grant', async () => {
    const res = await post(strict, req('tools/list'), { ...std('tools/list'), origin: 'https://evil.example' })
    expect(res.status).toBe(403)
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    expect(res.body.error.code).toBe(-32600)
    const preflight = await strict(
      new Request('http://localhost/mcp', { method: 'OPTIONS', headers: { origin: 'https://evil.example' } }),
    )
    expect(preflight.status).toBe(403)
  })
  it('answers an allowed preflight with 204 and every requested header', async () => {
    const res = await open(
      new Request('http://localhost/mcp', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://spa.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers':
            'content-type, accept, authorization, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region',
        },
      }),
    )
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
    expect(res.headers.get('access-control-allow-origin')).toBe('https://spa.example')
    expect(res.headers.get('vary')).toContain('Origin')
    expect(res.headers.get('access-control-allow-methods')).toContain('POST')
    const allowed = res.headers.get('access-control-allow-headers')!.split(', ')
    for (const h of [
      'content-type',
      'accept',
      'authorization',
      'mcp-protocol-version',
      'mcp-method',
      'mcp-name',
      'mcp-param-region',
    ])
      expect(allowed).toContain(h)
    expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0)
  })
  it('puts CORS headers on results and on errors for an allowed origin', async () => {
    for (const [body, headers, status] of [
      [req('tools/list'), std('tools/list'), 200],
      ['{', std('tools/list'), 400],
      [req('nope'), std('nope'), 404],
    ] as const) {
      const res = await post(open, body, { ...headers, origin: 'https://spa.example' })
      expect(res.status).toBe(status)
      expect(res.headers.get('access-control-allow-origin')).toBe('https://spa.example')
      expect(res.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate')
    }
  })
})

describe('DNS rebinding: allowedHosts and default ports', () => {
  it('a host:port entry with the default port matches a URL whose port is implied (URL drops :80 / :443)', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    const handler = createFetchHandler(mcp, { allowedHosts: ['localhost:80', 'example.com:443'] })
    const at = (url: string) =>
      handler(new Request(url, { method: 'POST', headers: std('tools/list'), body: JSON.stringify(req('tools/list')) }))
    expect((await at('http://localhost/mcp')).status).toBe(200)
    expect((await at('http://localhost:80/mcp')).status).toBe(200)
    expect((await at('https://example.com/mcp')).status).toBe(200)
    // the port still counts: another port, or the other scheme's default, is refused
    expect((await at('http://localhost:8080/mcp')).status).toBe(403)
    expect((await at('http://example.com/mcp')).status).toBe(403)
    expect((await at('https://localhost/mcp')).status).toBe(403)
  })

  it("entries are trimmed and case-insensitive: 'a.example, B.example'.split(',') allows both", async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    const handler = createFetchHandler(mcp, { allowedHosts: 'a.example, B.example'.split(',') })
    const at = (url: string) =>
      handler(new Request(url, { method: 'POST', headers: std('tools/list'), body: JSON.stringify(req('tools/list')) }))
    expect((await at('https://a.example/mcp')).status).toBe(200)
    expect((await at('https://b.example/mcp')).status).toBe(200)
    expect((await at('https://c.example/mcp')).status).toBe(403)
  })
})
