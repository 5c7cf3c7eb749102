/**
 * The built-in AES-256-GCM sealing of `requestState` over a key ring (Web Crypto only).
 *
 * Token: `"v2." + base64url(kid(4) ‖ nonce(12) ‖ ciphertext ‖ tag(16))`, unpadded and canonical; the
 * additional authenticated data (AAD) is the ASCII prefix `"v2."`, the 4 kid bytes, then `binding`: bytes
 * the opener recomputes (the request binding), carried in the AAD, not in the token. A token opens only
 * for the binding it was sealed with, and a changed prefix or a kid moved onto another body fails the tag
 * ({@link AesGcmKeyRing.sealBound}). The prefix is the format's marker: a string without it is refused as
 * `malformed` before any cryptography.
 *
 * Keys: each secret (≥ 32 bytes; a string is its UTF-8 bytes) is an HKDF-SHA256 input key. Per audience,
 * HKDF derives one AES-256-GCM key with `info = "edge-mcp/request-state/v1/aes-256-gcm" ‖ 0x00 ‖ utf8(audience)`
 * (no audience: the info without the separator), so a token minted for one audience cannot be opened by
 * another. The kid is the first 4 bytes of HKDF(secret, info `"edge-mcp/request-state/v1/kid"`): a
 * non-secret fingerprint that picks the key without trial decryption. `keys[0]` seals; every key opens.
 * (The `v1` in the HKDF infos names the key derivation, not the token format.)
 *
 * Session ids (the legacy lane's `Mcp-Session-Id`) use the same ring under a scheme of their own: prefix
 * `"s1."` (also the AAD prefix) and `info = "edge-mcp/session/v1/aes-256-gcm"` (‖ 0x00 ‖ audience), so a
 * session id and a `requestState` token are sealed under different keys and never open as each other.
 * @module
 */
import { decodeBase64UrlStrict, encodeBase64Url } from '../encoding/base64url.ts'
import { InvalidRequestStateError } from './errors.ts'

/**
 * A byte-transparent authenticated-encryption codec for `requestState`. `unseal(await seal(x))` equals
 * `x`; `unseal` must throw {@link InvalidRequestStateError} for any string it did not mint unmodified.
 */
export interface RequestStateCodec {
  seal(plaintext: Uint8Array): Promise<string>
  unseal(token: string): Promise<Uint8Array>
}

/** A request-state secret: ≥ 32 bytes of randomness; a string counts as its UTF-8 bytes. */
export type RequestStateKey = string | Uint8Array

/** The token prefix of sealed `requestState` (see {@link AesGcmKeyRing.sealBound}). */
export const TOKEN_PREFIX = 'v2.'
const KID_BYTES = 4
const NONCE_BYTES = 12
const TAG_BYTES = 16
/** Minimum secret length in bytes. */
export const MIN_KEY_BYTES = 32
const EMPTY_SALT = new Uint8Array(0)
const UTF8 = new TextEncoder()
/** A request binding: bytes, or text sealed as its UTF-8 bytes. */
type Binding = Uint8Array | string

/**
 * Internal: an option key that replaces the random source (nonces, principal salts) for deterministic
 * test vectors only. A repeated nonce breaks AES-GCM; this is deliberately not part of the public entry
 * points (`edge-mcp/server` does not export it).
 * @internal
 */
export const TEST_RANDOM_SOURCE: unique symbol = Symbol('edge-mcp.test-random-source')

/** A source of random bytes: `(length) => bytes`. */
export type RandomSource = (length: number) => Uint8Array<ArrayBuffer>

/**
 * Nonces drawn from a pool filled by `crypto.getRandomValues` 4 KiB at a time: each nonce is a fresh,
 * never-reused slice (the pool is consumed once, then refilled), at a fraction of the per-call cost.
 */
function pooledNonces(): () => Uint8Array<ArrayBuffer> {
  const POOL = 4096 - (4096 % NONCE_BYTES)
  let pool = new Uint8Array(0)
  let offset = 0
  return () => {
    if (offset + NONCE_BYTES > pool.length) {
      pool = crypto.getRandomValues(new Uint8Array(POOL))
      offset = 0
    }
    const nonce = pool.slice(offset, offset + NONCE_BYTES)
    pool.fill(0, offset, offset + NONCE_BYTES) // never hand out the same bytes twice
    offset += NONCE_BYTES
    return nonce
  }
}
const KID_INFO = new TextEncoder().encode('edge-mcp/request-state/v1/kid')

/** The token prefix of session ids sealed by the built-in ring (see {@link AesGcmKeyRing.sessionCodec}). */
export const SESSION_TOKEN_PREFIX = 's1.'

/** What a ring seals under: the token prefix (also the AAD prefix) and the HKDF info of its AES keys. */
interface Scheme {
  readonly prefix: string
  readonly prefixBytes: Uint8Array
  readonly info: string
}
/** `requestState`: the request binding follows `prefix ‖ kid` in the AAD. */
const REQUEST_STATE_SCHEME: Scheme = {
  prefix: TOKEN_PREFIX,
  prefixBytes: new TextEncoder().encode(TOKEN_PREFIX),
  info: 'edge-mcp/request-state/v1/aes-256-gcm',
}
const SESSION_SCHEME: Scheme = {
  prefix: SESSION_TOKEN_PREFIX,
  prefixBytes: new TextEncoder().encode(SESSION_TOKEN_PREFIX),
  info: 'edge-mcp/session/v1/aes-256-gcm',
}
/** The token prefix of server-to-client request ids sealed by the built-in ring (see {@link AesGcmKeyRing.questionCodec}). */
export const QUESTION_TOKEN_PREFIX = 'q1.'
const QUESTION_SCHEME: Scheme = {
  prefix: QUESTION_TOKEN_PREFIX,
  prefixBytes: new TextEncoder().encode(QUESTION_TOKEN_PREFIX),
  info: 'edge-mcp/question/v1/aes-256-gcm',
}
/** The schemes sealed without a binding, whose AAD (`prefix ‖ kid`) each entry derives once. */
const UNBOUND_SCHEMES: readonly Scheme[] = [SESSION_SCHEME, QUESTION_SCHEME]

/** Bytes of the reused buffer a token is assembled in before it is encoded (larger ones get their own). */
const BODY_SCRATCH_BYTES = 8 * 1024
let bodyScratch: Uint8Array | undefined

interface RingEntry {
  hkdf: Promise<CryptoKey>
  kid: Promise<Uint8Array>
  /** The kid once derived (so the hot path does not await). */
  kidBytes?: Uint8Array
  /** `prefix ‖ kid` of the session and question schemes, once derived. */
  unboundAads: Map<Scheme, Uint8Array<ArrayBuffer>>
  aes: Map<string, Promise<CryptoKey>>
  /** AES keys once derived, by scheme then audience (no key string built on the hot path). */
  aesReady: Map<Scheme, Map<string | undefined, CryptoKey>>
}

function toBytes(key: RequestStateKey, index: number): Uint8Array<ArrayBuffer> {
  if (typeof key === 'string') return new TextEncoder().encode(key)
  if (key instanceof Uint8Array) return new Uint8Array(key) // a copy: later mutation by the caller has no effect
  throw new TypeError(
    `request-state keys must be strings or Uint8Arrays; keys[${index}] is ${key === null ? 'null' : typeof key}`,
  )
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * A ring of request-state secrets and the AES-GCM codecs derived from it, one per audience.
 * Derived keys are computed once and cached (non-extractable `CryptoKey`s).
 *
 * @throws TypeError for a key that is neither a string nor a Uint8Array.
 * @throws RangeError for an empty ring, a key shorter than 32 bytes, or a duplicate key.
 * @example
 * const ring = new AesGcmKeyRing([env.NEW_KEY, env.OLD_KEY]) // NEW seals, both open
 * const token = await ring.sealBound(new TextEncoder().encode('hello'), 'the request binding', 'billing')
 * @internal not in the public API: RequestStateSecurity's built-in codec; `keys` reaches it
 */
export class AesGcmKeyRing {
  readonly #raw: Uint8Array<ArrayBuffer>[]
  #built: RingEntry[] | undefined
  readonly #codecs = new Map<string, RequestStateCodec>()
  #byKid: Promise<Map<number, RingEntry[]>> | undefined
  readonly #nonce: () => Uint8Array<ArrayBuffer>

  constructor(keys: readonly RequestStateKey[], internal: { [TEST_RANDOM_SOURCE]?: RandomSource } = {}) {
    if (!Array.isArray(keys)) throw new TypeError('request-state keys must be an array')
    if (keys.length === 0) throw new RangeError('request-state keys: at least one key is required')
    const raw = keys.map((k: RequestStateKey, i: number) => toBytes(k, i)) // typed: Array.isArray made keys any[]
    raw.forEach((bytes, i) => {
      if (bytes.length < MIN_KEY_BYTES) {
        throw new RangeError(
          `request-state keys must be at least ${MIN_KEY_BYTES} bytes of secret randomness; keys[${i}] is ${bytes.length} bytes. ` +
            'Generate one with: node -e "console.log(crypto.getRandomValues(Buffer.alloc(32)).toString(\'base64url\'))"',
        )
      }
      const dup = raw.findIndex((other, j) => j < i && sameBytes(other, bytes))
      if (dup >= 0) throw new RangeError(`request-state keys[${i}] duplicates keys[${dup}]`)
    })
    this.#raw = raw
    const random = internal[TEST_RANDOM_SOURCE]
    this.#nonce = random ? () => random(NONCE_BYTES) : pooledNonces()
  }

  /**
   * The imported keys, made on first use: Workers forbid crypto work (and random values) at global
   * scope, so a ring — and a server holding one — may be built at module level.
   */
  get #entries(): RingEntry[] {
    this.#built ??= this.#raw.map((bytes) => {
      const hkdf = crypto.subtle.importKey('raw', bytes, 'HKDF', false, ['deriveKey', 'deriveBits'])
      const entry: RingEntry = {
        hkdf,
        kid: Promise.resolve(new Uint8Array(0)),
        unboundAads: new Map(),
        aes: new Map(),
        aesReady: new Map(),
      }
      entry.kid = hkdf.then(async (k) => {
        const bits = await crypto.subtle.deriveBits(
          { name: 'HKDF', hash: 'SHA-256', salt: EMPTY_SALT, info: KID_INFO },
          k,
          256,
        )
        entry.kidBytes = new Uint8Array(bits).slice(0, KID_BYTES)
        for (const scheme of UNBOUND_SCHEMES) {
          const aad = new Uint8Array(scheme.prefixBytes.length + KID_BYTES)
          aad.set(scheme.prefixBytes)
          aad.set(entry.kidBytes, scheme.prefixBytes.length)
          entry.unboundAads.set(scheme, aad)
        }
        return entry.kidBytes
      })
      entry.kid.catch(() => {}) // surfaced by the first seal/unseal that awaits it
      return entry
    })
    return this.#built
  }

  /**
   * The codec of session ids (`"s1."` tokens) for one audience: the same keys, under the session HKDF info
   * (`edge-mcp/session/v1/aes-256-gcm`), so it neither opens nor mints `requestState` tokens.
   */
  sessionCodec(audience?: string): RequestStateCodec {
    return this.#schemeCodec(SESSION_SCHEME, audience)
  }

  /**
   * The codec of server-to-client request ids (`"q1."` tokens) for one audience: the same keys, under the
   * question HKDF info (`edge-mcp/question/v1/aes-256-gcm`), so it opens neither session ids nor
   * `requestState` tokens, and they none of its.
   */
  questionCodec(audience?: string): RequestStateCodec {
    return this.#schemeCodec(QUESTION_SCHEME, audience)
  }

  #schemeCodec(scheme: Scheme, audience: string | undefined): RequestStateCodec {
    const id = scheme.prefix + (audience === undefined ? '' : '\u0000' + audience)
    let codec = this.#codecs.get(id)
    if (!codec) {
      codec = {
        seal: (p) => this.#seal(p, audience, scheme),
        unseal: (t) => this.#unseal(t, audience, scheme),
      }
      this.#codecs.set(id, codec)
    }
    return codec
  }

  /**
   * The AAD under `entry`: `prefix ‖ kid`, then the binding of a `requestState` token (bytes, or text
   * written as UTF-8 straight into the AAD: one allocation for the usual ASCII binding).
   */
  #aad(entry: RingEntry, scheme: Scheme, binding?: Binding): Uint8Array<ArrayBuffer> {
    if (binding === undefined) return entry.unboundAads.get(scheme)!
    const head = scheme.prefixBytes.length + KID_BYTES
    let aad = new Uint8Array(head + binding.length)
    if (typeof binding !== 'string') aad.set(binding, head)
    else if (UTF8.encodeInto(binding, aad.subarray(head)).read < binding.length) {
      const bytes = UTF8.encode(binding) // not ASCII: more bytes than characters
      aad = new Uint8Array(head + bytes.length)
      aad.set(bytes, head)
    }
    aad.set(scheme.prefixBytes)
    aad.set(entry.kidBytes!, scheme.prefixBytes.length)
    return aad
  }

  /**
   * Seal `plaintext` as a `requestState` token, `"v2." + base64url(kid(4) ‖ nonce(12) ‖ ciphertext ‖ tag(16))`,
   * bound to `binding`: bytes the opener recomputes, carried in the AAD (`"v2." ‖ kid ‖ binding`), not in
   * the token. Under `keys[0]` and the audience's key.
   * @param binding - bytes, or text (its UTF-8 bytes; keep it well-formed UTF-16: a lone surrogate becomes U+FFFD).
   * @returns the token (ASCII; 4/3 of 32 + plaintext bytes, plus the 3-character prefix).
   */
  sealBound(plaintext: Uint8Array, binding: Binding, audience?: string): Promise<string> {
    return this.#seal(plaintext, audience, REQUEST_STATE_SCHEME, binding)
  }

  /**
   * Open a `requestState` token sealed for exactly `binding` (and `audience`), with any key of the ring.
   * @throws InvalidRequestStateError `malformed` (not `"v2."` and canonical base64url of ≥ 32 bytes),
   *   `unknown key`, or `seal` (tampered, another key, another audience, or another binding: the tag cannot
   *   tell which).
   */
  openBound(token: string, binding: Binding, audience?: string): Promise<Uint8Array> {
    return this.#unseal(token, audience, REQUEST_STATE_SCHEME, binding)
  }

  #aesKey(entry: RingEntry, audience: string | undefined, scheme: Scheme): CryptoKey | Promise<CryptoKey> {
    const ready = entry.aesReady.get(scheme)?.get(audience)
    if (ready) return ready
    const id =
      (scheme.info === REQUEST_STATE_SCHEME.info ? '' : scheme.prefix) +
      (audience === undefined ? '' : '\u0000' + audience)
    let key = entry.aes.get(id)
    if (!key) {
      const info = new TextEncoder().encode(audience === undefined ? scheme.info : scheme.info + '\u0000' + audience)
      key = entry.hkdf.then((k) =>
        crypto.subtle.deriveKey(
          { name: 'HKDF', hash: 'SHA-256', salt: EMPTY_SALT, info },
          k,
          { name: 'AES-GCM', length: 256 },
          false,
          ['encrypt', 'decrypt'],
        ),
      )
      key.then(
        (k) => {
          let byAudience = entry.aesReady.get(scheme)
          if (!byAudience) entry.aesReady.set(scheme, (byAudience = new Map<string | undefined, CryptoKey>()))
          byAudience.set(audience, k)
        },
        () => entry.aes.delete(id),
      )
      entry.aes.set(id, key)
    }
    return key
  }

  async #seal(plaintext: Uint8Array, audience: string | undefined, scheme: Scheme, binding?: Binding): Promise<string> {
    const entry = this.#entries[0]!
    const kid = entry.kidBytes ?? (await entry.kid)
    const maybeKey = this.#aesKey(entry, audience, scheme)
    const key = maybeKey instanceof Promise ? await maybeKey : maybeKey
    const nonce = this.#nonce()
    if (nonce.length !== NONCE_BYTES) throw new RangeError('nonce must be 12 bytes')
    // tagLength defaults to 128 bits (Web Crypto AesGcmParams)
    const sealed = new Uint8Array(
      await crypto.subtle.encrypt(
        { name: 'AES-GCM', iv: nonce, additionalData: this.#aad(entry, scheme, binding) },
        key,
        plaintext as Uint8Array<ArrayBuffer>,
      ),
    )
    // the token's bytes are only read by the encoder below: a reused buffer while they fit one
    const length = KID_BYTES + NONCE_BYTES + sealed.length
    const body =
      length <= BODY_SCRATCH_BYTES ? (bodyScratch ??= new Uint8Array(BODY_SCRATCH_BYTES)) : new Uint8Array(length)
    body.set(kid)
    body.set(nonce, KID_BYTES)
    body.set(sealed, KID_BYTES + NONCE_BYTES)
    return scheme.prefix + encodeBase64Url(body.subarray(0, length))
  }

  async #unseal(token: string, audience: string | undefined, scheme: Scheme, binding?: Binding): Promise<Uint8Array> {
    if (typeof token !== 'string' || !token.startsWith(scheme.prefix)) throw new InvalidRequestStateError('malformed')
    const body = decodeBase64UrlStrict(token.slice(scheme.prefix.length))
    if (!body || body.length < KID_BYTES + NONCE_BYTES + TAG_BYTES) throw new InvalidRequestStateError('malformed')
    const kidNumber = ((body[0]! << 24) | (body[1]! << 16) | (body[2]! << 8) | body[3]!) >>> 0
    const entries = (this.#byKidReady ?? (await this.#kidMap())).get(kidNumber)
    if (!entries) throw new InvalidRequestStateError('unknown key')
    for (const entry of entries) {
      const maybeKey = this.#aesKey(entry, audience, scheme)
      const key = maybeKey instanceof Promise ? await maybeKey : maybeKey
      try {
        // the AAD is the prefix ‖ this entry's kid, which equals the token's kid bytes (looked up by them)
        const plain = await crypto.subtle.decrypt(
          {
            name: 'AES-GCM',
            iv: body.subarray(KID_BYTES, KID_BYTES + NONCE_BYTES),
            additionalData: this.#aad(entry, scheme, binding),
          },
          key,
          body.subarray(KID_BYTES + NONCE_BYTES),
        )
        return new Uint8Array(plain)
      } catch {
        // another key may share this kid
      }
    }
    throw new InvalidRequestStateError('seal')
  }

  #byKidReady: Map<number, RingEntry[]> | undefined

  #kidMap(): Promise<Map<number, RingEntry[]>> {
    this.#byKid ??= Promise.all(this.#entries.map((e) => e.kid)).then((kids) => {
      const map = new Map<number, RingEntry[]>()
      kids.forEach((kid, i) => {
        const n = new DataView(kid.buffer, kid.byteOffset, KID_BYTES).getUint32(0)
        // distinct secrets share a 32-bit kid with probability 2^-32: keep them all, and try each
        map.set(n, [...(map.get(n) ?? []), this.#entries[i]!])
      })
      this.#byKidReady = map
      return map
    })
    return this.#byKid
  }
}

/**
 * Parse a comma-separated list of keys, newest first, each the unpadded base64url of ≥ 32 random bytes
 * (the format of the demo Worker's `REQUEST_STATE_KEYS` secret). Whitespace around entries is ignored.
 * @throws TypeError when there is no text; RangeError naming the entry that is not canonical base64url or is shorter than 32 bytes.
 * @example new RequestStateSecurity({ keys: parseRequestStateKeys(env.REQUEST_STATE_KEYS) })
 */
export function parseRequestStateKeys(text: string): Uint8Array<ArrayBuffer>[] {
  if (typeof text !== 'string' || text.trim() === '')
    throw new TypeError('request-state keys: expected comma-separated base64url keys, got none (is the secret set?)')
  const entries = text.split(',').map((s) => s.trim())
  return entries.map((entry, i) => {
    const bytes = decodeBase64UrlStrict(entry)
    if (!bytes) throw new RangeError(`request-state keys[${i}] is not unpadded base64url`)
    if (bytes.length < MIN_KEY_BYTES)
      throw new RangeError(`request-state keys[${i}] is ${bytes.length} bytes; at least ${MIN_KEY_BYTES} are required`)
    return bytes
  })
}
