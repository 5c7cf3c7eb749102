/**
 * The DPoP replay store on Cloudflare Workers (RFC 9449 §11.1): one Durable Object per accepted proof, named by
 * the proof key's thumbprint and its `jti`, that remembers it until the proof's window ends, so a proof replayed
 * to any isolate is refused. It fits `dpopProofChecker`'s `replayStore` (edge-mcp/oauth) by shape; nothing of
 * edge-mcp/oauth is imported here.
 * @module
 */
import { UpstreamError, messageOf } from '../server/errors.ts'

/** What the replay store needs of a Durable Object namespace binding (`DurableObjectNamespace` fits). */
export interface ReplayNamespace {
  idFromName(name: string): unknown
  get(id: never): { fetch(input: string, init?: RequestInit): Promise<Response> }
}

/** What a replay object needs of its `DurableObjectState` (the first constructor argument; it fits). */
export interface ReplayObjectState {
  readonly storage: {
    get(key: string): Promise<unknown>
    put(key: string, value: unknown): Promise<void>
    deleteAll(): Promise<unknown>
    setAlarm(scheduledTime: number): Promise<void>
  }
}

/** The internal HTTP exchange with the object (never exposed to clients). */
const ORIGIN = 'https://dpop-replay.edge-mcp.internal'
/** The storage key of the end of the remembered proof's window, in seconds since the epoch. */
const UNTIL = 'until'

/**
 * The Durable Object class of the DPoP replay store. Export it from your Worker's main module and bind it:
 *
 * ```toml
 * [[durable_objects.bindings]]
 * name = "MCP_DPOP_REPLAY"
 * class_name = "McpDPoPReplay"
 *
 * [[migrations]]
 * tag = "v2"
 * new_sqlite_classes = ["McpDPoPReplay"]
 * ```
 *
 * It answers `POST /seen` `{ expiresAt }` (seconds since the epoch) with `{ seen }`: true when the object already
 * remembers a proof whose window has not ended, else false, remembering this one until `expiresAt` (in its
 * storage; an alarm then deletes it). The read and the write are one step: the object's input gate admits no
 * other request between them. A body without a finite `expiresAt` is 400.
 */
export class McpDPoPReplay {
  readonly #storage: ReplayObjectState['storage']

  constructor(state: ReplayObjectState) {
    this.#storage = state.storage
  }

  async fetch(request: Request): Promise<Response> {
    const body = (await request.json().catch(() => undefined)) as { expiresAt?: unknown } | undefined
    const expiresAt = body?.expiresAt
    if (new URL(request.url).pathname !== '/seen' || typeof expiresAt !== 'number' || !Number.isFinite(expiresAt))
      return new Response('bad request', { status: 400 })
    const until = (await this.#storage.get(UNTIL)) as number | undefined
    if (until !== undefined && until >= Date.now() / 1000) return Response.json({ seen: true })
    await this.#storage.put(UNTIL, expiresAt)
    await this.#storage.setAlarm(Math.ceil(expiresAt) * 1000)
    return Response.json({ seen: false })
  }

  /** The window ended: nothing is kept. */
  async alarm(): Promise<void> {
    await this.#storage.deleteAll()
  }
}

/**
 * A DPoP replay store on a namespace of {@link McpDPoPReplay} objects, for `dpopProofChecker({ replayStore })` of
 * edge-mcp/oauth: a proof accepted by one isolate is a replay on every other.
 * @param namespace - the binding, e.g. `env.MCP_DPOP_REPLAY` (build the checker once `env` is known).
 * @returns `{ seen(key, expiresAt) }`; `seen` throws UpstreamError when the object cannot be reached or answers
 *   otherwise than it should (the checker then answers 503: a proof is never accepted unchecked).
 * @throws TypeError when `namespace` is not a Durable Object namespace (naming how to bind it).
 * @example dpopProofChecker({ replayStore: durableObjectReplayStore(env.MCP_DPOP_REPLAY) })
 */
export function durableObjectReplayStore(namespace: ReplayNamespace): {
  seen(key: string, expiresAt: number): Promise<boolean>
} {
  if (typeof (namespace as Partial<ReplayNamespace> | undefined)?.idFromName !== 'function')
    throw new TypeError(
      'durableObjectReplayStore takes a Durable Object namespace: bind one in wrangler.toml ' +
        '([[durable_objects.bindings]] name = "MCP_DPOP_REPLAY", class_name = "McpDPoPReplay", with a migration), ' +
        "export { McpDPoPReplay } from 'edge-mcp/cloudflare' in the Worker, and pass env.MCP_DPOP_REPLAY",
    )
  return {
    async seen(key, expiresAt) {
      const stub = namespace.get(namespace.idFromName(`dpop:${key}`) as never)
      const init = {
        method: 'POST',
        body: JSON.stringify({ expiresAt }),
        headers: { 'content-type': 'application/json' },
      }
      const res = await stub.fetch(`${ORIGIN}/seen`, init).catch((cause: unknown) => {
        throw new UpstreamError(`the DPoP replay store could not be reached: ${messageOf(cause)}`, { cause })
      })
      const answer = (await res.json().catch(() => undefined)) as { seen?: unknown } | undefined
      if (!res.ok || typeof answer?.seen !== 'boolean')
        throw new UpstreamError(`the DPoP replay store answered ${res.status}`)
      return answer.seen
    },
  }
}
