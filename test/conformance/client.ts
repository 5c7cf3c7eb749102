/**
 * The conformance fixture client (`@modelcontextprotocol/conformance client`): the suite appends the
 * scenario server's URL and sets MCP_CONFORMANCE_SCENARIO (and MCP_CONFORMANCE_CONTEXT, JSON, for some
 * scenarios). Exits 0 when the scenario's flow completed, 1 otherwise (some auth scenarios expect that).
 *
 * The client is in `versionNegotiation: 'auto'` for both requirement sets, and is not told which one runs
 * (MCP_CONFORMANCE_PROTOCOL_VERSION is not read): the `server/discover` probe finds a 2026-07-28 mock
 * modern and a 2025-11-25 one legacy (`initialize`, a session, the server's questions on its streams).
 *
 *   node --import tsx test/conformance/client.ts http://localhost:PORT/mcp
 */
import type { OAuthClientProviderOptions } from '../../src/client/oauth/provider.ts'
import { fetchProtectedResourceMetadata } from '../../src/client/oauth/discovery.ts'
import {
  Client,
  ClientCredentialsProvider,
  EnterpriseManagedAuthProvider,
  JwtBearerProvider,
  OAuthClientProvider,
  StreamableHttpClientTransport,
  dpopProofs,
  type ClientAuthProvider,
} from '../../src/client/index.ts'
import { type ElicitRequestParams, type Tool } from '../../src/index.ts'

const url = process.argv[2]
if (!url) {
  console.error('usage: client.ts <server-url>  (MCP_CONFORMANCE_SCENARIO names the scenario)')
  process.exit(2)
}
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? ''
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, unknown>

/** The CIMD URL `auth/basic-cimd` expects as client_id. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json'

function oauth(): OAuthClientProvider {
  const options: OAuthClientProviderOptions = {
    redirectUrl: 'http://localhost:3000/callback',
    clientName: 'edge-mcp-conformance-client',
    clientMetadataUrl: CLIENT_METADATA_URL,
    // The scenarios' authorization endpoints redirect at once: follow by hand and hand back the Location.
    redirectToAuthorization: async (authorizationUrl, signal) => {
      const response = await fetch(authorizationUrl, { redirect: 'manual', ...(signal ? { signal } : {}) })
      const location = response.headers.get('location')
      if (!location) throw new Error(`The authorization endpoint answered ${response.status} without a redirect`)
      return location
    },
  }
  if (typeof context.client_id === 'string' && typeof context.issuer === 'string') {
    options.preRegistered = [
      {
        issuer: context.issuer,
        client_id: context.client_id,
        ...(typeof context.client_secret === 'string' ? { client_secret: context.client_secret } : {}),
      },
    ]
  }
  // DPoP-bound tokens (RFC 9449) where the scenario judges them: proofs at the token endpoint and the server
  if (scenario === 'auth/dpop' || scenario === 'auth/dpop-nonce') options.dpop = dpopProofs()
  return new OAuthClientProvider(options)
}

/** A context value the scenario must have given. */
function given(key: string): string {
  const value = context[key]
  if (typeof value !== 'string') throw new Error(`MCP_CONFORMANCE_CONTEXT has no string ${key}`)
  return value
}

/**
 * The authorization server a machine-to-machine provider's credentials belong to (`authorizationServer`, which
 * they require). A deployment writes it into its configuration; the scenarios' context does not name it, so
 * the fixture reads it where a person configuring the client would look: the MCP server's protected resource
 * metadata (RFC 9728, at its well-known URL), first `authorization_servers` entry.
 */
async function configuredAuthorizationServer(): Promise<string> {
  const prm = await fetchProtectedResourceMetadata((request) => fetch(request), url, undefined, undefined)
  const [issuer] = (prm.authorization_servers ?? []) as string[]
  if (typeof issuer !== 'string') throw new Error(`${url} lists no authorization server`)
  return issuer
}

/** The provider for an `auth/` scenario: a machine-to-machine flow where the scenario tests one, else the user's. */
async function authProvider(): Promise<ClientAuthProvider> {
  switch (scenario) {
    case 'auth/client-credentials-basic':
      return new ClientCredentialsProvider({
        authorizationServer: await configuredAuthorizationServer(),
        clientId: given('client_id'),
        clientSecret: given('client_secret'),
      })
    case 'auth/client-credentials-jwt':
      return new ClientCredentialsProvider({
        authorizationServer: await configuredAuthorizationServer(),
        clientId: given('client_id'),
        privateKey: given('private_key_pem'),
        signingAlgorithm: given('signing_algorithm') as 'ES256' | 'RS256',
      })
    case 'auth/wif-jwt-bearer':
      return new JwtBearerProvider({
        authorizationServer: await configuredAuthorizationServer(),
        assertion: () => given('valid_jwt'),
        client: { clientId: given('client_id') },
      })
    case 'auth/enterprise-managed-authorization':
      return new EnterpriseManagedAuthProvider({
        authorizationServer: await configuredAuthorizationServer(),
        clientId: given('client_id'),
        clientSecret: given('client_secret'),
        idToken: () => given('idp_id_token'),
        idp: {
          tokenEndpoint: given('idp_token_endpoint'),
          clientId: given('idp_client_id'),
          issuer: given('idp_issuer'),
        },
      })
    default:
      return oauth()
  }
}

const transport = new StreamableHttpClientTransport(
  url,
  scenario.startsWith('auth/') ? { auth: await authProvider() } : {},
)
const client = new Client({
  transport,
  clientInfo: { name: 'edge-mcp-conformance-client', version: '0.1.0' },
  versionNegotiation: 'auto',
  elicitation: () => ({ action: 'accept', content: { confirmed: true } }),
  onWarning: (message) => console.error(`[warning] ${message}`),
})

/** Arguments that satisfy a tool's required properties (by their JSON Schema type). */
function sampleArguments(tool: Tool): Record<string, unknown> {
  const schema = tool.inputSchema as { properties?: Record<string, { type?: unknown }>; required?: string[] }
  const args: Record<string, unknown> = {}
  for (const name of schema.required ?? []) {
    const type = schema.properties?.[name]?.type
    args[name] =
      type === 'number' || type === 'integer'
        ? 1
        : type === 'boolean'
          ? true
          : type === 'object'
            ? {}
            : type === 'array'
              ? []
              : 'sample'
  }
  return args
}

/** The `default` of each field of a form elicitation's `requestedSchema`, as a form would show them. */
function formDefaults(params: ElicitRequestParams): Record<string, string | number | boolean | string[]> {
  const properties = params.mode === 'url' ? {} : params.requestedSchema.properties
  const content: Record<string, string | number | boolean | string[]> = {}
  for (const [name, field] of Object.entries(properties)) if (field.default !== undefined) content[name] = field.default
  return content
}

async function run(): Promise<void> {
  switch (scenario) {
    case 'tools_call': {
      await client.listTools()
      const result = await client.callTool('add_numbers', { a: 5, b: 3 })
      console.log(JSON.stringify(result.content))
      return
    }
    case 'sep-2322-client-request-state': {
      await client.listTools()
      let unrelatedCalled = false
      const between = new Client({
        transport,
        elicitation: async () => {
          // a different call while this one waits for its answer: it must carry none of this flow's state
          if (!unrelatedCalled) {
            unrelatedCalled = true
            await client.callTool('test_mrtr_unrelated', {})
          }
          return { action: 'accept', content: { confirmed: true } }
        },
      })
      await between.callTool('test_mrtr_echo_state', {})
      await client.callTool('test_mrtr_no_state', {})
      await client.callTool('test_mrtr_no_result_type', {})
      return
    }
    case 'elicitation-sep1034-client-defaults': {
      // the callback plays a form that shows each field's default (spec: client/elicitation.mdx, "Clients that
      // support defaults SHOULD pre-populate form fields with these values"), accepted as shown
      const filling = new Client({
        transport,
        versionNegotiation: 'auto',
        elicitation: (params) => ({ action: 'accept', content: formDefaults(params) }),
      })
      await filling.listTools()
      await filling.callTool('test_client_elicitation_defaults', {})
      await filling.close()
      return
    }
    case 'sse-retry': {
      await client.listTools()
      await client.callTool('test_reconnection', {})
      return
    }
    case 'http-standard-headers': {
      for (const tool of await client.listTools()) await client.callTool(tool.name, sampleArguments(tool))
      for (const resource of await client.listResources()) await client.readResource(resource.uri)
      for (const prompt of await client.listPrompts()) await client.getPrompt(prompt.name)
      return
    }
    case 'http-custom-headers': {
      await client.listTools()
      const calls = (context.toolCalls ?? []) as { name: string; arguments: Record<string, unknown> }[]
      for (const call of calls) await client.callTool(call.name, call.arguments)
      return
    }
    case 'http-invalid-tool-headers': {
      // listTools leaves out the tools with invalid x-mcp-header declarations; call every one it kept
      for (const tool of await client.listTools()) await client.callTool(tool.name, sampleArguments(tool))
      return
    }
    case 'json-schema-2020-12-preservation': {
      // the focal tool's inputSchema, exactly as listTools() gave it, goes back through the echo tool
      const tools = await client.listTools()
      const focal = tools.find((tool) => tool.name === 'json_schema_2020_12_tool')
      if (!focal) throw new Error('tools/list has no json_schema_2020_12_tool')
      await client.callTool('json_schema_echo', { schema: focal.inputSchema })
      return
    }
    default: {
      await client.discover()
      const tools = await client.listTools()
      if (scenario.startsWith('auth/'))
        for (const tool of tools) await client.callTool(tool.name, sampleArguments(tool))
    }
  }
}

try {
  await run()
  await client.close() // a 2025 session ends with DELETE
  process.exit(0)
} catch (error) {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error)
  process.exit(1)
}
