/**
 * DPoP proofs (RFC 9449 §4) as a test client builds them with jose, and the MCP requests that carry them: for the
 * resource-server tests of edge-mcp/oauth's DPoP checker (test/oauth/dpop.test.ts, test/redis/dpop-replay.test.ts).
 */
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTHeaderParameters,
} from 'jose'
import { env, std } from './helpers.ts'

export const MCP = 'https://mcp.test/mcp'
export const now = () => Math.floor(Date.now() / 1000)

export interface ProofKey {
  privateKey: CryptoKey
  jwk: JWK
  jkt: string
  alg: string
}

export async function proofKey(alg = 'ES256'): Promise<ProofKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  const jwk = await exportJWK(publicKey)
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256'), alg }
}

/** `ath`: base64url of the SHA-256 of the access token (RFC 9449 §4.2). */
export async function ath(token: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)))
  return btoa(String.fromCharCode(...digest))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
}

export interface ProofOptions {
  token?: string
  htm?: string
  htu?: string
  claims?: Record<string, unknown>
  header?: Record<string, unknown>
  signWith?: CryptoKey
}

/** A DPoP proof by `key` for a POST to the MCP endpoint with `token`; `claims` / `header` override. */
export async function proof(key: ProofKey, options: ProofOptions = {}): Promise<string> {
  const claims: Record<string, unknown> = {
    jti: crypto.randomUUID(),
    htm: options.htm ?? 'POST',
    htu: options.htu ?? MCP,
    iat: now(),
    ...(options.token === undefined ? {} : { ath: await ath(options.token) }),
    ...options.claims,
  }
  for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k]
  const header = { alg: key.alg, typ: 'dpop+jwt', jwk: key.jwk, ...options.header } as JWTHeaderParameters
  return new SignJWT(claims).setProtectedHeader(header).sign(options.signWith ?? key.privateKey)
}

let id = 1
/** A tools/call of `whoami` with `authorization` and the given DPoP headers (each appended: several allowed). */
export function call(authorization: string | undefined, proofs: string[] = [], url = MCP, method = 'POST'): Request {
  const headers = new Headers(std('tools/call', 'whoami'))
  if (authorization !== undefined) headers.set('authorization', authorization)
  for (const p of proofs) headers.append('dpop', p)
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: id++,
    method: 'tools/call',
    params: { name: 'whoami', arguments: {}, _meta: env() },
  })
  return new Request(url, { method, headers, ...(method === 'POST' ? { body } : {}) })
}
