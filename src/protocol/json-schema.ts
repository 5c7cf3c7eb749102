/**
 * The JSON Schema (draft 2020-12, input side) of a valibot schema: what `inputSchema`, `outputSchema`,
 * prompt arguments and elicitation forms are sent as. It gives the same JSON, key for key and in the same
 * order, as `@valibot/to-json-schema` 1.8 with `{ target: 'draft-2020-12', typeMode: 'input' }` (without
 * `$schema`, and without that package's global definitions), with the same error messages; only the options
 * this SDK uses are kept, so a Worker does not bundle the rest (test/json-schema.test.ts runs both on a
 * corpus of schemas and compares).
 * @module
 */

/** A JSON Schema object, as built here (plain JSON values only). */
export type JsonSchema = Record<string, unknown>

/** The fields of a valibot schema or pipe action this converter reads (each read only where its kind has it). */
interface Node {
  readonly kind: string
  readonly type: string
  readonly pipe?: readonly Node[]
  readonly requirement?: unknown
  readonly wrapped?: Node
  readonly item?: Node
  readonly items?: readonly Node[]
  readonly rest?: Node
  readonly entries?: Record<string, Node>
  readonly key?: Node
  readonly value?: Node
  readonly options?: readonly unknown[]
  readonly literal?: unknown
  readonly default?: unknown
  readonly getter?: (input: undefined) => Node
  readonly description?: string
  readonly title?: string
  readonly examples?: readonly unknown[]
  readonly metadata?: Record<string, unknown>
}

/** Actions that are a regular expression in `requirement` (its `source` becomes `pattern`). */
const PATTERNS = new Set(
  'bic cuid2 decimal digits domain emoji hash hexadecimal hex_color isrc iso_time_second iso_week jws_compact ksuid mac mac48 mac64 nanoid octal slug ulid'.split(
    ' ',
  ),
)
/** Actions that become a `format`. */
const FORMATS = new Map(
  Object.entries({
    email: 'email',
    rfc_email: 'email',
    ipv4: 'ipv4',
    ipv6: 'ipv6',
    iso_date: 'date',
    iso_date_time: 'date-time',
    iso_timestamp: 'date-time',
    iso_time: 'time',
    url: 'uri',
    uuid: 'uuid',
  }),
)
/** Transformations that end the input side of a pipe (what follows checks the transformed value). */
const INPUT_ENDS = new Set(
  'find_item parse_json raw_transform reduce_items stringify_json to_bigint to_boolean to_date to_number to_string transform'.split(
    ' ',
  ),
)
/** Number bounds: the JSON Schema keyword and whether it is a lower bound. */
const VALUE_BOUNDS = new Map<string, [string, boolean]>([
  ['min_value', ['minimum', true]],
  ['max_value', ['maximum', false]],
  ['gt_value', ['exclusiveMinimum', true]],
  ['lt_value', ['exclusiveMaximum', false]],
])
/** Entry-count actions: [lower bound, upper bound] of `minProperties` / `maxProperties` (undefined: not set). */
const ENTRY_BOUNDS = new Map<string, [boolean, boolean]>([
  ['entries', [true, true]],
  ['min_entries', [true, false]],
  ['max_entries', [false, true]],
])
/** Length actions: [lower bound, upper bound] of `minLength`/`minItems` and `maxLength`/`maxItems`. */
const LENGTH_BOUNDS = new Map<string, [boolean, boolean]>([
  ['length', [true, true]],
  ['min_length', [true, false]],
  ['max_length', [false, true]],
])

/** The stricter bound of `current` (kept only when a finite number) and `value`: the larger when `lower`. */
function bound(current: unknown, value: number, lower: boolean): number {
  return typeof current !== 'number' || !Number.isFinite(current) || (lower ? value > current : value < current)
    ? value
    : current
}

/** A JSON Schema `const`-able value: a boolean, finite number or string. */
function isConst(value: unknown): boolean {
  return (
    typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'string'
  )
}

/** `not` widened by `value`: `value`, or `anyOf` of the existing restriction and `value`. */
function widenNot(schema: JsonSchema, value: JsonSchema): void {
  schema.not = schema.not !== undefined ? { anyOf: [schema.not, value] } : value
}

/**
 * The JSON Schema of `schema` (draft 2020-12, the input side of each pipe; recursive `v.lazy` schemas
 * become `$ref`s into `$defs`).
 * @param schema A valibot schema.
 * @param strict Throw for anything JSON Schema cannot express (a `v.check`, a `v.bigint()`, a regex flag, …);
 *   otherwise it is left out.
 * @returns A fresh JSON Schema object (no `$schema` key).
 * @throws Error (only when `strict`) with `@valibot/to-json-schema`'s message naming what cannot be
 *   expressed, e.g. `The "check" action cannot be converted to JSON Schema.`
 */
export function toJsonSchema(schema: unknown, strict: boolean): JsonSchema {
  const defs: JsonSchema = {}
  const refs = new Map<Node, string>()
  const getters = new Map<unknown, Node>()
  let count = 0
  const fail = (message: string): void => {
    if (strict) throw new Error(message)
  }

  /** Apply one pipe action to `s`. */
  const action = (s: JsonSchema, a: Node): JsonSchema => {
    const t = a.type
    const r = a.requirement as number
    const name = `The "${t}" action`
    const onType = () => fail(`${name} is not supported on type "${String(s.type)}".`)
    const notJson = () => fail(`The requirement of the "${t}" action is not JSON compatible.`)
    const pattern = (source: string) =>
      s.pattern ? fail(`${name} is not supported in combination with another regex action.`) : (s.pattern = source)
    const nonNegative = () => {
      const ok = Number.isInteger(r) && r >= 0
      if (!ok) fail(`The requirement of the "${t}" action must be a non-negative integer.`)
      return ok
    }
    /** Set the length (or item-count) bounds; `exact` sets the upper one as is. */
    const sized = (lo: number | undefined, hi: number | undefined, exact?: boolean) => {
      let min = 'minItems'
      let max = 'maxItems'
      if (s.type !== 'array') {
        if (s.type !== 'string') onType()
        min = 'minLength'
        max = 'maxLength'
      }
      if (lo !== undefined) s[min] = bound(s[min], lo, true)
      if (hi !== undefined) s[max] = exact ? hi : bound(s[max], hi, false)
    }
    const intersect = (values: readonly unknown[]) => {
      const allowed = new Set(values)
      // as the library: an `enum` set by `v.metadata` to a falsy non-array value leaves none allowed
      const kept = s.enum ? (s.enum as unknown[]).filter((x) => allowed.has(x)) : ((s.enum ?? values) as unknown[])
      if (kept.length) s.enum = [...new Set(kept)]
      else {
        delete s.enum
        widenNot(s, {})
      }
    }
    const format = FORMATS.get(t)
    const valueBound = VALUE_BOUNDS.get(t)
    const entryBound = ENTRY_BOUNDS.get(t)
    const lengthBound = LENGTH_BOUNDS.get(t)
    if (format) s.format = format
    else if (PATTERNS.has(t)) pattern((a.requirement as RegExp).source)
    else if (valueBound) {
      if (s.type !== 'number' && s.type !== 'integer') onType()
      else if (!Number.isFinite(r)) notJson()
      else s[valueBound[0]] = bound(s[valueBound[0]], r, valueBound[1])
    } else if (entryBound) {
      if (nonNegative()) {
        if (entryBound[0]) s.minProperties = bound(s.minProperties, r, true)
        if (entryBound[1]) s.maxProperties = bound(s.maxProperties, r, false)
      }
    } else if (lengthBound) {
      if (nonNegative()) sized(lengthBound[0] ? r : undefined, lengthBound[1] ? r : undefined)
    } else {
      const text = a.requirement as string
      const escaped = () => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      switch (t) {
        case 'base64':
          s.contentEncoding = 'base64'
          break
        case 'description':
          s.description = a.description
          break
        case 'title':
          s.title = a.title
          break
        case 'examples':
          s.examples = Array.isArray(s.examples) ? [...(s.examples as unknown[]), ...a.examples!] : a.examples
          break
        case 'metadata': {
          const m = a.metadata!
          if (typeof m.title === 'string') s.title = m.title
          if (typeof m.description === 'string') s.description = m.description
          if (Array.isArray(m.examples))
            s.examples = Array.isArray(s.examples)
              ? [...(s.examples as unknown[]), ...(m.examples as unknown[])]
              : m.examples
          for (const k of Object.keys(m))
            if (k !== 'title' && k !== 'description' && k !== 'examples' && k !== '__proto__') s[k] = m[k]
          break
        }
        case 'empty':
          sized(undefined, 0, true)
          break
        case 'non_empty':
          sized(1, undefined)
          break
        case 'starts_with':
          pattern(`^${escaped()}`)
          break
        case 'ends_with':
          pattern(`${escaped()}$`)
          break
        case 'includes':
          pattern(escaped())
          break
        case 'regex':
          if ((a.requirement as RegExp).flags) fail('RegExp flags are not supported by JSON Schema.')
          pattern((a.requirement as RegExp).source)
          break
        case 'integer':
          s.type = 'integer'
          break
        case 'safe_integer':
          s.type = 'integer'
          s.minimum = bound(s.minimum, Number.MIN_SAFE_INTEGER, true)
          s.maximum = bound(s.maximum, Number.MAX_SAFE_INTEGER, false)
          break
        case 'multiple_of':
          s.multipleOf = r
          break
        case 'value':
          if (!isConst(r)) notJson()
          else if ('const' in s && s.const !== r)
            fail(`${name} is not supported in combination with a different "const" restriction.`)
          else s.const = r
          break
        case 'not_value':
          if (!isConst(r)) notJson()
          else widenNot(s, { const: r })
          break
        case 'values':
        case 'not_values': {
          const values = a.requirement as unknown[]
          if (!values.every(isConst)) fail(`A requirement of the "${t}" action is not JSON compatible.`)
          else if (t === 'values') intersect(values)
          else if (values.length) widenNot(s, { enum: [...new Set(values)] })
          break
        }
        default:
          fail(`${name} cannot be converted to JSON Schema.`)
      }
    }
    return s
  }

  /** Convert `node` into `s` (a `$ref` when it is a lazy schema's target already, unless `skipRef`). */
  const convert = (s: JsonSchema, node: Node, skipRef?: boolean): JsonSchema => {
    const id = skipRef ? undefined : refs.get(node)
    if (id) {
      s.$ref = `#/$defs/${id}`
      return s
    }
    if ('pipe' in node) {
      const flat = flatten(node.pipe)
      const end = flat
        .slice(1)
        .findIndex((i) => i.kind === 'schema' || (i.kind === 'transformation' && INPUT_ENDS.has(i.type)))
      for (let i = 0; i <= (end === -1 ? flat.length - 1 : end); i++) {
        s = flat[i]!.kind === 'schema' ? convert(s, flat[i]!, true) : action(s, flat[i]!)
      }
      return s
    }
    const t = node.type
    const sub = (child: Node) => convert({}, child)
    const withDefault = () => {
      if (node.default !== undefined)
        s.default = typeof node.default === 'function' ? (node.default as () => unknown)() : node.default
    }
    switch (t) {
      case 'boolean':
      case 'null':
      case 'number':
      case 'string':
        s.type = t
        break
      case 'array':
        s.type = 'array'
        s.items = sub(node.item!)
        break
      case 'tuple':
      case 'tuple_with_rest':
      case 'loose_tuple':
      case 'strict_tuple':
        s.type = 'array'
        s.prefixItems = node.items!.map(sub)
        s.minItems = node.items!.length
        if (t === 'tuple_with_rest') s.items = sub(node.rest!)
        else if (t === 'strict_tuple') s.items = false
        break
      case 'object':
      case 'object_with_rest':
      case 'loose_object':
      case 'strict_object': {
        s.type = 'object'
        const properties: JsonSchema = (s.properties = {})
        const required: string[] = (s.required = [])
        for (const k in node.entries) {
          const entry = node.entries[k]!
          properties[k] = sub(entry)
          if (entry.type !== 'exact_optional' && entry.type !== 'nullish' && entry.type !== 'optional') required.push(k)
        }
        if (t === 'object_with_rest') s.additionalProperties = sub(node.rest!)
        else if (t === 'strict_object') s.additionalProperties = false
        break
      }
      case 'record': {
        s.type = 'object'
        s.propertyNames = sub(node.key!)
        s.additionalProperties = sub(node.value!)
        if (node.key!.type !== 'string')
          fail(
            `The "record" schema with the "${node.key!.type}" schema for the key cannot be converted to JSON Schema.`,
          )
        break
      }
      case 'any':
      case 'unknown':
        break
      case 'never':
        s.not = {}
        break
      case 'nullable':
      case 'nullish':
        s.anyOf = [sub(node.wrapped!), { type: 'null' }]
        withDefault()
        break
      case 'exact_optional':
      case 'optional':
      case 'undefinedable':
        s = convert(s, node.wrapped!)
        withDefault()
        break
      case 'literal':
        if (isConst(node.literal)) s.const = node.literal
        else fail('The value of the "literal" schema is not JSON compatible.')
        break
      case 'enum':
      case 'picklist': {
        const options = node.options!
        if (!options.every((o) => typeof o === 'string' || (typeof o === 'number' && Number.isFinite(o)))) {
          fail(`An option of the "${t}" schema is not JSON compatible.`)
          break
        }
        s.enum = options
        s.type = options.every((o) => typeof o === 'string')
          ? 'string'
          : options.every((o) => typeof o === 'number')
            ? 'number'
            : ['string', 'number']
        break
      }
      case 'union':
      case 'variant':
      case 'intersect':
        s[t === 'union' ? 'anyOf' : t === 'variant' ? 'oneOf' : 'allOf'] = node.options!.map((o) => sub(o as Node))
        break
      case 'lazy': {
        let target = getters.get(node.getter)
        if (!target) getters.set(node.getter, (target = node.getter!(undefined)))
        let ref = refs.get(target)
        if (!ref) {
          refs.set(target, (ref = String(count++)))
          defs[ref] = convert({}, target, true)
        }
        s.$ref = `#/$defs/${ref}`
        break
      }
      default:
        fail(`The "${t}" schema cannot be converted to JSON Schema.`)
    }
    return s
  }

  const out = convert({}, schema as Node)
  if (refs.size) out.$defs = defs
  return out
}

/** A pipe with every nested pipe spread in place. */
function flatten(pipe: readonly Node[]): Node[] {
  return pipe.flatMap((item) => ('pipe' in item ? flatten(item.pipe) : item))
}
