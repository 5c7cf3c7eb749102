/**
 * Canonical JSON and digests used to bind sealed state to a request.
 * @module
 */
import { encodeBase64Url } from './base64url.ts'

/** Deepest nesting {@link canonicalJson} accepts (objects and arrays), so hostile input cannot exhaust the stack. */
export const MAX_JSON_DEPTH = 256

/**
 * Deterministic JSON: object keys sorted by UTF-16 code units at every depth, no whitespace. Strings go
 * through `JSON.stringify`, which escapes lone surrogates (`"\ud800"`), so distinct strings never collide.
 * `undefined` members are dropped, as `JSON.stringify` does.
 * `-0` is written `-0` (distinct from `0`).
 * @throws TypeError for values JSON cannot carry (bigint, cycles).
 * @throws RangeError for non-finite numbers (`1e999` parses to Infinity), or nesting deeper than {@link MAX_JSON_DEPTH}.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set())
}

function write(value: unknown, seen: Set<object>): string {
  if (seen.size >= MAX_JSON_DEPTH && typeof value === 'object' && value !== null) {
    throw new RangeError(`canonicalJson: nested deeper than ${MAX_JSON_DEPTH} levels`)
  }
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') throw new TypeError('canonicalJson: bigint is not JSON')
    if (typeof value === 'number') {
      // JSON.stringify maps ±Infinity and NaN to null and -0 to 0: keep them from colliding with those values
      if (!Number.isFinite(value)) throw new RangeError(`canonicalJson: non-finite number ${String(value)}`)
      if (Object.is(value, -0)) return '-0'
    }
    return JSON.stringify(value) ?? 'null'
  }
  if (seen.has(value)) throw new TypeError('canonicalJson: cyclic value')
  seen.add(value)
  let out: string
  if (Array.isArray(value)) {
    out =
      '[' +
      value.map((item) => (item === undefined || typeof item === 'function' ? 'null' : write(item, seen))).join(',') +
      ']'
  } else {
    const obj = value as Record<string, unknown>
    const parts: string[] = []
    for (const key of Object.keys(obj).sort()) {
      const item = obj[key]
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue
      parts.push(JSON.stringify(key) + ':' + write(item, seen))
    }
    out = '{' + parts.join(',') + '}'
  }
  seen.delete(value)
  return out
}

const encoder = new TextEncoder()

/** SHA-256(utf8(text))[0..16]: the 16 bytes {@link digest16} encodes. */
export async function digestBytes16(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)), 0, 16)
}

/** base64url(SHA-256(utf8(text))[0..16]): a 22-character digest. */
export async function digest16(text: string): Promise<string> {
  return encodeBase64Url(await digestBytes16(text))
}

/**
 * Canonical JSON of request arguments for binding: absent, `null` and `{}` are the same (`"{}"`).
 * @throws what {@link canonicalJson} throws.
 */
export function canonicalArguments(args: unknown): string {
  return canonicalJson(args === undefined || args === null ? {} : args)
}

/**
 * Digest of request arguments for binding: {@link digest16} of {@link canonicalArguments}.
 * @returns a 22-character base64url string.
 * @throws (rejects with) what {@link canonicalJson} throws.
 */
export async function argumentsDigest(args: unknown): Promise<string> {
  return digest16(canonicalArguments(args))
}
