/**
 * The client side of `subscriptions/listen` (spec: basic/patterns/subscriptions.mdx): open the stream,
 * wait for the acknowledgement, then hand out notifications as callbacks and as an async iterable.
 * @module
 */
import { META } from '../protocol/constants.ts'
import { McpError } from '../protocol/errors.ts'
import { parse } from '../protocol/check.ts'
import type { JSONRPCNotification, JSONRPCRequest, RequestId, SubscriptionFilter } from '../protocol/schemas/index.ts'
import type { ClientTransport } from './transport.ts'
import type { Client } from './client.ts'
import { PLAN_LISTEN } from './listen-plan.ts'
import { InvalidResultError, RequestTimeoutError, SubscriptionDroppedError } from './errors.ts'
import { legacyListenTransport, listenSessionOf } from './legacy-listen.ts'
import { SubscriptionsAcknowledgedNotification } from './checks.gen.ts'
import { deliverTaskNotification } from './task-watch.ts'

/** Options of {@link listen}. */
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

/** How a stream ended, once it has. */
type StreamEnd = { end: SubscriptionEnd } | { error: unknown }

/**
 * `subscriptions/listen`: open a long-lived stream of the notifications `filter` opts in to on `client`'s
 * server, and resolve once the server acknowledged it (the client's `requestTimeoutMs` applies to that
 * wait only). Then notifications reach the callbacks and the returned async iterable, until you abort
 * `signal` (or call `close()`), or the server ends the subscription. With a 2025-era server the filter is
 * honoured from its `initialize` capabilities over the session's GET stream (see legacy-listen.ts). In
 * `'auto'` mode it first finds the server's era, as a request would. A function rather than a method of
 * `Client`, so that an app that never listens does not bundle it.
 *
 * @example
 * const sub = await listen(client, { toolsListChanged: true, resourceSubscriptions: ['file:///config.json'] }, { signal })
 * for await (const n of sub) if (n.method === 'notifications/tools/list_changed') await client.listTools()
 * @throws McpError when the server refuses (e.g. -32602 naming a bad filter field); RequestTimeoutError,
 *   InvalidResultError and HttpError as for any request. After the acknowledgement, a broken stream
 *   rejects `subscription.ended` (and the iterator) with SubscriptionDroppedError.
 */
export async function listen(
  client: Client,
  filter: SubscriptionFilter,
  options: ListenOptions = {},
): Promise<Subscription> {
  const plan = await client[PLAN_LISTEN](filter, options.signal)
  const transport = plan.session ? legacyListenTransport(listenSessionOf(plan.session)) : plan.transport!
  const own = options.onNotification
  // a stream of task states (ext-tasks `taskIds`) also feeds the client's running task loops (task-watch.ts)
  if (filter.taskIds && !plan.session)
    options = { ...options, onNotification: (n) => (deliverTaskNotification(transport, n), own?.(n)) }
  return openSubscription(transport, plan.message, options, plan.timeoutMs, plan.warn, plan.before)
}

/**
 * Send a `subscriptions/listen` request and resolve once the server acknowledged it.
 * @throws McpError when the server answers with an error (e.g. -32602 for a bad filter, -32601 when it
 *   has no listen); RequestTimeoutError when no acknowledgement comes within `timeoutMs`;
 *   InvalidResultError when the stream starts with something else or ends before it; HttpError for HTTP failures.
 * @internal use {@link listen}.
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
  const stream = new ListenStream(request.id, options, timeoutMs, warn, before)
  stream.send(transport, request)
  return stream.acknowledgement.then((filter) => stream.subscription(filter))
}

/**
 * One listen stream from its request to its end: waits for the acknowledgement (within `timeoutMs`),
 * then delivers each notification of this subscription to the callbacks and the iterator's buffer, and
 * settles `ended` once — on abort, on the server's closing result, or on a failure.
 */
class ListenStream {
  readonly #id: RequestId
  readonly #options: ListenOptions
  readonly #warn: (message: string) => void
  readonly #before: ((notification: JSONRPCNotification) => Promise<unknown>) | undefined
  readonly #maxBuffered: number
  readonly #controller = new AbortController()
  readonly #onUserAbort = () => this.#controller.abort(this.#options.signal?.reason)
  /** Notifications delivered but not yet read by the iterator. */
  readonly #queue: JSONRPCNotification[] = []
  #warned = false
  readonly #wakeup = new Wakeup()
  readonly #ack = new Deferred<SubscriptionFilter>()
  readonly #ended = new Deferred<SubscriptionEnd>()
  readonly #timer: ReturnType<typeof setTimeout>
  #acknowledged: SubscriptionFilter | undefined
  #outcome: StreamEnd | undefined
  /** The delivery chain: each `before` hook (async) completes before the next notification, and the server's end, go out. */
  #inOrder: Promise<unknown> = Promise.resolve()

  constructor(
    id: RequestId,
    options: ListenOptions,
    timeoutMs: number,
    warn: (message: string) => void,
    before: ((notification: JSONRPCNotification) => Promise<unknown>) | undefined,
  ) {
    this.#id = id
    this.#options = options
    this.#warn = warn
    this.#before = before
    this.#maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED
    options.signal?.addEventListener('abort', this.#onUserAbort, { once: true })
    this.#ended.promise.catch(() => {}) // rejections surface to whoever awaits it, never as unhandled
    this.#timer = setTimeout(
      () => this.#finish({ error: new RequestTimeoutError('subscriptions/listen', timeoutMs) }),
      timeoutMs,
    )
    this.#controller.signal.addEventListener('abort', () => this.#finish({ end: 'aborted' }), { once: true })
    if (options.signal?.aborted) this.#onUserAbort()
  }

  /** Resolves with what the server agreed to send; rejects when the stream ends before that. */
  get acknowledgement(): Promise<SubscriptionFilter> {
    return this.#ack.promise
  }

  /** Send the listen request; its notifications and its end drive this stream from now on. */
  send(transport: ClientTransport, request: JSONRPCRequest): void {
    transport.send(request, { signal: this.#controller.signal, onNotification: (n) => this.#receive(n) }).then(
      (response) => this.#finishInOrder(endOf(response, this.#id, this.#acknowledged !== undefined)),
      (error: unknown) => {
        if (this.#controller.signal.aborted) return this.#finish({ end: 'aborted' })
        this.#finishInOrder({ error: this.#acknowledged ? new SubscriptionDroppedError(this.#id, error) : error })
      },
    )
  }

  /** The {@link Subscription} handed to the caller once `filter` was acknowledged. */
  subscription(filter: SubscriptionFilter): Subscription {
    return {
      id: this.#id,
      acknowledged: filter,
      ended: this.#ended.promise,
      close: this.#close,
      [Symbol.asyncIterator]: () => this.#iterate(),
    }
  }

  readonly #close = async (): Promise<void> => {
    this.#controller.abort()
    await this.#ended.promise.catch(() => {})
  }

  /** Settle the stream once: the acknowledgement (if still pending), `ended`, the request, and a waiting iterator. */
  #finish(result: StreamEnd): void {
    if (this.#outcome) return
    this.#outcome = result
    clearTimeout(this.#timer)
    this.#options.signal?.removeEventListener('abort', this.#onUserAbort)
    if (!this.#acknowledged)
      this.#ack.reject('error' in result ? result.error : (this.#options.signal?.reason ?? new Error('aborted')))
    if ('error' in result) this.#ended.reject(result.error)
    else this.#ended.resolve(result.end)
    if (!this.#controller.signal.aborted) this.#controller.abort()
    this.#wakeup.poke()
  }

  /** The server's end settles only after the deliveries before it (their `before` hooks are async). */
  #finishInOrder(result: StreamEnd): void {
    void this.#inOrder.then(() => this.#finish(result))
  }

  /** A notification from the transport: the acknowledgement first, then deliveries. */
  #receive(n: JSONRPCNotification): void {
    if (this.#outcome) return
    const meta = n.params?._meta as Record<string, unknown> | undefined
    if (meta?.[META.subscriptionId] !== this.#id) return // not of this subscription (e.g. another stream's, on a shared channel)
    if (this.#acknowledged) return this.#deliver(n)
    this.#acknowledge(n)
  }

  /** The first notification must be the acknowledgement; anything else ends the stream. */
  #acknowledge(n: JSONRPCNotification): void {
    const parsed = parse(SubscriptionsAcknowledgedNotification, n)
    if (parsed[0] !== undefined) {
      const why =
        n.method === 'notifications/subscriptions/acknowledged'
          ? `an invalid acknowledgement (${parsed[0]})`
          : `${n.method} before the acknowledgement`
      return this.#finish({ error: new InvalidResultError(`subscriptions/listen: the server sent ${why}`) })
    }
    this.#acknowledged = parsed[1].params.notifications
    clearTimeout(this.#timer)
    this.#ack.resolve(this.#acknowledged)
  }

  /** Deliver `n` after the `before` hook (when there is one) of it and of every earlier notification. */
  #deliver(n: JSONRPCNotification): void {
    const before = this.#before
    if (!before) return this.#deliverNow(n)
    this.#inOrder = this.#inOrder
      .then(() => before(n))
      .catch((error: unknown) =>
        this.#warn(
          `subscription ${JSON.stringify(this.#id)}: before ${n.method}: ${error instanceof Error ? error.message : String(error)}`,
        ),
      )
      .then(() => this.#deliverNow(n))
  }

  /** Call the callbacks (a throwing one is warned about), then buffer `n` for the iterator. */
  #deliverNow(n: JSONRPCNotification): void {
    if (this.#outcome) return // ended (an abort, or the server's end once every earlier delivery was made)
    try {
      notifyCallbacks(this.#options, n)
    } catch (error) {
      this.#warn(
        `subscription ${JSON.stringify(this.#id)}: a callback for ${n.method} threw: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
    this.#queue.push(n)
    if (this.#queue.length > this.#maxBuffered) {
      this.#queue.shift()
      if (!this.#warned)
        this.#warn(
          `subscription ${JSON.stringify(this.#id)}: more than ${this.#maxBuffered} notifications unread; dropping the oldest`,
        )
      this.#warned = true
    }
    this.#wakeup.poke()
  }

  /** The buffered notifications, then the end: returns when closed or aborted, throws the error otherwise. */
  async *#iterate(): AsyncGenerator<JSONRPCNotification, void, undefined> {
    try {
      for (;;) {
        if (this.#queue.length > 0) yield this.#queue.shift()!
        else if (!this.#outcome) await this.#wakeup.changed
        else if ('error' in this.#outcome) throw this.#outcome.error
        else return
      }
    } finally {
      if (!this.#outcome) await this.#close() // the consumer left the loop early
    }
  }
}

/** Call the `ListenOptions` callbacks for `n`: its specific one, if any, then `onNotification`. */
function notifyCallbacks(options: ListenOptions, n: JSONRPCNotification): void {
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

/**
 * How the listen request's response ends the stream: the server's error, a failure when it came before
 * the acknowledgement, `'closed'` for the closing result (spec: subscriptions.mdx "Graceful Closure"),
 * else an invalid response.
 */
function endOf(response: unknown, id: RequestId, acknowledged: boolean): StreamEnd {
  const message = response as
    { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } } | undefined
  if (
    message?.error &&
    typeof message.error === 'object' &&
    Number.isInteger(message.error.code) &&
    typeof message.error.message === 'string'
  ) {
    return { error: new McpError(message.error.code as number, message.error.message, message.error.data) }
  }
  if (!acknowledged)
    return { error: new InvalidResultError('subscriptions/listen: the stream ended before the acknowledgement') }
  if (message?.id === id && typeof message.result === 'object' && message.result !== null) return { end: 'closed' }
  return { error: new InvalidResultError('subscriptions/listen: the stream ended with an invalid response') }
}

/** A promise with its settle functions. */
class Deferred<T> {
  readonly promise: Promise<T>
  resolve!: (value: T) => void
  reject!: (error: unknown) => void
  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve
      this.reject = reject
    })
  }
}

/** "Something changed" for a waiting iterator: `changed` resolves at the next `poke()`, then a new one begins. */
class Wakeup {
  #wake: () => void = () => {}
  #changed = new Promise<void>((resolve) => (this.#wake = resolve))

  get changed(): Promise<void> {
    return this.#changed
  }

  poke(): void {
    const resolve = this.#wake
    this.#changed = new Promise<void>((r) => (this.#wake = r))
    resolve()
  }
}
