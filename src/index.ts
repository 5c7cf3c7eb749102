/**
 * `edge-mcp`: the protocol layer shared by server and client — wire types (valibot schemas), JSON-RPC
 * framing, error codes, the request envelope and the header value codec. Import `edge-mcp/server`,
 * `edge-mcp/client` or `edge-mcp/hono` for the rest.
 * @module
 */
export * from './protocol/index.ts'
