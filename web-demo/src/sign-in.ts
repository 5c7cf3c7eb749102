/**
 * Signing in to a protected MCP endpoint from the web demo: the `OAuthClientProvider`'s
 * `redirectToAuthorization` as a "Sign in" button (a popup opened from a click, so no popup blocker
 * stops it) and the callback page (oauth-callback.html) that hands the redirect URL back to this window.
 * The flow itself — discovery, registration, PKCE, the token, the step-up on 403 — is edge-mcp's.
 * @module
 */
import { OAuthClientProvider } from '../../src/client/index.ts'

/** The message oauth-callback.html posts to its opener (same origin only). */
export const CALLBACK_MESSAGE = 'edge-mcp-oauth-callback'

/**
 * A provider whose authorization step shows `Sign in at <host>` in `container` and resolves with the
 * callback URL once the user has signed in in the popup. Cancel rejects (the call fails with that error).
 */
export function popupSignIn(container: HTMLElement): OAuthClientProvider {
  return new OAuthClientProvider({
    redirectUrl: new URL('oauth-callback.html', location.href).href,
    clientName: 'edge-mcp web demo',
    applicationType: 'web',
    redirectToAuthorization: (url, signal) =>
      new Promise<string>((resolve, reject) => {
        const box = document.createElement('div')
        box.className = 'sign-in'
        const text = document.createElement('p')
        const scope = url.searchParams.get('scope')
        text.textContent = `This server needs you to sign in at ${url.host}${scope ? ` (scopes: ${scope})` : ''}.`
        const go = document.createElement('button')
        go.type = 'button'
        go.textContent = `Sign in at ${url.host}`
        const cancel = document.createElement('button')
        cancel.type = 'button'
        cancel.textContent = 'Cancel'
        box.append(text, go, ' ', cancel)
        container.append(box)
        const done = () => {
          box.remove()
          window.removeEventListener('message', onMessage)
        }
        const onMessage = (event: MessageEvent) => {
          const data = event.data as { type?: unknown; url?: unknown } | null
          if (event.origin !== location.origin || data?.type !== CALLBACK_MESSAGE || typeof data.url !== 'string')
            return
          done()
          resolve(data.url)
        }
        window.addEventListener('message', onMessage)
        go.addEventListener('click', () => {
          const popup = window.open(url.href, 'edge-mcp-oauth', 'popup,width=520,height=680')
          if (!popup) text.textContent = 'The sign-in window was blocked; allow popups for this page and try again.'
        })
        cancel.addEventListener('click', () => {
          done()
          reject(new Error('Sign-in cancelled'))
        })
        signal?.addEventListener('abort', () => {
          done()
          reject(signal.reason instanceof Error ? signal.reason : new Error('Sign-in aborted'))
        })
      }),
  })
}
