/**
 * Abort-signal helpers shared by the request core, the input-required driver and the SSE reader.
 * @module
 */

/** `AbortSignal.any`, with a fallback for runtimes that lack it. */
export function anySignal(signals: AbortSignal[]): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any(signals)
  const controller = new AbortController()
  for (const s of signals) {
    if (s.aborted) {
      controller.abort(s.reason)
      break
    }
    s.addEventListener('abort', () => controller.abort(s.reason), { once: true })
  }
  return controller.signal
}

/**
 * A promise that rejects with `signal`'s reason, unchanged, once it aborts (at once when it already has);
 * it never resolves. Race work against it so that work which ignores the signal still cannot hang.
 */
export function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the abort reason is whatever the caller aborted with (any value); callers catch it unchanged
    const fail = () => reject(signal.reason)
    if (signal.aborted) fail()
    signal.addEventListener('abort', fail, { once: true })
  })
}

/**
 * `work`, or a rejection with `signal`'s reason as soon as it aborts — whichever comes first. The
 * listener is removed once `work` settles, so a long-lived signal does not collect them. `work` itself
 * goes on (others may share it).
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work
  if (signal.aborted) return Promise.reject(signal.reason as unknown) // eslint-disable-line @typescript-eslint/prefer-promise-reject-errors -- the caller's reason, unchanged
  return new Promise<T>((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the caller's reason, unchanged
    const fail = () => reject(signal.reason)
    signal.addEventListener('abort', fail, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', fail))
  })
}

/** `setTimeout`-based sleep that rejects with the signal's reason on abort. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted() // thrown in the executor: rejects with the reason, unchanged
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the abort reason is whatever the caller aborted with (any value); callers catch it unchanged
      reject(signal!.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
