/**
 * Era negotiation, server side: the one place that decides which era a message speaks (spec 2026:
 * basic/versioning.mdx "serve both eras concurrently on the same endpoint"). Stateless: each message is
 * judged on its own — a request carrying the 2026 envelope claim is modern; any other message is legacy,
 * within the 2025-era session its id opens (a sealed `Mcp-Session-Id`, or the session a transport keeps).
 * @module
 */
import { HEADER } from '../protocol/constants.ts'
import { checkProtocolVersion, hasEnvelope, readEnvelope, type RequestEnvelope } from '../protocol/envelope.ts'
import type { JSONRPCRequest } from '../protocol/schemas/index.ts'
import type { LegacySession } from '../request-state/security.ts'
import type { Channel, RequestInfo } from './context.ts'
import {
  checkSessionVersion,
  legacyEnvelope,
  sessionEnvelope,
  sessionNotFound,
  versionHeader,
  type LegacyMode,
} from './legacy.ts'

/** The era of one request: modern (it carries the 2026 envelope) or legacy, with what its handler sees. */
export interface Era {
  legacy: boolean
  envelope: RequestEnvelope
  /** The legacy session the request carried, opened. */
  session?: LegacySession
}

/** What negotiation needs of its server. */
export interface EraDeps {
  /** `ServerOptions.legacy`: `'reject'` makes every message modern. */
  readonly legacy: LegacyMode | undefined
  /** The 2026-era versions the server serves. */
  readonly supportedVersions: () => readonly string[]
  /** Open a sealed session id (undefined with sealing off). @throws for an id that does not open. */
  readonly openSession: (id: string, info: RequestInfo) => Promise<LegacySession | undefined>
}

/** Decides the era of each message of one server. */
export class EraNegotiation {
  readonly #deps: EraDeps
  constructor(deps: EraDeps) {
    this.#deps = deps
  }

  /**
   * The era of a request: modern when it carries the 2026 envelope claim (or when legacy clients are
   * rejected), legacy otherwise: then, but for `initialize`, within its session (the session's version,
   * capabilities and client info) when it has one. A promise only when a legacy session is opened: a
   * modern request's handler starts in the tick it was handed over (a listen handler needs that).
   * @throws McpError as {@link envelopeOf} for a modern request; for a legacy one as
   *   {@link EraNegotiation.messageSession}, then -32602 (HTTP 400) under a 2026 `MCP-Protocol-Version`
   *   header outside a session (no envelope).
   */
  of(request: JSONRPCRequest, info: RequestInfo, channel: Channel): Era | Promise<Era> {
    if (this.#deps.legacy === 'reject' || hasEnvelope(request.params))
      return { legacy: false, envelope: envelopeOf(request, this.#deps.supportedVersions()) }
    return this.#legacy(request, info, channel)
  }

  async #legacy(request: JSONRPCRequest, info: RequestInfo, channel: Channel): Promise<Era> {
    const supported = this.#deps.supportedVersions()
    const initialize = request.method === 'initialize'
    const header = initialize ? null : versionHeader(info, supported)
    const session = initialize ? undefined : await this.#session(info, channel, header, supported, false)
    const envelope = legacyEnvelope(request, header, supported)
    return session
      ? { legacy: true, envelope: sessionEnvelope(envelope, session), session }
      : { legacy: true, envelope }
  }

  /**
   * The session of a message without the 2026 envelope, its `MCP-Protocol-Version` header checked
   * against it; undefined without an id or with sealing off. Under a 2026 header the message may be a
   * 2026 client's, whose id that does not open is ignored (spec 2026: streamable-http.mdx); not an
   * `answer` (there are none in 2026).
   * @throws McpError -32600 (HTTP 400) for an unsupported version, or another than the session's (a 2026
   *   one included: the message is a 2025 client's); -32001 (HTTP 404) for an id that does not open.
   */
  async messageSession(info: RequestInfo, channel: Channel, answer = false): Promise<LegacySession | undefined> {
    const supported = this.#deps.supportedVersions()
    return this.#session(info, channel, versionHeader(info, supported), supported, answer)
  }

  /**
   * {@link messageSession} once its `header` is read: the legacy session of a message is the transport's
   * `channel.sessionId` (stdio: the connection's), else the request's `Mcp-Session-Id` header.
   */
  async #session(
    info: RequestInfo,
    channel: Channel,
    header: string | null,
    supported: readonly string[],
    answer: boolean,
  ): Promise<LegacySession | undefined> {
    const id = channel.sessionId ?? info.request?.headers.get(HEADER.sessionId)
    if (id == null) return undefined
    let session: LegacySession | undefined
    try {
      session = await this.#deps.openSession(id, info)
    } catch {
      if (!answer && header !== null && supported.includes(header)) return undefined // a 2026 client's
      throw sessionNotFound()
    }
    if (session) checkSessionVersion(session, header)
    return session
  }
}

/**
 * The request's `_meta` envelope, its protocol version supported. An `initialize` without an envelope
 * (a legacy client) is first checked by its own `protocolVersion`, for the version error it expects.
 * @throws McpError -32602 (HTTP 400) for a missing or invalid envelope; -32022 (HTTP 400) for an
 *   unsupported version.
 */
function envelopeOf(request: JSONRPCRequest, supported: readonly string[]): RequestEnvelope {
  const params = request.params ?? {}
  if (!hasEnvelope(params) && request.method === 'initialize') {
    const requested = typeof params.protocolVersion === 'string' ? params.protocolVersion : ''
    checkProtocolVersion(requested, supported)
  }
  const envelope = readEnvelope(params)
  checkProtocolVersion(envelope.protocolVersion, supported)
  return envelope
}
