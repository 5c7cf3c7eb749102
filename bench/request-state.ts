/**
 * Benchmark: seal+unseal operations per second for a 1 KiB state, measured in one run next to raw
 * `crypto.subtle` AES-256-GCM encrypt+decrypt of the same bytes and next to the official SDK's
 * request-state codec (`@modelcontextprotocol/server` 2.4.0, HMAC-SHA256, signed not encrypted).
 * Targets: within 1.5× of raw AES-GCM, and faster than the official codec.
 */
import { createRequestStateCodec } from '@modelcontextprotocol/server'
import { AesGcmKeyRing } from '../src/request-state/codec.ts'
import { RequestStateSecurity } from '../src/request-state/security.ts'
import { fmt, measureAll, x } from './measure.ts'

export interface BenchRow {
  name: string
  opsPerSec: number
}

const SIZE = 1024
const KEY = crypto.getRandomValues(new Uint8Array(32))
const bytes = crypto.getRandomValues(new Uint8Array(SIZE))
const text = 'x'.repeat(SIZE)

export async function benchRequestState(): Promise<{ rows: BenchRow[]; lines: string[] }> {
  const raw = await crypto.subtle.importKey('raw', KEY, 'AES-GCM', false, ['encrypt', 'decrypt'])
  const rawOp = async () => {
    const iv = crypto.getRandomValues(new Uint8Array(12))
    const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, raw, bytes)
    await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, raw, ct)
  }
  const codec = new AesGcmKeyRing([KEY]).codec('bench')
  const codecOp = async () => codec.unseal(await codec.seal(bytes))
  const policy = new RequestStateSecurity({ keys: [KEY] })
  const binding = { method: 'tools/call', target: 'deploy', argsDigest: 'A'.repeat(22), principal: undefined }
  const policyOp = async () => policy.open(await policy.seal(text, binding, 'bench'), binding, 'bench')
  const official = createRequestStateCodec({ key: KEY })
  const officialOp = async () => official.verify(await official.mint(text), undefined as never)

  // sanity: each pair really round-trips before it is timed
  if ((await codec.unseal(await codec.seal(bytes))).length !== SIZE) throw new Error('codec round trip failed')
  if ((await policy.open(await policy.seal(text, binding, 'bench'), binding, 'bench')) !== text)
    throw new Error('policy round trip failed')
  if ((await official.verify(await official.mint(text), undefined as never)) !== text)
    throw new Error('official round trip failed')

  const names = [
    'raw crypto.subtle AES-256-GCM encrypt+decrypt (1 KiB)',
    'edge-mcp AES-GCM codec seal+unseal (1 KiB)',
    'edge-mcp full policy seal+open (1 KiB state, claims checked)',
    'official SDK 2.4.0 createRequestStateCodec mint+verify (1 KiB)',
  ]
  const ops = [rawOp, codecOp, policyOp, officialOp]
  const sequential = await measureAll(ops)
  const concurrent = await measureAll(ops, { concurrency: 32, rounds: 7 })
  const rows: BenchRow[] = names.map((name, i) => ({ name, opsPerSec: sequential[i] }))
  const table = names.map((name, i) => `| ${name} | ${fmt(sequential[i])} | ${fmt(concurrent[i])} |`)
  const [rawRow, codecRow, policyRow, officialRow] = rows as [BenchRow, BenchRow, BenchRow, BenchRow]
  const [cRaw, cCodec, cPolicy, cOfficial] = concurrent as [number, number, number, number]
  const lines = [
    `### requestState: seal + unseal of 1 KiB (Node ${process.version}, ops/s, median of interleaved windows)`,
    '',
    '| operation | sequential | 32 in flight |',
    '| --- | ---: | ---: |',
    ...table,
    '',
    '| ratio | sequential | 32 in flight | target |',
    '| --- | ---: | ---: | --- |',
    `| raw AES-GCM ÷ edge-mcp codec | ${x(rawRow.opsPerSec / codecRow.opsPerSec)} | ${x(cRaw / cCodec)} | ≤ 1.5× |`,
    `| raw AES-GCM ÷ edge-mcp full policy | ${x(rawRow.opsPerSec / policyRow.opsPerSec)} | ${x(cRaw / cPolicy)} | (info) |`,
    `| edge-mcp codec ÷ official codec | ${x(codecRow.opsPerSec / officialRow.opsPerSec)} | ${x(cCodec / cOfficial)} | > 1× |`,
    `| edge-mcp full policy ÷ official codec | ${x(policyRow.opsPerSec / officialRow.opsPerSec)} | ${x(cPolicy / cOfficial)} | (info) |`,
  ]
  return { rows, lines }
}
