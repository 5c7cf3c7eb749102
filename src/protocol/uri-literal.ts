/**
 * Matching a URI template's literals after URI normalisation (RFC 3986 section 6.2.2): the regular
 * expression of a literal that accepts each of its equivalent forms (percent-encoding case, unreserved
 * characters percent-encoded or not, non-ASCII characters raw as in an IRI or UTF-8 percent-encoded).
 * @module
 */

/** `text` with every regular-expression metacharacter escaped. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

/** A hex digit matched in either case (`[Aa]` for `a`). */
function hexPattern(digit: string): string {
  const upper = digit.toUpperCase()
  const lower = digit.toLowerCase()
  return upper === lower ? digit : `[${upper}${lower}]`
}

/** A percent-encoded octet, hex digits in either case. */
function octetPattern(byte: number): string {
  const hex = byte.toString(16).toUpperCase().padStart(2, '0')
  return `%${hexPattern(hex[0]!)}${hexPattern(hex[1]!)}`
}

/**
 * The pattern of a parsed literal (ASCII, with `%XX` triplets), matching its every equivalent form
 * (see the matching rule in uri-template.ts): an unreserved character or its triplet, a UTF-8 run of triplets or
 * the raw character it encodes, any other triplet in either case, any other character itself.
 */
export function literalPattern(literal: string): string {
  let out = ''
  for (let i = 0; i < literal.length;) {
    if (literal[i] !== '%') {
      const c = literal[i++]!
      out += /[A-Za-z0-9\-._~]/.test(c) ? `(?:${escapeRegExp(c)}|${octetPattern(c.charCodeAt(0))})` : escapeRegExp(c)
      continue
    }
    // a run of triplets: each UTF-8 character it spells (or each octet that spells none) is one unit
    const bytes: number[] = []
    while (literal[i] === '%') {
      bytes.push(parseInt(literal.slice(i + 1, i + 3), 16))
      i += 3
    }
    for (let b = 0; b < bytes.length;) {
      const lead = bytes[b]!
      const size = utf8Length(lead)
      const octets = bytes.slice(b, b + Math.max(size, 1))
      const char = size > 0 && octets.length === size ? utf8Char(octets) : undefined
      const encoded = octets.map(octetPattern).join('')
      if (char === undefined) {
        out += octetPattern(lead)
        b += 1
      } else {
        out += char === '' ? encoded : `(?:${escapeRegExp(char)}|${encoded})`
        b += size
      }
    }
  }
  return out
}

/** The length of the UTF-8 sequence this octet leads (1–4), or 0 when it leads none (RFC 3629 section 4). */
function utf8Length(lead: number): number {
  if (lead < 0x80) return 1
  if (lead >= 0xc2 && lead < 0xe0) return 2
  if (lead >= 0xe0 && lead < 0xf0) return 3
  return lead >= 0xf0 && lead < 0xf5 ? 4 : 0
}

const strictUtf8 = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true })

/**
 * The character these UTF-8 octets spell when it has a second form: an unreserved ASCII character or a
 * non-ASCII one; `''` for any other ASCII octet (only its triplet matches); undefined when they are not
 * one valid UTF-8 character.
 */
function utf8Char(octets: readonly number[]): string | undefined {
  let char: string
  try {
    char = strictUtf8.decode(new Uint8Array(octets))
  } catch {
    return undefined
  }
  if (octets.length > 1) return char
  return /[A-Za-z0-9\-._~]/.test(char) ? char : ''
}

/**
 * A URI in the normal form of RFC 3986 section 6.2.2 (percent-encoding normalisation): non-ASCII characters
 * (an IRI's) UTF-8 percent-encoded, every triplet's hex digits upper case, and triplets of unreserved
 * characters decoded. Two URIs equivalent in those respects get the same string; nothing else changes
 * (no case folding of scheme or host, no dot segments). A URI with a lone surrogate is returned unchanged.
 */
export function normalizeUri(uri: string): string {
  let ascii: string
  try {
    ascii = uri.replace(/[^\p{ASCII}]+/gu, (run) => encodeURIComponent(run))
  } catch {
    return uri // a lone surrogate: no UTF-8 form, compared as it is
  }
  return ascii.replace(/%[0-9A-Fa-f]{2}/g, (triplet) => {
    const c = String.fromCharCode(parseInt(triplet.slice(1), 16))
    return /[A-Za-z0-9\-._~]/.test(c) ? c : triplet.toUpperCase()
  })
}
