/**
 * What an App may send its host (ext-apps apps.mdx "Standard MCP Messages" and "MCP Apps Specific
 * Messages"), checked before anything is done with it: a JSON-RPC 2.0 request, notification or response
 * whose params have the shape its method defines. Whatever fails is described in a sentence (the host logs
 * it once and ignores the message).
 * @module
 */
import { LOGGING_LEVELS } from '../../protocol/constants.ts'
import { isPlainObject } from '../../protocol/jsonrpc.ts'

/** A message from the App that passed {@link parseAppMessage}. */
export type AppMessage =
  | { kind: 'request'; id: string | number; method: string; params: Record<string, unknown> }
  | { kind: 'notification'; method: string; params: Record<string, unknown> }
  | { kind: 'response'; id: string | number; error?: unknown }

const isId = (v: unknown): v is string | number =>
  typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v))
const isSize = (v: unknown) => v === undefined || (typeof v === 'number' && Number.isFinite(v) && v >= 0)
/** A content block: a `type`, and for `text` a string `text` (the host shows it to the user, and passes it on). */
const isBlock = (b: unknown) =>
  isPlainObject(b) && typeof b.type === 'string' && (b.type !== 'text' || typeof b.text === 'string')
const isBlocks = (v: unknown) => Array.isArray(v) && v.every(isBlock)

/**
 * What is wrong with the params of `method` (a sentence naming the field), or undefined when they have the
 * shape apps.mdx gives them. Methods the host does not know pass (they are answered -32601 or ignored).
 */
export function paramsProblem(method: string, p: Record<string, unknown>): string | undefined {
  switch (method) {
    case 'ui/initialize':
      return typeof p.protocolVersion === 'string' ? undefined : 'params.protocolVersion must be a string'
    case 'tools/call':
      if (typeof p.name !== 'string') return 'params.name must be a string'
      return p.arguments === undefined || isPlainObject(p.arguments) ? undefined : 'params.arguments must be an object'
    case 'resources/read':
      return typeof p.uri === 'string' ? undefined : 'params.uri must be a string'
    case 'ui/open-link':
      return typeof p.url === 'string' ? undefined : 'params.url must be a string'
    case 'ui/message':
      if (p.role !== 'user') return "params.role must be 'user'"
      return (isBlocks(p.content) && (p.content as unknown[]).length > 0) || isBlock(p.content)
        ? undefined
        : 'params.content must be one or more content blocks'
    case 'ui/update-model-context':
      if (p.content !== undefined && !isBlocks(p.content)) return 'params.content must be an array of content blocks'
      return p.structuredContent === undefined || isPlainObject(p.structuredContent)
        ? undefined
        : 'params.structuredContent must be an object'
    case 'ui/request-display-mode':
      return ['inline', 'fullscreen', 'pip'].includes(p.mode as string)
        ? undefined
        : "params.mode must be 'inline', 'fullscreen' or 'pip'"
    case 'ui/notifications/size-changed':
      return isSize(p.width) && isSize(p.height) ? undefined : 'params.width and height must be numbers ≥ 0'
    case 'notifications/message':
      return (LOGGING_LEVELS as readonly string[]).includes(p.level as string)
        ? undefined
        : 'params.level must be a logging level'
    default:
      return undefined
  }
}

/**
 * Read one message the App posted: a {@link AppMessage}, or a sentence saying why it is ignored (not
 * JSON-RPC 2.0, a bad id, params that are not an object or not the method's shape).
 */
export function parseAppMessage(data: unknown): AppMessage | string {
  if (!isPlainObject(data) || data.jsonrpc !== '2.0') return 'not a JSON-RPC 2.0 message'
  const { id, method } = data
  if (method === undefined) {
    if (!isId(id)) return 'a response without a valid id'
    if ('result' in data === 'error' in data) return 'a response needs exactly one of result and error'
    return { kind: 'response', id, error: data.error }
  }
  if (typeof method !== 'string') return 'method must be a string'
  const params = data.params ?? {}
  if (!isPlainObject(params)) return `${method}: params must be an object`
  const problem = paramsProblem(method, params)
  if (problem) return `${method}: ${problem}`
  if (id === undefined) return { kind: 'notification', method, params }
  return isId(id) ? { kind: 'request', id, method, params } : `${method}: id must be a string or an integer`
}
