/**
 * RFC 6570 URI template syntax: the parsed form of a template (operators, varspecs, expressions), the
 * operator table (RFC 6570 Appendix A) and the parser. Expansion and matching are in uri-template.ts.
 * @module
 */
import { UriTemplateError } from './errors.ts'

/** An expression operator (RFC 6570 section 2.2); `''` is simple string expansion. */
export type UriTemplateOperator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&'

/** One variable of an expression: its name, and its modifier (`:prefix` in characters, or explode `*`). */
export interface UriTemplateVarspec {
  readonly name: string
  readonly explode: boolean
  /** The max-length of a prefix modifier (1–9999 characters), or undefined. */
  readonly prefix: number | undefined
}

/** One `{…}` expression of a template. */
export interface UriTemplateExpression {
  readonly operator: UriTemplateOperator
  readonly varspecs: readonly UriTemplateVarspec[]
}

/** How an operator expands (RFC 6570 Appendix A). */
export interface Operator {
  first: string
  sep: string
  named: boolean
  ifemp: string
  /** Reserved expansion: reserved characters and pct-encoded triplets pass through. */
  reserved: boolean
}

/** Each operator's expansion rules: first character, separator, named, if-empty, allowed characters (RFC 6570 Appendix A). */
export const OPERATORS: Record<UriTemplateOperator, Operator> = {
  '': { first: '', sep: ',', named: false, ifemp: '', reserved: false },
  '+': { first: '', sep: ',', named: false, ifemp: '', reserved: true },
  '#': { first: '#', sep: ',', named: false, ifemp: '', reserved: true },
  '.': { first: '.', sep: '.', named: false, ifemp: '', reserved: false },
  '/': { first: '/', sep: '/', named: false, ifemp: '', reserved: false },
  ';': { first: ';', sep: ';', named: true, ifemp: '', reserved: false },
  '?': { first: '?', sep: '&', named: true, ifemp: '=', reserved: false },
  '&': { first: '&', sep: '&', named: true, ifemp: '=', reserved: false },
}

const VARSPEC =
  /^((?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*)(?::([1-9][0-9]{0,3})|(\*))?$/
/** ASCII literal characters (RFC 6570 section 2.1, plus `'`, a sub-delim the RFC's own examples use). */
const LITERAL = /[!#$&'()*+,\-./0-9:;=?@A-Z[\]_a-z~]/
/** A percent-encoded octet (`%` and two hex digits) at the start of a string (RFC 6570 section 1.5). */
export const PCT = /^%[0-9A-Fa-f]{2}/
const utf8 = new TextEncoder() // one encoder, reused by every pctEncode

/**
 * Split a template into its literals (non-ASCII characters percent-encoded) and parsed expressions.
 * @throws UriTemplateError as the `UriTemplate` constructor documents.
 */
export function parse(template: string): (string | UriTemplateExpression)[] {
  const fail = (what: string, at: number): never => {
    throw new UriTemplateError(`Invalid URI template ${JSON.stringify(template)}: ${what} at character ${at}`)
  }
  const parts: (string | UriTemplateExpression)[] = []
  let literal = ''
  for (let i = 0; i < template.length;) {
    const c = template[i]!
    if (c === '{') {
      const end = template.indexOf('}', i)
      if (end < 0) fail("'{' is never closed", i)
      if (literal) parts.push(literal)
      literal = ''
      parts.push(parseExpression(template.slice(i + 1, end), (what) => fail(what, i)))
      i = end + 1
    } else if (c === '}') {
      fail("'}' without '{'", i)
    } else if (c === '%') {
      if (!PCT.test(template.slice(i, i + 3))) fail("'%' not followed by two hex digits", i)
      literal += template.slice(i, i + 3)
      i += 3
    } else if (LITERAL.test(c)) {
      literal += c
      i++
    } else {
      const code = template.codePointAt(i)!
      if (code < 0x80 || (code >= 0xd800 && code <= 0xdfff)) fail(`${JSON.stringify(c)} is not allowed in a literal`, i)
      const char = String.fromCodePoint(code)
      literal += pctEncode(char)
      i += char.length
    }
  }
  if (literal) parts.push(literal)
  return parts
}

function parseExpression(text: string, fail: (what: string) => never): UriTemplateExpression {
  if (text === '') fail('empty expression')
  const c = text[0]!
  if ('=,!@|'.includes(c)) fail(`operator '${c}' is reserved for future extensions`)
  const operator = (c in OPERATORS ? c : '') as UriTemplateOperator
  const varspecs = text
    .slice(operator.length)
    .split(',')
    .map((spec) => {
      const m = VARSPEC.exec(spec)
      if (!m) fail(`invalid variable ${JSON.stringify(spec)} in {${text}}`)
      return { name: m[1]!, explode: m[3] !== undefined, prefix: m[2] === undefined ? undefined : Number(m[2]) }
    })
  return { operator, varspecs }
}

/** The UTF-8 percent-encoding of `char` (`%XX` per byte, upper-case hex). */
export function pctEncode(char: string): string {
  let out = ''
  for (const byte of utf8.encode(char)) out += '%' + byte.toString(16).toUpperCase().padStart(2, '0')
  return out
}
