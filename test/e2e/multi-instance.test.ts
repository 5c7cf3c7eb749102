/**
 * Many instances: two demo Workers in workerd (`wrangler dev --var REQUEST_STATE_KEYS:…`) behind a
 * loopback proxy. With shared keys every retry may land anywhere; with ephemeral keys a cross-instance
 * retry gets the frozen error and starting over succeeds; a rolling rotation through the three phases
 * with flows in flight loses nothing.
 */
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { McpError } from '../../src/index.ts'
import { encodeBase64Url } from '../../src/encoding/base64url.ts'
import { startWorker, type RunningWorker } from '../workerd.ts'

const key = (fill: number) => encodeBase64Url(new Uint8Array(32).fill(fill))
const OLD = key(1)
const NEW = key(2)

interface Served {
  instance: string
  flow: string
  retry: boolean
}

/** A loopback reverse proxy over named instances, with a pluggable routing rule and draining. */
class Proxy {
  readonly targets = new Map<string, RunningWorker>()
  readonly draining = new Set<string>()
  readonly inflight = new Map<string, number>()
  readonly served: Served[] = []
  route: (live: string[], n: number) => string = (live, n) => live[n % live.length]
  #n = 0
  #server: HttpServer | undefined
  url = ''

  async start(): Promise<void> {
    this.#server = createServer((req, res) => void this.#forward(req, res))
    await new Promise<void>((r) => this.#server!.listen(0, '127.0.0.1', r))
    this.url = `http://127.0.0.1:${(this.#server.address() as { port: number }).port}/mcp`
  }
  async stop(): Promise<void> {
    await new Promise((r) => this.#server?.close(r))
  }
  async #forward(req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const body = Buffer.concat(chunks)
    const live = [...this.targets.keys()].filter((k) => !this.draining.has(k)).sort()
    const name = this.route(live, this.#n++)
    const target = this.targets.get(name)!
    this.inflight.set(name, (this.inflight.get(name) ?? 0) + 1)
    try {
      const parsed = JSON.parse(body.toString('utf8')) as {
        params?: { arguments?: { name?: string }; requestState?: unknown }
      } | null
      const flow = String(parsed?.params?.arguments?.name ?? '')
      this.served.push({ instance: name, flow, retry: parsed?.params?.requestState !== undefined })
      const headers = new Headers()
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers.set(k, v)
      const upstream = await fetch(target.url, { method: req.method!, headers, body })
      // fetch already decoded the body: drop the framing and encoding headers of the upstream response
      const out = Object.fromEntries(
        [...upstream.headers].filter(([k]) => !['content-encoding', 'content-length', 'transfer-encoding'].includes(k)),
      )
      res.writeHead(upstream.status, out)
      res.end(Buffer.from(await upstream.arrayBuffer()))
    } catch (error) {
      res.writeHead(502).end(String(error))
    } finally {
      this.inflight.set(name, this.inflight.get(name)! - 1)
    }
  }
  /** Take an instance out of rotation, wait for its requests to finish, and replace it. */
  async replace(name: string, start: () => Promise<RunningWorker>): Promise<void> {
    this.draining.add(name)
    while ((this.inflight.get(name) ?? 0) > 0) await new Promise((r) => setTimeout(r, 10))
    const old = this.targets.get(name)!
    const fresh = await start()
    this.targets.set(name, fresh)
    this.draining.delete(name)
    await old.stop()
  }
}

/** Deterministic PRNG (mulberry32) for reproducible "random" load balancing. */
function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const workers: RunningWorker[] = []
const proxies: Proxy[] = []
afterAll(async () => {
  await Promise.all([...workers, ...proxies.flatMap((p) => [...p.targets.values()])].map((w) => w.stop()))
  await Promise.all(proxies.map((p) => p.stop()))
})

async function proxyOver(instances: Record<string, Record<string, string>>): Promise<Proxy> {
  const proxy = new Proxy()
  proxies.push(proxy)
  const started = await Promise.all(
    Object.entries(instances).map(async ([name, vars]) => [name, await startWorker({ vars })] as const),
  )
  for (const [name, worker] of started) proxy.targets.set(name, worker)
  await proxy.start()
  return proxy
}

// These tests count the frozen errors a fleet produces, so the client does not start calls over by itself
// (restart-recovery.test.ts covers that).
const clientFor = (url: string) =>
  new Client({
    transport: new StreamableHttpClientTransport(url),
    clientInfo: { name: 'fleet', version: '1' },
    restartOnInvalidRequestState: false,
    elicitation: () => ({ action: 'accept', content: { region: 'eu-west-1' } }),
  })

async function flow(client: Client, name: string): Promise<string> {
  const result = await client.callTool('provision', { name })
  const text = (result.content[0] as { text: string }).text
  if (text !== `Provisioned '${name}' in eu-west-1.`) throw new Error(`unexpected result: ${text}`)
  return text
}

describe('two workerd instances behind a round-robin proxy', () => {
  it('shared keys: 200 multi-round flows, every retry on the other instance, 0 failures', async () => {
    const proxy = await proxyOver({ a: { REQUEST_STATE_KEYS: OLD }, b: { REQUEST_STATE_KEYS: OLD } })
    const client = clientFor(proxy.url)
    let failures = 0
    for (let i = 0; i < 200; i++) await flow(client, `seq-${i}`).catch(() => failures++)
    const concurrent = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => flow(client, `par-${i}`)))
    failures += concurrent.filter((r) => r.status === 'rejected').length
    expect(failures).toBe(0)
    const crossed = proxy.served
      .filter((s) => s.flow.startsWith('seq-') && s.retry)
      .filter((s) => proxy.served.find((f) => f.flow === s.flow && !f.retry)!.instance !== s.instance)
    expect(crossed.length).toBe(200)
  })

  it('ephemeral keys: a cross-instance retry gets the frozen error; a client that starts over succeeds', async () => {
    const proxy = await proxyOver({ a: {}, b: {} })
    const random = mulberry32(42)
    proxy.route = (live) => live[Math.floor(random() * live.length)]
    const client = clientFor(proxy.url)
    let frozen = 0
    for (let i = 0; i < 20; i++) {
      for (let attempt = 1; ; attempt++) {
        try {
          await flow(client, `eph-${i}`)
          break
        } catch (error) {
          expect(error).toBeInstanceOf(McpError)
          expect((error as McpError).message).toBe('Invalid or expired requestState')
          frozen++
          if (attempt >= 30) throw error
        }
      }
    }
    const retries = proxy.served.filter((s) => s.retry)
    const crossRetries = retries.filter((s, i) => {
      const firsts = proxy.served.filter((f) => f.flow === s.flow && !f.retry)
      const first = firsts[retries.filter((r, j) => j < i && r.flow === s.flow).length]
      return first.instance !== s.instance
    })
    expect(frozen).toBeGreaterThan(0)
    expect(frozen).toBe(crossRetries.length)
  })

  /**
   * Roll both instances through `phases` (key lists) under continuous load; count flows and failures.
   * After each instance is replaced the fleet runs mixed (one new, one old) for `mixedMs`, as a real
   * rolling deploy does.
   */
  async function rollingRotation(phases: string[]) {
    const proxy = await proxyOver({ a: { REQUEST_STATE_KEYS: OLD }, b: { REQUEST_STATE_KEYS: OLD } })
    const client = clientFor(proxy.url)
    let running = true
    let completed = 0
    const failures: string[] = []
    const load = Array.from({ length: 4 }, async (_, lane) => {
      for (let i = 0; running; i++) {
        try {
          await flow(client, `rot-${lane}-${i}`)
          completed++
        } catch (error) {
          failures.push(`rot-${lane}-${i}: ${String(error)}`)
        }
      }
    })
    const completedAt: number[] = []
    for (const keys of phases) {
      for (const name of ['a', 'b']) {
        await proxy.replace(name, () => startWorker({ vars: { REQUEST_STATE_KEYS: keys } }))
        await new Promise((r) => setTimeout(r, 1000)) // mixed fleet under load
      }
      completedAt.push(completed)
    }
    await new Promise((r) => setTimeout(r, 300))
    running = false
    await Promise.all(load)
    return { completed, failures, completedAt }
  }

  it(
    'rolling rotation [OLD] → [OLD,NEW] → [NEW,OLD] → [NEW] with flows in flight: 0 failures',
    { timeout: 240_000 },
    async () => {
      const { completed, failures, completedAt } = await rollingRotation([`${OLD},${NEW}`, `${NEW},${OLD}`, NEW])
      console.log(
        `rolling rotation: ${completed} flows completed across 3 phases (${completedAt.join(' / ')} at each phase end), ${failures.length} failures`,
      )
      expect(failures).toEqual([])
      expect(completed).toBeGreaterThan(100)
      expect(completedAt[2] - completedAt[1]).toBeGreaterThan(0) // flows kept completing during the last phase
    },
  )

  it(
    'control: promoting the new key first ([OLD] → [NEW,OLD]) breaks flows in flight, as documented',
    { timeout: 240_000 },
    async () => {
      const { failures } = await rollingRotation([`${NEW},${OLD}`])
      expect(failures.length).toBeGreaterThan(0)
      expect(failures.every((f) => f.includes('Invalid or expired requestState'))).toBe(true)
    },
  )
})
