/**
 * The list methods of `McpServer` — `tools/list`, `prompts/list`, `resources/list`,
 * `resources/templates/list` — paged with opaque cursors (spec: server/utilities/pagination.mdx).
 * @module
 */
import { ErrorCode, McpError } from '../../protocol/errors.ts'
import { decodeBase64UrlStrict, encodeBase64Url } from '../../encoding/base64url.ts'
import type { RequestParams, ResultObject } from '../context.ts'

/** Default `McpServerOptions.pageSize`: most items on one page. */
export const DEFAULT_PAGE_SIZE = 100
const CURSOR_PREFIX = 'edge-mcp/cursor/v1'

/**
 * One page of a list, in registration order: at most `pageSize` items from the cursor's offset under
 * `field`, and a `nextCursor` when more follow. Cache hints are the server's for the list method
 * (stamped by `Server`), never the items' own.
 * @throws McpError -32602 "Invalid cursor" for a cursor this server did not issue for this list.
 */
export function listPage(
  params: RequestParams,
  field: string,
  items: Map<string, { definition: unknown }>,
  pageSize: number,
): ResultObject {
  const all = [...items.values()]
  const start = params.cursor === undefined ? 0 : offsetOf(params.cursor, field)
  const end = start + pageSize
  const page: ResultObject = { [field]: all.slice(start, end).map((t) => t.definition) }
  if (end < all.length) page.nextCursor = cursorFor(field, end)
  return page
}

/** An opaque cursor: base64url of `edge-mcp/cursor/v1 <list field> <offset>`. */
function cursorFor(field: string, offset: number): string {
  return encodeBase64Url(new TextEncoder().encode(`${CURSOR_PREFIX} ${field} ${offset}`))
}

/**
 * The offset a cursor of {@link cursorFor} points at. A list that shrank since is read from its end (an
 * empty last page), so a walk in progress ends rather than fails.
 * @throws McpError -32602 "Invalid cursor" for anything this server did not issue for this list.
 */
function offsetOf(cursor: unknown, field: string): number {
  const bytes = typeof cursor === 'string' && cursor.length <= 200 ? decodeBase64UrlStrict(cursor) : undefined
  const match = bytes && /^(\S+) (\S+) (\d{1,9})$/.exec(new TextDecoder().decode(bytes))
  if (!match || match[1] !== CURSOR_PREFIX || match[2] !== field || Number(match[3]) === 0) {
    throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor')
  }
  return Number(match[3])
}
