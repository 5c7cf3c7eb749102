/**
 * renderApp's refusals that need no browser (src/browser/apps/render.ts): a resource that is not an App's
 * HTML, a signal aborted while the resource was read.
 */
import { describe, expect, it } from 'vitest'
import { renderApp } from '../../src/browser/apps/render.ts'
import { APP_MIME_TYPE } from '../../src/protocol/apps.ts'
import type { Client } from '../../src/client/client.ts'

/** What aborts each test signal (called by the fake client as its answer arrives). */
const aborters = new WeakMap<AbortSignal, () => void>()
const abort = (signal: AbortSignal) => aborters.get(signal)?.()

/** A page at https://host.example (only what renderApp reads before it makes the iframe) and a client serving `content`. */
function setup(content: Record<string, unknown>, signal?: AbortSignal) {
  const doc = { defaultView: { location: { origin: 'https://host.example' } }, baseURI: 'https://host.example/' }
  const client = {
    readResource: () => {
      const answer = Promise.resolve({ contents: [{ uri: 'ui://x/app', ...content }] })
      // a signal aborted as the answer arrives (before renderApp resumes, and so before it listens)
      if (signal) void answer.then(() => abort(signal))
      return answer
    },
  }
  const tool = { name: 'show', inputSchema: { type: 'object' as const }, _meta: { ui: { resourceUri: 'ui://x/app' } } }
  const options = {
    container: { ownerDocument: doc } as unknown as HTMLElement,
    sandboxUrl: 'https://sb.example/',
    tool,
    ...(signal ? { signal } : {}),
  }
  return () => renderApp(client as unknown as Client, options)
}

describe('renderApp: resources that are not an App', () => {
  it.each([
    [
      'a blob that is not base64',
      { mimeType: APP_MIME_TYPE, blob: '<html>!' },
      'resource ui://x/app: its blob is not base64 of UTF-8 HTML',
    ],
    [
      'a blob that is not UTF-8',
      { mimeType: APP_MIME_TYPE, blob: btoa('\xff\xfe<') },
      'resource ui://x/app: its blob is not base64 of UTF-8 HTML',
    ],
    ['plain HTML', { mimeType: 'text/html', text: '<p>' }, `resource ui://x/app has no ${APP_MIME_TYPE} content`],
  ])('%s: an Error naming the resource', async (_, content, message) => {
    await expect(setup(content)()).rejects.toThrow(message)
  })
})

it('a signal aborted just as the read answers: rejects with its reason, renders nothing', async () => {
  const controller = new AbortController()
  const reason = new Error('the user left')
  aborters.set(controller.signal, () => controller.abort(reason))
  await expect(setup({ mimeType: APP_MIME_TYPE, text: '<p>app</p>' }, controller.signal)()).rejects.toBe(reason)
})
