/**
 * A caller's long-lived AbortSignal passed to many calls keeps no listener once each call has settled
 * (otherwise every call would leak through a signal that outlives it).
 */
import { getEventListeners } from 'node:events'
import { expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../src/client/index.ts'
import { createFetchHandler } from '../src/server/index.ts'
import { createDemoServer } from '../worker/server.ts'

it('a long-lived signal keeps no listeners after calls settle', async () => {
  const handler = createFetchHandler(createDemoServer())
  const client = new Client({
    transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: handler }),
    versionNegotiation: 'modern',
    elicitation: () => ({ action: 'accept', content: { region: 'eu' } }),
  })
  const controller = new AbortController()
  for (let i = 0; i < 20; i++) await client.callTool('provision', { name: 'n' + i }, { signal: controller.signal })
  for (let i = 0; i < 5; i++) await client.listTools({ signal: controller.signal })
  expect(getEventListeners(controller.signal, 'abort').length).toBe(0)
})
