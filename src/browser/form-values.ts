/**
 * Converting between what a form input holds and what an elicitation answer sends: `date` and
 * `date-time` as RFC 3339, `uri` as an RFC 3986 URI.
 * @module
 */

/** RFC 3339 `full-date` (a `date` input's value, four-digit years only). */
export const FULL_DATE = /^\d{4}-\d{2}-\d{2}$/

/** RFC 3986 URI characters: a scheme, then unreserved, reserved and percent-encoded characters only. */
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#[\]]|%[0-9A-Fa-f]{2})*$/

/**
 * An absolute URL as typed, as an RFC 3986 URI (`format: "uri"`): kept as it is when it already is one,
 * else as the browser serialises it (spaces and non-ASCII percent-encoded, the host in Punycode);
 * `undefined` when even that is not a URI.
 */
export function toUri(raw: string): string | undefined {
  if (URI.test(raw)) return raw
  let href: string
  try {
    href = new URL(raw).href
  } catch {
    return undefined
  }
  return URI.test(href) ? href : undefined
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/**
 * A `datetime-local` value (`YYYY-MM-DDTHH:MM[:SS]`, local time) as RFC 3339 with the local UTC offset at that instant.
 * @internal not in the public API: the form's date-time conversion
 */
export function toRfc3339(local: string): string | undefined {
  const date = new Date(local)
  if (Number.isNaN(date.getTime()) || date.getFullYear() > 9999) return undefined
  const offset = -date.getTimezoneOffset()
  const sign = offset >= 0 ? '+' : '-'
  const abs = Math.abs(offset)
  return (
    `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  )
}

/** An RFC 3339 date-time as a `datetime-local` value in local time (empty when it does not parse). */
export function toLocalInput(stamp: string): string {
  const date = new Date(stamp)
  if (Number.isNaN(date.getTime())) return ''
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
}
