/**
 * Bring your own request-state codec: KMS-style envelope encryption.
 *
 * One call to your key service at start-up unwraps a data key (here AES-KW with a key-encryption key
 * stands in for `kms.decrypt`); every token after that is local AES-256-GCM. The format prefix `kms1.`
 * is the additional authenticated data, so changing it fails the tag; the body is lowercase hex, and only
 * the exact string `seal` produced opens (upper-case hex, whitespace or a missing prefix are refused).
 * Expiry, request binding, principal and audience are still checked by the SDK around any codec.
 *
 * One codec holds one data key and writes no key id: changing the data key drops in-flight tokens
 * (for rotation, keep the old codec around and try it second, or use the built-in key ring).
 *
 * @example
 * // wrappedDataKey: Uint8Array you stored next to the app; keyEncryptionKey: a CryptoKey (AES-KW) from your KMS
 * const dataKey = await unwrapDataKey(wrappedDataKey, keyEncryptionKey)
 * const mcp = new McpServer({ name: 'deployer', version: '1.0.0' }, {
 *   requestStateSecurity: new RequestStateSecurity({ codec: envelopeCodec(dataKey) }),
 * })
 */
import { InvalidRequestStateError, type RequestStateCodec } from '../src/server/index.ts'

const PREFIX = 'kms1.'
const AAD = new TextEncoder().encode(PREFIX)
const NONCE_BYTES = 12
const TAG_BYTES = 16

/** Unwrap a wrapped 32-byte data key once, at start-up (stand-in for one KMS Decrypt call). */
export function unwrapDataKey(wrapped: Uint8Array<ArrayBuffer>, keyEncryptionKey: CryptoKey): Promise<CryptoKey> {
  return crypto.subtle.unwrapKey('raw', wrapped, keyEncryptionKey, 'AES-KW', { name: 'AES-GCM', length: 256 }, false, [
    'encrypt',
    'decrypt',
  ])
}

function toHex(bytes: Uint8Array): string {
  let out = ''
  for (const b of bytes) out += b.toString(16).padStart(2, '0')
  return out
}

function fromCanonicalHex(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (text.length % 2 !== 0 || !/^[0-9a-f]*$/.test(text)) return undefined // lowercase only: one spelling per token
  const out = new Uint8Array(text.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16)
  return out
}

/** A {@link RequestStateCodec} over an unwrapped AES-GCM data key. */
export function envelopeCodec(dataKey: CryptoKey): RequestStateCodec {
  return {
    async seal(plaintext) {
      const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES))
      const sealed = new Uint8Array(
        await crypto.subtle.encrypt(
          { name: 'AES-GCM', iv: nonce, additionalData: AAD },
          dataKey,
          plaintext as Uint8Array<ArrayBuffer>,
        ),
      )
      return PREFIX + toHex(nonce) + toHex(sealed)
    },
    async unseal(token) {
      if (!token.startsWith(PREFIX)) throw new InvalidRequestStateError('unknown token format')
      const raw = fromCanonicalHex(token.slice(PREFIX.length))
      if (!raw || raw.length < NONCE_BYTES + TAG_BYTES) throw new InvalidRequestStateError('malformed')
      try {
        const plain = await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv: raw.subarray(0, NONCE_BYTES), additionalData: AAD },
          dataKey,
          raw.subarray(NONCE_BYTES),
        )
        return new Uint8Array(plain)
      } catch {
        throw new InvalidRequestStateError('token failed verification')
      }
    },
  }
}
