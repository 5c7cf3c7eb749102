/**
 * The benchmark floor (bench/floor.ts) does the checks docs/benchmarks.md says it does: the one argument,
 * the protocol version header, and a `requestState` that does not open when tampered, bound to other
 * arguments or expired. (Its speed is measured by `npm run bench`, not here.)
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { toolCall } from '../../bench/wire.ts'
import { floorEcho, floorHandler, floorOpen, floorSeal } from '../../bench/floor.ts'

const ANSWER = { confirm: { action: 'accept', content: { confirm: true } } }

interface Message {
  result?: {
    resultType?: string
    content?: unknown
    requestState?: string
    inputRequests?: { confirm?: { method?: string } }
  }
  error?: { code?: number; message?: string }
}

async function answer(response: Response): Promise<{ status: number; body: Message }> {
  return { status: response.status, body: (await response.json()) as Message }
}

afterEach(() => vi.restoreAllMocks())

describe('floorEcho', () => {
  it('answers the echoed text as the SDKs do', async () => {
    const response = await floorEcho(toolCall(3, 'echo', { arguments: { text: 'hi' } }))
    expect(response.headers.get('content-type')).toBe('application/json')
    const { status, body } = await answer(response)
    expect(status).toBe(200)
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 3, result: { resultType: 'complete' } })
    expect(body.result?.content).toEqual([{ type: 'text', text: 'hi' }])
  })

  it('refuses a non-string argument, another tool and another protocol version', async () => {
    const notString = await answer(await floorEcho(toolCall(1, 'echo', { arguments: { text: 5 } })))
    expect(notString.status).toBe(400)
    expect(notString.body.error?.code).toBe(-32602)
    const otherTool = await answer(await floorEcho(toolCall(1, 'deploy', { arguments: { env: 'x' } })))
    expect(otherTool.body.error?.code).toBe(-32602)
    const request = toolCall(1, 'echo', { arguments: { text: 'hi' } })
    const headers = new Headers(request.headers)
    headers.set('mcp-protocol-version', '2025-11-25')
    const oldVersion = await floorEcho(new Request(request, { headers }))
    expect(oldVersion.status).toBe(400)
  })
})

describe('floorHandler MRTR', () => {
  async function roundOne(handler: (r: Request) => Promise<Response>, env: string): Promise<string> {
    const { body } = await answer(await handler(toolCall(1, 'deploy', { arguments: { env } })))
    expect(body.result?.resultType).toBe('input_required')
    expect(body.result?.inputRequests?.confirm?.method).toBe('elicitation/create')
    expect(typeof body.result?.requestState).toBe('string')
    return body.result?.requestState ?? ''
  }

  it('completes with its own token and the accepted answer', async () => {
    const handler = floorHandler()
    const token = await roundOne(handler, 'prod')
    const args = { arguments: { env: 'prod' }, inputResponses: ANSWER, requestState: token }
    const { body } = await answer(await handler(toolCall(2, 'deploy', args)))
    expect(body.result?.content).toEqual([{ type: 'text', text: 'deployed to prod' }])
  })

  it('refuses a token tampered with, bound to other arguments, or from another key', async () => {
    const handler = floorHandler()
    const token = await roundOne(handler, 'prod')
    const tampered = token.slice(0, 10) + (token[10] === 'A' ? 'B' : 'A') + token.slice(11)
    const otherKey = await roundOne(floorHandler(), 'prod')
    for (const [env, requestState] of [
      ['prod', tampered],
      ['staging', token],
      ['prod', otherKey],
    ]) {
      const args = { arguments: { env }, inputResponses: ANSWER, requestState }
      const { status, body } = await answer(await handler(toolCall(2, 'deploy', args)))
      expect(status).toBe(400)
      expect(body.error?.message).toBe('Invalid or expired requestState')
    }
  })

  it('does not open an expired token', async () => {
    const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt'])
    const aad = new TextEncoder().encode('bound')
    const token = await floorSeal(key, 'state', aad)
    expect(await floorOpen(key, token, aad)).toBe('state')
    const now = Date.now()
    vi.spyOn(Date, 'now').mockReturnValue(now + 301_000)
    expect(await floorOpen(key, token, aad)).toBeUndefined()
  })
})
