/**
 * The per-request `_meta` envelope of MCP 2026-07-28 (spec: basic/index.mdx "Request metadata",
 * basic/versioning.mdx) and client-capability checks.
 * @module
 */
import { META } from './constants.ts'
import { ErrorCode, McpError, missingCapabilityError } from './errors.ts'
import { parse } from './check.ts'
import { RequestMeta } from './checks.gen.ts'
import { isPlainObject } from './jsonrpc.ts'
import type { ClientCapabilities, Implementation, InputRequest, LoggingLevel } from './schemas/index.ts'

/** The envelope of one modern request, read from `params._meta`. */
export interface RequestEnvelope {
  /** `io.modelcontextprotocol/protocolVersion`, e.g. `"2026-07-28"`. */
  protocolVersion: string
  /** `io.modelcontextprotocol/clientCapabilities`: what the client supports for this request only. */
  clientCapabilities: ClientCapabilities
  /** `io.modelcontextprotocol/clientInfo`, unverified: never base a security decision on it. */
  clientInfo?: Implementation
  /** `io.modelcontextprotocol/logLevel`: logs are sent only when present. */
  logLevel?: LoggingLevel
  /** `progressToken`, when the client wants progress notifications. */
  progressToken?: string | number
}

/**
 * True when `params._meta` claims the 2026-07-28 envelope: it has the `io.modelcontextprotocol/protocolVersion`
 * key (whatever its value: a malformed claim is a malformed 2026 message, answered -32602 by
 * {@link readEnvelope}). This is how a request, notification or answer is told 2026 from 2025, not the
 * `io.modelcontextprotocol/` prefix: the 2025-11-25 schema defines keys under it too
 * (`io.modelcontextprotocol/related-task`).
 */
export function hasEnvelope(params: Record<string, unknown> | undefined): boolean {
  const meta = params?._meta
  return typeof meta === 'object' && meta !== null && Object.hasOwn(meta, META.protocolVersion)
}

/**
 * Read and validate the envelope of a request.
 * @throws McpError -32602 with HTTP 400 naming the missing or invalid `_meta` key.
 */
export function readEnvelope(params: Record<string, unknown> | undefined): RequestEnvelope {
  const meta = params?._meta
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    throw envelopeError(`Missing required params._meta envelope (${META.protocolVersion}, ${META.clientCapabilities})`)
  }
  const m = meta as Record<string, unknown>
  for (const key of [META.protocolVersion, META.clientCapabilities]) {
    if (!(key in m)) throw envelopeError(`Missing required _meta field ${key}`)
  }
  const caps = m[META.clientCapabilities]
  if (!isPlainObject(caps)) throw envelopeError(`Invalid _meta envelope: ${META.clientCapabilities} must be an object`)
  for (const [key, value] of Object.entries(caps)) {
    if (!isPlainObject(value))
      throw envelopeError(`Invalid _meta envelope: ${META.clientCapabilities}.${key} must be an object`)
    for (const [sub, inner] of Object.entries(value)) {
      if (!isPlainObject(inner) && ['elicitation', 'sampling'].includes(key)) {
        throw envelopeError(`Invalid _meta envelope: ${META.clientCapabilities}.${key}.${sub} must be an object`)
      }
    }
  }
  const [issue, out] = parse(RequestMeta(), m)
  if (issue !== undefined) throw envelopeError(`Invalid _meta envelope: ${issue}`)
  const envelope: RequestEnvelope = {
    protocolVersion: out[META.protocolVersion],
    clientCapabilities: out[META.clientCapabilities],
  }
  const clientInfo = out[META.clientInfo]
  if (clientInfo !== undefined) envelope.clientInfo = clientInfo
  const logLevel = out[META.logLevel]
  if (logLevel !== undefined) envelope.logLevel = logLevel
  if (out.progressToken !== undefined) envelope.progressToken = out.progressToken
  return envelope
}

function envelopeError(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message, undefined, 400)
}

/**
 * Check a requested version against the supported ones.
 * @throws McpError -32022 `{supported, requested}` (HTTP 400) when unsupported.
 */
export function checkProtocolVersion(requested: string, supported: readonly string[]): void {
  if (!supported.includes(requested)) {
    throw new McpError(ErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
      supported: [...supported],
      requested,
    })
  }
}

/** A capability a server may need from the client for one request. */
export type RequiredCapability =
  'elicitation.form' | 'elicitation.url' | 'sampling' | 'sampling.tools' | 'sampling.context' | 'roots'

/**
 * True when `declared` covers `need`. `elicitation: {}` counts as form mode (spec: client/elicitation.mdx).
 */
export function hasCapability(declared: ClientCapabilities, need: RequiredCapability): boolean {
  switch (need) {
    case 'elicitation.form':
      return (
        declared.elicitation !== undefined &&
        (declared.elicitation.form !== undefined || declared.elicitation.url === undefined)
      )
    case 'elicitation.url':
      return declared.elicitation?.url !== undefined
    case 'sampling':
      return declared.sampling !== undefined
    case 'sampling.tools':
      return declared.sampling?.tools !== undefined
    case 'sampling.context':
      return declared.sampling?.context !== undefined
    case 'roots':
      return declared.roots !== undefined
  }
}

/** The `requiredCapabilities` value naming one needed capability (spec: MissingRequiredClientCapabilityError). */
export const REQUIRED_CAPABILITY_DATA: Readonly<Record<RequiredCapability, Record<string, unknown>>> = {
  'elicitation.form': { elicitation: { form: {} } },
  'elicitation.url': { elicitation: { url: {} } },
  sampling: { sampling: {} },
  'sampling.tools': { sampling: { tools: {} } },
  'sampling.context': { sampling: { context: {} } },
  roots: { roots: {} },
}

/**
 * Throw -32021 unless the client declared every needed capability in this request.
 * @throws McpError -32021 with `data.requiredCapabilities` (HTTP 400).
 * @example requireCapabilities(ctx.clientCapabilities, 'elicitation.form')
 */
export function requireCapabilities(declared: ClientCapabilities, ...needs: RequiredCapability[]): void {
  const missing = [...new Set(needs)].filter((need) => !hasCapability(declared, need))
  if (missing.length === 0) return
  const required: Record<string, Record<string, unknown>> = {}
  for (const need of missing) {
    for (const [k, val] of Object.entries(REQUIRED_CAPABILITY_DATA[need]))
      required[k] = { ...(required[k] ?? {}), ...(val as object) }
  }
  throw missingCapabilityError(required, `Server requires the ${missing.join(', ')} capability for this request`)
}

/** The client capabilities an input request needs (spec: mrtr.mdx, client/elicitation.mdx, client/sampling.mdx). */
export function capabilitiesNeededBy(request: InputRequest): RequiredCapability[] {
  switch (request.method) {
    case 'elicitation/create':
      return [request.params.mode === 'url' ? 'elicitation.url' : 'elicitation.form']
    case 'sampling/createMessage': {
      const needs: RequiredCapability[] = ['sampling']
      if (request.params.tools !== undefined || request.params.toolChoice !== undefined) needs.push('sampling.tools')
      if (request.params.includeContext !== undefined && request.params.includeContext !== 'none')
        needs.push('sampling.context')
      return needs
    }
    case 'roots/list':
      return ['roots']
  }
}
