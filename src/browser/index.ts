/**
 * `edge-mcp/browser`: input callbacks for a browser `Client` — elicitation as native HTML forms and URL
 * consent, human-in-the-loop sampling, static roots. All server text goes through `textContent`.
 *
 * ```ts
 * import { Client, StreamableHttpClientTransport } from 'edge-mcp/client'
 * import { createElicitationHandler, createSamplingHandler, staticRoots } from 'edge-mcp/browser'
 * const client = new Client({ transport: new StreamableHttpClientTransport(url), elicitation: createElicitationHandler() })
 * ```
 * @module
 */
export { createElicitationHandler } from './elicitation.ts'
export { SamplingDeclinedError } from '../client/errors.ts'
export { createSamplingHandler, staticRoots } from './sampling.ts'
export type { BrowserFormOptions } from './host.ts'
export { DEFAULT_STRINGS, type BrowserStrings } from './strings.ts'
export { DEFAULT_STYLESHEET } from './style.ts'
export { renderApp, type AppHostContext, type AppHostOptions, type AppView } from './apps/render.ts'
export type { AppConsentQuestion } from './apps/consent.ts'
