/**
 * What is inside a sealed token: the `"v2."` binary plaintext and binding (with keys), and the JSON
 * claims envelope a custom codec seals (salted principal tags); see `security.ts` for both.
 * @module
 */
import { decodeBase64UrlStrict, encodeBase64Url } from '../encoding/base64url.ts'
import { InvalidRequestStateError } from './errors.ts'

/**
 * A value a handler carries across rounds in `requestState`: any JSON value (as `JSON.stringify` writes
 * it and `JSON.parse` reads it back). A string reads back as the same string.
 */
export type RequestStateValue =
  string | number | boolean | null | RequestStateValue[] | { [key: string]: RequestStateValue }

const utf8 = new TextEncoder()
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })
const PRINCIPAL_DOMAIN = utf8.encode('edge-mcp/request-state/principal:')
/** Bytes of each time in a `"v2."` plaintext: an unsigned 48-bit big-endian count of milliseconds. */
const TIME_BYTES = 6
/** Largest time a `"v2."` plaintext holds: 2^48 − 1 ms (year 10889). */
const MAX_TIME_MS = 2 ** 48 - 1

function writeTime(out: Uint8Array, at: number, ms: number): void {
  const high = Math.floor(ms / 2 ** 32)
  const low = ms >>> 0
  out[at] = high >>> 8
  out[at + 1] = high & 0xff
  out[at + 2] = low >>> 24
  out[at + 3] = (low >>> 16) & 0xff
  out[at + 4] = (low >>> 8) & 0xff
  out[at + 5] = low & 0xff
}

function readTime(bytes: Uint8Array, at: number): number {
  const high = (bytes[at]! << 8) | bytes[at + 1]!
  const low = ((bytes[at + 2]! << 24) | (bytes[at + 3]! << 16) | (bytes[at + 4]! << 8) | bytes[at + 5]!) >>> 0
  return high * 2 ** 32 + low
}

/**
 * What a round carries for the server beside the handler's state (sealed with it, never shown to a
 * handler): `r` the 1-based round the token is for, `c` strings server middleware carries across rounds.
 * Written only by a server with middleware.
 * @internal
 */
export interface RoundExtension {
  r: number
  c?: Record<string, string>
  /** 1: the handler returned no state; the token exists to carry this extension (its state is `null`). */
  e?: 1
}

/**
 * The `"v2."` plaintext: `iat(6) ‖ exp(6) ‖ UTF-8 JSON of the state`, times in milliseconds since the
 * epoch (unsigned 48-bit big-endian); with an extension, `iat(6) ‖ exp(6) ‖ 0x00 ‖ UTF-8 JSON of the
 * extension ‖ 0x00 ‖ UTF-8 JSON of the state` (JSON text never holds a raw NUL).
 * @throws TypeError for a state `JSON.stringify` cannot write (undefined, a function, a cycle, a BigInt);
 *   RangeError for a time outside 0 … 2^48 − 1 ms.
 */
export function encodeStatePlaintext(
  iatMs: number,
  expMs: number,
  state: RequestStateValue,
  extension?: RoundExtension,
): Uint8Array {
  let json = JSON.stringify(state) as string | undefined
  if (json === undefined) throw new TypeError('requestState must be a JSON value')
  if (!(iatMs >= 0 && expMs >= 0 && iatMs <= MAX_TIME_MS && expMs <= MAX_TIME_MS))
    throw new RangeError('request-state times must be within 0 … 2^48 − 1 ms')
  if (extension) json = `\0${JSON.stringify(extension)}\0${json}`
  // sized for ASCII JSON (one byte a character, the common case); else for the UTF-8 worst case (3 a unit)
  let out = new Uint8Array(2 * TIME_BYTES + json.length)
  const ascii = utf8.encodeInto(json, out.subarray(2 * TIME_BYTES))
  let written = ascii.written
  if (ascii.read < json.length) {
    out = new Uint8Array(2 * TIME_BYTES + json.length * 3)
    written = utf8.encodeInto(json, out.subarray(2 * TIME_BYTES)).written
  }
  writeTime(out, 0, iatMs)
  writeTime(out, TIME_BYTES, expMs)
  return written === out.length - 2 * TIME_BYTES ? out : out.subarray(0, 2 * TIME_BYTES + written)
}

/**
 * Read a `"v2."` plaintext back.
 * @throws InvalidRequestStateError `malformed claims` for anything else (short, not UTF-8, not JSON, a
 *   malformed extension).
 */
export function decodeStatePlaintext(bytes: Uint8Array): {
  iatMs: number
  expMs: number
  state: RequestStateValue
  extension?: RoundExtension
} {
  if (bytes.length <= 2 * TIME_BYTES) throw new InvalidRequestStateError('malformed claims')
  try {
    const text = strictUtf8.decode(bytes.subarray(2 * TIME_BYTES))
    const end = text[0] === '\0' ? text.indexOf('\0', 1) : 0
    const out = {
      iatMs: readTime(bytes, 0),
      expMs: readTime(bytes, TIME_BYTES),
      state: JSON.parse(end ? text.slice(end + 1) : text) as RequestStateValue,
    }
    return end ? { ...out, extension: roundExtensionOf(JSON.parse(text.slice(1, end))) } : out
  } catch {
    throw new InvalidRequestStateError('malformed claims')
  }
}

/**
 * A sealed extension, checked: `r` a positive integer, `c` (when present) an object of strings, `e` 1 or absent.
 * @throws InvalidRequestStateError `malformed claims` for anything else.
 */
export function roundExtensionOf(value: unknown): RoundExtension {
  const { r, c, e } = isObject(value) ? value : {}
  if (
    !(Number.isInteger(r) && (r as number) > 0) ||
    !(c === undefined || (isObject(c) && Object.values(c).every((v) => typeof v === 'string'))) ||
    !(e === undefined || e === 1)
  )
    throw new InvalidRequestStateError('malformed claims')
  const out = { r } as RoundExtension
  if (c !== undefined) out.c = { ...(c as Record<string, string>) }
  if (e === 1) out.e = 1
  return out
}

/**
 * The `"v2."` binding (the AAD after `"v2." ‖ kid` is its UTF-8): compact JSON of `[method, target,
 * canonicalArgs, audience|null, principal|null]`, the canonical arguments as a JSON string (the AAD is
 * not transmitted, so it carries them rather than a digest) — unambiguous, and lone surrogates stay
 * distinct (escaped, so the text is well-formed UTF-16 and its UTF-8 is exact). Its length grows with
 * the arguments (bounded by the request body cap).
 */
export function bindingJson(
  method: string,
  target: string,
  canonicalArgs: string,
  audience: string | undefined,
  principal: string | undefined,
): string {
  return JSON.stringify([method, target, canonicalArgs, audience ?? null, principal ?? null])
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

async function tagOf(salt: Uint8Array, principal: string): Promise<Uint8Array> {
  // JSON.stringify escapes lone surrogates, so "\ud800" and "\udfff" never collide (TextEncoder would map both to U+FFFD).
  const p = utf8.encode(JSON.stringify(principal))
  const input = new Uint8Array(PRINCIPAL_DOMAIN.length + salt.length + p.length)
  input.set(PRINCIPAL_DOMAIN)
  input.set(salt, PRINCIPAL_DOMAIN.length)
  input.set(p, PRINCIPAL_DOMAIN.length + salt.length)
  return new Uint8Array(await crypto.subtle.digest('SHA-256', input)).subarray(0, 16)
}

export async function principalTag(principal: string, salt: Uint8Array): Promise<string> {
  const tag = await tagOf(salt, principal)
  const out = new Uint8Array(24)
  out.set(salt)
  out.set(tag, 8)
  return encodeBase64Url(out)
}

export async function principalMatches(claim: unknown, principal: string): Promise<boolean> {
  if (typeof claim !== 'string') return false
  const raw = decodeBase64UrlStrict(claim)
  if (!raw || raw.length !== 24) return false
  const expected = await tagOf(raw.subarray(0, 8), principal)
  let diff = 0
  for (let i = 0; i < 16; i++) diff |= expected[i]! ^ raw[8 + i]!
  return diff === 0
}

/** The claims object inside an unsealed token. @throws InvalidRequestStateError `malformed claims`. */
export function claimsOf(bytes: Uint8Array): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = JSON.parse(strictUtf8.decode(bytes))
  } catch {
    throw new InvalidRequestStateError('malformed claims')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidRequestStateError('malformed claims')
  return parsed as Record<string, unknown>
}
