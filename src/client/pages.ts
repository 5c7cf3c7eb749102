/**
 * Walking a paginated list (`tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`)
 * by its `nextCursor` (spec: server/utilities/pagination.mdx), guarded against servers that never stop.
 * @module
 */
import { InvalidResultError } from './errors.ts'

/** Most pages a list call walks before giving up (a server that never stops paginating). */
export const MAX_LIST_PAGES = 1000

/**
 * Fetch every page of `method` and concatenate their `field` arrays.
 * @param page - fetches one page (already validated) for `{}` or `{ cursor }`.
 * @param invalidate - called before rethrowing when a page with a cursor fails: a cursor that fails makes
 *   every cached page suspect (spec: caching.mdx "Interaction with Pagination").
 * @throws InvalidResultError after {@link MAX_LIST_PAGES} pages or when a cursor comes back twice;
 *   whatever `page` throws.
 */
export async function walkPages<T>(
  method: string,
  field: string,
  page: (params: { cursor?: string }) => Promise<Record<string, unknown>>,
  invalidate: () => Promise<void>,
): Promise<T[]> {
  const items: T[] = []
  let cursor: string | undefined
  const seen = new Set<string>()
  do {
    if (seen.size >= MAX_LIST_PAGES)
      throw new InvalidResultError(`${method} returned more than ${MAX_LIST_PAGES} pages`)
    const params = cursor === undefined ? {} : { cursor }
    let current: Record<string, unknown>
    try {
      current = await page(params)
    } catch (error) {
      if (cursor !== undefined) await invalidate()
      throw error
    }
    items.push(...(current[field] as T[]))
    cursor = current.nextCursor as string | undefined
    if (cursor !== undefined) {
      if (seen.has(cursor)) throw new InvalidResultError(`${method} returned the same cursor twice`)
      seen.add(cursor)
    }
  } while (cursor !== undefined)
  return items
}
