/** Validation against the official 2026-07-28 and 2025-11-25 `schema.json` (vendored in test/fixtures/spec), shared by the tests. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Ajv2020Module from 'ajv/dist/2020.js'

// ajv is CommonJS: under ESM the class is the module's default export's default
const Ajv2020 = (Ajv2020Module as unknown as { default?: typeof Ajv2020Module }).default ?? Ajv2020Module

/** An ajv instance holding one vendored `schema.json` as `mcp` (the schemas have no `$id`: one instance each). */
function load(file: string): InstanceType<typeof Ajv2020Module> {
  const schema = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures/spec', file), 'utf8')) as Record<
    string,
    unknown
  >
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, logger: false })
  ajv.addSchema(schema, 'mcp')
  return ajv
}

const ajv = load('schema-2026-07-28.json')
let ajv2025: InstanceType<typeof Ajv2020Module> | undefined

function errorsOf(instance: InstanceType<typeof Ajv2020Module>, def: string, value: unknown): string[] {
  const fn = instance.getSchema(`mcp#/$defs/${def}`)
  if (!fn) throw new Error(`no $defs/${def} in schema.json`)
  return fn(value)
    ? []
    : (fn.errors ?? []).map((e: { instancePath: string; message?: string }) => `${e.instancePath} ${e.message}`)
}

/**
 * What is wrong with `value` as the schema's `$defs/<def>`: `[]` when valid, else `"<instancePath> <message>"` lines.
 * @throws Error when the schema has no such definition.
 */
export function schemaErrors(def: string, value: unknown): string[] {
  return errorsOf(ajv, def, value)
}

/** {@link schemaErrors} against the 2025-11-25 `schema.json` (the legacy lane's wire). */
export function schemaErrors2025(def: string, value: unknown): string[] {
  ajv2025 ??= load('schema-2025-11-25.json')
  return errorsOf(ajv2025, def, value)
}
