/**
 * The seam between the Redis meeting points and the user's Redis client: a structural interface (no Redis
 * library is imported here), the adapter that fits the clients people use to it, and the guard that gives
 * every command a timeout and turns failures into `UpstreamError`s that say what to do.
 * @module
 */
import { UpstreamError, messageOf } from '../server/errors.ts'

/**
 * What the meeting points need of a Redis client: commands, and subscriptions to channels. Implement it to
 * bring a client `redisFleet` does not recognise; node-redis 5, ioredis 5 and Bun's `RedisClient` are fitted
 * by `redisFleet` itself.
 */
export interface RedisConnection {
  /**
   * Send one command, e.g. `['SET', key, value, 'PX', '30000']`.
   * @returns its reply as RESP2 gives it: a string, a number, null, or an array of these.
   * @throws what the client throws when Redis refuses the command or cannot be reached.
   */
  command(args: readonly string[]): Promise<unknown>
  /**
   * Receive the messages published on `channel` until the returned function is called. Resolves once Redis
   * has confirmed the subscription. `lost` is called once if the subscription ends on its own (the connection
   * dropped, Redis restarted): messages published meanwhile may have been missed, and nothing more arrives
   * through this subscription (subscribe again).
   */
  subscribe(
    channel: string,
    onMessage: (message: string) => void,
    lost: (error: Error) => void,
  ): Promise<() => Promise<void>>
  /** End what the connection opened itself (a subscriber connection); never the user's own client. */
  close?(): Promise<void>
}

/** A client `redisConnection` recognises by shape: node-redis 5, ioredis 5, Bun's `RedisClient`, or a {@link RedisConnection}. */
export type RedisClientLike = object

/** One subscriber connection of a library, fitted: everything the multiplexer needs of it. */
interface Subscriber {
  /** SUBSCRIBE `channel`, handing its messages to `deliver`; resolves once Redis confirmed it. */
  listen(channel: string, deliver: (message: string) => void): Promise<unknown>
  /** UNSUBSCRIBE `channel`. */
  unlisten(channel: string): Promise<unknown>
  /** End the connection now (nothing is delivered afterwards). */
  end(): void
}

/** Opens a subscriber connection; `lose` is to be called when it drops (once is enough; more is harmless). */
type OpenSubscriber = (lose: (error: unknown) => void) => Promise<Subscriber>

// The shapes of the libraries, as far as they are used here (no library is imported).
type Listener = (...args: never[]) => void
interface Emitter {
  on(event: string, listener: Listener): unknown
}
interface NodeRedis extends Emitter {
  sendCommand(args: string[]): Promise<unknown>
  duplicate(): NodeRedis & {
    connect(): Promise<unknown>
    destroy(): void
    subscribe(channel: string, listener: (message: string) => void): Promise<unknown>
    unsubscribe(channel: string, listener?: (message: string) => void): Promise<unknown>
  }
  options?: { url?: string; socket?: { host?: string; port?: number; path?: string } }
}
interface IoRedis extends Emitter {
  call(command: string, ...args: string[]): Promise<unknown>
  duplicate(): IoRedis & {
    status: string
    connect(): Promise<unknown>
    disconnect(): void
    subscribe(channel: string): Promise<unknown>
    unsubscribe(channel: string): Promise<unknown>
  }
  options?: { host?: string; port?: number; path?: string }
}
interface BunRedis {
  send(command: string, args: string[]): Promise<unknown>
  duplicate(): BunRedis | Promise<BunRedis>
  connected?: boolean
  connect?(): Promise<unknown>
  close?(): void
  onclose?: ((error?: unknown) => void) | null
  onconnect?: (() => void) | null
  subscribe?(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>
  unsubscribe?(channel: string): Promise<unknown>
}

const has = (value: object, name: string) => typeof (value as Record<string, unknown>)[name] === 'function'

/**
 * `client` as a {@link RedisConnection}, by its shape: a `RedisConnection` as is, node-redis 5 (`sendCommand`), ioredis 5 (`call`) or Bun's `RedisClient` (`send`). Subscriptions
 * share one subscriber connection (the client's `duplicate()`), opened at the first `subscribe`; when it
 * drops, every live subscription's `lost` is called, it is ended (nothing is delivered afterwards, even by
 * a library that resubscribes on its own) and the next `subscribe` opens a new one. `close()` ends only it.
 * @param connectTimeoutMs - how long opening the subscriber connection may take, in **milliseconds**.
 * @returns the connection, and `address` (`host:port`, no credentials) when the client tells it.
 * @throws TypeError for a client of none of these shapes.
 */
export function redisConnection(
  client: RedisClientLike | RedisConnection,
  connectTimeoutMs = 5_000,
): RedisConnection & { readonly address?: string } {
  let command: RedisConnection['command']
  let open: OpenSubscriber
  let address: string | undefined
  if (has(client, 'call') && has(client, 'duplicate')) {
    const io = client as IoRedis
    command = (args) => io.call(args[0]!, ...args.slice(1))
    open = (lose) => openIoRedis(io, lose, connectTimeoutMs)
    address = hostPort(io.options?.path ?? io.options?.host, io.options?.port)
  } else if (has(client, 'sendCommand') && has(client, 'duplicate')) {
    const nr = client as NodeRedis
    command = (args) => nr.sendCommand([...args])
    open = (lose) => openNodeRedis(nr, lose, connectTimeoutMs)
    const socket = nr.options?.socket
    address = urlAddress(nr.options?.url) ?? hostPort(socket?.path ?? socket?.host, socket?.port)
  } else if (has(client, 'send') && has(client, 'duplicate')) {
    const bun = client as BunRedis
    command = (args) => bun.send(args[0]!, args.slice(1))
    open = (lose) => openBun(bun, lose, connectTimeoutMs)
  } else if (has(client, 'command') && has(client, 'subscribe')) {
    // checked last: node-redis and ioredis have methods of these names too (COMMAND, SUBSCRIBE)
    const given = client as RedisConnection
    return { command: (args) => given.command(args), subscribe: (...a) => given.subscribe(...a) }
  } else {
    throw new TypeError(
      'not a Redis client edge-mcp/redis knows: pass a connected node-redis 5 client (createClient), an ioredis 5 ' +
        'client (new Redis), a Bun RedisClient, or an object with command(args) and subscribe(channel, onMessage, lost)',
    )
  }
  return { command, ...multiplexed(open), ...(address !== undefined && { address }) }
}

/** Subscriptions multiplexed over one lazily opened subscriber connection (see {@link redisConnection}). */
function multiplexed(open: OpenSubscriber): Pick<RedisConnection, 'subscribe' | 'close'> {
  interface Handler {
    onMessage: (message: string) => void
    lost: (error: Error) => void
  }
  interface Generation {
    subscriber: Promise<Subscriber>
    channels: Map<string, { handlers: Set<Handler>; ready: Promise<unknown> }>
    dead?: Error
  }
  let current: Generation | undefined
  let closed = false
  const deadOf = (gen: Generation) => gen.dead
  const kill = (gen: Generation, error: Error) => {
    if (gen.dead) return
    gen.dead = error
    if (current === gen) current = undefined
    const handlers = [...gen.channels.values()].flatMap((c) => [...c.handlers])
    gen.channels.clear()
    for (const handler of handlers) {
      try {
        handler.lost(error)
      } catch {
        // one handler's failure does not keep the others from hearing
      }
    }
    gen.subscriber.then(
      (s) => s.end(),
      () => {},
    )
  }
  const generation = (): Generation => {
    const gen: Generation = { subscriber: undefined!, channels: new Map() }
    gen.subscriber = open((cause) =>
      kill(gen, new UpstreamError(`lost the Redis subscriber connection (${messageOf(cause)})`, { cause })),
    )
    gen.subscriber.catch((cause: unknown) => {
      if (current === gen) current = undefined // the next subscribe tries again
      gen.dead ??= cause instanceof Error ? cause : new Error(String(cause))
    })
    return gen
  }
  return {
    async subscribe(channel, onMessage, lost) {
      for (;;) {
        // not Redis's failure: the guard passes it on as it is (no "is Redis reachable?")
        if (closed) throw new UpstreamError('Redis subscriptions are closed here: the instance is shutting down')
        const gen = (current ??= generation())
        const subscriber = await gen.subscriber
        if (gen.dead) throw gen.dead
        let entry = gen.channels.get(channel)
        if (!entry) {
          const handlers = new Set<Handler>()
          const deliver = (message: string) => {
            if (gen.dead) return
            for (const handler of [...handlers]) {
              try {
                handler.onMessage(message)
              } catch {
                // one handler's failure does not keep the others from hearing
              }
            }
          }
          const created = { handlers, ready: subscriber.listen(channel, deliver) }
          entry = created
          gen.channels.set(channel, created)
          created.ready.catch(() => {
            if (gen.channels.get(channel) === created && created.handlers.size === 0) gen.channels.delete(channel)
          })
        }
        await entry.ready
        const dead = deadOf(gen) // it may have dropped meanwhile
        if (dead) throw dead
        // its last handler unsubscribed meanwhile (the channel is being unsubscribed): subscribe anew
        if (gen.channels.get(channel) !== entry) continue
        const handler: Handler = { onMessage, lost }
        entry.handlers.add(handler)
        const subscribed = entry
        return async () => {
          if (!subscribed.handlers.delete(handler) || subscribed.handlers.size > 0 || gen.dead) return
          if (gen.channels.get(channel) !== subscribed) return
          gen.channels.delete(channel)
          await subscriber.unlisten(channel)
        }
      }
    },
    close() {
      closed = true
      if (current) kill(current, new UpstreamError('the Redis connection was closed'))
      return Promise.resolve()
    },
  }
}

/**
 * What `pending` settles with, or a rejection with `error()` once `ms` **milliseconds** have passed, whichever
 * is first (the timer is cleared either way).
 */
export function within<T>(pending: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error()), ms)
  })
  return Promise.race([pending, timeout]).finally(() => clearTimeout(timer))
}

async function openNodeRedis(client: NodeRedis, lose: (error: unknown) => void, ms: number): Promise<Subscriber> {
  const sub = client.duplicate()
  let ready = false
  let last: unknown
  // node-redis emits 'error' for each failed attempt and keeps reconnecting: an 'error' listener is required
  sub.on('error', (error: unknown) => (ready ? lose(error) : (last = error)))
  sub.on('reconnecting', () => ready && lose(new Error('reconnecting')))
  sub.on('end', () => ready && lose(new Error('the connection ended')))
  const end = () => {
    try {
      sub.destroy()
    } catch {
      // already closed
    }
  }
  try {
    // node-redis retries a refused connection until it works: bounded here
    await within(sub.connect(), ms, () => new Error(`could not connect within ${ms} ms (${messageOf(last)})`))
  } catch (error) {
    end()
    throw error
  }
  ready = true
  const listeners = new Map<string, (message: string) => void>()
  return {
    listen: (channel, deliver) => {
      listeners.set(channel, deliver)
      return sub.subscribe(channel, deliver)
    },
    unlisten: (channel) => sub.unsubscribe(channel, listeners.get(channel)),
    end,
  }
}

async function openIoRedis(client: IoRedis, lose: (error: unknown) => void, ms: number): Promise<Subscriber> {
  const sub = client.duplicate()
  let ready = false
  let last: unknown
  const handlers = new Map<string, (message: string) => void>()
  sub.on('error', (error: unknown) => (last = error)) // followed by 'close' when it drops the connection
  sub.on('close', () => ready && lose(last ?? new Error('the connection closed')))
  sub.on('reconnecting', () => ready && lose(new Error('reconnecting')))
  sub.on('end', () => ready && lose(new Error('the connection ended')))
  sub.on('message', (channel: string, message: string) => handlers.get(channel)?.(message))
  const end = () => sub.disconnect()
  try {
    if (sub.status === 'wait') void sub.connect().catch(() => {}) // lazyConnect
    if (sub.status !== 'ready') {
      const connected = new Promise((resolve) => sub.on('ready', resolve))
      await within(connected, ms, () => new Error(`could not connect within ${ms} ms (${messageOf(last)})`))
    }
  } catch (error) {
    end()
    throw error
  }
  ready = true
  return {
    listen: (channel, deliver) => {
      handlers.set(channel, deliver)
      return sub.subscribe(channel)
    },
    unlisten: (channel) => {
      handlers.delete(channel)
      return sub.unsubscribe(channel)
    },
    end,
  }
}

async function openBun(client: BunRedis, lose: (error: unknown) => void, ms: number): Promise<Subscriber> {
  let sub: BunRedis | undefined
  const close = () => {
    try {
      sub?.close?.()
    } catch {
      // already closed
    }
  }
  try {
    await within(
      (async () => {
        sub = await client.duplicate()
        if (sub.connected === false) await sub.connect?.()
      })(),
      ms,
      () => new Error(`could not connect within ${ms} ms`),
    )
  } catch (error) {
    close()
    throw error
  }
  const s = sub!
  // Bun 1.4 calls no onclose when the connection drops: it reconnects on its own, without the subscriptions,
  // and calls onconnect. So a drop is seen by `connected` turning false (looked at every 250 ms) or by onconnect.
  s.onclose = (error) => lose(error ?? new Error('the connection closed'))
  s.onconnect = () => lose(new Error('the connection was re-established without its subscriptions'))
  const watch = setInterval(() => s.connected === false && lose(new Error('the connection dropped')), 250)
  ;(watch as { unref?: () => void }).unref?.() // a watch does not keep the process alive
  return {
    listen: (channel, deliver) => s.subscribe!(channel, (message) => deliver(message)),
    unlisten: (channel) => s.unsubscribe!(channel),
    end: () => {
      clearInterval(watch)
      close()
    },
  }
}

function hostPort(host: string | undefined, port: number | undefined): string | undefined {
  if (host === undefined) return undefined
  return port === undefined || host.startsWith('/') ? host : `${host}:${port}`
}

function urlAddress(url: string | undefined): string | undefined {
  if (url === undefined) return undefined
  try {
    const parsed = new URL(url)
    return parsed.host || undefined // never the credentials
  } catch {
    return undefined
  }
}

/** Options of {@link guardedConnection}. */
export interface GuardOptions {
  /** How long a command (or a subscription) may take, in **milliseconds**. */
  timeoutMs: number
  /** Where Redis is (`host:port`), for the messages; omitted when unknown. */
  address?: string | undefined
}

/**
 * `conn` with every command and subscription bounded by `timeoutMs` (node-redis queues commands while it is
 * disconnected: without this they would wait for Redis to come back), and every failure an `UpstreamError`
 * (`ERR_UPSTREAM`) whose message names Redis and the command's name — never its arguments, which hold
 * answers — and says what to do. A subscription confirmed after its timeout is ended at once.
 */
export function guardedConnection(conn: RedisConnection, options: GuardOptions): RedisConnection {
  const { timeoutMs } = options
  const at = options.address !== undefined ? ` at ${options.address}` : ''
  const failure = (name: string, cause: unknown) =>
    cause instanceof UpstreamError && cause.message.startsWith('Redis')
      ? cause
      : new UpstreamError(
          `Redis${at} failed ${name} (${messageOf(cause).slice(0, 200)}): is Redis reachable and healthy? ` +
            'The request can be retried',
          { cause },
        )
  const late = (name: string) =>
    new UpstreamError(
      `Redis${at} did not answer ${name} within ${timeoutMs} ms: is Redis reachable? The request can be retried`,
    )
  const guarded: RedisConnection = {
    async command(args) {
      const name = String(args[0] ?? '').toUpperCase()
      let pending: Promise<unknown>
      try {
        pending = conn.command(args)
      } catch (cause) {
        throw failure(name, cause)
      }
      pending.catch(() => {}) // a late failure after the timeout is nobody's
      return within(pending, timeoutMs, () => late(name)).catch((cause: unknown) => {
        throw failure(name, cause)
      })
    },
    async subscribe(channel, onMessage, lost) {
      let timedOut = false // then the caller has given up: it hears nothing more
      const pending = Promise.resolve().then(() =>
        conn.subscribe(
          channel,
          (message) => {
            if (!timedOut) onMessage(message)
          },
          (error) => {
            if (!timedOut) lost(error)
          },
        ),
      )
      pending.then(
        (unsubscribe) => {
          if (timedOut) unsubscribe().catch(() => {})
        },
        () => {},
      )
      return within(pending, timeoutMs, () => ((timedOut = true), late('SUBSCRIBE'))).catch((cause: unknown) => {
        throw failure('SUBSCRIBE', cause)
      })
    },
  }
  if (conn.close) guarded.close = () => conn.close!()
  return guarded
}
