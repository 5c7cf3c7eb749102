/**
 * "a server that says so": on Cloudflare Workers (`navigator.userAgent`
 * `Cloudflare-Workers`), a server sealing with the default ephemeral key logs one clear warning per isolate
 * the first time it seals a token (a requestState or a 2025 session id) — what breaks and the command that
 * fixes it; with shared keys, or off Workers, nothing. (Tests in this file share one module instance, so the
 * once-per-isolate flag carries from test to test, in order.)
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import {
  createFetchHandler,
  elicitForm,
  inputRequired,
  McpServer,
  parseRequestStateKeys,
  RequestStateSecurity,
  type McpServerOptions,
} from '../../src/server/index.ts'
import { ASK, recordingLogger } from '../helpers.ts'

const KEY = 'k'.repeat(43)

/** A server whose tool always asks; the warnings its logger got. */
function asking(options: Partial<McpServerOptions> = {}) {
  const log = recordingLogger()
  const mcp = new McpServer({ name: 's', version: '1' }, { ...options, logger: log.logger })
  mcp.tool('ask', {}, () => inputRequired({ q: elicitForm('?', ASK) }, 'state'))
  const client = new Client({
    transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: createFetchHandler(mcp) }),
    capabilities: { elicitation: {} },
  })
  return { client, warn: log.warn }
}

afterEach(() => vi.unstubAllGlobals())

describe('the ephemeral-key warning', () => {
  it('off Workers: nothing', async () => {
    const { client, warn } = asking()
    await client.callTool('ask', {}, { manual: true })
    expect(warn).toEqual([])
  })

  it('on Workers with shared keys: nothing', async () => {
    vi.stubGlobal('navigator', { userAgent: 'Cloudflare-Workers' })
    const { client, warn } = asking({
      requestStateSecurity: new RequestStateSecurity({ keys: parseRequestStateKeys(KEY) }),
    })
    await client.callTool('ask', {}, { manual: true })
    expect(warn).toEqual([])
  })

  it('on Workers with the ephemeral key: one warning per isolate, naming what breaks and the fix', async () => {
    vi.stubGlobal('navigator', { userAgent: 'Cloudflare-Workers' })
    const first = asking()
    await first.client.callTool('ask', {}, { manual: true })
    await first.client.callTool('ask', {}, { manual: true })
    expect(first.warn).toHaveLength(1)
    expect(first.warn[0]).toMatch(/ephemeral key, one per isolate/)
    expect(first.warn[0]).toContain('npx wrangler secret put REQUEST_STATE_KEYS')
    const second = asking() // another server in the same isolate: already said
    await second.client.callTool('ask', {}, { manual: true })
    expect(second.warn).toEqual([])
  })
})
