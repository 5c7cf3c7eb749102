/**
 * Protocol constants for MCP 2026-07-28 (spec: basic/index.mdx, basic/versioning.mdx).
 * @module
 */

/** The protocol revision this SDK speaks by default. */
export const LATEST_PROTOCOL_VERSION = '2026-07-28'

/** Every modern (envelope-era) revision this SDK can serve, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([LATEST_PROTOCOL_VERSION])
/** The 2025-era revisions (`initialize`, sessions) both sides speak for compatibility, newest first. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = Object.freeze(['2025-11-25', '2025-06-18', '2025-03-26'])

/** The reserved `_meta` keys of the per-request envelope and of results (spec §Lifecycle, `RequestMetaObject`). */
export const META = Object.freeze({
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const)

/** The Tasks extension's id (ext-tasks specification/2026-07-28/tasks.md), declared in `capabilities.extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

/** `LoggingLevel`: the syslog severities (RFC 5424), least severe first (spec: server/utilities/logging.mdx). */
export const LOGGING_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const

/** Methods whose result may be an `InputRequiredResult` (spec: basic/patterns/mrtr.mdx). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read'])

/**
 * The param an MRTR method targets, mirrored in the `Mcp-Name` header and bound into sealed state:
 * `name` for tools and prompts, `uri` for resources.
 */
export function targetParamOf(method: string): 'name' | 'uri' | undefined {
  return TARGET_PARAMS.get(method)
}
const TARGET_PARAMS: ReadonlyMap<string, 'name' | 'uri'> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
])

/** Standard Streamable-HTTP request header names (spec: basic/transports/streamable-http.mdx). */
export const HEADER = Object.freeze({
  protocolVersion: 'mcp-protocol-version',
  method: 'mcp-method',
  name: 'mcp-name',
  /** The 2025-era session id (spec 2025-11-25: basic/transports.mdx "Session Management"); the 2026 era has none. */
  sessionId: 'mcp-session-id',
} as const)

/** The methods whose complete results carry cache hints (spec 2026-07-28: server/utilities/caching.mdx). */
export type CacheableMethod =
  'server/discover' | 'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list' | 'resources/read'

/** The methods whose complete results carry cache hints (spec 2026-07-28: server/utilities/caching.mdx). */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set<CacheableMethod>([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
])
