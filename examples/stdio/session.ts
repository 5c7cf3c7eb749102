// What each client recipe does once the server is launched: list the tools, call greet, call order_book
// (whose question the elicitation callback answers), then close the client.
import { Client, type ClientTransport } from 'edge-mcp/client'

export async function session(transport: ClientTransport): Promise<void> {
  const client = new Client({
    transport,
    clientInfo: { name: 'bookshop-stdio-client', version: '1.0.0' },
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
}
