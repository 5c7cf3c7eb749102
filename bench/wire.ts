/** What every in-process benchmark sends: a fetch handler's type and the 2026 `tools/call` request. */

/** A fetch handler as the benches call it. */
export type Handler = (request: Request) => Promise<Response>

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
}

/** The same `tools/call` request for both servers: envelope, standard headers, JSON body. */
export function toolCall(id: number, name: string, params: Record<string, unknown>): Request {
  return new Request('http://localhost/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, ...params, _meta: ENVELOPE } }),
  })
}
