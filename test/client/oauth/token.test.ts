/**
 * The token endpoint request (src/client/oauth/token.ts) against real sockets: a redirect is not followed
 * (Fetch would post the credentials again to wherever it points), and a token response whose access token
 * could not be sent in a header is refused as such.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { OAuthError } from '../../../src/client/index.ts'
import { requestToken, type TokenRequest } from '../../../src/client/oauth/token.ts'

const servers: Server[] = []
afterEach(() => {
  for (const s of servers.splice(0)) s.close()
})

/** A loopback HTTP server answering with `answer`; its base URL. */
async function serve(
  answer: (url: string, body: string) => { status: number; headers?: Record<string, string>; body?: string },
) {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      const a = answer(req.url ?? '', body)
      res.writeHead(a.status, a.headers).end(a.body ?? '')
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `127.0.0.1:${(server.address() as AddressInfo).port}`
}

const request = (tokenEndpoint: string, auth: TokenRequest['auth']): TokenRequest => ({
  tokenEndpoint,
  auth,
  params: { grant_type: 'client_credentials' },
  fetch: (r) => fetch(r),
})

describe('requestToken', () => {
  it('does not follow a redirect: the credentials are not posted again elsewhere', async () => {
    const received: string[] = []
    const elsewhere = await serve((_url, body) => {
      received.push(body)
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"access_token":"x","token_type":"Bearer"}',
      }
    })
    // another origin: localhost, not 127.0.0.1
    const target = `http://${elsewhere.replace('127.0.0.1', 'localhost')}/token`
    for (const status of [307, 308]) {
      const as = await serve(() => ({ status, headers: { location: target } }))
      const auth = { method: 'client_secret_post', clientId: 'job', clientSecret: 'pw' } as const
      const error = await requestToken(request(`http://${as}/token`, auth)).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(OAuthError)
      expect(error).toMatchObject({ error: 'invalid_response' })
      expect((error as Error).message).toMatch(/was redirected; redirects are not followed/)
    }
    expect(received).toEqual([])
  })

  it('refuses an empty access token, or one with a control character, as invalid_response', async () => {
    for (const access_token of ['', 'a\nb', 'tab\there']) {
      const as = await serve(() => ({
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ access_token, token_type: 'Bearer' }),
      }))
      const error = await requestToken(request(`http://${as}/token`, { method: 'none', clientId: 'c' })).catch(
        (e: unknown) => e,
      )
      expect([access_token, error]).toEqual([access_token, expect.objectContaining({ error: 'invalid_response' })])
    }
  })
})
