/**
 * The child process of client-legacy-streams.test.ts: a `'legacy'` Client against the server at argv[2]
 * (which holds the standalone GET stream open) lists tools and, unless argv[3] is `keep`, closes. The test
 * checks that the process then exits by itself: nothing (the GET, a reconnection timer) keeps it alive.
 */
import { Client, StreamableHttpClientTransport } from '../src/client/index.ts'

const client = new Client({
  transport: new StreamableHttpClientTransport(process.argv[2]),
  versionNegotiation: 'legacy',
})
await client.listTools()
if (process.argv[3] !== 'keep') await client.close()
console.log('done')
