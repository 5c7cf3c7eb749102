/**
 * The list methods of `McpServer` — `tools/list`, `prompts/list`, `resources/list`,
 * `resources/templates/list` — paged with opaque cursors (spec: server/utilities/pagination.mdx), and the
 * `resources/list` entries of resource templates' `list` callbacks.
 * @module
 */
import { ErrorCode, McpError } from '../../protocol/errors.ts'
import { parse } from '../../protocol/check.ts'
import { Resource } from '../../protocol/checks.gen.ts'
import { isPlainObject } from '../../protocol/jsonrpc.ts'
import { decodeBase64UrlStrict, encodeBase64Url } from '../../encoding/base64url.ts'
import type { RequestContext, RequestParams, ResultObject } from '../context.ts'
import { HandlerResultError } from '../errors.ts'
import type { Registry, ResourceTemplateConfig } from './types.ts'

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

/**
 * One page of `resources/list`: the static resources in registration order, then the entries of each
 * template's `list` callback (templates in registration order), paged by offset as {@link listPage}. A
 * callback is called only when the page reaches its entries, or to learn whether a next page exists.
 * @throws McpError -32602 "Invalid cursor" as {@link listPage}; whatever a `list` callback throws, and
 *   HandlerResultError (-32603, logged) for an invalid entry (see {@link templateLister}).
 */
export async function resourcesPage(
  params: RequestParams,
  registry: Registry,
  ctx: RequestContext,
  pageSize: number,
): Promise<ResultObject> {
  const start = params.cursor === undefined ? 0 : offsetOf(params.cursor, 'resources')
  const end = start + pageSize
  const all: unknown[] = [...registry.resources.values()].map((r) => r.definition)
  for (const template of [...registry.templates.values()]) {
    if (all.length > end) break // the page is full and a next one is known to exist
    if (template.list) all.push(...(await template.list(ctx)))
  }
  const page: ResultObject = { resources: all.slice(start, end) }
  if (end < all.length) page.nextCursor = cursorFor('resources', end)
  return page
}

/**
 * A template's lister for {@link resourcesPage}: calls `list`, takes `Resource[]` or `{ resources }`,
 * checks each entry (a valid `Resource` whose `uri` the template matches) and fills the fields it leaves
 * unset from the template's `title`, `description`, `mimeType` and `icons`.
 * @throws HandlerResultError (-32603, logged) for a return of another shape or an invalid entry.
 */
export function templateLister(
  name: string,
  definition: Record<string, unknown>,
  match: (uri: string) => unknown,
  list: NonNullable<ResourceTemplateConfig['list']>,
): (ctx: RequestContext) => Promise<Record<string, unknown>[]> {
  const defaults: Record<string, unknown> = {}
  for (const key of ['title', 'description', 'mimeType', 'icons'])
    if (definition[key] !== undefined) defaults[key] = definition[key]
  const where = `resource template '${name}': list`
  return async (ctx) => {
    const out: unknown = await list(ctx)
    const entries = Array.isArray(out) ? out : isPlainObject(out) ? out.resources : undefined
    if (!Array.isArray(entries))
      throw new HandlerResultError(`${where} returned neither Resource[] nor { resources: Resource[] }`)
    return entries.map((entry: unknown, i) => {
      const [issue, resource] = parse(Resource(), entry)
      if (issue !== undefined) throw new HandlerResultError(`${where} entry ${i} is not a valid Resource: ${issue}`)
      if (match(resource.uri) === undefined)
        throw new HandlerResultError(
          `${where} entry ${i}: ${JSON.stringify(resource.uri)} does not match ${String(definition.uriTemplate)}`,
        )
      return { ...defaults, ...(entry as Record<string, unknown>) }
    })
  }
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
