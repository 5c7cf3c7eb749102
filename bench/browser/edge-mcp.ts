/**
 * The browser app `bench/browser-bundle.ts` bundles for edge-mcp: a `Client` over the fetch-based
 * Streamable HTTP transport that answers form elicitations with `edge-mcp/browser`'s native HTML forms,
 * calling one tool when a button is clicked.
 */
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { createElicitationHandler } from '../../src/browser/index.ts'

const client = new Client({
  transport: new StreamableHttpClientTransport(new URL('/mcp', location.href)),
  clientInfo: { name: 'bench', version: '1.0.0' },
  elicitation: createElicitationHandler({ serverName: 'bench' }),
})

// eslint-disable-next-line @typescript-eslint/no-misused-promises -- a bench entry kept as an app writes it; its bundle is what is measured
document.querySelector('button')?.addEventListener('click', async () => {
  const result = await client.callTool('deploy', { env: 'prod' })
  document.querySelector('output')!.textContent = JSON.stringify(result.content)
})
