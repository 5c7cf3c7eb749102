/** Static resources next to resource templates (spec: server/resources.mdx). */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { schemaErrors } from '../spec-schema.ts'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { UriTemplate, McpError } from '../../src/index.ts'
import { McpServer, createFetchHandler } from '../../src/server/index.ts'
import { createDemoServer } from '../../worker/server.ts'

const clientOf = (mcp: McpServer) =>
  new Client({ transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: createFetchHandler(mcp) }) })

describe('static resources', () => {
  it('are listed, read by exact URI with cache hints, and take precedence over a matching template', async () => {
    const mcp = new McpServer({ name: 's', version: '1' }, { cache: { ttlMs: 5000, cacheScope: 'public' } })
    mcp.resource('readme', 'docs://readme', { title: 'Read me', mimeType: 'text/markdown' }, () => '# Hello')
    mcp.resource('blob', 'docs://logo', {}, () => ({
      contents: [{ uri: 'docs://logo', mimeType: 'image/png', blob: 'iVBORw0KGgo=' }],
    }))
    mcp.resourceTemplate('doc', new UriTemplate('docs://{name}'), {}, ({ name }) => `template for ${name}`)
    const client = clientOf(mcp)
    expect(await client.listResources()).toEqual([
      { uri: 'docs://readme', name: 'readme', title: 'Read me', mimeType: 'text/markdown' },
      { uri: 'docs://logo', name: 'blob' },
    ])
    const readme = await client.readResource('docs://readme')
    expect(readme).toMatchObject({
      contents: [{ uri: 'docs://readme', mimeType: 'text/markdown', text: '# Hello' }],
      ttlMs: 5000,
      cacheScope: 'public',
    })
    expect((await client.readResource('docs://logo')).contents).toEqual([
      { uri: 'docs://logo', mimeType: 'image/png', blob: 'iVBORw0KGgo=' },
    ])
    expect((await client.readResource('docs://other')).contents[0]).toMatchObject({ text: 'template for other' })
    const missing = (await client.readResource('nope://x').catch((e: unknown) => e)) as McpError
    expect([missing.code, missing.message, missing.data]).toEqual([-32602, 'Resource not found', { uri: 'nope://x' }])
    expect(() => mcp.resource('again', 'docs://readme', {}, () => 'x')).toThrow(/already registered/)
  })

  it('the demo Worker lists its catalog, its order card App and its shortlist template', async () => {
    const client = clientOf(createDemoServer())
    expect((await client.listResources()).map((r) => r.uri)).toEqual(['books://catalog', 'ui://bookshop/order-card'])
    const catalog = await client.readResource('books://catalog')
    const shelves = (text: string) => JSON.parse(text) as Record<string, unknown>
    expect(shelves((catalog.contents[0] as { text: string }).text)['sci-fi']).toContain('Dune')
    expect(v.is(v.array(v.string()), shelves((catalog.contents[0] as { text: string }).text).fantasy)).toBe(true)
  })
})

describe('tools with an output schema', () => {
  it('advertise outputSchema and send structuredContent only when it matches', async () => {
    const { recordingLogger } = await import('../helpers.ts')
    const log = recordingLogger()
    const mcp = new McpServer({ name: 's', version: '1' }, { logger: log.logger })
    const Weather = v.object({ temperature: v.number(), conditions: v.string() })
    mcp.tool(
      'weather',
      { title: 'Weather', input: { city: v.string() }, output: Weather, annotations: { readOnlyHint: true } },
      ({ city }) => ({
        content: [{ type: 'text', text: `${city}: 22.5, cloudy` }],
        structuredContent: { temperature: 22.5, conditions: 'cloudy' },
      }),
    )
    mcp.tool('broken', { output: Weather }, () => ({ content: [], structuredContent: { temperature: 'hot' } }))
    mcp.tool('failing', { output: Weather }, () => ({ content: [{ type: 'text', text: 'no data' }], isError: true }))
    const client = clientOf(mcp)
    const [tool] = await client.listTools()
    expect(tool).toMatchObject({ name: 'weather', title: 'Weather', annotations: { readOnlyHint: true } })
    expect(tool.outputSchema).toEqual({
      type: 'object',
      properties: { temperature: { type: 'number' }, conditions: { type: 'string' } },
      required: ['temperature', 'conditions'],
    })
    expect((await client.callTool('weather', { city: 'Paris' })).structuredContent).toEqual({
      temperature: 22.5,
      conditions: 'cloudy',
    })
    const broken = (await client.callTool('broken').catch((e: unknown) => e)) as McpError
    expect([broken.code, broken.message]).toEqual([-32603, 'Internal error'])
    expect(log.error.join()).toMatch(/does not match its outputSchema/)
    expect((await client.callTool('failing')).isError).toBe(true) // an error result needs no structuredContent
  })
})

describe('completion/complete', () => {
  it('suggests prompt arguments and template variables; unknown references are -32602', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    const frameworks = ['flask', 'fastapi', 'django', 'pytorch']
    mcp.prompt(
      'code_review',
      {
        arguments: { language: v.string(), framework: v.string() },
        complete: {
          framework: (value, ctx) => (ctx.language === 'python' ? frameworks.filter((f) => f.startsWith(value)) : []),
        },
      },
      ({ language, framework }) => `Review ${language}/${framework}`,
    )
    mcp.resourceTemplate(
      'doc',
      new UriTemplate('docs://{name}'),
      { complete: { name: () => Array.from({ length: 150 }, (_, i) => `doc${i}`) } },
      ({ name }) => name,
    )
    const client = clientOf(mcp)
    expect((await client.discover()).capabilities.completions).toEqual({})
    expect(
      await client.complete(
        { type: 'ref/prompt', name: 'code_review' },
        { name: 'framework', value: 'f' },
        { language: 'python' },
      ),
    ).toEqual({
      values: ['flask', 'fastapi'],
      total: 2,
      hasMore: false,
    })
    expect(
      (await client.complete({ type: 'ref/prompt', name: 'code_review' }, { name: 'language', value: 'p' })).values,
    ).toEqual([])
    const many = await client.complete({ type: 'ref/resource', uri: 'docs://{name}' }, { name: 'name', value: '' })
    expect([many.values.length, many.total, many.hasMore]).toEqual([100, 150, true])
    const unknown = (await client
      .complete({ type: 'ref/prompt', name: 'nope' }, { name: 'x', value: '' })
      .catch((e: unknown) => e)) as McpError
    expect([unknown.code, unknown.message]).toEqual([-32602, 'Unknown prompt: nope'])
  })
})

describe('tool metadata in tools/list', () => {
  it('carries title, annotations, icons and _meta as registered, in registration order, schema-valid', async () => {
    const mcp = new McpServer({ name: 's', version: '1' })
    const icons = [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }]
    mcp.tool(
      'deploy',
      {
        title: 'Deploy a service',
        description: 'Deploys.',
        annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
        icons,
        _meta: { 'example.com/team': 'platform' },
        input: { service: v.string() },
      },
      ({ service }) => `deployed ${service}`,
    )
    mcp.tool('plain', {}, () => 'ok')
    const tools = await clientOf(mcp).listTools()
    expect(tools.map((t) => t.name)).toEqual(['deploy', 'plain'])
    expect(tools[0]).toMatchObject({
      name: 'deploy',
      title: 'Deploy a service',
      description: 'Deploys.',
      annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
      icons,
      _meta: { 'example.com/team': 'platform' },
      inputSchema: { type: 'object', properties: { service: { type: 'string' } }, required: ['service'] },
    })
    expect(tools[1]).not.toHaveProperty('title')
    for (const tool of tools) expect(schemaErrors('Tool', tool)).toEqual([])
  })
})
