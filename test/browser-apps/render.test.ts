/** renderApp's refusals that need no browser (src/browser/apps/render.ts): a resource that is not an App's HTML. */
import { describe, expect, it } from 'vitest'
import { renderApp } from '../../src/browser/apps/render.ts'
import { APP_MIME_TYPE } from '../../src/protocol/apps.ts'
import type { Client } from '../../src/client/client.ts'

/** A page at https://host.example (only what renderApp reads before it makes the iframe) and a client serving `content`. */
function setup(content: Record<string, unknown>) {
  const doc = { defaultView: { location: { origin: 'https://host.example' } }, baseURI: 'https://host.example/' }
  const client = { readResource: () => Promise.resolve({ contents: [{ uri: 'ui://x/app', ...content }] }) }
  const tool = { name: 'show', inputSchema: { type: 'object' as const }, _meta: { ui: { resourceUri: 'ui://x/app' } } }
  const options = {
    container: { ownerDocument: doc } as unknown as HTMLElement,
    sandboxUrl: 'https://sb.example/',
    tool,
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
