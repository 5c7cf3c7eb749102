// Deno 2: deno run --unstable-no-legacy-abort --allow-net --allow-env --allow-read deno.ts
import { createServer, mcpEndpoint } from './server.ts'

const port = Number(Deno.env.get('PORT') ?? 8787)
const handler = mcpEndpoint(createServer(), { allowedHosts: ['localhost', '127.0.0.1', '[::1]'] })

// Pass the request only: Deno's second argument (ServeHandlerInfo) is not an env object.
Deno.serve({ port, hostname: '127.0.0.1' }, (request) => handler(request))
