/**
 * `ClientOptions.extensions`: merged into the declared capabilities in both eras — the 2025 `initialize`
 * and the 2026 `_meta` envelope — beside what the callbacks (or `capabilities`) declare.
 */
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { APP_MIME_TYPE, APPS_EXTENSION } from '../../src/protocol/apps.ts'
import { recordedDemo as demo } from '../fixtures/demo.ts'

const ui = { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } }

describe('ClientOptions.extensions', () => {
  it('2025 era: initialize declares the extension beside the callbacks’ capabilities', async () => {
    const { fetch, seen } = demo()
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'legacy',
      elicitation: () => ({ action: 'decline' }),
      extensions: ui,
    })
    await client.listTools()
    expect(seen[0].body.method).toBe('initialize')
    expect((seen[0].body.params as { capabilities: unknown }).capabilities).toEqual({
      elicitation: { form: {}, url: {} },
      extensions: ui,
    })
  })

  it('2026 era: every request’s envelope declares it, merged with explicit capabilities (tasks added on tools/call)', async () => {
    const { fetch, seen } = demo()
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://localhost/mcp', { fetch }),
      versionNegotiation: 'modern',
      capabilities: { roots: {}, extensions: { 'example.com/x': { a: 1 } } },
      extensions: ui,
    })
    await client.listTools()
    await client.callTool('reserve_book', { title: 'Dune' })
    const caps = seen.map(
      (s) => (s.body.params as { _meta: Record<string, unknown> })._meta['io.modelcontextprotocol/clientCapabilities'],
    )
    expect(caps[0]).toEqual({ roots: {}, extensions: { 'example.com/x': { a: 1 }, ...ui } })
    expect(caps.at(-1)).toEqual({
      roots: {},
      extensions: { 'example.com/x': { a: 1 }, ...ui, 'io.modelcontextprotocol/tasks': {} },
    })
  })

  it('an extension value that is not an object is refused, naming it', () => {
    const transport = new StreamableHttpClientTransport('http://localhost/mcp')
    expect(() => new Client({ transport, extensions: { [APPS_EXTENSION]: true as never } })).toThrow(
      new TypeError('extensions["io.modelcontextprotocol/ui"] must be an object, got true'),
    )
  })
})
