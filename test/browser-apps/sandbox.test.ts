/**
 * appSandboxResponse (src/server/app-sandbox.ts): the CSP header comes from the declared csp in the query,
 * anything malformed gives the restrictive default, never a looser policy; `host` is required.
 */
import { describe, expect, it } from 'vitest'
import { appSandboxResponse } from '../../src/server/index.ts'
import { appCsp } from '../../src/protocol/apps.ts'

const HOST = 'http://127.0.0.1:8787'
const url = (query: Record<string, string>) =>
  `http://localhost:8787/mcp-app-sandbox?${new URLSearchParams(query).toString()}`
const get = (query: Record<string, string>, options?: Parameters<typeof appSandboxResponse>[1]) =>
  appSandboxResponse(new Request(url(query)), options)

describe('appSandboxResponse', () => {
  it('serves the page with the CSP of the declared domains and no-store, nosniff', async () => {
    const csp = { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example'] }
    const response = get({ host: HOST, csp: JSON.stringify(csp) })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('content-security-policy')).toBe(appCsp(csp))
    expect(response.headers.get('content-security-policy')).toContain('connect-src https://api.example.com;')
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    const page = await response.text()
    expect(page).toContain('ui/notifications/sandbox-proxy-ready')
    expect(page).not.toContain(HOST) // the script reads its host from the query, nothing is spliced into it
  })

  it.each([
    ['absent', undefined],
    ['not JSON', '{connectDomains:'],
    ['an array', '[]'],
    ['null', 'null'],
    ['a keyword smuggled in', JSON.stringify({ connectDomains: ["'unsafe-eval'"] })],
    ['a wildcard', JSON.stringify({ connectDomains: ['*'] })],
    ['a directive smuggled in', JSON.stringify({ connectDomains: ['https://a.example; script-src *'] })],
    ['an unknown field', JSON.stringify({ scriptDomains: ['https://a.example'] })],
    ['a mix of good and bad', JSON.stringify({ connectDomains: ['https://ok.example', 'data:'] })],
  ])('csp %s → the restrictive default', (_, csp) => {
    const response = get(csp === undefined ? { host: HOST } : { host: HOST, csp })
    expect(response.headers.get('content-security-policy')).toBe(appCsp())
    expect(appCsp()).toContain("connect-src 'none'")
  })

  it('frame-ancestors from hostOrigins; a host not among them, or none, is refused', async () => {
    const options = { hostOrigins: [HOST] }
    expect(get({ host: HOST }, options).headers.get('content-security-policy')).toBe(
      `${appCsp()}; frame-ancestors ${HOST}`,
    )
    const other = get({ host: 'https://evil.example' }, options)
    expect(other.status).toBe(400)
    expect(await other.text()).toBe('host https://evil.example is not one of the allowed host origins')
    const none = get({})
    expect(none.status).toBe(400)
    expect(await none.text()).toMatch(/needs \?host=/)
    expect(get({ host: 'javascript:alert(1)' }).status).toBe(400)
    expect(() => get({ host: HOST }, { hostOrigins: ['*'] })).toThrow(TypeError)
    expect(() => get({ host: HOST }, { hostOrigins: [HOST, `${HOST}/`] })).toThrow(
      `hostOrigins must be an array of origins such as https://chat.example.com (no path, no trailing /), not "${HOST}/"`,
    )
  })

  it('a POST is 405', () => {
    const response = appSandboxResponse(new Request(url({ host: HOST }), { method: 'POST', body: 'x' }))
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('GET, HEAD')
  })
})
