// A client for any of the servers: npx tsx client.ts [url]   (default http://127.0.0.1:8787/mcp)
import { Client, StreamableHttpClientTransport } from 'edge-mcp/client'

const url = process.argv[2] ?? 'http://127.0.0.1:8787/mcp'
const client = new Client({
  transport: new StreamableHttpClientTransport(url),
  clientInfo: { name: 'bookshop-client', version: '1.0.0' },
  // Called when a tool asks the user something; a real app shows params.message and a form.
  elicitation: (params) => {
    console.log(`asked: ${params.message}`)
    return { action: 'accept', content: { confirm: true } }
  },
})

const tools = await client.listTools()
console.log(`tools: ${tools.map((t) => t.name).join(', ')}`)
for (const [name, args] of [
  ['greet', { name: 'Ada' }],
  ['order_book', { title: 'Neuromancer' }],
] as const) {
  const result = await client.callTool(name, args)
  console.log(result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n'))
}
await client.close()
