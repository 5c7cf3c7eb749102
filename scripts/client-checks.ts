/**
 * Generates src/client/checks.gen.ts, the client's checks of what it reads from a server, from the valibot
 * schemas of src/protocol/schemas (the single source of every wire shape): `npm run gen:checks`.
 *
 * valibot schemas are plain objects (`type`, `entries`, `item`, `options`, `wrapped`, `pipe`, …); this walks
 * them and writes the same tree with the combinators of src/protocol/check.ts, which a browser bundle carries
 * instead of valibot. Each schema kind maps to one combinator that accepts, rejects, words its first issue and
 * builds its output as valibot does:
 *
 * - `string`, `number`, `boolean`, `unknown`, `literal` (a string), `picklist` (strings) → the same names;
 * - `loose_object` → `object(entries)` (unknown members kept); `object` → `object(entries, true)` (stripped);
 * - `array`, `optional` (without a default), `union` → the same; `record` (string keys) → `record(value)`;
 *   `variant` → `variant(key, options)`;
 * - a pipe of a schema and validations (`integer`, `min_value`, `max_value`, `max_length`, `url`) →
 *   `pipe(check, …rules)`;
 * - a pipe `unknown → transform(fn) → schema` → `transform(fn, check)`, where `fn` must be an export of
 *   src/protocol/transforms.ts (the module without valibot both sides import it from).
 *
 * Anything else (another kind, a custom message, a default, a non-string key or literal) stops the generator:
 * a check that would differ from its schema is never written. A schema object used more than once becomes one
 * constant, named after the export of src/protocol/schemas that holds it (first in file then export order),
 * else after the member it was first met under. Each exported check has its spec type's name, and the file
 * exports the type under the same name: `CallToolResult` is the schema on the server, the check and the type
 * on the client.
 * @module
 */
import { readdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { format, resolveConfig } from 'prettier'
import * as transforms from '../src/protocol/transforms.ts'

/** The checks the client uses, by spec type name (each an export of src/protocol/schemas/index.ts). */
export const CHECKS = [
  'DiscoverResult',
  'CallToolResult',
  'ListToolsResult',
  'ListPromptsResult',
  'GetPromptResult',
  'ListResourcesResult',
  'ListResourceTemplatesResult',
  'ReadResourceResult',
  'CompleteResult',
  'ElicitRequestURLParams',
  'ElicitResult',
  'CreateMessageResult',
  'ListRootsResult',
  'InputRequest',
  'InputRequiredResult',
  'SubscriptionsAcknowledgedNotification',
] as const

export const OUTPUT = fileURLToPath(new URL('../src/client/checks.gen.ts', import.meta.url))

/**
 * The checks the server uses (what a client sends it, what a handler returns), by name → the file of
 * src/protocol/schemas, its export (a schema, or its memoised getter) and the spec type it checks.
 */
export const SERVER_CHECKS: Record<string, readonly [file: string, schema: string, type: string]> = {
  RequestMeta: ['capabilities.ts', 'RequestMeta', 'RequestMeta'],
  CallToolResult: ['tools.ts', 'CallToolResult', 'CallToolResult'],
  CompleteParams: ['completion.ts', 'completeParamsWithoutMeta', 'CompleteRequestParams'],
  // before the results that embed them (a check is declared before its first use)
  CreateMessageResult: ['sampling.ts', 'CreateMessageResult', 'CreateMessageResult'],
  ElicitResult: ['elicitation.ts', 'ElicitResult', 'ElicitResult'],
  ListRootsResult: ['sampling.ts', 'ListRootsResult', 'ListRootsResult'],
  RequestedSchema: ['elicitation.ts', 'RequestedSchema', 'RequestedSchema'],
  InputRequiredResult: ['input-required.ts', 'InputRequiredResult', 'InputRequiredResult'],
  InputResponses: ['input-required.ts', 'InputResponses', 'InputResponses'],
  Resource: ['resources.ts', 'Resource', 'Resource'],
  SubscriptionFilter: ['notifications.ts', 'SubscriptionFilter', 'SubscriptionFilter'],
}

export const SERVER_OUTPUT = fileURLToPath(new URL('../src/protocol/checks.gen.ts', import.meta.url))
const SCHEMAS = new URL('../src/protocol/schemas/', import.meta.url)

/** The parts of a valibot schema or action this reads. */
interface Node {
  kind: 'schema' | 'validation' | 'transformation'
  type: string
  message?: unknown
  entries?: Record<string, Node>
  item?: Node
  wrapped?: Node
  default?: unknown
  options?: Node[] | unknown[]
  key?: Node | string
  value?: Node
  literal?: unknown
  pipe?: Node[]
  requirement?: unknown
  operation?: (value: unknown) => unknown
}

const COMBINATORS = [
  'array',
  'boolean',
  'integer',
  'literal',
  'maxLength',
  'maxValue',
  'minValue',
  'number',
  'object',
  'optional',
  'picklist',
  'pipe',
  'record',
  'string',
  'transform',
  'union',
  'unknown',
  'url',
  'variant',
]

const isSchema = (x: unknown): x is Node => !!x && typeof x === 'object' && (x as Node).kind === 'schema'

/** Every schema object exported by src/protocol/schemas, by identity → its export name (files, then exports, in order). */
async function schemaNames(): Promise<{ names: Map<Node, string>; exports: Record<string, unknown> }> {
  const names = new Map<Node, string>()
  const files = readdirSync(SCHEMAS)
    .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
    .sort()
  for (const file of files) {
    const module = (await import(new URL(file, SCHEMAS).href)) as Record<string, unknown>
    for (const [name, value] of Object.entries(module))
      if (isSchema(value) && /^[A-Z]/.test(name) && !names.has(value)) names.set(value, name)
  }
  // then the lazy getters (`samplingContentBlock()`: memoised, so calling one builds nothing new), capitalised
  for (const file of files) {
    const module = (await import(new URL(file, SCHEMAS).href)) as Record<string, unknown>
    for (const [name, value] of Object.entries(module)) {
      if (typeof value !== 'function' || value.length !== 0 || !/^[a-z]/.test(name)) continue
      const schema = (value as () => unknown)()
      if (isSchema(schema) && !names.has(schema)) names.set(schema, name[0].toUpperCase() + name.slice(1))
    }
  }
  const exports = (await import(new URL('index.ts', SCHEMAS).href)) as Record<string, unknown>
  return { names, exports }
}

const stop = (where: string, why: string): never => {
  throw new Error(`scripts/client-checks.ts: ${where}: ${why}`)
}

/**
 * The source of src/client/checks.gen.ts, prettier-formatted.
 * @param only the checks to generate, by name → schema, instead of {@link CHECKS} (for the generator's own tests).
 * @throws Error naming the schema path and the reason when a schema has no faithful check.
 */
export async function generate(only?: Record<string, unknown>): Promise<string> {
  return render(false, only)
}

/** The source of src/protocol/checks.gen.ts (the server's checks, {@link SERVER_CHECKS}), prettier-formatted. */
export async function generateServer(): Promise<string> {
  const roots: Record<string, unknown> = {}
  for (const [name, [file, schema]] of Object.entries(SERVER_CHECKS)) {
    const value = ((await import(new URL(file, SCHEMAS).href)) as Record<string, unknown>)[schema]
    roots[name] = typeof value === 'function' ? (value as () => unknown)() : value
  }
  return render(true, roots)
}

async function render(server: boolean, only?: Record<string, unknown>): Promise<string> {
  const { names, exports } = await schemaNames()
  const uses = new Map<Node, number>()
  const count = (node: Node): void => {
    uses.set(node, (uses.get(node) ?? 0) + 1)
    if (uses.get(node)! > 1) return
    for (const child of children(node)) count(child)
  }
  const checks: readonly string[] = only ? Object.keys(only) : CHECKS
  const roots = checks.map((name) => {
    const schema = only ? only[name] : exports[name]
    if (!isSchema(schema)) return stop(name, 'not a schema exported by src/protocol/schemas/index.ts')
    return schema
  })
  roots.forEach(count)

  const constants = new Map<Node, string>(checks.map((name, i) => [roots[i], name]))
  const taken = new Set([...COMBINATORS, 'once', ...checks])
  const declarations: string[] = []
  const imported = new Set<string>()
  const fromTransforms = new Set<string>()

  /**
   * The expression of `node`: a constant's name (the server's: a call of its memoised builder, so that
   * importing the module builds no check), or the combinator call.
   */
  const expression = (node: Node, where: string, hint: string): string => {
    const shared = constants.get(node)
    if (shared) return server ? `${shared}()` : shared
    if ((uses.get(node) ?? 0) > 1) {
      let name = names.get(node) ?? hint
      while (taken.has(name)) name += '_'
      taken.add(name)
      constants.set(node, name)
      const built = build(node, where)
      declarations.push(server ? `const ${name} = /* @__PURE__ */ once(() => ${built})` : `const ${name} = ${built}`)
      return server ? `${name}()` : name
    }
    return build(node, where)
  }

  const use = (combinator: string): string => (imported.add(combinator), combinator)

  const build = (node: Node, where: string): string => {
    if (node.message !== undefined) stop(where, 'a custom message')
    if (node.pipe) return piped(node, where)
    switch (node.type) {
      case 'string':
      case 'number':
      case 'boolean':
      case 'unknown':
        return use(node.type)
      case 'literal':
        if (typeof node.literal !== 'string') stop(where, 'a literal that is not a string')
        return `${use('literal')}(${JSON.stringify(node.literal)})`
      case 'picklist':
        if (!(node.options as unknown[]).every((o) => typeof o === 'string')) stop(where, 'a picklist of non-strings')
        return `${use('picklist')}(${JSON.stringify(node.options)})`
      case 'optional':
        if (node.default !== undefined) stop(where, 'an optional with a default')
        return `${use('optional')}(${expression(node.wrapped!, where, hintOf(where))})`
      case 'array':
        return `${use('array')}(${expression(node.item!, `${where}[]`, hintOf(where))})`
      case 'record': {
        const key = node.key as Node
        if (key.type !== 'string' || key.pipe || key.message !== undefined)
          stop(where, 'a record whose keys are not strings')
        return `${use('record')}(${expression(node.value!, `${where}{}`, hintOf(where))})`
      }
      case 'loose_object':
      case 'object': {
        const members = Object.entries(node.entries!).map(([key, entry]) => {
          const value = expression(entry, `${where}.${key}`, key)
          return value === key ? key : `${property(key)}: ${value}`
        })
        return `${use('object')}({ ${members.join(', ')} }${node.type === 'object' ? ', true' : ''})`
      }
      case 'union':
        return `${use('union')}([${(node.options as Node[]).map((o, i) => expression(o, `${where}|${i}`, hintOf(where))).join(', ')}])`
      case 'variant':
        return `${use('variant')}(${JSON.stringify(node.key)}, [${(node.options as Node[]).map((o, i) => expression(o, `${where}|${i}`, hintOf(where))).join(', ')}])`
    }
    return stop(where, `no check for a schema of type ${node.type}`)
  }

  const piped = (node: Node, where: string): string => {
    const [first, ...rest] = node.pipe!
    if (first.type === 'unknown' && rest[0]?.type === 'transform' && rest.length === 2 && isSchema(rest[1])) {
      const fn = Object.entries(transforms).find(([, f]) => f === rest[0].operation)?.[0]
      if (!fn) return stop(where, 'a transform whose function is not an export of src/protocol/transforms.ts')
      fromTransforms.add(fn)
      return `${use('transform')}(${fn}, ${expression(rest[1], where, hintOf(where))})`
    }
    const rules = rest.map((action) => {
      if (action.kind !== 'validation') stop(where, `a ${action.kind} in a pipe`)
      if (action.message !== undefined) stop(where, 'a custom message')
      switch (action.type) {
        case 'integer':
        case 'url':
          return use(action.type)
        case 'min_value':
        case 'max_value':
        case 'max_length':
          if (typeof action.requirement !== 'number') stop(where, `a ${action.type} that is not a number`)
          return `${use(camel(action.type))}(${String(action.requirement)})`
      }
      return stop(where, `no rule for the validation ${action.type}`)
    })
    return `${use('pipe')}(${build(first, where)}, ${rules.join(', ')})`
  }

  const definitions = roots.map((root, i) => {
    const name = checks[i]
    if (server) {
      // typed by the spec type: a combinator's type argument, else (a record) a cast to the check of it
      const type = `S.${SERVER_CHECKS[name][2]}`
      const built = build(root, name)
      const typed = /^(object|union|variant|transform)\(/.test(built)
        ? built.replace(/^(\w+)\(/, `$1<${type}>(`)
        : `${built} as Check<${type}>`
      return `\n/** \`${type.slice(2)}\` (src/protocol/schemas/${SERVER_CHECKS[name][0]}), built on first call. */\nexport const ${name} = /* @__PURE__ */ once(() => ${typed})`
    }
    // typed by the combinator's type argument: object, union, variant and transform take one
    const typed = build(root, name).replace(/^(object|union|variant|transform)\(/, `$1<${name}>(`)
    if (!typed.includes(`<${name}>(`)) stop(name, 'a check whose outermost combinator takes no type argument')
    return `\n/** \`${name}\` (src/protocol/schemas). */\nexport type ${name} = S.${name}\nexport const ${name} = ${typed}`
  })

  const protocol = server ? './' : '../protocol/'
  const head = server
    ? [
        " * The checks of what a server reads (a request's `_meta` envelope and params, its clients' answers, what",
        ' * its handlers return): the valibot schemas of ./schemas/, written with the combinators of ./check.ts, so',
        " * that a server bundle carries valibot only for its users' schemas. Each accepts and rejects what its",
        ' * schema does, with the same first issue and output. Each is a memoised builder (`CallToolResult()`): a',
        ' * check is built on first use, not when the module is imported.',
      ]
    : [
        ' * The checks of what a client reads from a server (results, input requests, the listen acknowledgement) and',
        ' * of what its callbacks answer: the valibot schemas of ../protocol/schemas/, written with the combinators of',
        ' * ../protocol/check.ts, so that a browser client does not bundle valibot. Each accepts and rejects what its',
        ' * schema does, with the same first issue and output; each is exported with its type under the spec name.',
      ]
  if (server) imported.add('type Check').add('once')
  const source = [
    '// generated by scripts/client-checks.ts from src/protocol/schemas — do not edit (npm run gen:checks)',
    '/**',
    ...head,
    ' * @module',
    ' */',
    `import { ${[...imported].sort(byName).join(', ')} } from '${protocol}check.ts'`,
    ...(fromTransforms.size
      ? [`import { ${[...fromTransforms].sort().join(', ')} } from '${protocol}transforms.ts'`]
      : []),
    `import type * as S from '${protocol}schemas/index.ts'`,
    '',
    ...declarations,
    '',
    ...definitions,
  ].join('\n')
  const output = server ? SERVER_OUTPUT : OUTPUT
  const options = await resolveConfig(output)
  return format(source, { ...options, filepath: output })
}

/** Import specifiers in name order, `type Check` under `Check`. */
const byName = (a: string, b: string): number => {
  const [x, y] = [a.replace('type ', ''), b.replace('type ', '')]
  return x < y ? -1 : x > y ? 1 : 0
}
/** `maxLength` for `max_length`. */
const camel = (type: string): string => type.replace(/_(.)/g, (_, c: string) => c.toUpperCase())
/** A key as an object literal's property. */
const property = (key: string): string => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key))
/** The member name at the end of `where` (`Tool.icons[]` → `icons`), to name a constant found below it. */
const hintOf = (where: string): string => /(?:^|\.)([A-Za-z_$][\w$]*)(?:\[\]|\{\}|\|\d+)*$/.exec(where)?.[1] ?? 'shared'

/** The schemas directly inside `node`. */
function children(node: Node): Node[] {
  const out: Node[] = []
  if (node.entries) out.push(...Object.values(node.entries))
  if (node.item) out.push(node.item)
  if (node.wrapped) out.push(node.wrapped)
  if (node.value && isSchema(node.value)) out.push(node.value)
  if (Array.isArray(node.options)) out.push(...(node.options as unknown[]).filter(isSchema))
  if (node.pipe) out.push(...node.pipe.slice(1).filter(isSchema))
  return out
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(OUTPUT, await generate())
  writeFileSync(SERVER_OUTPUT, await generateServer())
  console.log(`wrote ${OUTPUT} and ${SERVER_OUTPUT}`)
}
