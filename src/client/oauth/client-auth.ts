/**
 * A confidential client's credentials at a token endpoint, as the machine-to-machine providers take them:
 * a client secret (RFC 6749 §2.3.1) or a private key that signs a JWT client assertion (RFC 7523 §2.2,
 * `private_key_jwt`) with Web Crypto alone — ES256 or RS256, the key given as PKCS#8 PEM, a JWK or a
 * `CryptoKey`.
 * @module
 */
import { encodeBase64Url } from '../../encoding/base64url.ts'
import type { Metadata } from '../../protocol/oauth-metadata.ts'
import { strings } from './discovery.ts'
import type { TokenEndpointAuth } from './token.ts'

/** A JWS algorithm for client assertions (RFC 7518 §3.1). */
export type SigningAlgorithm = 'ES256' | 'RS256'

/**
 * How a machine-to-machine client authenticates at a token endpoint. Give `clientSecret` or `privateKey`;
 * without either the client is public (`none`: only `client_id` is sent).
 */
export interface ClientCredentials {
  /** The client's `client_id` at this authorization server. */
  clientId: string
  /** For `client_secret_basic` / `client_secret_post`. */
  clientSecret?: string
  /**
   * For `private_key_jwt`: a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), a private JWK (with `d`), or a
   * `CryptoKey` with the `sign` usage (ECDSA P-256 or RSASSA-PKCS1-v1_5 SHA-256).
   */
  privateKey?: string | JsonWebKey | CryptoKey
  /** `ES256` or `RS256`. Default: the key's own (its curve or modulus, its JWK `alg`). */
  signingAlgorithm?: SigningAlgorithm
  /** The `kid` header of each assertion, when the authorization server needs it to find the key. */
  keyId?: string
  /**
   * The `aud` of each assertion: the authorization server's `issuer` (default; draft-ietf-oauth-rfc7523bis),
   * or its `token_endpoint` URL, which some servers (e.g. Okta, Entra ID) require (RFC 7523 §3 allows both).
   */
  assertionAudience?: 'issuer' | 'token_endpoint'
  /**
   * Default: `private_key_jwt` with a `privateKey`; with a `clientSecret`, `client_secret_basic` unless the
   * server lists only `client_secret_post` (`token_endpoint_auth_methods_supported`); else `none`.
   */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none'
}

const AUTH_METHODS: readonly string[] = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none']

/** Lifetime of a client assertion, in seconds: long enough for clock skew, short against replay. */
const ASSERTION_LIFETIME = 60

/**
 * Check `credentials` (named `field` in errors) where they are given, so a mistake shows at construction.
 * @throws TypeError naming the missing or wrong field.
 */
export function checkClientCredentials(credentials: ClientCredentials, field: string): void {
  const { clientId, clientSecret, privateKey, tokenEndpointAuthMethod: method } = credentials
  if (typeof clientId !== 'string' || clientId === '')
    throw new TypeError(`${field}.clientId must be a non-empty string, got ${JSON.stringify(clientId)}`)
  if (clientSecret !== undefined && typeof clientSecret !== 'string')
    throw new TypeError(`${field}.clientSecret must be a string`)
  // an unknown method would fall through to `none`: the secret silently not sent
  if (method !== undefined && !AUTH_METHODS.includes(method))
    throw new TypeError(
      `${field}.tokenEndpointAuthMethod must be one of ${AUTH_METHODS.join(', ')}, got ${JSON.stringify(method)}`,
    )
  const { signingAlgorithm: alg, keyId } = credentials
  if (alg !== undefined && alg !== 'ES256' && alg !== 'RS256')
    throw new TypeError(`${field}.signingAlgorithm must be 'ES256' or 'RS256', got ${JSON.stringify(alg)}`)
  if (keyId !== undefined && typeof keyId !== 'string') throw new TypeError(`${field}.keyId must be a string`)
  if (
    privateKey !== undefined &&
    (privateKey === null || (typeof privateKey !== 'string' && typeof privateKey !== 'object'))
  )
    throw new TypeError(`${field}.privateKey must be a PKCS#8 PEM string, a private JWK or a CryptoKey`)
  if ((method === 'client_secret_basic' || method === 'client_secret_post') && clientSecret === undefined)
    throw new TypeError(`${field}.tokenEndpointAuthMethod is ${method} but ${field}.clientSecret is missing`)
  if (method === 'private_key_jwt' && privateKey === undefined)
    throw new TypeError(`${field}.tokenEndpointAuthMethod is private_key_jwt but ${field}.privateKey is missing`)
  const audience = credentials.assertionAudience
  if (audience !== undefined && audience !== 'issuer' && audience !== 'token_endpoint')
    throw new TypeError(
      `${field}.assertionAudience must be 'issuer' or 'token_endpoint', got ${JSON.stringify(audience)}`,
    )
  if (method === undefined && clientSecret !== undefined && privateKey !== undefined)
    throw new TypeError(`${field} has both clientSecret and privateKey: say which in tokenEndpointAuthMethod`)
  if (typeof privateKey === 'string' && !privateKey.includes('-----BEGIN PRIVATE KEY-----')) {
    throw new TypeError(
      `${field}.privateKey must be a PKCS#8 PEM (-----BEGIN PRIVATE KEY-----); convert an EC or RSA key with \`openssl pkcs8 -topk8 -nocrypt\``,
    )
  }
  if (privateKey !== undefined && typeof privateKey === 'object' && !isCryptoKey(privateKey) && !('d' in privateKey))
    throw new TypeError(`${field}.privateKey is a JWK without "d": a public key cannot sign`)
}

const isCryptoKey = (key: object): key is CryptoKey => typeof CryptoKey !== 'undefined' && key instanceof CryptoKey

/**
 * The client authentication for a token endpoint from `credentials` (see
 * {@link ClientCredentials.tokenEndpointAuthMethod} for the choice). For `private_key_jwt` each request
 * gets a fresh assertion (RFC 7523 §3: `iss` = `sub` = client id, `aud` = `audience`, `iat`, `exp` 60 s
 * later, a random `jti`), signed by `signer`.
 */
export function tokenEndpointAuth(
  credentials: ClientCredentials,
  metadata: Metadata | undefined,
  audience: string,
  signer: () => Promise<AssertionSigner>,
): TokenEndpointAuth {
  const { clientId, clientSecret, privateKey } = credentials
  let method = credentials.tokenEndpointAuthMethod
  if (method === undefined) {
    const supported = strings(metadata?.token_endpoint_auth_methods_supported)
    method =
      privateKey !== undefined
        ? 'private_key_jwt'
        : clientSecret === undefined
          ? 'none'
          : supported?.includes('client_secret_post') && !supported.includes('client_secret_basic')
            ? 'client_secret_post'
            : 'client_secret_basic'
  }
  if (method === 'none') return { method, clientId }
  if (method !== 'private_key_jwt') return { method, clientId, clientSecret: clientSecret! }
  const assertion = async () => {
    const sign = await signer()
    const now = Math.floor(Date.now() / 1000)
    const jti = encodeBase64Url(crypto.getRandomValues(new Uint8Array(16)))
    return sign({ iss: clientId, sub: clientId, aud: audience, iat: now, exp: now + ASSERTION_LIFETIME, jti })
  }
  return { method, clientId, assertion }
}

/** Signs a JWT's claims (compact JWS, RFC 7515 §7.1). */
export type AssertionSigner = (claims: Record<string, unknown>) => Promise<string>

/**
 * A signer for `credentials.privateKey` (imported once, not extractable).
 * @throws TypeError naming `field` when the key cannot be imported for the algorithm, or its algorithm is
 *   neither ES256 nor RS256.
 */
export async function assertionSigner(credentials: ClientCredentials, field: string): Promise<AssertionSigner> {
  const { privateKey, keyId } = credentials
  const { key, alg } = await importSigningKey(privateKey!, credentials.signingAlgorithm, `${field}.privateKey`)
  const header = encodeJson({ alg, typ: 'JWT', ...(keyId !== undefined ? { kid: keyId } : {}) })
  const params = alg === 'ES256' ? { name: 'ECDSA', hash: 'SHA-256' } : { name: 'RSASSA-PKCS1-v1_5' }
  return async (claims) => {
    const input = `${header}.${encodeJson(claims)}`
    // Web Crypto's ECDSA signature is r‖s (IEEE P1363), which is what JWS ES256 wants (RFC 7518 §3.4)
    const signature = await crypto.subtle.sign(params, key, new TextEncoder().encode(input))
    return `${input}.${encodeBase64Url(new Uint8Array(signature))}`
  }
}

/**
 * {@link assertionSigner} made once, on first use, and kept; a key that failed to import is tried again on the
 * next use (it fails each time, with its TypeError), not remembered as failed.
 */
export function lazySigner(credentials: ClientCredentials, field: string): () => Promise<AssertionSigner> {
  let signer: Promise<AssertionSigner> | undefined
  return () => {
    if (signer) return signer
    const made = assertionSigner(credentials, field)
    made.catch(() => (signer = undefined))
    return (signer = made)
  }
}

const encodeJson = (value: unknown) => encodeBase64Url(new TextEncoder().encode(JSON.stringify(value)))

const IMPORT_PARAMS = {
  ES256: { name: 'ECDSA', namedCurve: 'P-256' },
  RS256: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
} as const

// DER object identifiers (RFC 5480 §2.1.1, RFC 8017 App. C) that say which algorithm a PKCS#8 key is for
const EC_PUBLIC_KEY = [0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]
const RSA_ENCRYPTION = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01]

/** Whether `der` contains the byte sequence `oid`. */
function hasOid(der: Uint8Array, oid: number[]): boolean {
  outer: for (let i = 0; i + oid.length <= der.length; i++) {
    for (let j = 0; j < oid.length; j++) if (der[i + j] !== oid[j]) continue outer
    return true
  }
  return false
}

/** The algorithm of a key, from its own description; undefined when it is neither ES256 nor RS256. */
function algorithmOf(key: Uint8Array | JsonWebKey | CryptoKey): SigningAlgorithm | undefined {
  if (key instanceof Uint8Array)
    return hasOid(key, EC_PUBLIC_KEY) ? 'ES256' : hasOid(key, RSA_ENCRYPTION) ? 'RS256' : undefined
  if (isCryptoKey(key)) {
    const algorithm = key.algorithm as { name: string; namedCurve?: string; hash?: { name: string } }
    if (algorithm.name === 'ECDSA' && algorithm.namedCurve === 'P-256') return 'ES256'
    if (algorithm.name === 'RSASSA-PKCS1-v1_5' && algorithm.hash?.name === 'SHA-256') return 'RS256'
    return undefined
  }
  if (key.alg === 'ES256' || key.alg === 'RS256') return key.alg
  if (key.alg !== undefined) return undefined
  return key.kty === 'EC' && key.crv === 'P-256' ? 'ES256' : key.kty === 'RSA' ? 'RS256' : undefined
}

async function importSigningKey(
  input: string | JsonWebKey | CryptoKey,
  requested: SigningAlgorithm | undefined,
  field: string,
): Promise<{ key: CryptoKey; alg: SigningAlgorithm }> {
  const material = typeof input === 'string' ? pemBytes(input, field) : input
  const own = algorithmOf(material)
  const alg = requested ?? own
  if (alg === undefined || (own !== undefined && own !== alg) || !(alg in IMPORT_PARAMS)) {
    throw new TypeError(
      `${field} is not an ${requested ?? 'ES256 (EC P-256) or RS256 (RSA)'} private key${own ? ` (it is ${own})` : ''}`,
    )
  }
  if (isCryptoKey(material)) {
    if (material.type !== 'private' || !material.usages.includes('sign'))
      throw new TypeError(`${field} must be a private CryptoKey with the "sign" usage`)
    return { key: material, alg }
  }
  try {
    const key =
      material instanceof Uint8Array
        ? await crypto.subtle.importKey('pkcs8', material, IMPORT_PARAMS[alg], false, ['sign'])
        : await crypto.subtle.importKey('jwk', jwkForSigning(material), IMPORT_PARAMS[alg], false, ['sign'])
    return { key, alg }
  } catch (error) {
    throw new TypeError(`${field} could not be imported as an ${alg} private key: ${String(error)}`)
  }
}

/** A JWK as Web Crypto imports it for signing: no public-key `use`/`key_ops` that would refuse `sign`. */
function jwkForSigning(jwk: JsonWebKey): JsonWebKey {
  const copy: JsonWebKey & { use?: string } = { ...jwk }
  delete copy.use
  delete copy.key_ops
  delete copy.ext
  return copy
}

/** The DER bytes of a PKCS#8 PEM. */
function pemBytes(pem: string, field: string): Uint8Array<ArrayBuffer> {
  const body = /-----BEGIN PRIVATE KEY-----([\s\S]*?)-----END PRIVATE KEY-----/.exec(pem)?.[1]
  try {
    if (body === undefined) throw new Error('no PEM boundaries')
    return Uint8Array.from(atob(body.replace(/\s+/g, '')), (c) => c.charCodeAt(0))
  } catch {
    throw new TypeError(
      `${field} is not a readable PKCS#8 PEM (-----BEGIN PRIVATE KEY----- … -----END PRIVATE KEY-----)`,
    )
  }
}
