/**
 * Walking a paginated list (`tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`)
 * by its `nextCursor` (spec: server/utilities/pagination.mdx), guarded against servers that never stop.
 * @module
 */
import { InvalidResultError } from './errors.ts'

/** Most pages a list call walks before giving up (a server that never stops paginating). */
export const MAX_LIST_PAGES = 1000

/**
 * A page as the list result check reads it: `nextCursor: null` is "no more pages" (some servers write it so),
 * the same as an absent one.
 */
export function withoutNullCursor(result: Record<string, unknown>): Record<string, unknown> {
  if (result.nextCursor !== null) return result
  const rest = { ...result }
  delete rest.nextCursor
  return rest
}

/**
 * Fetch every page of `method` and concatenate their `field` arrays. A cursor is opaque: only its presence
 * means "more" (`""` is a cursor), and a server may hand out the same one again (it keeps its position
 * itself), so its value is never judged — a page asked for with a cursor already used in this walk is fetched
 * afresh, not from a cache.
 * @param page - fetches one page (already validated) for `{}` or `{ cursor }`; `again` is true when the cursor
 *   was already used in this walk.
 * @param invalidate - called before rethrowing when a page with a cursor fails: a cursor that fails makes
 *   every cached page suspect (spec: caching.mdx "Interaction with Pagination").
 * @throws InvalidResultError naming the method and the cap when a server still has more after
 *   {@link MAX_LIST_PAGES} pages (nothing is returned: never a silent truncation); whatever `page` throws.
 */
export async function walkPages<T>(
  method: string,
  field: string,
  page: (params: { cursor?: string }, again: boolean) => Promise<Record<string, unknown>>,
  invalidate: () => Promise<void>,
): Promise<T[]> {
  const items: T[] = []
  const seen = new Set<string>()
  let cursor: string | undefined
  for (let pages = 0; ; pages++) {
    if (pages >= MAX_LIST_PAGES)
      throw new InvalidResultError(
        `${method} still had more after ${MAX_LIST_PAGES} pages (the most a list call walks); the server's cursors never end`,
      )
    const again = cursor !== undefined && seen.has(cursor)
    if (cursor !== undefined) seen.add(cursor)
    let current: Record<string, unknown>
    try {
      current = await page(cursor === undefined ? {} : { cursor }, again)
    } catch (error) {
      if (cursor !== undefined) await invalidate()
      throw error
    }
    items.push(...(current[field] as T[]))
    cursor = current.nextCursor as string | undefined
    if (cursor === undefined) return items
  }
}
