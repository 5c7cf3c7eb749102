/**
 * The seed's bookshop three times: the dependency tutorials in valibot (examples/dependencies/), zod
 * (examples/dependencies/zod/) and arktype (examples/dependencies/arktype/) run the same scenarios through a
 * real Client and answer the same texts, ask the same questions and list the same `inputSchema`s, each a valid
 * JSON Schema 2020-12 that accepts the seed's example arguments. What the libraries write or say differently
 * is named below (LIBRARY_DIFFERENCES) and in docs/dependencies.md ("In zod or arktype").
 * test/dependencies.test.ts covers the valibot tutorials and the resolver semantics in depth.
 */
import Ajv2020 from 'ajv/dist/2020.js'
import { type } from 'arktype'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Client, StreamableHttpClientTransport, type ClientOptions } from '../../src/client/index.ts'
import type { McpError } from '../../src/index.ts'
import type { ElicitRequestFormParams } from '../../src/protocol/schemas/index.ts'
import { McpServer, createFetchHandler, formSchema, withJsonSchema } from '../../src/server/index.ts'
import type { JsonSchema, SchemaShape, StandardSchemaV1 } from '../../src/server/schema.ts'
import * as valibot1 from '../../examples/dependencies/tutorial001.ts'
import * as valibot2 from '../../examples/dependencies/tutorial002.ts'
import * as valibot3 from '../../examples/dependencies/tutorial003.ts'
import * as valibot4 from '../../examples/dependencies/tutorial004.ts'
import * as zod1 from '../../examples/dependencies/zod/tutorial001.ts'
import * as zod2 from '../../examples/dependencies/zod/tutorial002.ts'
import * as zod3 from '../../examples/dependencies/zod/tutorial003.ts'
import * as zod4 from '../../examples/dependencies/zod/tutorial004.ts'
import * as arktype1 from '../../examples/dependencies/arktype/tutorial001.ts'
import * as arktype2 from '../../examples/dependencies/arktype/tutorial002.ts'
import * as arktype3 from '../../examples/dependencies/arktype/tutorial003.ts'
import * as arktype4 from '../../examples/dependencies/arktype/tutorial004.ts'

type Library = 'valibot' | 'zod' | 'arktype'

/** One library's bookshop: the four tutorials' servers and tutorial 3's form. */
interface Bookshop {
  t1: (inventory?: ReadonlyMap<string, number>) => McpServer
  t2: (inventory?: ReadonlyMap<string, number>) => McpServer
  t3: (inventory?: ReadonlyMap<string, number>) => McpServer
  t4: () => McpServer
  Backorder: typeof valibot3.Backorder
}

const BOOKSHOPS: Record<Library, Bookshop> = {
  valibot: {
    t1: valibot1.createServer,
    t2: valibot2.createServer,
    t3: valibot3.createServer,
    t4: valibot4.createServer,
    Backorder: valibot3.Backorder,
  },
  zod: {
    t1: zod1.createServer,
    t2: zod2.createServer,
    t3: zod3.createServer,
    t4: zod4.createServer,
    Backorder: zod3.Backorder,
  },
  arktype: {
    t1: arktype1.createServer,
    t2: arktype2.createServer,
    t3: arktype3.createServer,
    t4: arktype4.createServer,
    Backorder: arktype3.Backorder,
  },
}
const LIBRARIES = Object.keys(BOOKSHOPS) as Library[]

/**
 * What each library writes or says differently, by name (docs/dependencies.md, "In zod or arktype"). The
 * tutorials' own schemas (a string argument, a described boolean form field) are written byte for byte
 * alike, so their `tools/list` needs no normalization; the differences are in the reasons the libraries
 * give, and in schemas beyond the tutorials (asserted in "what the libraries write differently" below).
 */
const LIBRARY_DIFFERENCES = {
  /** The reason after "field 'title': " in an invalid-arguments result is the library's own (arktype repeats the key). */
  invalidTitleReason: {
    valibot: 'Invalid type: Expected string but received 3',
    zod: 'Invalid input: expected string, received number',
    arktype: 'title must be a string (was a number)',
  },
  /** The reason an answer `{ confirm: 'yes' }` does not fit the form; arktype words it with the description. */
  unfitConfirmReason: {
    valibot: 'Invalid type: Expected boolean but received "yes"',
    zod: 'Invalid input: expected boolean, received string',
    arktype: 'confirm must be Order anyway and wait? (was "yes")',
  },
} satisfies Record<string, Record<Library, string>>

/**
 * The one normalization a `tools/list` comparison needs across the three: zod writes the safe-integer range
 * as bounds of an unbounded integer (`.int()`, `z.int()`); valibot and arktype write none.
 */
function withoutZodSafeIntegerBounds(schema: JsonSchema): JsonSchema {
  const copy = structuredClone(schema)
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return
    const n = node as Record<string, unknown>
    if (n.type === 'integer' && n.minimum === Number.MIN_SAFE_INTEGER) delete n.minimum
    if (n.type === 'integer' && n.maximum === Number.MAX_SAFE_INTEGER) delete n.maximum
    Object.values(n).forEach(visit)
  }
  visit(copy)
  return copy
}

/** The `tools/list` entry of each tutorial's one tool, as the valibot bookshop lists it. */
const TOOLS = {
  t1: {
    name: 'reserve_book',
    description: 'Reserve a copy of a book.',
    inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
  },
  t2: {
    name: 'order_book',
    description: 'Order a book from the shop.',
    inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
  },
  t3: {
    name: 'order_book',
    description: 'Order a book from the shop.',
    inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
  },
  t4: {
    name: 'recommend_book',
    description: 'Recommend a book in the given genre.',
    inputSchema: { type: 'object', properties: { genre: { type: 'string' } }, required: ['genre'] },
  },
} as const
type Tutorial = keyof typeof TOOLS

/** The arguments the seed's scenarios call each tutorial's tool with (the same as the scenarios below). */
const SEED_ARGUMENTS: Record<Tutorial, Array<Record<string, unknown>>> = {
  t1: [{ title: 'Dune' }, { title: 'Dune', stock: { title: 'Dune', copies: 999 } }, { title: 'Neuromancer' }],
  t2: [{ title: 'Dune' }, { title: 'Neuromancer' }],
  t3: [{ title: 'Dune' }, { title: 'Neuromancer' }],
  t4: [{ genre: 'sci-fi' }],
}
/** Arguments every inputSchema must refuse. */
const BAD_ARGUMENTS: Record<Tutorial, Array<Record<string, unknown>>> = {
  t1: [{}, { title: 3 }],
  t2: [{}, { title: 3 }],
  t3: [{ title: null }],
  t4: [{}, { genre: ['sci-fi'] }],
}

/** A Client over an in-process server (2026-07-28, no era probe). */
function connect(mcp: McpServer, options: Omit<ClientOptions, 'transport'> = {}): Client {
  const handler = createFetchHandler(mcp)
  return new Client({
    versionNegotiation: 'modern',
    ...options,
    transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: (r) => handler(r) }),
  })
}

const text = (r: { content: Array<{ type: string; text?: string }> }) => r.content.map((c) => c.text).join('\n')

class CountingInventory extends Map<string, number> {
  lookups = 0
  override get(key: string) {
    this.lookups++
    return super.get(key)
  }
}

/** A draft 2020-12 validator that refuses unknown keywords and formats (strict mode). */
const ajv = () => new Ajv2020({ strict: true, allErrors: true })

describe.each(LIBRARIES)('the %s bookshop', (library) => {
  const shop = BOOKSHOPS[library]

  it.each(Object.keys(TOOLS) as Tutorial[])(
    '%s: tools/list has the same tool and inputSchema, valid 2020-12, accepting the seed arguments',
    async (tutorial) => {
      const [tool, ...rest] = await connect(shop[tutorial]()).listTools()
      expect(rest).toEqual([])
      expect({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }).toEqual(TOOLS[tutorial])
      const validator = ajv()
      expect(validator.validateSchema(tool.inputSchema), validator.errorsText()).toBe(true)
      const validate = validator.compile(tool.inputSchema)
      for (const args of SEED_ARGUMENTS[tutorial])
        expect(validate(args), validator.errorsText(validate.errors)).toBe(true)
      for (const args of BAD_ARGUMENTS[tutorial]) expect(validate(args)).toBe(false)
    },
  )

  it('1: the resolved stock is hidden from the model, and a client-supplied stock is ignored', async () => {
    const client = connect(shop.t1())
    const [dune, forged, neuromancer] = SEED_ARGUMENTS.t1
    expect(text(await client.callTool('reserve_book', dune))).toBe("Reserved 'Dune' (6 copies left).")
    expect(text(await client.callTool('reserve_book', forged))).toBe("Reserved 'Dune' (6 copies left).")
    expect(text(await client.callTool('reserve_book', neuromancer))).toBe("'Neuromancer' is out of stock.")
  })

  it('1: invalid arguments are an isError result naming the field, with the library’s reason', async () => {
    const result = await connect(shop.t1()).callTool('reserve_book', { title: 3 })
    expect(result.isError).toBe(true)
    expect(text(result)).toBe(
      `Invalid arguments for tool reserve_book: field 'title': ${LIBRARY_DIFFERENCES.invalidTitleReason[library]}`,
    )
  })

  it('2: resolvers depend on resolvers; the stock is looked up once per call', async () => {
    const inventory = new CountingInventory([
      ['Dune', 7],
      ['Neuromancer', 0],
    ])
    const client = connect(shop.t2(inventory))
    expect(text(await client.callTool('order_book', { title: 'Dune' }))).toBe("Ordered 'Dune'; it arrives tomorrow.")
    expect(inventory.lookups).toBe(1)
    expect(text(await client.callTool('order_book', { title: 'Neuromancer' }))).toBe(
      "'Neuromancer' is on backorder; it would arrive in 2-3 weeks.",
    )
    expect(inventory.lookups).toBe(2)
  })

  it('3: asks only when out of stock, with the same form; yes, no, decline and cancel', async () => {
    expect(shop.Backorder.requestedSchema).toEqual({
      type: 'object',
      properties: { confirm: { type: 'boolean', description: 'Order anyway and wait?' } },
      required: ['confirm'],
    })
    const asked: Array<{ message: string; requestedSchema: unknown }> = []
    let reply: unknown = { action: 'accept', content: { confirm: true } }
    const client = connect(shop.t3(), {
      elicitation: (p) => {
        const { message, requestedSchema } = p as ElicitRequestFormParams
        asked.push({ message, requestedSchema })
        return reply as never
      },
    })
    expect(text(await client.callTool('order_book', { title: 'Dune' }))).toBe("Ordered 'Dune'.")
    expect(asked).toEqual([])
    expect(text(await client.callTool('order_book', { title: 'Neuromancer' }))).toBe(
      "Backordered 'Neuromancer'; it ships in 2-3 weeks.",
    )
    expect(asked).toEqual([
      {
        message: "'Neuromancer' is out of stock (2-3 weeks). Order anyway?",
        requestedSchema: shop.Backorder.requestedSchema,
      },
    ])
    const validator = ajv()
    const validate = validator.compile(asked[0].requestedSchema as object)
    expect([validate({ confirm: true }), validate({ confirm: false }), validate({ confirm: 'yes' })]).toEqual([
      true,
      true,
      false,
    ])
    reply = { action: 'accept', content: { confirm: false } }
    expect(text(await client.callTool('order_book', { title: 'Neuromancer' }))).toBe('No order placed.')
    // an answer that does not fit is asked again, with the library's reason
    asked.length = 0
    const replies: unknown[] = [
      { action: 'accept', content: { confirm: 'yes' } },
      { action: 'accept', content: { confirm: true } },
    ]
    reply = undefined
    const fitting = connect(shop.t3(), {
      elicitation: (p) => (asked.push({ message: p.message, requestedSchema: undefined }), replies.shift() as never),
    })
    expect(text(await fitting.callTool('order_book', { title: 'Neuromancer' }))).toBe(
      "Backordered 'Neuromancer'; it ships in 2-3 weeks.",
    )
    expect(asked.map((a) => a.message)).toEqual([
      "'Neuromancer' is out of stock (2-3 weeks). Order anyway?",
      `The last answer did not fit (field 'confirm': ${LIBRARY_DIFFERENCES.unfitConfirmReason[library]}). 'Neuromancer' is out of stock (2-3 weeks). Order anyway?`,
    ])
    for (const [action, told] of [
      ['decline', 'declined'],
      ['cancel', 'cancelled'],
    ]) {
      reply = { action }
      const result = await client.callTool('order_book', { title: 'Neuromancer' })
      expect([result.isError, text(result)]).toEqual([
        true,
        `The user ${told}: 'Neuromancer' is out of stock (2-3 weeks). Order anyway?`,
      ])
    }
  })

  it("4: sampling: the client's model picks the book; without sampling the call is -32021", async () => {
    const prompts: string[] = []
    const client = connect(shop.t4(), {
      sampling: (p) => {
        prompts.push((p.messages[0].content as { text: string }).text)
        return { role: 'assistant', content: { type: 'text', text: 'Dune' }, model: 'test-model' }
      },
    })
    expect(text(await client.callTool('recommend_book', { genre: 'sci-fi' }))).toBe("Today's sci-fi pick: Dune")
    expect(prompts).toEqual(['Suggest one sci-fi book title. Answer with the title only.'])
    const error = (await connect(shop.t4())
      .callTool('recommend_book', { genre: 'sci-fi' })
      .catch((e: unknown) => e)) as McpError
    expect([error.code, error.data]).toEqual([-32021, { requiredCapabilities: { sampling: {} } }])
  })
})

describe('the three bookshops side by side', () => {
  it('list byte-identical tools (same keys in the same order) and forms', async () => {
    for (const tutorial of Object.keys(TOOLS) as Tutorial[]) {
      const listed = await Promise.all(
        LIBRARIES.map(async (library) => JSON.stringify(await connect(BOOKSHOPS[library][tutorial]()).listTools())),
      )
      expect(new Set(listed).size, `${tutorial}: ${listed.join('\n')}`).toBe(1)
    }
    const forms = LIBRARIES.map((library) => JSON.stringify(BOOKSHOPS[library].Backorder.requestedSchema))
    expect(new Set(forms).size).toBe(1)
  })
})

/** A tool echoing its arguments, with `input` in one library. */
async function listedAndEchoed(
  input: SchemaShape | Parameters<McpServer['tool']>[1]['input'],
  args: Record<string, unknown>,
) {
  const mcp = new McpServer({ name: 'probe', version: '1' })
  mcp.tool('echo', { input }, (validated) => JSON.stringify(validated))
  const client = connect(mcp)
  const [tool] = await client.listTools()
  return {
    inputSchema: tool.inputSchema as JsonSchema,
    echoed: JSON.parse(text(await client.callTool('echo', args))) as unknown,
  }
}

const refusal = (schema: Parameters<typeof formSchema>[0]) => {
  try {
    formSchema(schema)
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

describe('what the libraries write differently (named in docs/dependencies.md)', () => {
  it("undeclared arguments: valibot and zod objects drop them; an arktype type keeps them unless it says '+': 'delete'", async () => {
    const args = { title: 'Dune', extra: 1 }
    expect((await listedAndEchoed(v.object({ title: v.string() }), args)).echoed).toEqual({ title: 'Dune' })
    expect((await listedAndEchoed(z.object({ title: z.string() }), args)).echoed).toEqual({ title: 'Dune' })
    expect((await listedAndEchoed(type({ title: 'string' }), args)).echoed).toEqual({ title: 'Dune', extra: 1 })
    const deleting = await listedAndEchoed(type({ '+': 'delete', title: 'string' }), args)
    expect(deleting.echoed).toEqual({ title: 'Dune' })
    expect(deleting.inputSchema).toEqual(TOOLS.t1.inputSchema)
  })

  it('unbounded integers: zod writes the safe-integer range (normalized by withoutZodSafeIntegerBounds)', async () => {
    const listed = {
      valibot: (await listedAndEchoed({ copies: v.pipe(v.number(), v.integer()) }, { copies: 1 })).inputSchema,
      zod: (await listedAndEchoed({ copies: z.number().int() }, { copies: 1 })).inputSchema,
      arktype: (await listedAndEchoed(type({ copies: 'number.integer' }), { copies: 1 })).inputSchema,
    }
    const expected = { type: 'object', properties: { copies: { type: 'integer' } }, required: ['copies'] }
    expect(listed.zod).not.toEqual(expected)
    expect(listed.zod).toMatchObject({ properties: { copies: { minimum: -(2 ** 53 - 1), maximum: 2 ** 53 - 1 } } })
    for (const library of LIBRARIES) expect(withoutZodSafeIntegerBounds(listed[library])).toEqual(expected)
  })

  it('form string formats: zod and arktype write a pattern beside email and date, which forms refuse; withJsonSchema gives the field alone', () => {
    expect(formSchema({ at: v.pipe(v.string(), v.email()) }).requestedSchema.properties.at).toEqual({
      type: 'string',
      format: 'email',
    })
    expect(refusal({ at: z.email() })).toMatch(/field 'at' uses 'pattern'/)
    expect(refusal({ at: type('string.email') })).toMatch(/field 'at' uses 'pattern'/)
    expect(formSchema({ on: v.pipe(v.string(), v.isoDate()) }).requestedSchema.properties.on).toEqual({
      type: 'string',
      format: 'date',
    })
    expect(refusal({ on: z.iso.date() })).toMatch(/field 'on' uses 'pattern'/)
    expect(refusal({ on: type('string.date.iso') })).toMatch(/field 'on' uses 'pattern'/)
    for (const url of [v.pipe(v.string(), v.url()), z.url(), type('string.url')])
      expect(formSchema({ url }).requestedSchema.properties.url).toEqual({ type: 'string', format: 'uri' })
    const email = { type: 'string', format: 'email' }
    expect(formSchema({ at: withJsonSchema(z.email(), email) }).requestedSchema.properties.at).toEqual(email)
    // seen as a plain StandardSchemaV1: withJsonSchema(<an arktype type>) can exceed tsc's depth here (TS2589)
    const arktypeEmail = withJsonSchema(type('string.email') as StandardSchemaV1<string, string>, email)
    expect(formSchema({ at: arktypeEmail }).requestedSchema.properties.at).toEqual(email)
  })

  it('form enums: arktype writes a string enum without its type, which forms refuse; withJsonSchema gives the field', () => {
    const single = { type: 'string', enum: ['paperback', 'hardcover'] }
    expect(formSchema({ edition: v.picklist(['paperback', 'hardcover']) }).requestedSchema.properties.edition).toEqual(
      single,
    )
    expect(formSchema({ edition: z.enum(['paperback', 'hardcover']) }).requestedSchema.properties.edition).toEqual(
      single,
    )
    expect(refusal({ edition: type("'paperback' | 'hardcover'") })).toMatch(/properties\.edition\.type/)
    expect(refusal({ editions: type("('paperback' | 'hardcover')[]") })).toMatch(/properties\.editions/)
    const arktypeEdition = withJsonSchema(type("'paperback' | 'hardcover'") as StandardSchemaV1<string, string>, single)
    const edition = formSchema({ edition: arktypeEdition })
    expect(edition.requestedSchema.properties.edition).toEqual(single)
  })

  it('form defaults: valibot and zod write default, arktype leaves it out', () => {
    const gift = (schema: Parameters<typeof formSchema>[0]) => formSchema(schema).requestedSchema.properties.gift
    expect(gift({ gift: v.optional(v.boolean(), false) })).toEqual({ type: 'boolean', default: false })
    expect(gift({ gift: z.boolean().default(false) })).toEqual({ type: 'boolean', default: false })
    expect(gift(type({ gift: 'boolean = false' }))).toEqual({ type: 'boolean' })
  })
})
