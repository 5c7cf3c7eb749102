/** The documented bring-your-own codec (examples/kms-envelope-codec.ts) inside a real server and client. */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { Client, StreamableHttpClientTransport } from '../../src/client/index.ts'
import { McpError } from '../../src/index.ts'
import {
  McpServer,
  RequestStateSecurity,
  acceptedContent,
  createFetchHandler,
  elicitForm,
  inputRequired,
} from '../../src/server/index.ts'
import { envelopeCodec, unwrapDataKey } from '../../examples/kms-envelope-codec.ts'
import { recordingLogger } from '../helpers.ts'

/** A "KMS": a key-encryption key, and a data key wrapped under it (what you would store next to your app). */
async function kms() {
  const kek = await crypto.subtle.generateKey({ name: 'AES-KW', length: 256 }, false, ['wrapKey', 'unwrapKey'])
  const dataKey = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt', 'decrypt'])
  const wrapped = new Uint8Array(await crypto.subtle.wrapKey('raw', dataKey, kek, 'AES-KW'))
  return { kek, wrapped }
}

async function deployer(now: () => number = Date.now) {
  const { kek, wrapped } = await kms()
  const codec = envelopeCodec(await unwrapDataKey(wrapped, kek))
  const mcp = new McpServer(
    { name: 'deployer', version: '1' },
    { logger: recordingLogger().logger, requestStateSecurity: new RequestStateSecurity({ codec, now }) },
  )
  let runs = 0
  mcp.tool('deploy', { input: { env: v.string() } }, ({ env }, ctx) => {
    runs++
    const ok = acceptedContent(ctx.inputResponses?.confirm)
    if (ctx.requestState !== 'awaiting-confirm' || ok?.yes !== true) {
      return inputRequired(
        {
          confirm: elicitForm(`Deploy to ${env}?`, {
            type: 'object',
            properties: { yes: { type: 'boolean' } },
            required: ['yes'],
          }),
        },
        'awaiting-confirm',
      )
    }
    return `deployed to ${env}`
  })
  return { mcp, codec, handler: createFetchHandler(mcp), runs: () => runs }
}

describe('KMS-style envelope codec (bring your own codec)', () => {
  it('round-trips bytes, and the token hides the plaintext', async () => {
    const { codec } = await deployer()
    const token = await codec.seal(new TextEncoder().encode('SECRET-STATE'))
    expect(token).toMatch(/^kms1\.[0-9a-f]+$/)
    expect(token).not.toContain('SECRET')
    expect(new TextDecoder().decode(await codec.unseal(token))).toBe('SECRET-STATE')
  })
  it('refuses every alias of a token it minted: upper-case hex, whitespace, a missing or changed prefix, truncation', async () => {
    const { codec } = await deployer()
    const token = await codec.seal(new Uint8Array([1, 2, 3]))
    for (const alias of [
      token.toUpperCase(),
      'KMS1.' + token.slice(5),
      token + ' ',
      token.slice(5),
      'kms2.' + token.slice(5),
      token.slice(0, -2),
      token.slice(0, 20),
    ]) {
      await expect(codec.unseal(alias), alias).rejects.toMatchObject({ name: 'InvalidRequestStateError' })
    }
  })
  it('drives a full flow through the Client; a tampered token, another data key, or expiry get the frozen error', async () => {
    let now = 1_900_000_000_000
    const a = await deployer(() => now)
    const client = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: a.handler }),
      elicitation: () => ({ action: 'accept', content: { yes: true } }),
    })
    expect((await client.callTool('deploy', { env: 'prod' })).content[0]).toEqual({
      type: 'text',
      text: 'deployed to prod',
    })
    const first = await client.callTool('deploy', { env: 'prod' }, { manual: true })
    const token = (first as { requestState: string }).requestState
    expect(token).toMatch(/^kms1\./)
    const answers = { confirm: { action: 'accept' as const, content: { yes: true } } }
    const runsBefore = a.runs()
    const flipped = token.slice(0, 30) + (token[30] === '0' ? '1' : '0') + token.slice(31)
    const b = await deployer(() => now)
    const other = new Client({
      transport: new StreamableHttpClientTransport('http://x/mcp', { fetch: b.handler }),
      capabilities: { elicitation: {} },
    })
    const rejected = [
      await client
        .callTool('deploy', { env: 'prod' }, { manual: true, inputResponses: answers, requestState: flipped })
        .catch((e: unknown) => e),
      await other
        .callTool('deploy', { env: 'prod' }, { manual: true, inputResponses: answers, requestState: token })
        .catch((e: unknown) => e),
      await client
        .callTool('deploy', { env: 'staging' }, { manual: true, inputResponses: answers, requestState: token })
        .catch((e: unknown) => e),
    ]
    now += 601_000
    rejected.push(
      await client
        .callTool('deploy', { env: 'prod' }, { manual: true, inputResponses: answers, requestState: token })
        .catch((e: unknown) => e),
    )
    for (const e of rejected) {
      expect(e).toBeInstanceOf(McpError)
      expect((e as McpError).message).toBe('Invalid or expired requestState')
    }
    expect(a.runs()).toBe(runsBefore)
  })
})
