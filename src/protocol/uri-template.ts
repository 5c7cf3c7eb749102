/**
 * RFC 6570 URI templates, levels 1–4: parse, expand (RFC 6570 section 3), and match a concrete URI back
 * to variable values (the inverse MCP needs to route `resources/read` to a resource template; spec:
 * server/resources.mdx "Resource Templates").
 *
 * **Matching rule.** Expansion loses information (`{a}{b}`, `{x,y}` with a comma in a value, …), so
 * `match` is the inverse only for the forms below, and it says `undefined` rather than guess:
 * - Literals match after URI normalisation (RFC 3986 section 6.2.2): percent-encoding case is ignored
 *   (`%c3%a9` is `%C3%A9`), an unreserved character matches its percent-encoding and back (`%7E` is
 *   `~`), and a non-ASCII literal matches its UTF-8 percent-encoding or the raw character (an IRI, RFC
 *   3987 section 3.1). Reserved characters match only themselves (`/` is not `%2F`). No Unicode
 *   normalisation (NFC and NFD forms differ).
 * - A value holds unreserved characters, percent-encoded triplets, raw non-ASCII characters and
 *   `: @ ! $ ' ( ) * +`; never `/ ? # [ ] , ; & =`, which delimit. `{+x}` values may also hold
 *   `/ [ ] , ; & =` and `{#x}` values `?` too (so `{+x}` stops at the query, and neither spans `#`).
 *   Values are percent-decoded (UTF-8); a malformed escape matches nothing.
 * - Within an expression, values are split on its separator (`,` for `{x,y}`, `/` for `{/a,b}`, `.`
 *   for `{.a,b}`): a non-exploded variable takes one value, an exploded one (`{/segments*}`) a list of
 *   every value left (`string[]`, `[]` when there is none); fewer values than variables leave the last
 *   ones absent (`{x,y}` on `1` is `x: '1'`), more match nothing. A lone non-exploded variable takes the
 *   whole expression, separator included (`{.ext}` on `.tar.gz` is `tar.gz`; `{list}` on `a,b` is `"a,b"`).
 * - `{?x,y}`, `{&x}` and `{;x}` take their variables by name, in any order; an item without `=` is the
 *   empty string; a name that is not in the expression, or a non-exploded name given twice, matches
 *   nothing. Associative arrays (exploded maps) are expanded but never matched.
 * - A variable whose expression matched nothing is absent from the result, except that `{x}` and `{+x}`
 *   (one variable, no operator) must match at least one character.
 * - **Greedy, without backtracking**, except for the last `{+…}`, `{#…}` or exploded expression: every
 *   other expression takes the longest run it can and never gives any back, and its values never contain
 *   the first character of what follows it in the template (`{name}.{ext}` on `a.b.c` is `a` and
 *   `b.c`). That last expression takes the longest match that lets the rest of the template match, and
 *   may span the literal after it (`{+path}/here` on `/a/b/here` is `/a/b`). Two expressions with
 *   nothing between them (`{a}{b}`) cannot be told apart: the first takes all it can.
 * - A prefix `{x:3}` matches values of at most 3 characters. A variable used twice must match the same
 *   value in both places (or, with a prefix, the start of it: `{/v:1,v}` on `/a/ab` is `ab`).
 * - URIs longer than {@link MAX_MATCH_LENGTH} characters match nothing: matching is linear but for the
 *   one backtracking expression, which can make a hostile URI cost O(n²) steps (tens of ms at the cap).
 * @module
 */
import {
  OPERATORS,
  PCT,
  parse,
  pctEncode,
  type Operator,
  type UriTemplateExpression,
  type UriTemplateOperator,
  type UriTemplateVarspec,
} from './uri-template-syntax.ts'
import { UriTemplateError } from './errors.ts'
import { escapeRegExp, literalPattern } from './uri-literal.ts'

export { type UriTemplateExpression, type UriTemplateOperator, type UriTemplateVarspec } from './uri-template-syntax.ts'

/** A scalar variable value (`null` and `undefined` are undefined, RFC 6570 section 2.3). */
export type UriTemplateScalar = string | number | boolean | null | undefined
/** A variable value for {@link UriTemplate.expand}: a string (numbers and booleans are stringified), a list, or an associative array. */
export type UriTemplateValue =
  UriTemplateScalar | readonly UriTemplateScalar[] | { readonly [key: string]: UriTemplateScalar }

/**
 * URIs longer than this many characters match no template (it bounds matching time).
 * @internal not in the public API: the docs state its value
 */
export const MAX_MATCH_LENGTH = 4096

// The names of a template's variables, at the type level (for literal template strings).
type Expressions<T extends string> = T extends `${string}{${infer E}}${infer Rest}` ? E | Expressions<Rest> : never
type Body<E extends string> = E extends `${Exclude<UriTemplateOperator, ''>}${infer B}` ? B : E
type Specs<B extends string> = B extends `${infer A},${infer R}` ? A | Specs<R> : B
type NameOf<S extends string> = S extends `${infer N}*` ? N : S extends `${infer N}:${string}` ? N : S
type Exploded<T extends string> =
  Specs<Body<Expressions<T>>> extends infer S ? (S extends `${infer N}*` ? N : never) : never
type Sole<T extends string> =
  Expressions<T> extends infer E
    ? E extends `${'#' | '.' | '/' | ';' | '?' | '&'}${string}` | `${string},${string}` | `${string}*`
      ? never
      : NameOf<E extends `+${infer B}` ? B : E & string>
    : never

/** The variable names of a URI template literal, as a union of string literals (`'a' | 'b'` for `x/{a}{?b}`). */
export type TemplateVariables<T extends string> = NameOf<Specs<Body<Expressions<T>>>>

/**
 * What {@link UriTemplate.match} returns for a template literal: `string` for the lone variable of `{x}` or
 * `{+x}`, `string[]` for an exploded `{x*}`, and an optional `string` for every other variable.
 */
export type TemplateArgs<T extends string> = string extends T
  ? Record<string, string | string[]>
  : {
      [K in TemplateVariables<T> as K extends Exploded<T> | Sole<T> ? K : never]: K extends Exploded<T>
        ? string[]
        : string
    } & { [K in Exclude<TemplateVariables<T>, Exploded<T> | Sole<T>>]?: string }

const NOT_UNRESERVED = /[^A-Za-z0-9\-._~]/gu
const NOT_RESERVED = /%[0-9A-Fa-f]{2}|[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]/gu

// What a value may hold when matching (ASCII; raw non-ASCII and pct-encoded triplets are always allowed).
const PLAIN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:@!$'()*+"
const RESERVED_VALUE = PLAIN + '/[],;&='

/**
 * A parsed RFC 6570 URI template (levels 1–4).
 *
 * @example
 * const t = new UriTemplate('file:///{+path}{?rev}')
 * t.expand({ path: 'src/a b.ts', rev: 3 }) // 'file:///src/a%20b.ts?rev=3'
 * t.match('file:///src/a%20b.ts?rev=3')    // { path: 'src/a b.ts', rev: '3' }
 */
export class UriTemplate<const T extends string = string> {
  /** The template text, as given. */
  readonly template: T
  /** The expressions, in order. */
  readonly expressions: readonly UriTemplateExpression[]
  /** Every variable name, in order of first appearance. */
  readonly variables: readonly string[]
  readonly #parts: readonly (string | UriTemplateExpression)[]
  readonly #matcher: RegExp

  /**
   * Parse a template.
   * @throws UriTemplateError naming the problem and its character offset: an unclosed or stray brace, an
   *   empty expression, a reserved operator (`= , ! @ |`), an invalid variable name or modifier (a prefix
   *   outside 1–9999), a character that is not allowed in a literal, or a malformed `%` escape.
   */
  constructor(template: T) {
    this.template = template
    this.#parts = parse(template)
    this.expressions = this.#parts.filter((p): p is UriTemplateExpression => typeof p !== 'string')
    this.variables = [...new Set(this.expressions.flatMap((e) => e.varspecs.map((s) => s.name)))]
    this.#matcher = compile(this.#parts)
  }

  /**
   * Expand the template with these variables (RFC 6570 section 3.2): values are UTF-8 percent-encoded,
   * keeping unreserved characters (and, for `{+x}` and `{#x}`, reserved characters and existing
   * `%XX` triplets); undefined variables, empty lists and empty associative arrays are skipped.
   * A prefix `{x:n}` keeps the first n Unicode code points (a `%XX` triplet counts as one in `{+x}`).
   * @throws UriTemplateError for a prefix modifier on a list or associative array (section 2.4.1), or a
   *   member that is not a string, number or boolean.
   */
  expand(variables: Readonly<Record<string, UriTemplateValue>>): string {
    let out = ''
    for (const part of this.#parts) out += typeof part === 'string' ? part : expandExpression(part, variables)
    return out
  }

  /**
   * Extract the variables from a concrete URI, by the rule in this module's documentation.
   * @returns the decoded variables, or undefined when the URI does not match (or is longer than
   *   {@link MAX_MATCH_LENGTH} characters).
   */
  match(uri: string): TemplateArgs<T> | undefined {
    if (uri.length > MAX_MATCH_LENGTH) return undefined
    const m = this.#matcher.exec(uri)
    if (!m) return undefined
    const out = new Map<string, string | string[]>() // a Map: a variable named `__proto__` is a name like any other
    const prefixes = new Map<string, number | undefined>() // the prefix each variable in `out` was matched with
    for (const [i, expression] of this.expressions.entries()) {
      if (!matchExpression(expression, m.groups![`e${i}`]!, out, prefixes)) return undefined
    }
    return Object.fromEntries(out) as TemplateArgs<T>
  }

  toString(): string {
    return this.template
  }
}

function encode(text: string, reserved: boolean): string {
  return text.replace(reserved ? NOT_RESERVED : NOT_UNRESERVED, (c) => (c.length === 3 ? c : pctEncode(c)))
}

function expandExpression(
  expression: UriTemplateExpression,
  variables: Readonly<Record<string, UriTemplateValue>>,
): string {
  const op = OPERATORS[expression.operator]
  const items: string[] = []
  for (const spec of expression.varspecs) {
    const item = expandVarspec(op, spec, Object.hasOwn(variables, spec.name) ? variables[spec.name] : undefined)
    if (item !== undefined) items.push(item)
  }
  return items.length === 0 ? '' : op.first + items.join(op.sep)
}

function expandVarspec(op: Operator, spec: UriTemplateVarspec, value: UriTemplateValue): string | undefined {
  if (value === null || value === undefined) return undefined
  const enc = (text: string) => encode(text, op.reserved)
  const named = (name: string, text: string) => name + (text === '' ? op.ifemp : '=' + text)
  if (typeof value !== 'object') {
    const text = enc(spec.prefix === undefined ? String(value) : prefixOf(String(value), spec.prefix, op.reserved))
    return op.named ? named(spec.name, text) : text
  }
  if (spec.prefix !== undefined)
    throw new UriTemplateError(
      `Cannot expand {${spec.name}:${spec.prefix}}: a prefix modifier does not apply to a list or associative array (RFC 6570 section 2.4.1)`,
    )
  const pairs: [string | undefined, string][] = []
  const entries: [string | undefined, unknown][] = Array.isArray(value)
    ? value.map((m: unknown) => [undefined, m])
    : Object.entries(value)
  for (const [key, member] of entries) {
    if (member === null || member === undefined) continue
    if (typeof member !== 'string' && typeof member !== 'number' && typeof member !== 'boolean') {
      throw new UriTemplateError(`Cannot expand '${spec.name}': its members must be strings, numbers or booleans`)
    }
    pairs.push([key === undefined ? undefined : enc(key), enc(String(member))])
  }
  if (pairs.length === 0) return undefined // an empty list or associative array is undefined (section 2.3)
  if (!spec.explode) {
    const joined = pairs.flatMap(([key, text]) => (key === undefined ? [text] : [key, text])).join(',')
    return op.named ? named(spec.name, joined) : joined
  }
  return pairs
    .map(([key, text]) => (op.named ? named(key ?? spec.name, text) : key === undefined ? text : `${key}=${text}`))
    .join(op.sep)
}

/** The first `max` code points of `text` (a `%XX` triplet counts as one under reserved expansion). */
function prefixOf(text: string, max: number, reserved: boolean): string {
  let i = 0
  for (let count = 0; i < text.length && count < max; count++) {
    if (reserved && PCT.test(text.slice(i, i + 3))) i += 3
    else i += text.codePointAt(i)! > 0xffff ? 2 : 1
  }
  return text.slice(0, i)
}

// ---- matching -------------------------------------------------------------------------------------

/** The characters a value of this operator may hold when matching (see the module documentation). */
function valueChars(operator: UriTemplateOperator): string {
  return operator === '+' ? RESERVED_VALUE : operator === '#' ? RESERVED_VALUE + '?' : PLAIN
}

function charClass(chars: string): string {
  return `(?:[${chars.replace(/[\\\][^-]/g, '\\$&')}\\u0080-\\uffff]|%[0-9A-Fa-f]{2})`
}

/** The first character the template puts right after part `i`, when it is fixed (a literal, or an operator). */
function follower(parts: readonly (string | UriTemplateExpression)[], i: number): string | undefined {
  const next = parts[i + 1]
  if (next === undefined) return undefined
  const first = typeof next === 'string' ? next[0] : OPERATORS[next.operator].first
  return first === '%' || first === '' ? undefined : first
}

function isSpanning(part: string | UriTemplateExpression): boolean {
  return (
    typeof part !== 'string' && (part.operator === '+' || part.operator === '#' || part.varspecs.some((s) => s.explode))
  )
}

function compile(parts: readonly (string | UriTemplateExpression)[]): RegExp {
  let spanning = -1
  parts.forEach((part, i) => {
    if (isSpanning(part)) spanning = i
  })
  let source = '^'
  let index = 0
  parts.forEach((part, i) => {
    if (typeof part === 'string') {
      source += literalPattern(part)
      return
    }
    const name = `e${index++}`
    if (i === spanning) {
      source += `(?<${name}>${expressionPattern(part, undefined)})`
    } else {
      // an atomic group: the lookahead takes the longest match, the backreference consumes exactly that
      source += `(?=(?<${name}>${expressionPattern(part, follower(parts, i))}))\\k<${name}>`
    }
  })
  return new RegExp(source + '$')
}

function expressionPattern(expression: UriTemplateExpression, stop: string | undefined): string {
  const op = OPERATORS[expression.operator]
  const count = expression.varspecs.length
  const explode = expression.varspecs.some((s) => s.explode)
  const more = explode ? '*' : `{0,${count - 1}}`
  const without = (chars: string, c: string | undefined) => (c === undefined ? chars : chars.split(c).join(''))
  const chars = without(valueChars(expression.operator) + ',', stop)
  if (op.named) {
    // longest name first: the group is atomic, so `q` must not win over `qq`
    const names = expression.varspecs.map((s) => escapeRegExp(s.name)).sort((a, b) => b.length - a.length)
    const item = `(?:${names.join('|')})(?:=${charClass(chars)}*)?`
    return `(?:${escapeRegExp(op.first)}${item}(?:${escapeRegExp(op.sep)}${item})${more})?`
  }
  if (count === 1 && !explode) {
    const value = charClass(chars)
    return op.first === '' ? `${value}+` : `(?:${escapeRegExp(op.first)}${value}*)?`
  }
  const part = `${charClass(without(chars, op.sep))}*`
  const body = `${part}(?:${escapeRegExp(op.sep)}${part})${more}`
  return op.first === '' ? body : `(?:${escapeRegExp(op.first)}${body})?`
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text)
  } catch {
    return undefined
  }
}

/** Assign the variables of one expression from the text it matched. @returns false when the text cannot be their expansion. */
function matchExpression(
  expression: UriTemplateExpression,
  text: string,
  out: Map<string, string | string[]>,
  prefixes: Map<string, number | undefined>,
): boolean {
  const op = OPERATORS[expression.operator]
  const values = new Map<UriTemplateVarspec, string | string[]>()
  for (const spec of expression.varspecs) if (spec.explode) values.set(spec, [])
  if (text !== '') {
    const body = text.slice(op.first.length)
    if (op.named) {
      for (const item of body.split(op.sep)) {
        const eq = item.indexOf('=')
        const spec = expression.varspecs.find((s) => s.name === (eq < 0 ? item : item.slice(0, eq)))!
        const value = decode(eq < 0 ? '' : item.slice(eq + 1))
        if (value === undefined) return false
        if (spec.explode) (values.get(spec) as string[]).push(value)
        else if (values.has(spec)) return false
        else values.set(spec, value)
      }
    } else {
      const pieces = expression.varspecs.length === 1 && !expression.varspecs[0]!.explode ? [body] : body.split(op.sep)
      let next = 0
      for (const [i, spec] of expression.varspecs.entries()) {
        if (spec.explode) {
          const later = expression.varspecs.slice(i + 1).filter((s) => !s.explode).length
          const take = Math.max(0, pieces.length - next - later)
          const list = pieces.slice(next, next + take).map(decode)
          if (list.includes(undefined)) return false
          values.set(spec, list as string[])
          next += take
        } else if (next < pieces.length) {
          const value = decode(pieces[next++]!)
          if (value === undefined) return false
          values.set(spec, value)
        }
      }
      if (next < pieces.length) return false
    }
  }
  for (const [spec, value] of values) {
    if (spec.prefix !== undefined && typeof value === 'string' && [...value].length > spec.prefix) return false
    const seen = out.get(spec.name)
    if (seen === undefined) {
      out.set(spec.name, value)
      prefixes.set(spec.name, spec.prefix)
      continue
    }
    // a variable used twice: both must be cut from one value (`{/var:1,var}` on `/v/value`); keep the longer
    const was = prefixes.get(spec.name)
    if (typeof seen === 'string' && typeof value === 'string') {
      if (cut(seen, spec.prefix) !== cut(value, was)) return false
      if (was !== undefined && (spec.prefix === undefined || spec.prefix > was)) {
        out.set(spec.name, value)
        prefixes.set(spec.name, spec.prefix)
      }
    } else if (JSON.stringify(seen) !== JSON.stringify(value)) {
      return false
    }
  }
  return true
}

/** The first `max` code points of `text` (all of it when `max` is undefined). */
function cut(text: string, max: number | undefined): string {
  return max === undefined ? text : [...text].slice(0, max).join('')
}
