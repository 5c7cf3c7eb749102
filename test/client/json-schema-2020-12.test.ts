/**
 * JSON Schema 2020-12 preserved end to end (SEP-1613, SEP-2106; the conformance scenarios json-schema-2020-12 and
 * json-schema-2020-12-preservation): a tool's inputSchema and outputSchema, written with the whole 2020-12
 * vocabulary, survive registration (`withJsonSchema`), `tools/list` on both protocol eras and the Client's
 * parsing unchanged — and go back to a server, as arguments, unchanged too.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { McpServer, createFetchHandler, withJsonSchema } from '../../src/server/index.ts'
import { scriptedTransport } from '../helpers.ts'

/** The conformance fixture's keywords, and more of the 2020-12 vocabulary besides. */
const INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://example.com/schemas/contact',
  $comment: 'kept as written',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
      unevaluatedProperties: false,
    },
    node: { $dynamicAnchor: 'node', type: 'object', properties: { next: { $dynamicRef: '#node' } } },
  },
  properties: {
    name: { type: 'string', minLength: 1, examples: ['Ada'], deprecated: false },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string', pattern: '^[0-9+ ]+$' },
    email: { type: 'string', format: 'email' },
    tags: { type: 'array', prefixItems: [{ type: 'string' }], items: false, uniqueItems: true },
    avatar: { type: 'string', contentEncoding: 'base64', contentMediaType: 'image/png' },
    extra: { type: ['string', 'null'], const: null },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  oneOf: [{ required: ['name'] }, { not: { required: ['name'] } }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  dependentRequired: { phone: ['name'] },
  dependentSchemas: { email: { properties: { name: { type: 'string' } } } },
  propertyNames: { maxLength: 32 },
  additionalProperties: false,
  'x-vendor-keyword': { kept: true },
}
const OUTPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { id: { type: 'string', $anchor: 'id' } },
  properties: { id: { $ref: '#id' }, schema: { type: 'object' } },
  required: ['id'],
  additionalProperties: false,
}

/** A server with the focal tool and an echo tool that answers with the schema it was given. */
function server() {
  const mcp = new McpServer({ name: 's', version: '1' })
  mcp.tool(
    'contact',
    { input: withJsonSchema(v.looseObject({}), INPUT), output: withJsonSchema(v.looseObject({}), OUTPUT) },
    () => ({ structuredContent: { id: 'c1' } }),
  )
  mcp.tool('echo', { input: { schema: v.record(v.string(), v.unknown()) } }, ({ schema }) => ({
    content: [{ type: 'text', text: JSON.stringify(schema) }],
  }))
  return mcp
}

describe.each(['modern', 'legacy'] as const)('JSON Schema 2020-12 end to end (%s era)', (era) => {
  it('tools/list gives the Client the inputSchema and outputSchema exactly as registered', async () => {
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: createFetchHandler(server()) }),
      versionNegotiation: era,
    })
    const contact = (await client.listTools()).find((tool) => tool.name === 'contact')!
    expect(contact.inputSchema).toEqual(INPUT)
    expect(contact.outputSchema).toEqual(OUTPUT)
    await client.close()
  })

  it('the schema the Client saw goes back as an argument unchanged', async () => {
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: createFetchHandler(server()) }),
      versionNegotiation: era,
    })
    const contact = (await client.listTools()).find((tool) => tool.name === 'contact')!
    const echoed = await client.callTool('echo', { schema: contact.inputSchema })
    expect(JSON.parse((echoed.content[0] as { text: string }).text)).toEqual(INPUT)
    await client.close()
  })
})

describe('a tools/list from any server', () => {
  it('keeps every keyword of a schema the Client has no check for (unknown keywords included)', async () => {
    const listed = { ...INPUT, unknownKeyword: [1, { deep: [null] }], $vocabulary: { 'urn:x': true } }
    const transport = scriptedTransport((message) => {
      const m = message as { id: number }
      return { jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'raw', inputSchema: listed }] } }
    })
    const [tool] = await new Client({ transport, versionNegotiation: 'modern' }).listTools()
    expect(tool.inputSchema).toEqual(listed)
  })
})
