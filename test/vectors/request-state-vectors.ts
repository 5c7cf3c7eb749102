/**
 * Deterministic request-state vectors: fixed keys, nonces, salts and clock pin the exact token bytes.
 * Web APIs only, so the same file runs in Node, workerd, Deno and Bun (see run.ts and worker.ts).
 */
import { argumentsDigest, canonicalJson } from '../../src/encoding/canonical.ts'
import { TEST_RANDOM_SOURCE, type RandomSource } from '../../src/request-state/codec.ts'
import { RequestStateSecurity, type RequestBinding } from '../../src/request-state/security.ts'
import type { RequestStateValue } from '../../src/request-state/claims.ts'

/** A deterministic "random" source: bytes seed, seed+1, … continuing across calls. */
export function counterRandom(seed: number): RandomSource {
  let next = seed
  return (length) => Uint8Array.from({ length }, () => next++ & 0xff)
}

export const KEY_1 = Uint8Array.from({ length: 32 }, (_, i) => i) // 00 01 … 1f
export const KEY_2 = 'edge-mcp test vector key number two!' // a string key: its UTF-8 bytes

export interface PolicyVector {
  name: string
  keys: Array<Uint8Array | string>
  nowMs: number
  ttl: number
  audience: string | undefined
  binding: RequestBinding
  /** Any JSON value. */
  state: RequestStateValue
  seed: number
  token: string
}

export const POLICY_VECTORS: PolicyVector[] = [
  {
    name: 'tools/call deploy {env:"prod"}, audience "deployer", no principal, a string state',
    keys: [KEY_1],
    nowMs: 1_800_000_000_000,
    ttl: 600,
    audience: 'deployer',
    binding: { method: 'tools/call', target: 'deploy', canonicalArgs: '{"env":"prod"}', principal: undefined },
    state: 'awaiting-confirm',
    seed: 0x20,
    token: 'v2.P7hEGiAhIiMkJSYnKCkqK2VrvBC80Wc5su2SvL1Xep9WoUv49e-OwBFTXU_ah2Z2uq9H0NMySWu1WxCU1ok',
  },
  {
    name: 'resources/read with a principal, an object state, sealed by keys[0] of a two-key ring',
    keys: [KEY_2, KEY_1],
    nowMs: 1_700_000_000_500,
    ttl: 30,
    audience: 'files',
    binding: {
      method: 'resources/read',
      target: 'file:///notes.txt',
      canonicalArgs: '{}',
      principal: '["client-123",null,"alice"]',
    },
    state: { page: 2, seen: ['a', 'b'], note: 'é\ud800' },
    seed: 0x60,
    token:
      'v2.NxrIXGBhYmNkZWZnaGlqa3T3LWOfBtRNrLhK4-gDP7N8BTxkDP6txguF8ibj-m8VkVyrHLiaphd-sjNoWGGMCLw0KmKU0FqRRIFwTn-OXltJqKnFcrpoVAU',
  },
  {
    name: 'tools/call with nested non-ASCII arguments (quotes, a lone surrogate), no audience, a principal',
    keys: [KEY_1],
    nowMs: 1_750_000_000_123,
    ttl: 120,
    audience: undefined,
    binding: {
      method: 'tools/call',
      target: 'résumé "draft"',
      canonicalArgs: '{"a":true,"b":[1,{"y":"é\\ud800","z":null}]}',
      principal: 'ünï\u{1F600}',
    },
    state: ['step', 3],
    seed: 0xa0,
    token: 'v2.P7hEGqChoqOkpaanqKmqqybeuQlBfOoCsGTaoiN4MMKr4NRGnVPnHlfPgOWyg5GzuvT_TWtT',
  },
]

export const DIGEST_VECTORS: Array<{ args: unknown; canonical: string; digest: string }> = [
  { args: undefined, canonical: '{}', digest: 'RBNvo1WzZ4oRRq0W9-hkng' },
  { args: { env: 'prod' }, canonical: '{"env":"prod"}', digest: '_fZbwPys4tn6ogEHRin4tQ' },
  {
    args: { b: [1, { z: null, y: 'é' }], a: true },
    canonical: '{"a":true,"b":[1,{"y":"é","z":null}]}',
    digest: '_z1pP8X4yZKq3rySZlZDbQ',
  },
  { args: { env: '\ud800-prod' }, canonical: '{"env":"\\ud800-prod"}', digest: 'bKbMaC5qRALUfpLFsAmW4Q' },
]

/** Compute every vector with the SDK; returns the mismatches (empty when all pass) and the computed values. */
export async function runVectors(): Promise<{ passed: number; failures: string[]; computed: Record<string, string> }> {
  const failures: string[] = []
  const computed: Record<string, string> = {}
  let passed = 0
  const check = (name: string, actual: string, expected: string) => {
    computed[name] = actual
    if (actual === expected) passed++
    else failures.push(`${name}: expected ${expected}, got ${actual}`)
  }
  for (const v of DIGEST_VECTORS) {
    check(`canonical ${v.canonical}`, canonicalJson(v.args ?? {}), v.canonical)
    check(`digest ${v.canonical}`, await argumentsDigest(v.args), v.digest)
  }
  for (const v of POLICY_VECTORS) {
    const options = { keys: v.keys, ttlSeconds: v.ttl, now: () => v.nowMs, [TEST_RANDOM_SOURCE]: counterRandom(v.seed) }
    const policy = new RequestStateSecurity(options)
    check(`policy seal: ${v.name}`, await policy.seal(v.state, v.binding, v.audience), v.token)
    // any key of the ring opens: the same keys in reverse order, and a fresh policy (no shared cache)
    const opener = new RequestStateSecurity({ keys: [...v.keys].reverse(), ttlSeconds: v.ttl, now: () => v.nowMs })
    const opened = await opener.open(v.token, v.binding, v.audience).catch((e: Error) => e.message)
    check(`policy open: ${v.name}`, JSON.stringify(opened), JSON.stringify(v.state))
  }
  return { passed, failures, computed }
}
