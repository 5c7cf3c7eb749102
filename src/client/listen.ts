/**
 * The client side of `subscriptions/listen` (spec: basic/patterns/subscriptions.mdx): open the stream,
 * wait for the acknowledgement, then hand out notifications as callbacks and as an async iterable.
 * @module
 */
import * as v from 'valibot'
import { META } from '../protocol/constants.ts'
import { McpError } from '../protocol/errors.ts'
import { describeIssue } from '../protocol/issues.ts'
import {
  SubscriptionsAcknowledgedNotification,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type RequestId,
  type SubscriptionFilter,
} from '../protocol/schemas.ts'
import type { ClientTransport } from '../transport/http-client.ts'
import { InvalidResultError, RequestTimeoutError } from './errors.ts'
import { SubscriptionDroppedError } from './errors.ts'

/** Options of `Client.listen`. */
export interface ListenOptions {
  /** Aborting it closes the stream (the cancel, in 2026-07-28); the subscription then ends as `'aborted'`. */
  signal?: AbortSignal
  /** Every notification after the acknowledgement, whatever its method. */
  onNotification?: (notification: JSONRPCNotification) => void
  /** `notifications/tools/list_changed` arrived: list the tools again. */
  onToolsListChanged?: () => void
  /** `notifications/prompts/list_changed` arrived. */
  onPromptsListChanged?: () => void
  /** `notifications/resources/list_changed` arrived. */
  onResourcesListChanged?: () => void
  /** `notifications/resources/updated` arrived for `uri` (one of `resourceSubscriptions`, or a sub-resource). */
  onResourceUpdated?: (uri: string) => void
  /**
   * Notifications kept for the async iterator until it reads them; beyond this the oldest are dropped
   * (with one warning). Default 1000.
   */
  maxBuffered?: number
}

/** How a subscription ended: the server closed it gracefully, or you aborted it. */
export type SubscriptionEnd = 'closed' | 'aborted'

/**
 * An open `subscriptions/listen` stream. Iterate it (`for await (const n of subscription)`) for the
 * notifications after the acknowledgement; leaving the loop early closes the subscription. One
 * consumer at a time.
 */
export interface Subscription extends AsyncIterable<JSONRPCNotification> {
  /** The JSON-RPC id of the listen request: every message on the stream carries it as `_meta` subscriptionId. */
  readonly id: RequestId
  /** What the server agreed to send (a subset of the filter you asked for; unsupported kinds are left out). */
  readonly acknowledged: SubscriptionFilter
  /**
   * Settles when the subscription ends: `'closed'` (the server's closing result) or `'aborted'` (you
   * closed it). Rejects with `SubscriptionDroppedError` when the stream broke without that result (you
   * MAY listen again), or `McpError` when the server ended it with an error.
   */
  readonly ended: Promise<SubscriptionEnd>
  /** Close the stream; resolves once the subscription has ended. */
  close(): Promise<void>
}

const DEFAULT_MAX_BUFFERED = 1000

/**
 * Send a `subscriptions/listen` request and resolve once the server acknowledged it.
 * @throws McpError when the server answers with an error (e.g. -32602 for a bad filter, -32601 when it
 *   has no listen); RequestTimeoutError when no acknowledgement comes within `timeoutMs`;
 *   InvalidResultError when the stream starts with something else or ends before it; HttpError for HTTP failures.
 * @internal use `Client.listen`.
 */
export function openSubscription(
  transport: ClientTransport,
  request: JSONRPCRequest,
  options: ListenOptions,
  timeoutMs: number,
  warn: (message: string) => void,
  /** Runs before each notification is delivered, in order (the Client drops stale cache entries here). */
  before?: (notification: JSONRPCNotification) => Promise<unknown>,
): Promise<Subscription> {
  const id = request.id
  const maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED
  const controller = new AbortController()
  const onUserAbort = () => controller.abort(options.signal?.reason)
  options.signal?.addEventListener('abort', onUserAbort, { once: true })
  const queue: JSONRPCNotification[] = []
  let warned = false
  let outcome: { end: SubscriptionEnd } | { error: unknown } | undefined
  let wake: () => void = () => {}
  let changed = new Promise<void>((resolve) => (wake = resolve))
  const poke = () => {
    const resolve = wake
    changed = new Promise<void>((r) => (wake = r))
    resolve()
  }
  let acknowledged: SubscriptionFilter | undefined
  let settleAck!: { resolve: (filter: SubscriptionFilter) => void; reject: (error: unknown) => void }
  const ack = new Promise<SubscriptionFilter>((resolve, reject) => (settleAck = { resolve, reject }))
  let settleEnd!: { resolve: (end: SubscriptionEnd) => void; reject: (error: unknown) => void }
  const ended = new Promise<SubscriptionEnd>((resolve, reject) => (settleEnd = { resolve, reject }))
  ended.catch(() => {}) // rejections surface to whoever awaits it, never as unhandled

  const finish = (result: { end: SubscriptionEnd } | { error: unknown }) => {
    if (outcome) return
    outcome = result
    clearTimeout(timer)
    options.signal?.removeEventListener('abort', onUserAbort)
    if (!acknowledged)
      settleAck.reject('error' in result ? result.error : (options.signal?.reason ?? new Error('aborted')))
    if ('error' in result) settleEnd.reject(result.error)
    else settleEnd.resolve(result.end)
    if (!controller.signal.aborted) controller.abort()
    poke()
  }
  const timer = setTimeout(
    () => finish({ error: new RequestTimeoutError('subscriptions/listen', timeoutMs) }),
    timeoutMs,
  )
  controller.signal.addEventListener('abort', () => finish({ end: 'aborted' }), { once: true })
  if (options.signal?.aborted) onUserAbort()

  let inOrder: Promise<unknown> = Promise.resolve()
  const deliver = (n: JSONRPCNotification) => {
    if (!before) return deliverNow(n)
    inOrder = inOrder
      .then(() => before(n))
      .catch((error: unknown) =>
        warn(
          `subscription ${JSON.stringify(id)}: before ${n.method}: ${error instanceof Error ? error.message : String(error)}`,
        ),
      )
      .then(() => deliverNow(n))
  }
  const deliverNow = (n: JSONRPCNotification) => {
    if (outcome) return // ended (an abort, or the server's end once every earlier delivery was made)
    try {
      callbacks(n)
    } catch (error) {
      warn(
        `subscription ${JSON.stringify(id)}: a callback for ${n.method} threw: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
    queue.push(n)
    if (queue.length > maxBuffered) {
      queue.shift()
      if (!warned)
        warn(`subscription ${JSON.stringify(id)}: more than ${maxBuffered} notifications unread; dropping the oldest`)
      warned = true
    }
    poke()
  }
  const callbacks = (n: JSONRPCNotification) => {
    switch (n.method) {
      case 'notifications/tools/list_changed':
        options.onToolsListChanged?.()
        break
      case 'notifications/prompts/list_changed':
        options.onPromptsListChanged?.()
        break
      case 'notifications/resources/list_changed':
        options.onResourcesListChanged?.()
        break
      case 'notifications/resources/updated': {
        const uri = (n.params as { uri?: unknown } | undefined)?.uri
        if (typeof uri === 'string') options.onResourceUpdated?.(uri)
        break
      }
    }
    options.onNotification?.(n)
  }

  const onNotification = (n: JSONRPCNotification) => {
    if (outcome) return
    const meta = n.params?._meta as Record<string, unknown> | undefined
    if (meta?.[META.subscriptionId] !== id) return // not of this subscription (e.g. another stream's, on a shared channel)
    if (acknowledged) return deliver(n)
    const parsed = v.safeParse(SubscriptionsAcknowledgedNotification, n)
    if (!parsed.success) {
      const why =
        n.method === 'notifications/subscriptions/acknowledged'
          ? `an invalid acknowledgement (${describeIssue(parsed.issues[0])})`
          : `${n.method} before the acknowledgement`
      return finish({ error: new InvalidResultError(`subscriptions/listen: the server sent ${why}`) })
    }
    acknowledged = parsed.output.params.notifications
    clearTimeout(timer)
    settleAck.resolve(acknowledged)
  }

  // the server's end settles only after the deliveries before it (their `before` hooks are async)
  const finishInOrder = (result: { end: SubscriptionEnd } | { error: unknown }) =>
    void inOrder.then(() => finish(result))
  transport.send(request, { signal: controller.signal, onNotification }).then(
    (response) => {
      const message = response as
        { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } } | undefined
      if (
        message?.error &&
        typeof message.error === 'object' &&
        Number.isInteger(message.error.code) &&
        typeof message.error.message === 'string'
      ) {
        return finishInOrder({
          error: new McpError(message.error.code as number, message.error.message, message.error.data),
        })
      }
      if (!acknowledged)
        return finishInOrder({
          error: new InvalidResultError('subscriptions/listen: the stream ended before the acknowledgement'),
        })
      if (message?.id === id && typeof message.result === 'object' && message.result !== null)
        return finishInOrder({ end: 'closed' })
      finishInOrder({
        error: new InvalidResultError('subscriptions/listen: the stream ended with an invalid response'),
      })
    },
    (error: unknown) => {
      if (controller.signal.aborted) return finish({ end: 'aborted' })
      finishInOrder({ error: acknowledged ? new SubscriptionDroppedError(id, error) : error })
    },
  )

  const close = async () => {
    controller.abort()
    await ended.catch(() => {})
  }
  return ack.then((filter) => ({
    id,
    acknowledged: filter,
    ended,
    close,
    async *[Symbol.asyncIterator]() {
      try {
        for (;;) {
          if (queue.length > 0) yield queue.shift()!
          else if (!outcome) await changed
          else if ('error' in outcome) throw outcome.error
          else return
        }
      } finally {
        if (!outcome) await close() // the consumer left the loop early
      }
    },
  }))
}
