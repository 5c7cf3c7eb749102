/**
 * The conformance fixture server on Node: `createConformanceServer()` (test/conformance/fixture.ts) behind
 * `createFetchHandler`, served with `node:http` on loopback.
 *
 * Run: `npx tsx test/conformance/server.ts [port]` (port 0 or none: a free one). It prints
 * `listening http://127.0.0.1:PORT/mcp` once it accepts connections.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { pathToFileURL } from 'node:url'
import { createFetchHandler, type FetchHandler } from '../../src/server/index.ts'
import { McpError } from '../../src/index.ts'
import { createConformanceServer } from './fixture.ts'

export { createConformanceServer, TEST_AUDIO_BASE64, TEST_IMAGE_BASE64 } from './fixture.ts'

/**
 * Serve a fetch handler with `node:http` on loopback: each request becomes a Web `Request` (URL from the
 * `Host` header, as Node adapters build it; body streamed), each `Response` body is streamed back, and
 * a client that goes away aborts the request's signal.
 */
export function serveOnNode(
  handler: FetchHandler,
  port = 0,
  hostname = '127.0.0.1',
): Promise<{ server: HttpServer; url: string }> {
  const server = createServer((req, res) => void bridge(handler, req, res))
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, hostname, () => {
      const address = server.address()
      if (address === null || typeof address === 'string') return reject(new Error('no TCP address'))
      resolve({ server, url: `http://${hostname}:${address.port}/mcp` })
    })
  })
}

async function bridge(handler: FetchHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const aborted = new AbortController()
  res.on('close', () => {
    if (!res.writableFinished) aborted.abort()
  })
  try {
    const headers = new Headers()
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value)
    }
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`)
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
    const request = new Request(url, {
      method: req.method ?? 'GET',
      headers,
      body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : null,
      signal: aborted.signal,
      ...(hasBody ? { duplex: 'half' } : {}),
    })
    const response = await handler(request)
    res.writeHead(response.status, [...response.headers].flat())
    if (!response.body) return void res.end()
    const reader = response.body.getReader()
    res.on('close', () => void reader.cancel().catch(() => {}))
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      res.write(value)
    }
    res.end()
  } catch (error) {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' })
    res.end(error instanceof McpError ? error.message : 'bridge error')
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(process.argv[2] ?? process.env.PORT ?? 0)
  // a server on loopback names its hosts: a DNS-rebound request (Host: evil.example) gets 403
  const handler = createFetchHandler(createConformanceServer(), { allowedHosts: ['127.0.0.1', 'localhost', '[::1]'] })
  const { url } = await serveOnNode(handler, port)
  console.log(`listening ${url}`)
}
