/**
 * DPoP (RFC 9449) for the OAuth client: a key pair the tokens are bound to (ES256, its private key not
 * extractable), a proof JWT made with Web Crypto for every token request and every request to the MCP
 * server (§4), and the servers' nonces (§8, §9). Its own module, reached only through a provider's `dpop`
 * option: an application that does not use DPoP carries none of it.
 * @module
 */
import { encodeBase64UrlCompact } from '../../encoding/base64url.ts'
import { parseWwwAuthenticate } from './discovery.ts'
import type { OAuthStore, StoredTokens } from './store.ts'

/** Options of {@link dpopProofs}. */
export interface DPoPProofsOptions {
  /**
   * The key pair to prove possession with: ECDSA P-256 (ES256), its private key usable for `sign`. Default:
   * the store's (`loadDPoPKeyPair`), else one generated once — private key not extractable — and given to
   * the store's `saveDPoPKeyPair`.
   */
  keyPair?: CryptoKeyPair
}

const ES256 = { name: 'ECDSA', namedCurve: 'P-256' } as const
const encoder = new TextEncoder()
const b64 = (bytes: Uint8Array) => encodeBase64UrlCompact(bytes)
const b64json = (value: unknown) => b64(encoder.encode(JSON.stringify(value)))

/** Whether `pair` holds an ECDSA P-256 private key that can sign and a public key of the same curve. */
function isES256Pair(pair: unknown): pair is CryptoKeyPair {
  const { privateKey, publicKey } = (pair ?? {}) as Partial<CryptoKeyPair>
  const p256 = (key: CryptoKey | undefined) => {
    const algorithm = key?.algorithm as Partial<EcKeyAlgorithm> | undefined
    return algorithm?.name === 'ECDSA' && algorithm.namedCurve === 'P-256'
  }
  return p256(privateKey) && p256(publicKey) && privateKey!.type === 'private' && privateKey!.usages.includes('sign')
}

/**
 * Whether the public key verifies what the private key signs (a pair, not two keys of two pairs); true
 * when the public key may not verify (not checkable).
 */
async function matches({ privateKey, publicKey }: CryptoKeyPair): Promise<boolean> {
  if (!publicKey.usages.includes('verify')) return true
  const data = encoder.encode('dpop key check')
  const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, privateKey, data)
  return crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, publicKey, signature, data)
}

/**
 * A DPoP proof maker for a provider's `dpop` option (`new OAuthClientProvider({ …, dpop: dpopProofs() })`,
 * the machine-to-machine providers alike). One per client: it holds the key pair and the latest nonce of
 * each origin.
 * @throws TypeError when `keyPair` is not an ECDSA P-256 key pair that can sign.
 */
export function dpopProofs(options: DPoPProofsOptions = {}): DPoPProofs {
  return new DPoPProofs(options)
}

/** Made by {@link dpopProofs}; providers call it, applications only pass it on. */
export class DPoPProofs {
  readonly #given: CryptoKeyPair | undefined
  #keyPair: Promise<{ keyPair: CryptoKeyPair; jwk: Record<string, string> }> | undefined
  /** The latest `DPoP-Nonce` of each origin (RFC 9449 §8, §9: a server may change it at any response). */
  readonly #nonces = new Map<string, string>()

  constructor(options: DPoPProofsOptions) {
    const given = options.keyPair
    if (given !== undefined && !isES256Pair(given))
      throw new TypeError('dpopProofs keyPair must be an ECDSA P-256 (ES256) key pair whose private key can sign')
    this.#given = given
  }

  /**
   * A proof (RFC 9449 §4.2) for a `method` request to `url` (`htu` without its query and fragment), with
   * `ath` when it carries `accessToken`, and the latest nonce of `url`'s origin; a new `jti` each time.
   * The key pair is made (or loaded from `store`) on first use, then kept.
   */
  async proof(store: OAuthStore, method: string, url: string, accessToken?: string): Promise<string> {
    const { keyPair, jwk } = await this.#key(store)
    const target = new URL(url)
    const claims: Record<string, unknown> = {
      jti: b64(crypto.getRandomValues(new Uint8Array(16))),
      htm: method,
      htu: `${target.origin}${target.pathname}`,
      iat: Math.floor(Date.now() / 1000),
    }
    if (accessToken !== undefined)
      claims.ath = b64(new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(accessToken))))
    const nonce = this.#nonces.get(target.origin)
    if (nonce !== undefined) claims.nonce = nonce
    const input = `${b64json({ typ: 'dpop+jwt', alg: 'ES256', jwk })}.${b64json(claims)}`
    const signature = await crypto.subtle.sign(
      { name: 'ECDSA', hash: 'SHA-256' },
      keyPair.privateKey,
      encoder.encode(input),
    )
    return `${input}.${b64(new Uint8Array(signature))}`
  }

  /**
   * The headers of a request to the MCP server with `tokens`: a DPoP-bound token (`token_type` DPoP) as
   * `Authorization: DPoP …` with a fresh proof (RFC 9449 §7.1); any other as `Bearer`.
   */
  async headers(store: OAuthStore, tokens: StoredTokens, method: string, url: string): Promise<Record<string, string>> {
    if (tokens.token_type.toLowerCase() !== 'dpop') return { authorization: `Bearer ${tokens.access_token}` }
    return {
      authorization: `DPoP ${tokens.access_token}`,
      dpop: await this.proof(store, method, url, tokens.access_token),
    }
  }

  /**
   * Remember the `DPoP-Nonce` a server at `url` sent; true when the response asks for it to be used at once:
   * a `401` whose `DPoP` challenge says `use_dpop_nonce` (RFC 9449 §9), or a token endpoint's `400`
   * `use_dpop_nonce` (§8; `error` is that answer's JSON `error`).
   */
  nonceFrom(url: string, response: Response, error?: unknown): boolean {
    const nonce = response.headers.get('dpop-nonce')
    if (nonce === null || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(nonce)) return false // RFC 9449 §8.1: NQCHAR
    this.#nonces.set(new URL(url).origin, nonce)
    if (response.status === 400) return error === 'use_dpop_nonce'
    if (response.status !== 401) return false
    return parseWwwAuthenticate(response.headers.get('www-authenticate') ?? '').some(
      (c) => c.scheme.toLowerCase() === 'dpop' && c.params.error === 'use_dpop_nonce',
    )
  }

  /** The key pair and its public JWK: given, loaded from `store`, or generated once and saved there. */
  #key(store: OAuthStore): Promise<{ keyPair: CryptoKeyPair; jwk: Record<string, string> }> {
    // shared while under way: two first requests must not make two keys (a token is bound to one)
    return (this.#keyPair ??= (async () => {
      let keyPair = this.#given ?? (await store.loadDPoPKeyPair?.())
      if (!keyPair) {
        keyPair = await crypto.subtle.generateKey(ES256, false, ['sign', 'verify'])
        await store.saveDPoPKeyPair?.(keyPair)
      } else if (!isES256Pair(keyPair) || !(await matches(keyPair))) {
        // every proof would be refused (its jwk does not verify its signature), with no word why
        throw new TypeError(
          `The DPoP key pair (${this.#given ? 'dpopProofs keyPair' : "the store's loadDPoPKeyPair"}) is not an ES256 private key and its public key`,
        )
      }
      const { kty, crv, x, y } = (await crypto.subtle.exportKey('jwk', keyPair.publicKey)) as Record<string, string>
      return { keyPair, jwk: { kty: kty!, crv: crv!, x: x!, y: y! } }
    })().catch((error: unknown) => {
      this.#keyPair = undefined // a failed load or generation is tried again on the next request
      throw error
    }))
  }
}
