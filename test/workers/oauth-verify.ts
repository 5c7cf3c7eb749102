/**
 * A Worker that verifies the bearer token of each request with edge-mcp/oauth (jose under workerd) and
 * answers what the verifier decided, for test/e2e/oauth-verify-workerd.test.ts.
 */
import { introspectionVerifier, jwtVerifier, InvalidTokenError, type VerifyToken } from '../../src/oauth/index.ts'

interface Env {
  ISSUER: string
  CLIENT_ID: string
  CLIENT_SECRET: string
}

let jwt: VerifyToken | undefined
let introspect: VerifyToken | undefined

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    jwt ??= jwtVerifier({ issuer: env.ISSUER, cooldownMs: 0 })
    introspect ??= introspectionVerifier({
      endpoint: `${env.ISSUER}/introspect`,
      clientId: env.CLIENT_ID,
      clientSecret: env.CLIENT_SECRET,
    })
    const verify = new URL(request.url).pathname === '/introspect' ? introspect : jwt
    const token = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1] ?? ''
    try {
      const info = await verify(token, { resource: 'https://mcp.example.com/mcp', request, env })
      return Response.json({ ok: true, info })
    } catch (error) {
      return Response.json({
        ok: false,
        invalid: error instanceof InvalidTokenError,
        message: (error as Error).message,
      })
    }
  },
}
