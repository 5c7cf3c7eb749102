/**
 * Benchmark: seal+open operations per second for a 1 KiB JSON-object state (`STATE_OBJECT`), measured in
 * one run next to raw `crypto.subtle` AES-256-GCM encrypt+decrypt of the same JSON bytes (the floor) and
 * next to the official SDK's request-state codec (`@modelcontextprotocol/server` 2.4.0, HMAC-SHA256,
 * signed not encrypted, mint+verify of the same object), 1 and 8 in flight.
 * Targets: edge-mcp's full policy (claims, binding, expiry checked) ≥ 1.2× the official codec and ≥ 80 %
 * of raw AES-GCM.
 */
import { createRequestStateCodec } from '@modelcontextprotocol/server'
import { codec, security } from './edge-mcp.ts'
import { fmt, measureAll, met, x } from './measure.ts'
import { STATE_OBJECT, asHandlerState, fromHandlerState } from './state-size.ts'

const KEY = crypto.getRandomValues(new Uint8Array(32))
const json = JSON.stringify(STATE_OBJECT)
const bytes = new TextEncoder().encode(json)
const SIZE = bytes.length
const state = asHandlerState(STATE_OBJECT)

/** Ops/s at 1 in flight of edge-mcp's full policy (`ours`), the official codec and raw AES-GCM (`floor`), and the table lines. */
export async function benchRequestState(): Promise<{ ours: number; theirs: number; floor: number; lines: string[] }> {
  const raw = await crypto.subtle.importKey('raw', KEY, 'AES-GCM', false, ['encrypt', 'decrypt'])
  const rawOp = async () => {
    const iv = crypto.getRandomValues(new Uint8Array(12))
    const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, raw, bytes)
    await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, raw, ct)
  }
  // the policy's AES-GCM layer alone: the same seal and open, an empty binding, no times, no claims
  const ring = new codec.AesGcmKeyRing([KEY])
  const codecOp = async () => ring.openBound(await ring.sealBound(bytes, '', 'bench'), '', 'bench')
  const policy = new security.RequestStateSecurity({ keys: [KEY] })
  const binding = { method: 'tools/call', target: 'deploy', canonicalArgs: '{"env":"prod"}', principal: undefined }
  const policyOp = async () => policy.open(await policy.seal(state, binding, 'bench'), binding, 'bench')
  const official = createRequestStateCodec<Record<string, unknown>>({ key: KEY })
  const officialOp = async () => official.verify(await official.mint(STATE_OBJECT), undefined as never)

  // sanity: each pair really round-trips before it is timed
  if ((await codecOp()).length !== SIZE) throw new Error('codec round trip failed')
  if (JSON.stringify(fromHandlerState(await policyOp())) !== json) throw new Error('policy round trip failed')
  if (JSON.stringify(await officialOp()) !== json) throw new Error('official round trip failed')

  const names = [
    'floor: raw crypto.subtle AES-256-GCM encrypt+decrypt',
    'edge-mcp AES-GCM layer `sealBound`+`openBound` (info: no claims, empty binding)',
    '**edge-mcp full policy seal+open** (claims, binding and expiry checked)',
    'official SDK 2.4.0 `createRequestStateCodec` mint+verify (no `bind`)',
  ]
  const ops = [rawOp, codecOp, policyOp, officialOp]
  const c1 = await measureAll(ops, { ms: 300, rounds: 7 })
  const c8 = await measureAll(ops, { ms: 300, rounds: 7, concurrency: 8, warmup: 300 })
  const [raw1, , policy1, official1] = c1 as [number, number, number, number]
  const [raw8, , policy8, official8] = c8 as [number, number, number, number]
  const vsOfficial = policy1 / official1
  const ofRaw = policy1 / raw1
  const pct = (n: number) => `${Math.round(n * 100)} %`
  const lines = [
    `### requestState: seal + open of a ${fmt(SIZE)}-byte JSON-object state (ops/s, median of interleaved windows)`,
    '',
    '| operation | 1 in flight | 8 in flight |',
    '| --- | ---: | ---: |',
    ...names.map((name, i) => `| ${name} | ${fmt(c1[i])} | ${fmt(c8[i])} |`),
    '',
    '| ratio | 1 in flight | 8 in flight | target (1 in flight) |',
    '| --- | ---: | ---: | --- |',
    `| edge-mcp full policy ÷ official codec | **${x(vsOfficial)}** | ${x(policy8 / official8)} | ≥ 1.2× ${met(vsOfficial >= 1.2)} |`,
    `| edge-mcp full policy ÷ raw AES-GCM | **${pct(ofRaw)}** | ${pct(policy8 / raw8)} | ≥ 80 % ${met(ofRaw >= 0.8)} |`,
  ]
  return { ours: policy1, theirs: official1, floor: raw1, lines }
}
