/**
 * What the server needs to know about the runtime it runs on.
 * @module
 */

/** The longest delay `setTimeout` holds, in ms; a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1

/** True on Cloudflare Workers (workerd: `navigator.userAgent` is `Cloudflare-Workers`), where isolates share no memory. */
export function onWorkers(): boolean {
  return (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers'
}
