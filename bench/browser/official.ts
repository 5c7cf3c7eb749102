/**
 * The browser app `bench/browser-bundle.ts` bundles for the official SDK 2.4.0 (`@modelcontextprotocol/client`,
 * resolved with the `browser` condition): its `Client` over `StreamableHTTPClientTransport`, an
 * `elicitation/create` handler (the SDK renders no forms: a `window.confirm`, far less than edge-mcp's
 * form renderer), calling one tool when a button is clicked.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'

const client = new Client({ name: 'bench', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } })
// eslint-disable-next-line @typescript-eslint/require-await -- written as the SDK's docs write a handler; its bundle is what is measured
client.setRequestHandler('elicitation/create', async (request) =>
  window.confirm(request.params.message) ? { action: 'accept', content: {} } : { action: 'decline' },
)

// eslint-disable-next-line @typescript-eslint/no-misused-promises -- a bench entry kept as an app writes it; its bundle is what is measured
document.querySelector('button')?.addEventListener('click', async () => {
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)))
  const result = await client.callTool({ name: 'deploy', arguments: { env: 'prod' } })
  document.querySelector('output')!.textContent = JSON.stringify(result.content)
})
