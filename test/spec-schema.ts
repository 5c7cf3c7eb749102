/** Validation against the official 2026-07-28 `schema.json` (vendored in test/fixtures/spec), shared by the tests. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Ajv2020Module from 'ajv/dist/2020.js'

const schema = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures/spec/schema-2026-07-28.json'), 'utf8'),
) as Record<string, unknown>
// ajv is CommonJS: under ESM the class is the module's default export's default
const Ajv2020 = (Ajv2020Module as unknown as { default?: typeof Ajv2020Module }).default ?? Ajv2020Module
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, logger: false })
ajv.addSchema(schema, 'mcp')

/**
 * What is wrong with `value` as the schema's `$defs/<def>`: `[]` when valid, else `"<instancePath> <message>"` lines.
 * @throws Error when the schema has no such definition.
 */
export function schemaErrors(def: string, value: unknown): string[] {
  const fn = ajv.getSchema(`mcp#/$defs/${def}`)
  if (!fn) throw new Error(`no $defs/${def} in schema.json`)
  return fn(value)
    ? []
    : (fn.errors ?? []).map((e: { instancePath: string; message?: string }) => `${e.instancePath} ${e.message}`)
}
