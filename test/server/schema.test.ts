/**
 * Schemas of any Standard Schema library (src/server/schema.ts) wherever a user gives one: tool `input` and
 * `output`, prompt `arguments`, elicitation forms; their JSON Schema from the library's own converter, valid
 * draft 2020-12; validation errors with the field and the reason; a schema without JSON Schema refused at
 * registration with the call that adds one; hand-built forms checked as made ones.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import Ajv2020 from 'ajv/dist/2020.js'
import { type } from 'arktype'
import * as v from 'valibot'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import {
  InvalidSignatureError,
  McpServer,
  createFetchHandler,
  elicit,
  elicitForm,
  formSchema,
  inputRequired,
  resolver,
  withJsonSchema,
} from '../../src/server/index.ts'
import { call, recordingLogger } from '../helpers.ts'
import { schemaErrors } from '../spec-schema.ts'

const ajv = new Ajv2020({ strict: false })

/** A client of `mcp` in process, answering elicitations with `content`. */
function clientOf(mcp: McpServer, content: Record<string, string | number | boolean | string[]> = {}) {
  const fetch = (request: Request) => createFetchHandler(mcp)(request)
  return new Client({
    transport: new StreamableHttpClientTransport('http://x/mcp', { fetch }),
    versionNegotiation: 'modern',
    elicitation: () => ({ action: 'accept', content }),
  })
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text

/** The same `forecast` tool input in each library. */
const inputs = {
  'zod object': z.object({ city: z.string().describe('The city'), days: z.number().int().min(1).optional() }),
  'zod entries': { city: z.string().describe('The city'), days: z.number().int().min(1).optional() },
  arktype: type({ city: 'string', 'days?': 'number.integer >= 1' }),
  'valibot entries': { city: v.pipe(v.string(), v.description('The city')), days: v.optional(v.number()) },
  'valibot through toStandardJsonSchema': toStandardJsonSchema(
    v.object({ city: v.string(), days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))) }),
  ),
  'entries of three libraries': { city: z.string(), days: v.optional(v.number()) },
}

describe.each(Object.entries(inputs))('a tool whose input is %s', (_name, input) => {
  const mcp = new McpServer({ name: 'weather', version: '1' })
  mcp.tool('forecast', { description: 'Forecast', input }, (args) => `${args.city}: ${args.days ?? 1} day(s)`)
  const handler = createFetchHandler(mcp)

  it('lists a draft 2020-12 inputSchema that validates the example arguments', async () => {
    const listed = await call(handler, 'tools/list')
    expect(schemaErrors('ListToolsResult', listed.body.result)).toEqual([])
    const schema = (listed.body.result.tools as unknown as Array<{ inputSchema: Record<string, unknown> }>)[0]
      .inputSchema
    expect(schema).toMatchObject({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] })
    expect(schema).not.toHaveProperty('$schema')
    const validate = ajv.compile(schema)
    expect(validate({ city: 'Lyon', days: 3 })).toBe(true)
    expect(validate({ days: 3 })).toBe(false)
  })

  it('calls the handler with the validated arguments', async () => {
    const result = await clientOf(mcp).callTool('forecast', { city: 'Lyon', days: 3 })
    expect(text(result)).toBe('Lyon: 3 day(s)')
  })

  it('answers invalid arguments with an isError result naming the field and the reason', async () => {
    const result = await clientOf(mcp).callTool('forecast', { days: 'three' })
    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(/^Invalid arguments for tool forecast: field 'city': .+/)
    expect(text(result)).toMatch(/field 'days': .+/)
  })
})

it('an issue at the root of an entry names the entry alone (arktype: an empty path)', async () => {
  const mcp = new McpServer({ name: 's', version: '1' })
  mcp.tool('reserve', { input: { title: type('string') } }, ({ title }) => title)
  const result = await clientOf(mcp).callTool('reserve', { title: 3 })
  expect([result.isError, text(result)]).toEqual([
    true,
    "Invalid arguments for tool reserve: field 'title': must be a string (was a number)",
  ])
})

describe('types: handler arguments are inferred from the schema', () => {
  it('for a zod object, zod entries, an arktype type and valibot entries', () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('a', { input: z.object({ n: z.number(), s: z.string().optional() }) }, (args) => {
      expectTypeOf(args.n).toEqualTypeOf<number>()
      expectTypeOf(args.s).toEqualTypeOf<string | undefined>()
      expectTypeOf(args).not.toHaveProperty('x')
      return ''
    })
    mcp.tool('b', { input: { n: z.number(), s: z.string().optional() } }, (args) => {
      expectTypeOf(args.n).toEqualTypeOf<number>()
      expectTypeOf(args.s).toEqualTypeOf<string | undefined>()
      expectTypeOf(args).not.toHaveProperty('x')
      return ''
    })
    mcp.tool('c', { input: type({ n: 'number' }) }, (args) => {
      expectTypeOf(args.n).toEqualTypeOf<number>()
      expectTypeOf(args).not.toHaveProperty('x')
      return ''
    })
    mcp.tool('d', { input: { n: v.number() } }, (args) => {
      expectTypeOf(args.n).toEqualTypeOf<number>()
      expectTypeOf(args).not.toHaveProperty('x')
      return ''
    })
  })
})

describe('output schemas and async validation', () => {
  it('a zod output schema is listed as outputSchema, and a structuredContent that breaks it is -32603', async () => {
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: recordingLogger().logger })
    const Out = z.object({ temperature: z.number() })
    mcp.tool('ok', { output: Out }, () => ({ structuredContent: { temperature: 21 } }))
    mcp.tool('bad', { output: Out }, () => ({ structuredContent: { temperature: 'warm' } }))
    const handler = createFetchHandler(mcp)
    const listed = await call(handler, 'tools/list')
    const tools = listed.body.result.tools as Array<{ name: string; outputSchema?: unknown }>
    expect(tools[0].outputSchema).toMatchObject({ type: 'object', properties: { temperature: { type: 'number' } } })
    expect((await call(handler, 'tools/call', { name: 'ok', arguments: {} })).body.result.structuredContent).toEqual({
      temperature: 21,
    })
    const bad = await call(handler, 'tools/call', { name: 'bad', arguments: {} })
    expect(bad.body.error?.code).toBe(-32603)
  })

  it('a schema that validates asynchronously (a zod async refinement) is awaited', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    const Free = z.string().refine(async (name) => Promise.resolve(name !== 'taken'), 'that name is taken')
    mcp.tool('claim', { input: z.object({ name: Free }) }, ({ name }) => `claimed ${name}`)
    const client = clientOf(mcp)
    expect(text(await client.callTool('claim', { name: 'mine' }))).toBe('claimed mine')
    const taken = await client.callTool('claim', { name: 'taken' })
    expect([taken.isError, text(taken)]).toEqual([
      true,
      "Invalid arguments for tool claim: field 'name': that name is taken",
    ])
  })
})

describe('a schema without JSON Schema', () => {
  const effectLike = {
    '~standard': { version: 1, vendor: 'effect', validate: (value: unknown) => ({ value }) },
  } as const

  it('is refused at registration, naming the tool and the call that adds one', () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    expect(() => mcp.tool('t', { input: effectLike as never }, () => '')).toThrow(InvalidSignatureError)
    expect(() => mcp.tool('t', { input: effectLike as never }, () => '')).toThrow(
      /Tool 't' input: this effect schema has no JSON Schema .*withJsonSchema/,
    )
    expect(() => mcp.tool('t', { input: { a: 5 } as never }, () => '')).toThrow(/'a' is not a Standard Schema/)
    expect(() => mcp.tool('t', { input: z.string() as never }, () => '')).toThrow(
      /Tool 't' input: an object schema is needed, not one of type "string"/,
    )
  })

  it('works with withJsonSchema: its JSON Schema is listed, its validate checks', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    const validate = (value: unknown) =>
      typeof (value as { n?: unknown })?.n === 'number'
        ? { value: value as { n: number } }
        : { issues: [{ message: 'n must be a number', path: ['n'] }] }
    const validator: StandardSchemaV1<unknown, { n: number }> = {
      '~standard': { version: 1, vendor: 'effect', validate },
    }
    const Custom = withJsonSchema(validator, {
      type: 'object',
      properties: { n: { type: 'number' } },
      required: ['n'],
    })
    mcp.tool('t', { input: Custom }, ({ n }) => `n=${n}`)
    const handler = createFetchHandler(mcp)
    const listed = await call(handler, 'tools/list')
    expect((listed.body.result.tools as unknown as Array<{ inputSchema: unknown }>)[0].inputSchema).toEqual({
      type: 'object',
      properties: { n: { type: 'number' } },
      required: ['n'],
    })
    const client = clientOf(mcp)
    expect(text(await client.callTool('t', { n: 2 }))).toBe('n=2')
    expect(text(await client.callTool('t', { n: 'x' }))).toBe(
      "Invalid arguments for tool t: field 'n': n must be a number",
    )
  })
})

describe('$schema and the 2020-12 vocabulary', () => {
  it("withJsonSchema's JSON Schema is listed as written ($schema, $defs, $anchor, if/then/else); a library's without $schema", async () => {
    const written = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { city: { type: 'string' } } } },
      properties: { address: { $ref: '#/$defs/address' }, phone: { type: 'string' } },
      if: { required: ['address'] },
      then: { required: ['phone'] },
      additionalProperties: false,
    }
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('written', { input: withJsonSchema(v.looseObject({}), written) }, () => 'ok')
    mcp.tool('zod', { input: z.object({ a: z.string() }) }, () => 'ok')
    const listed = await call(createFetchHandler(mcp), 'tools/list')
    const [first, second] = listed.body.result.tools as unknown as Array<{ inputSchema: Record<string, unknown> }>
    expect(first.inputSchema).toEqual(written)
    expect(second.inputSchema).not.toHaveProperty('$schema')
    expect(schemaErrors('ListToolsResult', listed.body.result)).toEqual([])
  })
})

describe('prompt arguments of any library', () => {
  it('zod arguments: listed with their descriptions and required flags; a missing one is -32602', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.prompt(
      'review',
      { arguments: { code: z.string().describe('The code'), style: z.string().optional() } },
      ({ code, style }) => `Review ${code} (${style ?? 'any'})`,
    )
    const handler = createFetchHandler(mcp)
    const listed = await call(handler, 'prompts/list')
    expect(listed.body.result.prompts).toEqual([
      {
        name: 'review',
        arguments: [{ name: 'code', description: 'The code', required: true }, { name: 'style' }],
      },
    ])
    const got = await call(handler, 'prompts/get', { name: 'review', arguments: { code: 'x()' } })
    expect(got.body.result.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Review x() (any)' } }])
    const missing = await call(handler, 'prompts/get', { name: 'review', arguments: {} })
    expect(missing.body.error?.code).toBe(-32602)
    expect(missing.body.error?.message).toMatch(/^Invalid arguments for prompt review: field 'code': /)
  })

  it.each([
    ['a zod object', z.object({ code: z.string().describe('The code'), style: z.enum(['terse', 'kind']).optional() })],
    ['an arktype type', type({ code: type.string.describe('The code'), 'style?': "'terse' | 'kind'" })],
    [
      'a valibot object',
      v.object({
        code: v.pipe(v.string(), v.description('The code')),
        style: v.optional(v.picklist(['terse', 'kind'])),
      }),
    ],
  ])('%s as the arguments: listed by its properties, typed, validated (-32602)', async (_, Args) => {
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.prompt(
      'review',
      { arguments: Args, complete: { style: (value) => ['terse', 'kind'].filter((s) => s.startsWith(value)) } },
      ({ code, style }) => {
        expectTypeOf(code).toEqualTypeOf<string>()
        expectTypeOf(style).toEqualTypeOf<'terse' | 'kind' | undefined>()
        return `Review ${code} (${style ?? 'any'})`
      },
    )
    const handler = createFetchHandler(mcp)
    const listed = await call(handler, 'prompts/list')
    expect(listed.body.result.prompts).toEqual([
      {
        name: 'review',
        arguments: [{ name: 'code', description: 'The code', required: true }, { name: 'style' }],
      },
    ])
    const got = await call(handler, 'prompts/get', { name: 'review', arguments: { code: 'x()', style: 'kind' } })
    expect(got.body.result.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Review x() (kind)' } }])
    const wrong = await call(handler, 'prompts/get', { name: 'review', arguments: { style: 'rude' } })
    expect(wrong.body.error?.code).toBe(-32602)
    expect(wrong.body.error?.message).toMatch(/^Invalid arguments for prompt review: field 'code': .+; field 'style': /)
    const completed = await call(handler, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'review' },
      argument: { name: 'style', value: 'k' },
    })
    expect(completed.body.result.completion).toMatchObject({ values: ['kind'] })
  })
})

describe('elicitation forms of any library', () => {
  it('a zod form: its requestedSchema, and a resolver that elicits gets the validated, typed content', async () => {
    const Confirm = formSchema(
      z.object({ confirm: z.boolean().describe('Order anyway?'), note: z.string().max(40).optional() }),
    )
    expect(Confirm.requestedSchema).toEqual({
      type: 'object',
      properties: {
        confirm: { type: 'boolean', description: 'Order anyway?' },
        note: { type: 'string', maxLength: 40 },
      },
      required: ['confirm'],
    })
    const ask = resolver({}, function askConfirm() {
      return elicit('Order anyway?', Confirm)
    })
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('order', { use: { answer: ask } }, ({ answer }) => {
      expectTypeOf(answer).toEqualTypeOf<{ confirm: boolean; note?: string | undefined }>()
      return answer.confirm ? 'ordered' : 'not ordered'
    })
    expect(text(await clientOf(mcp, { confirm: true }).callTool('order', {}))).toBe('ordered')
  })

  it("a union of titled literals is the spec's titled single-select, in valibot and zod; the answer is checked", () => {
    const expected = {
      type: 'object',
      properties: {
        fruit: {
          type: 'string',
          oneOf: [
            { const: 'a', title: 'Apple' },
            { const: 'b', title: 'Banana' },
          ],
        },
      },
      required: ['fruit'],
    }
    const valibot = formSchema({
      fruit: v.union([v.pipe(v.literal('a'), v.title('Apple')), v.pipe(v.literal('b'), v.title('Banana'))]),
    })
    const zod = formSchema({
      fruit: z.union([z.literal('a').meta({ title: 'Apple' }), z.literal('b').meta({ title: 'Banana' })]),
    })
    for (const form of [valibot, zod]) {
      expect(form.requestedSchema).toEqual(expected)
      expect(form.check({ fruit: 'b' })).toEqual({ value: { fruit: 'b' } })
      expect(form.check({ fruit: 'c' }).issues?.[0]).toMatch(/^field 'fruit': /)
    }
  })

  it('an arktype form, and forms of any library refused at start-up naming the field', () => {
    expect(formSchema(type({ age: 'number.integer >= 18' })).requestedSchema).toEqual({
      type: 'object',
      properties: { age: { type: 'integer', minimum: 18 } },
      required: ['age'],
    })
    expect(() => formSchema({ code: z.string().regex(/^[a-z]+$/) })).toThrow(/field 'code' uses 'pattern'/)
    expect(() => formSchema(z.object({ id: z.uuid() }))).toThrow(/field 'id' .*format 'uuid'/)
    expect(() => formSchema(type({ nested: { a: 'string' } }))).toThrow(/field 'nested' has type "object"/)
  })

  it('a hand-built requestedSchema gets the same check: a tool that sends a pattern gets an isError naming the field', async () => {
    expect(() =>
      elicitForm('?', { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } } as never),
    ).toThrow(/field 'id' has format 'uuid'/)
    const mcp = new McpServer({ name: 's', version: '1' })
    mcp.tool('ask', {}, (_args, ctx) =>
      ctx.inputResponses
        ? 'done'
        : inputRequired({
            q: elicitForm('Code?', {
              type: 'object',
              properties: { code: { type: 'string', pattern: '^[a-z]+$' } },
            } as never),
          }),
    )
    const result = await clientOf(mcp).callTool('ask', {})
    expect([result.isError, text(result)]).toEqual([
      true,
      "Error executing tool ask: Elicitation form field 'code' uses 'pattern', which elicitation forms do not support",
    ])
    const made = formSchema({ ok: z.boolean() })
    expect(elicitForm('OK?', made).params).toEqual({
      mode: 'form',
      message: 'OK?',
      requestedSchema: made.requestedSchema,
    })
  })
})
