/**
 * edge-mcp/opentelemetry: OpenTelemetry traces for an MCP server and client, as middleware
 * (`mcp.use(serverTracing())`, `client.use(clientTracing())`), after the OpenTelemetry MCP semantic
 * conventions, with W3C trace context carried in `params._meta` (SEP-414). Needs `@opentelemetry/api`
 * (an optional peer dependency); nothing in edge-mcp/server or edge-mcp/client imports it.
 */
export { serverTracing } from './server.ts'
export { clientTracing } from './client.ts'
export type { TracingOptions } from './common.ts'
