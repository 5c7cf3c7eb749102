/**
 * The browser app of bench/browser/edge-mcp.ts with the MCP Apps host added: the same `Client`, transport and
 * form elicitation, declaring the Apps extension, and the tool's App rendered with `renderApp` (the sandbox
 * page on another origin) when the button is clicked. `bench/browser-bundle.ts` prints its size beside the
 * app without it (issue 34: the host adds ≤ 4,000 B gzip).
 */
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { createElicitationHandler, renderApp } from '../../src/browser/index.ts'

const client = new Client({
  transport: new StreamableHttpClientTransport(new URL('/mcp', location.href)),
  clientInfo: { name: 'bench', version: '1.0.0' },
  elicitation: createElicitationHandler({ serverName: 'bench' }),
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
})

// eslint-disable-next-line @typescript-eslint/no-misused-promises -- a bench entry kept as an app writes it; its bundle is what is measured
document.querySelector('button')?.addEventListener('click', async () => {
  const tool = (await client.listTools()).find((t) => t.name === 'deploy')!
  const result = client.callTool('deploy', { env: 'prod' })
  await renderApp(client, {
    container: document.querySelector('output')!,
    sandboxUrl: 'https://sandbox.example.com/mcp-app-sandbox',
    tool,
    arguments: { env: 'prod' },
    result,
  })
})
