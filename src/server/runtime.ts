/**
 * What the server needs to know about the runtime it runs on.
 * @module
 */

/** True on Cloudflare Workers (workerd: `navigator.userAgent` is `Cloudflare-Workers`), where isolates share no memory. */
export function onWorkers(): boolean {
  return (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers'
}
