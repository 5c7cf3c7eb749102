/**
 * The demo Worker under `wrangler dev` (workerd): a `Mcp-Name` sent as raw UTF-8 bytes is refused by the
 * visible-ASCII check first. The other adapters' side is in test/server/http/headers.test.ts.
 */
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { req, std } from '../helpers.ts'
import { startWorker, type RunningWorker } from '../workerd.ts'

const CAPS = { elicitation: { form: {} }, sampling: {} }

// shared/cases/robustness.md R7
describe('workerd (the demo Worker under wrangler dev): raw UTF-8 bytes in Mcp-Name', () => {
  let worker: RunningWorker
  beforeAll(async () => {
    worker = await startWorker()
  }, 120_000)
  afterAll(async () => worker?.stop())

  /** POST with `Mcp-Name` as raw UTF-8 bytes on the wire (node:http writes a Latin-1 string byte for byte). */
  const rawPost = (name: string) =>
    new Promise<{ status: number; body: { error: { code: number; message: string } } }>((resolve, reject) => {
      const body = JSON.stringify(req('tools/call', { name, arguments: {} }, CAPS))
      const headers = { ...std('tools/call'), 'mcp-name': String.fromCharCode(...new TextEncoder().encode(name)) }
      const r = httpRequest(worker.url, { method: 'POST', headers }, (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (text += d))
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as never }))
      })
      r.on('error', reject)
      r.end(body)
    })

  it('a name sent as raw UTF-8 is refused by the ASCII check first (400, -32020), not compared or looked up', async () => {
    const res = await rawPost('zażółć')
    expect([res.status, res.body.error.code]).toEqual([400, -32020])
    expect(res.body.error.message).toMatch(/is not visible ASCII/)
  }, 30_000)
})
